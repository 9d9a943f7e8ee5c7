"""Masked PPO in one file (CleanRL style, plain torch) on `gymnasium.make_vec`.

The whole algorithm is in this file, to be read and changed: a batch of games from
``gymnasium.make_vec("mortyenv/MortySorty-v1", num_envs=N)`` (the native `MortyVectorEnv`),
the legal-action mask of every observation from ``infos["action_mask"]``, a policy whose
illegal logits are masked out before sampling, GAE, the clipped objective. The env is made
with ``autoreset_mode="SameStep"``: an ended game is dealt again within the step that ended
it, so every step of the rollout is a real decision and CleanRL's `dones` logic applies as
it is (with Gymnasium's default, NEXT_STEP, a trainer must drop the reset steps instead).

    python experiments/ppo_vector.py --minutes 10 --out runs/ppo_vector
    python experiments/ppo_vector.py --total-steps 20000 --num-envs 64   # a short run

Every `--eval-every` updates the greedy policy (masked argmax) plays `--eval-games` games as
the learner against `random` and `greedy` (`agents.make_agent`), and the win rates are
printed and written to `progress.csv` with the wall time.
"""

from __future__ import annotations

import argparse
import csv
import time
from pathlib import Path

import gymnasium
import numpy as np
import torch
from torch import nn

import mortyenv  # noqa: F401  (registers mortyenv/MortySorty-v1)

NEG = -1e9  # the logit of an illegal action


class Agent(nn.Module):
    """An MLP policy (masked logits over the actions) and value, sharing no layers."""

    def __init__(self, obs_size: int, actions: int, hidden: int):
        super().__init__()

        def mlp(out: int, gain: float) -> nn.Sequential:
            layers = [nn.Linear(obs_size, hidden), nn.Tanh(), nn.Linear(hidden, hidden)]
            layers += [nn.Tanh(), nn.Linear(hidden, out)]
            for layer in layers[::2]:
                nn.init.orthogonal_(layer.weight, np.sqrt(2))
                nn.init.zeros_(layer.bias)
            nn.init.orthogonal_(layers[-1].weight, gain)
            return nn.Sequential(*layers)

        self.actor, self.critic = mlp(actions, 0.01), mlp(1, 1.0)

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.critic(obs).squeeze(-1)

    def act(
        self, obs: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """(action, its log-probability, the entropy, the value); illegal actions have
        probability 0."""
        logits = self.actor(obs).masked_fill(~mask, NEG)
        dist = torch.distributions.Categorical(logits=logits)
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.value(obs)

    def greedy(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The masked argmax: the policy's best legal action per row."""
        with torch.no_grad():
            logits = self.actor(torch.as_tensor(obs)).masked_fill(~torch.as_tensor(mask), NEG)
        return logits.argmax(-1).numpy()


def win_rate(agent: Agent, opponent: str, args: argparse.Namespace, seed: int) -> float:
    """Share of `args.eval_games` games the greedy policy wins against `opponent` (a shared
    victory counts half), one game per env."""
    from agents import make_agent

    rival = make_agent(opponent, num_players=args.players, seed=seed)
    envs = gymnasium.make_vec(
        "mortyenv/MortySorty-v1", num_envs=args.eval_games, num_players=args.players,
        opponents=rival, autoreset_mode="SameStep",
    )  # fmt: skip
    obs, infos = envs.reset(seed=seed)
    result = np.full(args.eval_games, np.nan)
    while np.isnan(result).any():
        obs, _, terminated, _, infos = envs.step(agent.greedy(obs, infos["action_mask"]))
        first = terminated & np.isnan(result)
        result[first] = infos["won"][first] if first.any() else result[first]
    return float(result.mean())


def evaluate(
    agent: Agent, args: argparse.Namespace, update: int, steps: int, seconds: float
) -> dict[str, float]:
    """One row of the log: win rates against random and greedy, printed."""
    row = {"update": update, "steps": steps, "seconds": seconds}
    for rival in ("random", "greedy"):
        row[f"vs_{rival}"] = win_rate(agent, rival, args, seed=args.seed + update)
    print(
        f"update {update:4d}  steps {steps:9,d}  {seconds:6.0f} s  "
        f"vs random {row['vs_random']:.3f}  vs greedy {row['vs_greedy']:.3f}",
        flush=True,
    )
    return row


def train(args: argparse.Namespace) -> list[dict[str, float]]:
    """Train for `args.minutes` or `args.total_steps`, whichever ends first; the log rows."""
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    envs = gymnasium.make_vec(
        "mortyenv/MortySorty-v1", num_envs=args.num_envs, num_players=args.players,
        opponents=args.opponent, autoreset_mode="SameStep",
    )  # fmt: skip
    n, steps = args.num_envs, args.num_steps
    obs_size = envs.single_observation_space.shape[0]
    actions_n = int(envs.single_action_space.n)
    agent = Agent(obs_size, actions_n, args.hidden)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.lr, eps=1e-5)
    buf_obs = torch.zeros((steps, n, obs_size))
    buf_mask = torch.zeros((steps, n, actions_n), dtype=torch.bool)
    buf_action, buf_logprob, buf_reward, buf_done, buf_value = (
        torch.zeros((steps, n)) for _ in range(5)
    )
    obs, infos = envs.reset(seed=args.seed)
    next_obs, next_mask = torch.as_tensor(obs), torch.as_tensor(infos["action_mask"])
    next_done = torch.zeros(n)
    log: list[dict[str, float]] = []
    start, done_steps, update = time.perf_counter(), 0, 0
    while done_steps < args.total_steps and time.perf_counter() - start < 60 * args.minutes:
        update += 1
        for t in range(steps):  # the rollout
            buf_obs[t], buf_mask[t], buf_done[t] = next_obs, next_mask, next_done
            with torch.no_grad():
                action, logprob, _, value = agent.act(next_obs, next_mask)
            buf_action[t], buf_logprob[t], buf_value[t] = action, logprob, value
            obs, reward, terminated, truncated, infos = envs.step(action.numpy())
            buf_reward[t] = torch.as_tensor(reward, dtype=torch.float32)
            next_obs, next_mask = torch.as_tensor(obs), torch.as_tensor(infos["action_mask"])
            next_done = torch.as_tensor(terminated | truncated, dtype=torch.float32)
        done_steps += steps * n
        with torch.no_grad():  # generalised advantage estimation
            advantages = torch.zeros((steps, n))
            last, next_value = torch.zeros(n), agent.value(next_obs)
            for t in reversed(range(steps)):
                alive = 1.0 - (next_done if t == steps - 1 else buf_done[t + 1])
                later = next_value if t == steps - 1 else buf_value[t + 1]
                delta = buf_reward[t] + args.gamma * later * alive - buf_value[t]
                last = delta + args.gamma * args.gae_lambda * alive * last
                advantages[t] = last
            returns = advantages + buf_value
        b_obs, b_mask = buf_obs.reshape(-1, obs_size), buf_mask.reshape(-1, actions_n)
        b_action, b_logprob = buf_action.reshape(-1).long(), buf_logprob.reshape(-1)
        b_adv, b_ret = advantages.reshape(-1), returns.reshape(-1)
        batch, minibatch = steps * n, steps * n // args.minibatches
        for _ in range(args.epochs):  # the clipped objective, in minibatches
            for idx in torch.randperm(batch).split(minibatch):
                _, logprob, entropy, value = agent.act(b_obs[idx], b_mask[idx], b_action[idx])
                ratio = (logprob - b_logprob[idx]).exp()
                adv = (b_adv[idx] - b_adv[idx].mean()) / (b_adv[idx].std() + 1e-8)
                clipped = ratio.clamp(1 - args.clip, 1 + args.clip)
                policy_loss = torch.max(-adv * ratio, -adv * clipped).mean()
                value_loss = 0.5 * ((value - b_ret[idx]) ** 2).mean()
                loss = policy_loss - args.ent_coef * entropy.mean() + args.vf_coef * value_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()
        if update % args.eval_every == 0:
            log.append(evaluate(agent, args, update, done_steps, time.perf_counter() - start))
    if not log or log[-1]["update"] != update:  # the last update is always evaluated
        log.append(evaluate(agent, args, update, done_steps, time.perf_counter() - start))
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        torch.save(agent.state_dict(), out / "agent.pt")
        with (out / "progress.csv").open("w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(log[0]) if log else ["update"])
            writer.writeheader()
            writer.writerows(log)
    return log


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name, kind, default in [
        ("--num-envs", int, 256), ("--num-steps", int, 32), ("--total-steps", int, 10**9),
        ("--minutes", float, 10.0), ("--players", int, 2), ("--opponent", str, "random"),
        ("--hidden", int, 256), ("--lr", float, 2.5e-4), ("--gamma", float, 0.995),
        ("--gae-lambda", float, 0.95), ("--minibatches", int, 4), ("--epochs", int, 4),
        ("--clip", float, 0.2), ("--ent-coef", float, 0.01), ("--vf-coef", float, 0.5),
        ("--max-grad-norm", float, 0.5), ("--eval-every", int, 10), ("--eval-games", int, 200),
        ("--seed", int, 0), ("--threads", int, 2), ("--out", str, ""),
    ]:  # fmt: skip
        p.add_argument(name, type=kind, default=default)
    return p.parse_args(argv)


if __name__ == "__main__":
    train(parse())
