"""Run under torchrun by tests/agents/test_distributed.py: each of 2 ranks takes a learning
step on its half of a batch, with the trainers' gradient averaging, and writes its weights;
rank 0 also takes the step of one process on the whole batch (and on its half alone,
without the ranks), so that the test compares them all in one file:

    python -m torch.distributed.run --standalone --nproc_per_node 2 tests/rank_steps.py OUT

Both trainers: experiments/examples/ppo_vector.py (its Agent, its clipped objective and its
`average_gradients`) and `morty train` (MortyPPO's update, `agents.training.ppo_ranks`, on
halves of one rollout of sb3-contrib's masked test env). Advantage normalisation is per
rank's minibatch, as under DistributedDataParallel, so these steps leave it out: with it,
two halves are not the whole batch.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import torch
from experiment_scripts import load_script

from agents.training import distributed
from agents.training.distributed import Ranks

HALF = 16  # positions (ppo_vector) or envs x steps (morty train) per rank


# ---------------------------------------------------------------- ppo_vector
def vector_batch() -> dict[str, torch.Tensor]:
    """A made-up batch of 2 * HALF positions with 1 to 4 legal rows each (fixed seed)."""
    rng = torch.Generator().manual_seed(0)
    n = 2 * HALF
    counts = torch.randint(1, 5, (n,), generator=rng)
    first = torch.cumsum(counts, 0) - counts
    return {
        "obs": torch.randn(n, 12, generator=rng),
        "rows": torch.randn(int(counts.sum()), 5, generator=rng),
        "counts": counts,
        "chosen": first + (torch.rand(n, generator=rng) * counts).long(),
        "logprob": -torch.rand(n, generator=rng) - 0.5,
        "adv": torch.randn(n, generator=rng),
        "ret": torch.randn(n, generator=rng),
    }


def vector_steps(positions: range, world: int, epochs: int = 3) -> dict[str, torch.Tensor]:
    """ppo_vector's Agent after `epochs` steps of its objective on `positions` of the batch
    (its gradients averaged over `world` ranks when world > 1)."""
    ppo_vector = load_script("experiments/examples/ppo_vector.py")
    batch = vector_batch()
    counts = batch["counts"]
    first = torch.cumsum(counts, 0) - counts
    idx = torch.tensor(list(positions))
    rows = torch.cat([batch["rows"][first[i] : first[i] + counts[i]] for i in idx.tolist()])
    position = torch.repeat_interleave(torch.arange(len(idx)), counts[idx])
    local = torch.cumsum(counts[idx], 0) - counts[idx]
    chosen = local + batch["chosen"][idx] - first[idx]
    torch.manual_seed(1)
    agent = ppo_vector.Agent(12, 5, hidden=16)
    optimizer = torch.optim.Adam(agent.parameters(), lr=1e-2, eps=1e-5)
    for _ in range(epochs):
        _, logprob, entropy, value = agent.act(batch["obs"][idx], rows, position, chosen)
        ratio = (logprob - batch["logprob"][idx]).exp()
        adv = batch["adv"][idx]
        policy_loss = torch.max(-adv * ratio, -adv * ratio.clamp(0.8, 1.2)).mean()
        value_loss = 0.5 * ((value - batch["ret"][idx]) ** 2).mean()
        loss = policy_loss - 0.01 * entropy.mean() + 0.5 * value_loss
        optimizer.zero_grad()
        loss.backward()
        if world > 1:
            ppo_vector.average_gradients(agent, world)
        torch.nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
        optimizer.step()
    return {k: v.detach().clone() for k, v in agent.state_dict().items()}


# ---------------------------------------------------------------- morty train
def sb3_steps(envs: slice, ranks: Ranks | None) -> dict[str, torch.Tensor]:
    """MortyPPO's policy after one update (3 epochs of one minibatch) on the games `envs`
    of one rollout of 4 games x 8 steps: MaskablePPO's own `train()` without ranks, the
    ranks' update (`ppo_ranks`) with them."""
    from sb3_contrib.common.envs import InvalidActionEnvDiscrete
    from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from stable_baselines3.common.vec_env import DummyVecEnv

    from agents.training.ppo import MortyPPO

    def game(i: int) -> Callable[[], InvalidActionEnvDiscrete]:
        def make() -> InvalidActionEnvDiscrete:
            env = InvalidActionEnvDiscrete(dim=6, n_invalid_actions=2)
            env.action_space.seed(i)  # its states are the space's samples: the same everywhere
            return env

        return make

    env = DummyVecEnv([game(i) for i in range(4)])
    model = MortyPPO(
        MaskableActorCriticPolicy,
        env,
        n_steps=8,
        batch_size=8 * (envs.stop - envs.start),
        n_epochs=3,
        learning_rate=1e-2,
        normalize_advantage=False,
        target_kl=None,
        policy_kwargs={"net_arch": [16]},
        seed=0,
        device="cpu",
    )
    _, callback = model._setup_learn(32, callback=None)
    model.collect_rollouts(model.env, callback, model.rollout_buffer, model.n_steps)
    whole = model.rollout_buffer
    part = MaskableRolloutBuffer(
        8, env.observation_space, env.action_space, "cpu", n_envs=envs.stop - envs.start
    )
    for name in ("observations", "actions", "rewards", "returns", "episode_starts", "values",
                 "log_probs", "advantages", "action_masks"):  # fmt: skip
        setattr(part, name, getattr(whole, name)[:, envs].copy())
    part.full = True
    model.rollout_buffer, model.ranks = part, ranks
    model.train()
    return {k: v.detach().clone() for k, v in model.policy.state_dict().items()}


def main(out: Path) -> None:
    torch.set_num_threads(1)
    ranks = distributed.start(torch.device("cpu"))
    assert ranks is not None and ranks.size == 2, "run me under torchrun with 2 ranks"
    mine = range(ranks.rank * HALF, (ranks.rank + 1) * HALF)
    games = slice(2 * ranks.rank, 2 * ranks.rank + 2)
    result = {"vector": vector_steps(mine, 2), "sb3": sb3_steps(games, ranks)}
    distributed.stop(ranks)
    if ranks.lead:  # one process: the whole batch, and its own half alone
        result["vector_whole"] = vector_steps(range(2 * HALF), 1)
        result["vector_alone"] = vector_steps(mine, 1)
        result["sb3_whole"] = sb3_steps(slice(0, 4), None)
        result["sb3_alone"] = sb3_steps(games, None)
    torch.save(result, out / f"rank{ranks.rank}.pt")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
