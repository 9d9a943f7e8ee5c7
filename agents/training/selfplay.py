"""Games played to make training data: who picks each move, and what its target is.

A *chooser* picks the moves of the live games of a batch and gives each position a policy
target: `choose(state, live, mask) -> (actions, targets (n, A))`. Every chooser plays the
move its agent would play, by that agent's own rule, so the data shows the moves the agent
makes:

- `teacher_moves`: any agent's moves (`act_batch`), each the target of its position;
- `teacher_worths`: the HeuristicAgent's moves (its best worth, exact ties at random by its
  generator, as it plays), the target the softmax of its worths of every legal action
  (distillation);
- `search_moves`: az's search, the move the search's own (`AZAgent.choice`), the target
  its visits, drawn by visits instead in a game's first rounds for varied openings; with a
  Gumbel root, the halving's survivor and the completed-Q softmax (the Gumbel draws vary
  the openings); each position's searched value too, for `with_search_values`.

`play_positions` plays seeded deals to the end with a chooser and records every decision as
`Positions` (`agents.training.imitation`): the warm start and every expert iteration of
`morty train-az-net`, the representation diagnostic, and the critic's warm start of
`morty train` (`teacher_moves`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

from agents.base import Agent
from agents.baselines.heuristic import HeuristicAgent
from agents.baselines.lookahead import group_argmax
from agents.search.az import AZAgent
from agents.search.mcts import rewards
from agents.training.imitation import Positions
from mortyenv.engine import BatchEngine, BatchState
from mortyenv.envs.observation import observation_encoder

Chooser = Callable[[BatchState, np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]


def one_hot(actions: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """(positions, A) targets: 1 on each position's action."""
    target = np.zeros(shape, dtype=np.float32)
    target[np.arange(len(actions)), actions] = 1.0
    return target


def teacher_moves(engine: BatchEngine, teacher: Agent) -> Chooser:
    """A chooser playing `teacher`'s moves, each the target of its position (one-hot)."""

    def choose(state: BatchState, live: np.ndarray, mask: np.ndarray):
        actions = teacher.act_batch(engine, state, live, mask)
        return actions, one_hot(actions, mask.shape)

    return choose


def teacher_worths(
    engine: BatchEngine, teacher: HeuristicAgent, temperature: float, worths: list | None = None
) -> Chooser:
    """A chooser playing `teacher`'s moves, each position's target the softmax of the
    teacher's worths of its legal actions at `temperature` (star points): distillation,
    which tells the network how much worse each other move is, not only which is best;
    temperature 0 targets the move played alone (one-hot). `worths`, when given, collects
    every legal action's worth in the dataset's row order."""
    if temperature < 0:
        raise ValueError(f"temperature must be >= 0, got {temperature}")

    def choose(state: BatchState, live: np.ndarray, mask: np.ndarray):
        rows, actions, worth = teacher.worths(engine, state, live, mask)
        chosen = actions[group_argmax(rows, worth, len(live), teacher.rng)]  # as it plays
        dense = np.full(mask.shape, -np.inf)
        dense[rows, actions] = worth
        if worths is not None:
            worths.append(dense[np.nonzero(mask)])
        if temperature == 0:
            return chosen, one_hot(chosen, mask.shape)
        logits = (dense - dense.max(axis=1, keepdims=True)) / temperature
        target = np.exp(logits)
        target /= target.sum(axis=1, keepdims=True)
        return chosen, target.astype(np.float32)

    return choose


def search_moves(
    engine: BatchEngine,
    agent: AZAgent,
    temperature_rounds: int,
    target_temperature: float,
    values: list | None = None,
) -> Chooser:
    """A chooser playing the search's moves (module doc): drawn by visits in the first
    `temperature_rounds` rounds of a game, the search's own choice after. The target is the
    visit distribution sharpened to visits ** (1 / `target_temperature`): a small search
    spreads its visits nearly as its prior does, and learning that spread back flattens
    the policy. With a Gumbel root (`agent.config.root`), the move is the halving's survivor and
    the target the completed-Q softmax, neither drawn nor sharpened. A position with one
    legal move is not searched; its target is that move. `values`, when given, collects
    each position's searched value (`AZAgent.root_values`) in the dataset's row order."""
    gumbel = agent.config.root == "gumbel"

    def choose(state: BatchState, live: np.ndarray, mask: np.ndarray):
        roots = agent.search(engine, state, live, mask)
        if values is not None:
            values.append(agent.root_values(roots))
        visits = agent.visit_distribution(roots, engine.num_actions)
        early = state.round[live] < temperature_rounds
        if gumbel:
            early[:] = False
            target = agent.policy_targets(roots, engine.num_actions)
        else:
            target = visits ** (1.0 / target_temperature)
        actions = np.empty(len(live), dtype=np.int64)
        for i, root in enumerate(roots):
            if not visits[i].any():  # one legal action: nothing was searched
                target[i] = mask[i]
                actions[i] = np.flatnonzero(mask[i])[0]
            elif early[i]:
                actions[i] = agent.rng.choice(engine.num_actions, p=visits[i])
            else:
                actions[i] = agent.choice(root)
        target /= target.sum(axis=1, keepdims=True)
        return actions, target.astype(np.float32)

    return choose


def play_positions(
    engine: BatchEngine,
    choose: Chooser,
    games: int,
    seed: int | np.random.Generator,
    margin_scale: float = 50.0,
    margin_weight: float = 0.5,
) -> Positions:
    """`games` seeded deals played to the end, every move and its target from `choose(state,
    live, mask) -> (actions, targets (n, A))`; every decision kept, with each seat's final
    reward (the search's: win share blended with the score margin by `margin_weight`) and
    score margin (/ `margin_scale`) in turn order from the decider."""
    state = engine.reset(batch_size=games, seed=seed)
    encoder = observation_encoder(engine.rules, engine.num_players)
    obs, masks, actions, game_ids, seats, feats, targets, counts = [], [], [], [], [], [], [], []
    while not state.over.all():
        live = np.flatnonzero(~state.over)
        mask = engine.legal_action_mask(state, live)
        seat = engine.current_player(state)[live]
        chosen, target = choose(state, live, mask)
        obs.append(encoder.encode(state, seat, live))
        rows = engine.action_feature_rows(state, mask, live)  # the legal actions' rows
        position, legal = rows.game, rows.action
        feats.append(rows.features)
        targets.append(target[position, legal].astype(np.float32))
        counts.append(mask.sum(axis=1))
        masks.append(mask)
        actions.append(chosen)
        game_ids.append(live)
        seats.append(seat)
        full = np.zeros(games, dtype=np.int64)
        full[live] = chosen
        engine.step(state, full)
    players = engine.num_players
    final = rewards(engine, state, margin_weight)  # (games, P) by absolute seat
    points = engine.scores(state)["total"].astype(np.float64)
    margin = (points - (points.sum(axis=1, keepdims=True) - points) / (players - 1)) / margin_scale
    game = np.concatenate(game_ids)
    seat = np.concatenate(seats)
    order = (seat[:, None] + np.arange(players)[None, :]) % players  # turn order from seat
    count = np.concatenate(counts)
    return Positions(
        obs=np.concatenate(obs),
        mask=np.concatenate(masks),
        action=np.concatenate(actions).astype(np.int64),
        game=game,
        seat=seat,
        reward=final[game[:, None], order].astype(np.float32),
        margin=margin[game[:, None], order].astype(np.float32),
        feats=np.concatenate(feats),
        target=np.concatenate(targets),
        offsets=np.concatenate([[0], np.cumsum(count)]).astype(np.int64),
    )


def with_search_values(data: Positions, values: np.ndarray, share: float) -> Positions:
    """`data` with its value targets bootstrapped from the search: the decider's reward
    becomes (1 - `share`) * the game's result + `share` * `values` (its searched value, one
    per position, nan where nothing was searched: the result alone). With 2 players the
    opponent's becomes the complement (the two seats' rewards sum to 1); with more, the
    other seats keep their results, since a tree backs up the mover's reward only. A
    game's result is one noisy draw of the outcome; the search's value averages many
    walks (AlphaZero's targets are results alone; KataGo and MuZero mix in search values)."""
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"share must lie in [0, 1], got {share}")
    values = np.asarray(values, dtype=np.float64)
    if values.shape != (len(data),):
        raise ValueError(f"one searched value per position: {len(data)}, got {values.shape}")
    searched = ~np.isnan(values)
    value = np.nan_to_num(values)
    reward = data.reward.astype(np.float64)  # a copy
    seats = [(0, value)] + ([(1, 1.0 - value)] if reward.shape[1] == 2 else [])
    for seat, found in seats:
        blended = (1 - share) * reward[:, seat] + share * found
        reward[:, seat] = np.where(searched, blended, reward[:, seat])
    return dataclasses.replace(data, reward=reward.astype(np.float32))
