"""Throughput of the envs (a script that prints numbers, not a timed test).

    python experiments/benchmarks/bench_env.py                      # everything, ~1 minute
    python experiments/benchmarks/bench_env.py --only vec --sizes 4096

- aec: random legal play through `mortyenv.env()` (wrapped) and `raw_env()`, reading the
  observation and mask of every decision via `last()`; agent-steps per second. PettingZoo's
  `connect_four_v3.env()` and `raw_env()` play the same loop for comparison, and so does an
  env that does nothing inside the same PettingZoo wrappers: the ceiling of any wrapped env
  here. Their windows take turns, so that the ratios hold on a drifting machine.
- single: `SingleAgentEnv` learner-steps per second (random legal learner, random opponent).
- vec: `MortyVecEnv` (SB3) and `MortyVectorEnv` (Gymnasium; without per-action features,
  with them as ragged rows and dense) learner-steps per second at several n_envs, random
  legal learner and random opponents, observations and masks included (the masks are read
  every step, as MaskablePPO reads them from the SB3 env and a Gymnasium trainer from
  `infos["action_mask"]`), their windows taking turns. The learner samples with
  `sample_legal`, as the random opponents do: a `cumsum` over the (n_envs, 469) masks
  would cost about as much as the env's step.

Each number is the best of three windows of --seconds / 3: the speed of this shared
machine drifts by up to 2x over minutes, and the best window is the least disturbed.
"""

from __future__ import annotations

import argparse
import functools
import sys
import time
import types
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np


def _rate(run: Callable[[], int], seconds: float, windows: int = 3) -> float:
    """Steps per second of `run` (returns steps done): the best of `windows` windows of
    seconds / windows each (the machine's speed drifts; the best window is the least
    disturbed one)."""
    run()  # warm-up
    best = 0.0
    for _ in range(windows):
        steps, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds / windows:
            steps += run()
        best = max(best, steps / (time.perf_counter() - start))
    return best


def _aec_game(env, rng: np.random.Generator) -> Callable[[], int]:
    def one_game() -> int:
        env.reset(seed=int(rng.integers(2**31)))
        steps = 0
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            mask = obs["action_mask"]
            legal = np.flatnonzero(mask)
            env.step(int(legal[rng.integers(len(legal))]))
            steps += 1
        return steps

    return one_game


def _connect_four(raw: bool = False):
    """PettingZoo's connect_four_v3.env() (or raw_env()); a stand-in pygame module if pygame
    is missing (it is imported at module level but only used to render, which we never
    do)."""
    try:
        import pygame  # noqa: F401
    except ImportError:
        sys.modules["pygame"] = types.ModuleType("pygame")
    from pettingzoo.classic import connect_four_v3

    return connect_four_v3.raw_env() if raw else connect_four_v3.env()


def _wrappers_only(observation_size: int, num_actions: int):
    """A 2-player AEC env that does nothing (40 moves, fixed observation and mask) inside
    the same PettingZoo wrappers as `mortyenv.env()`: the most any wrapped env can reach
    in this loop on this machine."""
    from gymnasium import spaces
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers

    class DoNothing(AECEnv):
        metadata: ClassVar[dict[str, Any]] = {"name": "do_nothing_v0", "is_parallelizable": False}

        def __init__(self) -> None:
            super().__init__()
            self.possible_agents = ["player_0", "player_1"]
            box = spaces.Box(0.0, 1.0, (observation_size,), dtype=np.float32)
            mask = spaces.Box(0, 1, (num_actions,), dtype=np.int8)
            space = spaces.Dict({"observation": box, "action_mask": mask})
            self.observation_spaces = dict.fromkeys(self.possible_agents, space)
            self.action_spaces = dict.fromkeys(self.possible_agents, spaces.Discrete(num_actions))
            self.obs = np.zeros(observation_size, dtype=np.float32)
            self.legal, self.none = np.ones(num_actions, np.int8), np.zeros(num_actions, np.int8)

        def observation_space(self, agent: str) -> spaces.Space:
            return self.observation_spaces[agent]

        def action_space(self, agent: str) -> spaces.Space:
            return self.action_spaces[agent]

        def reset(self, seed: int | None = None, options: dict | None = None) -> None:
            self.agents, self.moves = self.possible_agents[:], 0
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
            self.terminations = dict.fromkeys(self.agents, False)
            self.truncations = dict.fromkeys(self.agents, False)
            self.infos = {a: {} for a in self.agents}
            self.agent_selection = self.agents[0]

        def observe(self, agent: str) -> dict[str, np.ndarray]:
            mask = self.legal if agent == self.agent_selection else self.none
            return {"observation": self.obs, "action_mask": mask}

        def step(self, action: int | None) -> None:
            agent = self.agent_selection
            if self.terminations[agent]:
                self._was_dead_step(action)
                return
            self.moves += 1
            self._cumulative_rewards[agent] = 0.0
            self.rewards = dict.fromkeys(self.agents, 0.0)
            if self.moves >= 40:
                self.terminations = dict.fromkeys(self.agents, True)
            self.agent_selection = self.agents[1 - self.agents.index(agent)]
            self._accumulate_rewards()

    wrapped = wrappers.TerminateIllegalWrapper(DoNothing(), illegal_reward=-1)
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(wrapped))


def _rates(
    runs: dict[str, Callable[[], int]], seconds: float, windows: int = 3
) -> dict[str, float]:
    """`_rate` of several runs whose windows take turns (each run's best of `windows`
    windows of seconds / windows), so that the machine's drift hits them alike and their
    ratios hold."""
    best = dict.fromkeys(runs, 0.0)
    for run in runs.values():
        run()  # warm-up
    for _ in range(windows):
        for name, run in runs.items():
            steps, start = 0, time.perf_counter()
            while time.perf_counter() - start < seconds / windows:
                steps += run()
            best[name] = max(best[name], steps / (time.perf_counter() - start))
    return best


def bench_aec(players: list[int], seconds: float) -> None:
    import mortyenv

    rng = np.random.default_rng(0)
    runs = {}
    for p in players:
        for name, make in (("env", mortyenv.env), ("raw_env", mortyenv.raw_env)):
            runs[f"morty_sorty_v1 {name}(num_players={p})"] = _aec_game(make(num_players=p), rng)
    for name, raw in (("env", False), ("raw_env", True)):
        runs[f"connect_four_v3 {name}()"] = _aec_game(_connect_four(raw), rng)
    probe = mortyenv.raw_env(num_players=2)
    size = probe.observation_space("player_0")["observation"].shape[0]
    nothing = _wrappers_only(size, probe.action_space("player_0").n)
    runs["do-nothing env in the same wrappers (ceiling)"] = _aec_game(nothing, rng)
    print("| env | agent-steps/s |")
    print("|---|---:|")
    for name, rate in _rates(runs, seconds).items():
        print(f"| {name} | {rate:,.0f} |", flush=True)


def bench_single(players: list[int], seconds: float) -> None:
    from mortyenv.envs.single import SingleAgentEnv

    rng = np.random.default_rng(0)
    print("| env | learner-steps/s |")
    print("|---|---:|")
    for p in players:
        env = SingleAgentEnv(num_players=p)
        env.reset(seed=0)

        def episode(env: SingleAgentEnv = env) -> int:
            env.reset()
            steps, done = 0, False
            while not done:
                legal = np.flatnonzero(env.action_masks())
                done = env.step(int(legal[rng.integers(len(legal))]))[2]
                steps += 1
            return steps

        print(f"| SingleAgentEnv(num_players={p}) | {_rate(episode, seconds):,.0f} |", flush=True)


def bench_vec(players: list[int], sizes: list[int], seconds: float) -> None:
    """The SB3 and Gymnasium vector envs, the latter without per-action features, with them
    as ragged rows (``action_features="compact"``) and dense (``action_features=True``), in
    windows taking turns (their ratios hold on a drifting machine): a user's loop, which
    samples a legal action from the mask, steps and reads the features."""
    from mortyenv.engine import sample_legal
    from mortyenv.envs import MortyVecEnv
    from mortyenv.envs.vector import MortyVectorEnv

    rng = np.random.default_rng(0)
    print("| env | players | n_envs | learner-steps/s | ms per step |")
    print("|---|---:|---:|---:|---:|")
    for p in players:
        for n in sizes:
            venv = MortyVecEnv(n_envs=n, num_players=p)
            venv.seed(0)
            venv.reset()

            def ten_sb3_steps(venv: MortyVecEnv = venv) -> int:
                for _ in range(10):
                    masks = np.stack(venv.env_method("action_masks"))  # as MaskablePPO
                    venv.step(sample_legal(masks, rng))
                return 10 * venv.num_envs

            runs: dict[str, Callable[[], int]] = {"MortyVecEnv": ten_sb3_steps}
            for name, features, key in (
                ("MortyVectorEnv", False, None),
                ('MortyVectorEnv, action_features="compact"', "compact", "legal_features"),
                ("MortyVectorEnv, action_features=True", True, "action_features"),
            ):
                vector = MortyVectorEnv(num_envs=n, num_players=p, action_features=features)
                last = [vector.reset(seed=0)[1]]  # the infos of the last step

                def ten_steps(
                    vector: MortyVectorEnv = vector, last: list = last, key: str | None = key
                ) -> int:
                    for _ in range(10):
                        last[0] = vector.step(sample_legal(last[0]["action_mask"], rng))[4]
                        if key is not None:
                            last[0][key].shape  # noqa: B018  (a user reads them)
                    return 10 * vector.num_envs

                runs[name] = ten_steps
            for name, rate in _rates(runs, seconds).items():
                print(f"| {name} | {p} | {n} | {rate:,.0f} | {1000 * n / rate:.1f} |", flush=True)


def _playable(masks: np.ndarray) -> np.ndarray:
    """The masks, with action 0 for a game that has just ended (an all-False row: the
    vector env resets it at the next step, whatever the action)."""
    masks = masks.copy()
    masks[~masks.any(axis=1), 0] = True
    return masks


def bench_make_vec(players: list[int], sizes: list[int], seconds: float) -> None:
    """`gymnasium.make_vec` (the native MortyVectorEnv) against Gymnasium's SyncVectorEnv
    of the single env, in windows taking turns: random legal learner moves."""
    import gymnasium

    import mortyenv.envs  # noqa: F401  (registers mortyenv/MortySorty-v1)
    from mortyenv.engine import sample_legal

    rng = np.random.default_rng(0)
    print("| players | num_envs | make_vec learner-steps/s | SyncVectorEnv | x SyncVectorEnv |")
    print("|---:|---:|---:|---:|---:|")
    for p in players:
        for n in sizes:
            native = gymnasium.make_vec("mortyenv/MortySorty-v1", num_envs=n, num_players=p)
            native.reset(seed=0)
            make = functools.partial(gymnasium.make, "mortyenv/MortySorty-v1", num_players=p)
            sync = gymnasium.vector.SyncVectorEnv([make] * n)
            sync.reset(seed=0)

            def native_steps(env: Any = native, n: int = n) -> int:
                env.step(sample_legal(_playable(env.unwrapped.action_masks()), rng))
                return n

            def sync_steps(env: Any = sync, n: int = n) -> int:
                env.step(sample_legal(_playable(np.stack(env.call("action_masks"))), rng))
                return n

            rates = _rates({"native": native_steps, "sync": sync_steps}, seconds)
            ratio = rates["native"] / rates["sync"]
            print(f"| {p} | {n} | {rates['native']:,.0f} | {rates['sync']:,.0f} | {ratio:.1f} |")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--only", choices=["aec", "single", "vec", "make_vec"], action="append")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4])
    parser.add_argument("--sizes", type=int, nargs="+", default=[64, 1024, 4096])
    parser.add_argument("--seconds", type=float, default=3.0, help="per measurement")


def run(args: argparse.Namespace) -> int:
    parts = args.only or ["aec", "single", "vec", "make_vec"]
    if "aec" in parts:
        bench_aec(args.players, args.seconds)
    if "single" in parts:
        bench_single(args.players, args.seconds)
    if "vec" in parts:
        bench_vec(args.players, args.sizes, args.seconds)
    if "make_vec" in parts:
        bench_make_vec(args.players, args.sizes, args.seconds)
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_arguments(parser)
    sys.exit(run(parser.parse_args()))
