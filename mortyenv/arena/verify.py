"""`morty benchmark --verify`: check a results file, replaying a sample of its games.

The checks, in order (the first that fails is named): the file against the schema; the
ruleset, and the ladder file's hash against the one rated on; the deals' count and
checksum; the rounds and the stop, re-derived from the games as the protocol chooses them;
every number of the result, recomputed from the games; a sample of batches (a round against
one anchor) played again by the agent and the anchors, every game compared with its row and
replayed in both engines; and, given a folder of game records, every record against its row,
replayed in both engines.
"""

from __future__ import annotations

import hashlib
import math
from pathlib import Path
from typing import Any

import numpy as np

from agents import check_agent, make_agent
from mortyenv.arena import ladder as ladders
from mortyenv.arena import results as files
from mortyenv.arena.benchmark import (
    Protocol,
    game_record,
    play_round,
    ratings_of,
    round_anchors,
    rows_of,
    stop_reason,
    trace_name,
)
from mortyenv.arena.results import Row, actions_hash
from mortyenv.arena.tournament import deal_setups
from mortyenv.engine import BatchEngine
from mortyenv.record import GameRecord
from mortyenv.rules import Ruleset
from mortyenv.setup import Setup


class Tampered(Exception):
    """A results file whose numbers or games do not hold up (verification failed)."""


def schedule(
    rows: list[Row], ladder: ladders.Ladder, protocol: Protocol
) -> tuple[list[list[str]], str | None]:
    """The rounds the protocol plays given these games (each round's anchors chosen from
    the games before it) and why it stops after the last; a verifier re-derives a file's
    rounds so. A round played after the protocol's stop gives "played past its stop"."""
    rounds: list[list[str]] = []
    ratings = ratings_of(ladder)
    last = max(row.round for row in rows)
    estimate, stop = math.nan, None
    for r in range(last + 1):
        rounds.append(round_anchors(r, estimate, ladder, protocol))
        result = files.fit([row for row in rows if row.round <= r], ratings, protocol.prior)
        stop = stop_reason(r + 1, result, ladder, protocol)
        if stop is not None and r < last:
            return rounds, "played past its stop"
        estimate = result[0]
    return rounds, stop


def verify(
    path: Path,
    sample: int | None = 2,
    seed: int | None = None,
    traces: Path | None = None,
    agent_spec: str | None = None,
) -> list[str]:
    """Check a results file; the lines say what was checked. ValueError (one line): the
    file is malformed; `Tampered`: its numbers or games do not hold up. `sample` batches
    (a round against one anchor) are played again and every game of them replayed in both
    engines (None: all of them; 0: none); `traces`: check every game record there too."""
    data = files.load(path)
    protocol = Protocol.from_dict(data["protocol"])
    rules = Ruleset.default()
    done: list[str] = []
    ruleset = data["versions"]["ruleset"]
    if (ruleset["name"], ruleset["version"]) != (rules.name, rules.version):
        raise Tampered(f"played under ruleset {ruleset}, not {rules.name} v{rules.version}")
    version = data["versions"]["ladder"]
    if version["players"] != protocol.players:
        raise Tampered(f"a {version['players']}-player ladder for {protocol.players} players")
    ladder = ladders.load(protocol.players, version["version"])
    ladder_file = ladders.path_of(protocol.players, version["version"])
    if hashlib.sha256(ladder_file.read_bytes()).hexdigest() != version["sha256"]:
        raise Tampered(f"{ladder_file.name}: not the ladder file the agent was rated on")
    rows = files.rows_of(data)
    strangers = [i for i, row in enumerate(rows) if row.anchor not in ladder.names]
    if strangers:
        raise Tampered(f"games.rows[{strangers[0]}]: {rows[strangers[0]].anchor!r} is no anchor")
    rounds, stop = schedule(rows, ladder, protocol)
    if rounds != data["rounds"] or stop != data["result"]["stopped"]:
        raise Tampered(f"rounds: the protocol's, from these games, are {rounds}, stop {stop!r}")
    _check_table(rows, rounds, protocol)
    setups = deal_setups(rules, protocol.players, data["deals"]["count"], protocol.seed)
    count_ok = len(rounds) * protocol.deals_per_round == data["deals"]["count"]
    if not count_ok or files.deals_hash(setups) != data["deals"]["sha256"]:
        raise Tampered("deals: not the protocol's deals (their count or checksum differs)")
    done.append(f"deals: {len(setups)} from seed {protocol.seed}, checksum matches")
    done.append(f"rounds: {len(rounds)}, as the protocol chooses them; stopped on {stop}")
    try:
        files.check_numbers(data, ratings_of(ladder))
    except ValueError as err:
        raise Tampered(str(err)) from None
    done.append(f"numbers: every number of the result follows from its {len(rows)} games")
    if sample != 0:
        done += _replay(data, rows, rounds, protocol, rules, setups, sample, seed, agent_spec)
    if traces is not None:
        done += _check_traces(traces, rows, rules, setups)
    return done


def _check_table(rows: list[Row], rounds: list[list[str]], protocol: Protocol) -> None:
    """Each round's games: every anchor of the round, on the round's deals, in every seating."""
    expected = []
    for r, names in enumerate(rounds):
        for name in names:
            for d in range(protocol.deals_per_round):
                for seat in range(protocol.players):
                    expected.append((r, name, r * protocol.deals_per_round + d, seat))
    found = [(row.round, row.anchor, row.deal, row.seat) for row in rows]
    if sorted(found) != sorted(expected) or len(found) != len(expected):
        raise Tampered("games: not the games the protocol plays (missing, extra or moved rows)")


def _replay(
    data: dict[str, Any],
    rows: list[Row],
    rounds: list[list[str]],
    protocol: Protocol,
    rules: Ruleset,
    setups: list[Setup],
    sample: int | None,
    seed: int | None,
    agent_spec: str | None,
) -> list[str]:
    spec = agent_spec or data["agent"]["spec"]
    if spec is None:
        raise ValueError("the agent has no spec (given from Python): --agent names it")
    try:
        check_agent(spec)
        agent = make_agent(spec, protocol.players, None, rules)
    except ValueError as err:
        raise ValueError(f"cannot build the agent to replay its games: {err}") from None
    every = [(r, name) for r, names in enumerate(rounds) for name in names]
    batches = every
    if seed is None:  # the verifier's own choice, unknown to whoever wrote the file
        seed = int(np.random.SeedSequence().entropy % 2**31)
    if sample is not None and sample < len(every):
        picked = np.random.default_rng(seed).choice(len(every), size=sample, replace=False)
        batches = [every[i] for i in sorted(picked.tolist())]
    engine = BatchEngine(rules, protocol.players)
    by_key = {(row.round, row.anchor, row.deal, row.seat): i for i, row in enumerate(rows)}
    games = 0
    for r, name in batches:
        anchor = make_agent(name, protocol.players, None, rules)
        deals = setups[r * protocol.deals_per_round : (r + 1) * protocol.deals_per_round]
        results = play_round(engine, agent, anchor, name, r, deals, protocol)
        for g, row in enumerate(rows_of(results, name, r, protocol)):
            i = by_key[(row.round, row.anchor, row.deal, row.seat)]
            if row != rows[i]:
                raise Tampered(
                    f"games.rows[{i}] (round {r}, {name}, deal {row.deal}, seat {row.seat}): "
                    f"played again, it gives {row.to_list()}"
                )
            setup, actions = deals[int(results.deal[g])], results.game_actions(g)
            record = game_record(rules, setup, actions, [spec] * protocol.players)
            record.replay_batch(rules)  # the batch engine replays it to the same scores
            if record.scores != row.totals:
                raise Tampered(f"games.rows[{i}]: the reference engine gives {record.scores}")
            games += 1
    return [
        f"replayed: {len(batches)} of {len(every)} batches (--verify-seed {seed}), {games} "
        "games played again by the agent and the anchors, each replayed in both engines"
    ]


def _check_traces(folder: Path, rows: list[Row], rules: Ruleset, setups: list[Setup]) -> list[str]:
    by_name = {trace_name(row): (i, row) for i, row in enumerate(rows)}
    found = sorted(folder.glob("*.json"))
    if not found:
        raise ValueError(f"--traces {folder}: no game records there")
    for path in found:
        if path.name not in by_name:
            raise Tampered(f"traces: {path.name} is no game of the results file")
        i, row = by_name[path.name]
        try:
            record = GameRecord.load(path)
            record.replay(rules)
            record.replay_batch(rules)
        except ValueError as err:
            raise Tampered(f"traces: {path.name}: {err}") from None
        if record.setup != setups[row.deal]:
            raise Tampered(f"traces: {path.name}: not deal {row.deal} of the protocol")
        if actions_hash(record.actions) != row.actions or record.scores != row.totals:
            raise Tampered(f"traces: {path.name}: not the game of games.rows[{i}]")
    return [f"traces: {len(found)} game records, each replayed in both engines, match their games"]
