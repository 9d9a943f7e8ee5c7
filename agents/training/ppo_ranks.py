"""MaskablePPO's update on several ranks (`morty train` under torchrun).

`DistributedDataParallel` does not fit SB3: it averages gradients in the backward pass of a
module's `forward()`, while MaskablePPO's update calls `policy.evaluate_actions()` and owns
the loop from the loss to the optimizer step. So `update_on_ranks` is MaskablePPO's own
`train()` (sb3-contrib 2.x) with the ranks in the two places they change it:

- after `loss.backward()` each rank's gradients become the ranks' mean (one all-reduce),
  and the clipping to `max_grad_norm` then reads that mean, as under DDP;
- the early stop at `target_kl` reads the ranks' mean KL of the minibatch, so that every
  rank stops at the same minibatch (a rank that stopped alone would leave the others
  waiting in their next all-reduce).

What stays per rank, as under DDP: the rollout buffer (each rank's own games), its
advantages and returns, each minibatch's advantage normalisation (the mean and standard
deviation of the rank's own minibatch), and the statistics logged (rank 0's).
"""

from __future__ import annotations

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from stable_baselines3.common.utils import explained_variance
from torch.nn import functional as F

from agents.training.distributed import Ranks


def update_on_ranks(model: MaskablePPO, ranks: Ranks) -> None:
    """One PPO update of `model` on its rank's rollout buffer, in step with the other ranks
    (module doc): MaskablePPO.train with the two collective steps marked below."""
    model.policy.set_training_mode(True)
    model._update_learning_rate(model.policy.optimizer)
    clip_range = model.clip_range(model._current_progress_remaining)
    if model.clip_range_vf is not None:
        clip_range_vf = model.clip_range_vf(model._current_progress_remaining)
    entropy_losses, pg_losses, value_losses, clip_fractions = [], [], [], []
    approx_kl_divs: list[float] = []
    continue_training = True
    for _ in range(model.n_epochs):
        approx_kl_divs = []
        for rollout_data in model.rollout_buffer.get(model.batch_size):
            actions = rollout_data.actions
            if isinstance(model.action_space, spaces.Discrete):
                actions = rollout_data.actions.long().flatten()
            values, log_prob, entropy = model.policy.evaluate_actions(
                rollout_data.observations, actions, action_masks=rollout_data.action_masks
            )
            values = values.flatten()
            advantages = rollout_data.advantages
            if model.normalize_advantage:  # this rank's minibatch, as DDP would
                advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
            ratio = torch.exp(log_prob - rollout_data.old_log_prob)
            policy_loss_1 = advantages * ratio
            policy_loss_2 = advantages * torch.clamp(ratio, 1 - clip_range, 1 + clip_range)
            policy_loss = -torch.min(policy_loss_1, policy_loss_2).mean()
            pg_losses.append(policy_loss.item())
            clip_fractions.append(torch.mean((torch.abs(ratio - 1) > clip_range).float()).item())
            if model.clip_range_vf is None:
                values_pred = values
            else:
                values_pred = rollout_data.old_values + torch.clamp(
                    values - rollout_data.old_values, -clip_range_vf, clip_range_vf
                )
            value_loss = F.mse_loss(rollout_data.returns, values_pred)
            value_losses.append(value_loss.item())
            entropy_loss = -torch.mean(-log_prob) if entropy is None else -torch.mean(entropy)
            entropy_losses.append(entropy_loss.item())
            loss = policy_loss + model.ent_coef * entropy_loss + model.vf_coef * value_loss
            with torch.no_grad():
                log_ratio = log_prob - rollout_data.old_log_prob
                approx_kl_div = torch.mean((torch.exp(log_ratio) - 1) - log_ratio).item()
            approx_kl_div = ranks.mean(approx_kl_div)  # (1) every rank stops alike
            approx_kl_divs.append(approx_kl_div)
            if model.target_kl is not None and approx_kl_div > 1.5 * model.target_kl:
                continue_training = False
                break
            model.policy.optimizer.zero_grad()
            loss.backward()
            ranks.average_gradients(model.policy.parameters())  # (2) the ranks' mean
            torch.nn.utils.clip_grad_norm_(model.policy.parameters(), model.max_grad_norm)
            model.policy.optimizer.step()
        model._n_updates += 1
        if not continue_training:
            break
    buffer = model.rollout_buffer
    explained_var = explained_variance(buffer.values.flatten(), buffer.returns.flatten())
    record = model.logger.record
    record("train/entropy_loss", np.mean(entropy_losses))
    record("train/policy_gradient_loss", np.mean(pg_losses))
    record("train/value_loss", np.mean(value_losses))
    record("train/approx_kl", np.mean(approx_kl_divs))
    record("train/clip_fraction", np.mean(clip_fractions))
    record("train/loss", loss.item())
    record("train/explained_variance", explained_var)
    record("train/n_updates", model._n_updates, exclude="tensorboard")
    record("train/clip_range", clip_range)
    if model.clip_range_vf is not None:
        record("train/clip_range_vf", clip_range_vf)
