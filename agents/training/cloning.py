"""`morty train`'s warm start: the teacher's games, and a policy cloned from them.

`collect_demonstrations` has the teacher play every seat of its games and keeps each
decision's policy input, mask, move and the seat's discounted final reward;
`behaviour_clone` fits the value head to those returns and, for a policy without the
heuristic prior, the policy to the teacher's moves (a policy with the prior already starts
at the teacher, so only its critic is fit: PPO's first advantages are then not noise).
"""

from __future__ import annotations

import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

from agents import Agent
from agents.nets.prior import HeuristicPrior
from agents.training.selfplay import teacher_moves
from mortyenv.engine import BatchEngine
from mortyenv.envs.observation import observation_encoder
from mortyenv.envs.rewards import final_rewards


def collect_demonstrations(
    engine: BatchEngine,
    teacher: Agent,
    games: int,
    reward: str,
    gamma: float,
    seed: int,
    prior: HeuristicPrior | None = None,
) -> dict[str, np.ndarray]:
    """The teacher plays every seat of `games` games; returns each decision's policy input
    (observation from the deciding seat, then the prior if any), mask, action and the
    discounted final reward of that seat."""
    encoder = observation_encoder(engine.rules, engine.num_players)
    choose = teacher_moves(engine, teacher)
    state = engine.reset(batch_size=games, seed=seed)
    obs, masks, actions, game_of, seat_of = [], [], [], [], []
    while not engine.is_over(state).all():
        live = np.flatnonzero(~engine.is_over(state))
        seats = engine.current_player(state)[live]
        mask = engine.legal_action_mask(state)
        chosen = np.full(state.batch_size, engine.codec.pass_action, dtype=np.int64)
        chosen[live], _ = choose(state, live, mask[live])
        seen = encoder.encode(state, seats, games=live)
        if prior is not None:
            seen = np.concatenate([seen, prior(engine, state, live, mask[live])], axis=1)
        obs.append(seen.astype(np.float16))
        masks.append(mask[live])
        actions.append(chosen[live])
        game_of.append(live)
        seat_of.append(seats)
        engine.step(state, chosen)
    game = np.concatenate(game_of)
    seat = np.concatenate(seat_of)
    final = final_rewards(engine, state, reward)[game, seat]
    # decisions still to come for the same (game, seat): the discount of the final reward
    key = game * engine.num_players + seat
    order = np.argsort(key, kind="stable")
    counts = np.bincount(key, minlength=games * engine.num_players)
    index_in_seat = np.empty(len(key), dtype=np.int64)
    index_in_seat[order] = np.arange(len(key)) - np.repeat(np.cumsum(counts) - counts, counts)
    remaining = counts[key] - 1 - index_in_seat
    return {
        "obs": np.concatenate(obs),
        "masks": np.concatenate(masks),
        "actions": np.concatenate(actions),
        "returns": (final * gamma**remaining).astype(np.float32),
    }


def behaviour_clone(
    policy: MaskableActorCriticPolicy,
    data: dict[str, np.ndarray],
    epochs: int,
    batch_size: int,
    learning_rate: float,
    vf_coef: float,
    rng: np.random.Generator,
    actor: bool = True,
) -> dict[str, float]:
    """Fit the value head to the returns and, if `actor`, the policy to the teacher's moves
    (a policy with the heuristic prior already starts at the teacher: only its critic is
    fit, so that PPO's first advantages are not noise)."""
    n = len(data["actions"])
    held = rng.permutation(n)
    test, train = held[: n // 10], held[n // 10 :]
    params = [p for name, p in policy.named_parameters() if actor or "value_net" in name]
    optimizer = torch.optim.Adam(params, lr=learning_rate)

    def tensors(idx: np.ndarray) -> tuple[torch.Tensor, ...]:
        """A minibatch on the policy's device."""
        device = policy.device
        return (
            torch.as_tensor(data["obs"][idx], dtype=torch.float32, device=device),
            torch.as_tensor(data["actions"][idx], device=device),
            torch.as_tensor(data["masks"][idx], device=device),
            torch.as_tensor(data["returns"][idx], device=device),
        )

    policy.set_training_mode(True)
    for _ in range(epochs):
        order = rng.permutation(train)
        for lo in range(0, len(order), batch_size):
            obs, act, mask, ret = tensors(order[lo : lo + batch_size])
            values, log_prob, _ = policy.evaluate_actions(obs, act, mask)
            loss = vf_coef * torch.nn.functional.mse_loss(values[:, 0], ret)
            if actor:
                loss = loss - log_prob.mean()
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 0.5)
            optimizer.step()
    policy.set_training_mode(False)
    with torch.no_grad():
        obs, act, mask, ret = tensors(test)
        values, log_prob, _ = policy.evaluate_actions(obs, act, mask)
        dist = policy.get_distribution(obs, data["masks"][test])
        agree = (dist.get_actions(deterministic=True) == act).float().mean()
    return {
        "bc/samples": float(len(train)),
        "bc/test_nll": float(-log_prob.mean()),
        "bc/test_agreement": float(agree),
        "bc/test_value_mse": float(torch.nn.functional.mse_loss(values[:, 0], ret)),
    }
