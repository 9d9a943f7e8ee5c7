"""`morty benchmark --verify`: check a results file, replaying a sample of its games.

The checks, in order (the first that fails is named): the file against the schema; the
ruleset, and the ladder file's hash against the one rated on; the deals' count and
checksum; the rounds and the stop, re-derived from the games as the protocol chooses them;
every number of the result, recomputed from the games, and whether it is comparable with the
leaderboard; given a folder of game records, every record against its row, replayed in both
engines; last, the only check that needs the agent, a sample of batches (a round against
one anchor) played again by the agent and the anchors, every game compared with its row and
replayed in both engines.

The agent is rebuilt from its spec, its files found from the results file's folder (the
`root` it records), else from the current folder, and played only if they are the files it
was benchmarked with (their SHA-256); `--agent` names a replacement. An agent that cannot be
built, or whose files differ, skips the replay, and the report says so: the file is then not
verified, though every other check ran.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from agents import Agent, AgentSpec, check_agent, make_agent, parse_spec
from mortyenv.arena import ladder as ladders
from mortyenv.arena import results as files
from mortyenv.arena.benchmark import (
    Protocol,
    game_record,
    hash_path,
    play_round,
    ratings_of,
    round_anchors,
    rows_of,
    setting_departures,
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


class Skipped(Exception):
    """A check that cannot run (the agent cannot be built, or its files differ)."""


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
    passed: Callable[[str], None] = lambda line: None,
) -> list[str]:
    """Check a results file: `passed(line)` as each check passes; the return is the checks
    skipped, each a line saying why (empty: verified). ValueError (one line): the file is
    malformed; `Tampered`: its numbers or games do not hold up. `sample` batches (a round
    against one anchor) are played again and every game of them replayed in both engines
    (None: all of them; 0: none); `traces`: check every game record there too;
    `agent_spec`: play the agent of this spec instead of the recorded one."""
    data = files.load(path)
    protocol = Protocol.from_dict(data["protocol"])
    rules = Ruleset.default()
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
    passed(f"deals: {len(setups)} from seed {protocol.seed}, checksum matches")
    passed(f"rounds: {len(rounds)}, as the protocol chooses them; stopped on {stop}")
    try:
        files.check_numbers(data, ratings_of(ladder))
    except ValueError as err:
        raise Tampered(str(err)) from None
    passed(f"numbers: every number of the result follows from its {len(rows)} games")
    passed(_check_comparable(data, protocol, ladder))
    if traces is not None:
        passed(_check_traces(traces, rows, rules, setups))
    if sample == 0:
        return []
    try:
        spec, agent, note = _agent(data, Path(path), protocol, rules, agent_spec)
    except Skipped as why:
        return [f"replay: {why}; its games were not played again"]
    passed(_replay(spec, agent, note, rows, rounds, protocol, rules, setups, sample, seed))
    return []


def _check_comparable(data: dict[str, Any], protocol: Protocol, ladder: ladders.Ladder) -> str:
    """A file that says it is comparable with the leaderboard has the protocol's default
    settings (a file written before the field: judged from its settings alone)."""
    result, departed = data["result"], setting_departures(protocol)
    stated = result.get("departures")
    if stated is not None:
        ladder_part = [d for d in stated if d.startswith("ladder ")]
        newest = ladder.version == max(ladders.versions(protocol.players))
        if [d for d in stated if d not in ladder_part] != departed or (newest and ladder_part):
            raise Tampered(f"result.departures is {stated}, but its settings give {departed}")
        if result["comparable"] != (not stated):
            raise Tampered(f"result.comparable is {result['comparable']}, departures {stated}")
        departed = stated
    if departed:
        return f"comparable: no, not with the leaderboard ({', '.join(departed)})"
    return "comparable: yes, the protocol's defaults"


def _agent(
    data: dict[str, Any], path: Path, protocol: Protocol, rules: Ruleset, given: str | None
) -> tuple[str, Agent, str]:
    """(spec, agent, a note for the report) of the agent that plays the games again: the
    one `given` (--agent), or the recorded one with its files found and checked by their
    hash. `Skipped` (why) when it cannot be built or its files differ."""
    recorded = data["agent"]
    note = ""
    if given is not None and given != recorded["spec"]:
        spec = given
        note = f" (--agent {given} in place of the recorded {recorded['spec']})"
    elif recorded["spec"] is None:
        raise Skipped("the agent was given from Python (no spec): --agent names it")
    else:
        spec = str(_located(parse_spec(recorded["spec"]), recorded, path))
    try:
        check_agent(spec)
        return spec, make_agent(spec, protocol.players, None, rules), note
    except (ValueError, ImportError) as err:  # a bad spec, a missing file or extra
        raise Skipped(f"cannot build the agent: {err}") from None


def _located(spec: AgentSpec, recorded: dict[str, Any], path: Path) -> AgentSpec:
    """`spec` with the file it names found: from the results file's folder (the `root` it
    records), else from the current folder, wherever the file has the recorded hash."""
    named = spec.file
    if named is None:
        return spec
    bases = [path.parent / recorded["root"]] if "root" in recorded else []
    found = [base / named for base in [*bases, Path.cwd()] if (base / named).exists()]
    want = recorded["files"].get(named)
    if not found:
        where = " or ".join(str(base) for base in [*bases, Path(".")])
        raise Skipped(f"cannot build the agent: no file {named} from {where}")
    same = [f for f in found if want is None or hash_path(f) == want]
    if not same:
        raise Skipped(
            f"refused the agent: {found[0]} is not the file it was benchmarked with (its "
            "SHA-256 differs); --agent names a replacement"
        )
    file = str(same[0])
    if spec.form == "network":
        return replace(spec, path=file)
    return replace(spec, target=f"{file}:{spec.target.rpartition(':')[2]}")


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
    spec: str,
    agent: Agent,
    note: str,
    rows: list[Row],
    rounds: list[list[str]],
    protocol: Protocol,
    rules: Ruleset,
    setups: list[Setup],
    sample: int | None,
    seed: int | None,
) -> str:
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
    return (
        f"replayed: {len(batches)} of {len(every)} batches (--verify-seed {seed}), {games} "
        f"games played again by the agent{note} and the anchors, each replayed in both engines"
    )


def _check_traces(folder: Path, rows: list[Row], rules: Ruleset, setups: list[Setup]) -> str:
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
    return f"traces: {len(found)} game records, each replayed in both engines, match their games"
