"""Opponents for the single-agent and vectorised envs: agents or plain policy callables.

An opponent is either an agent (anything with `agents.base.Agent`'s
``act_batch(engine, state, games, mask)``) or a policy callable, e.g. a frozen policy
checkpoint in self-play, read as `policy_actions` reads it (`agents.from_callable` makes an
agent of one the same way):

- a function or any callable ``f(obs, mask) -> actions``: ``obs`` the ``(n, D)`` float32
  observations of the games, each from the seat to act (`observation_encoder`), ``mask``
  their ``(n, A)`` bool legal masks; it returns ``(n,)`` integer actions;
- a torch module ``m(obs) -> logits``: called with ``obs`` as a float32 tensor on the
  module's device, under ``torch.no_grad()``; its ``(n, A)`` logits are masked and the best
  legal action of each game is played.

``"random"`` (or None) is a uniform random legal player that the env owns and reseeds with
its own seed.

A P-player game has P - 1 opponent seats, counted in turn order after the learner:
opponent k plays seat ``(learner + 1 + k) % P``. Give one opponent for all of them, or a
list of P - 1.

(The envs duck-type agents instead of importing `agents`, which sits above them.)
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from mortyenv.engine import sample_legal

PolicyFn = Callable[[np.ndarray, np.ndarray], np.ndarray]


class RandomOpponent:
    """Uniform over the legal actions; the env's default opponent."""

    name = "random"

    def __init__(self, seed: int | np.random.Generator | None = None):
        self.seed(seed)

    def seed(self, seed: int | np.random.Generator | None) -> None:
        self.rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)

    def act_batch(self, engine: Any, state: Any, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return sample_legal(mask, self.rng)

    def __repr__(self) -> str:
        return "RandomOpponent()"


def is_agent(opponent: Any) -> bool:
    return callable(getattr(opponent, "act_batch", None))


def is_torch_module(policy: Any) -> bool:
    """Whether `policy` is a torch module (torch is not imported to tell: a module exists
    only once torch is)."""
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(policy, torch.nn.Module)


def policy_actions(policy: Any, obs: np.ndarray, mask: np.ndarray) -> Any:
    """What a policy callable plays (module doc) for observations `obs` (n, D) and legal
    masks `mask` (n, A): its answer as given, or a torch module's best legal actions (a
    ValueError if its logits are not (n, A))."""
    if not is_torch_module(policy):
        return policy(obs, mask)
    import torch

    device = next(policy.parameters(), torch.empty(0)).device
    with torch.no_grad():
        logits = policy(torch.as_tensor(obs, dtype=torch.float32, device=device))
    logits = logits.detach().float().cpu().numpy()
    if logits.shape != mask.shape:
        raise ValueError(
            f"a torch module's answer is the logits of every action, shape {mask.shape}; "
            f"got shape {logits.shape}"
        )
    return np.where(mask, logits, -np.inf).argmax(axis=1)


def check_opponents(opponents: Any, num_players: int) -> list[Any]:
    """The opponents given, as a list of one or `num_players - 1`; a ValueError naming
    what is wrong otherwise."""
    items: Sequence[Any] = list(opponents) if isinstance(opponents, list | tuple) else [opponents]
    if len(items) not in (1, num_players - 1):
        raise ValueError(
            f"opponents: give one opponent or a list of {num_players - 1} (one per opponent "
            f"seat of a {num_players}-player game), got {len(items)}"
        )
    for item in items:
        if not (is_random(item) or is_agent(item) or callable(item)):
            raise ValueError(
                "opponents: each must be 'random', an agent with act_batch(engine, state, "
                f"games, mask) or a callable f(obs, mask) -> actions; got {item!r}"
            )
    return list(items)


def is_random(item: Any) -> bool:
    return item is None or (isinstance(item, str) and item == "random")


def resolve_opponents(opponents: Any, num_players: int) -> tuple[list[Any], list[RandomOpponent]]:
    """(one opponent per opponent seat, the random opponents the env created and reseeds)."""
    own: list[RandomOpponent] = []
    resolved: list[Any] = []
    for item in check_opponents(opponents, num_players):
        if is_random(item):
            agent = RandomOpponent()
            own.append(agent)
            resolved.append(agent)
        else:
            resolved.append(item)
    if len(resolved) == 1:
        resolved = resolved * (num_players - 1)
    return resolved, own
