"""`morty benchmark`: an agent's place on the ladder of its player count, by a fixed protocol.

The ladder (`mortyenv.arena.ladder`) holds frozen anchors with fixed Elo-like ratings; the
benchmark plays the agent against them and fits its rating with the anchors' held, so a
result means the same in every paper that names the protocol and ladder versions.

Protocol `ladder-placement`, version 1 (`Protocol`):

- **Deals**: deal d is `Setup.random` from the generator seeded (seed, d), the protocol's
  seed by default; round r plays deals [r * 16, (r + 1) * 16) against every anchor it
  plays, so the anchors of a round meet the agent on the same deals.
- **Tables**: the agent against copies of one anchor, in every distinct seating (2 players:
  both seat orders; 4 players: the agent in each of the 4 seats), the table the ladder
  itself was rated at.
- **Anchors of a round**: round 0 plays every cheap anchor (at most `cheap_seconds` a move
  in the ladder tournament); each later round plays the anchor rated nearest at or below
  the agent's current rating and the one nearest above, and every cheap anchor within
  `window` Elo of it.
- **Rating**: Bradley-Terry on the Elo scale over every comparison of the agent's seat with
  an anchor's (by total, then tiebreak), the anchors held at their ladder ratings, one
  virtual draw against each anchor played; its 95 % interval is clustered by deal and never
  narrower than if every comparison were independent (`mortyenv.stats.elo_intervals`).
- **Stop** after round r when at least `min_rounds` rounds are played and the interval's
  half-width is at most `precision` (the target is met), or its whole interval lies more
  than `beyond` Elo outside the ladder (the ladder cannot place it closer), or `max_deals`
  deals are played (the result then says the target was not met). The stop looks only at
  the interval's width or position, never at whether the agent is doing well.

A run with every setting at its default, on the newest ladder of its player count, is
comparable with the leaderboard; any other (another seed, precision, deal limit, an older
ladder) says so in its results file and its report (`departures`).

Everything the agent, the anchors and the deals do is seeded from (seed, round, anchor),
so the same command gives the same games and the same results file, byte for byte
(`mortyenv.arena.results`); `--verify` (`mortyenv.arena.verify`) checks such a file and
replays a sample of its games on both engines.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import time
import zlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

import mortyenv
from agents import Agent, make_agent, parse_spec
from mortyenv.arena import ladder as ladders
from mortyenv.arena import results as files
from mortyenv.arena.batches import play_locally
from mortyenv.arena.results import PARTS, Row, actions_hash
from mortyenv.arena.tournament import Results, Runner, deal_setups, lineups, play
from mortyenv.engine import BatchEngine
from mortyenv.record import GameRecord
from mortyenv.reference import Game
from mortyenv.rules import Ruleset
from mortyenv.setup import Setup

NAME, VERSION = "ladder-placement", 1
BENCHMARK_SEED = 44_000  # the ladder tournament dealt from another seed


@dataclass(frozen=True)
class Protocol:
    """The protocol's settings (see the module docstring); a results file records them."""

    players: int
    seed: int = BENCHMARK_SEED
    deals_per_round: int = 16
    min_rounds: int = 2
    max_deals: int = 1600
    precision: float = 30.0  # the target half-width of the 95 % interval, Elo
    window: float = 400.0
    cheap_seconds: float = 1e-3
    prior: float = 1.0
    beyond: float = 400.0

    def to_dict(self) -> dict[str, Any]:
        return {"name": NAME, "version": VERSION} | asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Protocol:
        return cls(**{k: v for k, v in data.items() if k not in ("name", "version")})


# ---------------------------------------------------------------- the protocol
def round_anchors(
    round_index: int, estimate: float, ladder: ladders.Ladder, protocol: Protocol
) -> list[str]:
    """The anchors round `round_index` plays, in ladder order (weakest first)."""
    cheap = {r.name for r in ladder.rungs if r.seconds_per_move <= protocol.cheap_seconds}
    if round_index == 0:
        return [n for n in ladder.names if n in cheap]
    below = [r for r in ladder.rungs if r.rating <= estimate]
    above = [r for r in ladder.rungs if r.rating > estimate]
    chosen = {r.name for r in below[-1:] + above[:1]}
    chosen |= {
        r.name
        for r in ladder.rungs
        if r.name in cheap and abs(r.rating - estimate) <= protocol.window
    }
    return [n for n in ladder.names if n in chosen]


def stop_reason(
    rounds: int, result: tuple[float, float, float], ladder: ladders.Ladder, protocol: Protocol
) -> str | None:
    """Why the benchmark stops after `rounds` rounds with `result` (rating, low, high), or
    None to play on."""
    _, low, high = result
    if rounds >= protocol.min_rounds:
        if (high - low) / 2 <= protocol.precision:
            return "precision"
        top, bottom = ladder.rungs[-1].rating, ladder.rungs[0].rating
        if low > top + protocol.beyond or high < bottom - protocol.beyond:
            return "beyond_ladder"
    if rounds * protocol.deals_per_round >= protocol.max_deals:
        return "max_deals"
    return None


def ratings_of(ladder: ladders.Ladder) -> dict[str, float]:
    return {r.name: r.rating for r in ladder.rungs}


def setting_departures(protocol: Protocol) -> list[str]:
    """Every setting of `protocol` other than the protocol's default, as `precision 150
    (default 30)`."""
    default = {f.name: f.default for f in fields(type(protocol)) if f.name != "players"}
    return [
        f"{name} {value:g} (default {default[name]:g})"
        for name, value in asdict(protocol).items()
        if name in default and value != default[name]
    ]


def departures(protocol: Protocol, ladder: ladders.Ladder) -> list[str]:
    """What keeps a run from being compared with the leaderboard: its settings other than
    the protocol's defaults, and a ladder other than the newest of its player count; none
    for a comparable run."""
    found = setting_departures(protocol)
    newest = max(ladders.versions(ladder.players), default=ladder.version)
    if ladder.version != newest:
        found.append(f"ladder v{ladder.version} (newest v{newest})")
    return found


# ---------------------------------------------------------------- playing
def round_seed(protocol: Protocol, round_index: int, anchor: str) -> int:
    name = zlib.crc32(anchor.encode())
    seq = np.random.SeedSequence([protocol.seed, protocol.players, round_index, name])
    return int(seq.generate_state(1)[0])


def round_deals(rules: Ruleset, protocol: Protocol, round_index: int) -> list[Setup]:
    n = protocol.deals_per_round
    return deal_setups(rules, protocol.players, n, protocol.seed, first=round_index * n)


def play_round(
    engine: BatchEngine,
    agent: Agent,
    anchor: Agent,
    name: str,
    round_index: int,
    setups: list[Setup],
    protocol: Protocol,
    runner: Runner = play_locally,
) -> Results:
    """The agent against copies of anchor `name` on `setups`, in every distinct seating,
    as one batch seeded from (seed, round, anchor), played by `runner` (here, or a Ray
    task: the same games)."""
    players = protocol.players
    seatings = lineups(["agent"] + [name] * (players - 1), players)
    return play(
        engine,
        [agent, anchor],
        ["agent", name],
        seatings,
        setups,
        batch_size=len(setups) * len(seatings),
        seed=round_seed(protocol, round_index, name),
        first_deal=round_index * protocol.deals_per_round,
        runner=runner,
    )


def rows_of(results: Results, name: str, round_index: int, protocol: Protocol) -> list[Row]:
    found = []
    for g in range(results.num_games):
        seat = int(np.flatnonzero(results.seats[g] == 0)[0])
        found.append(
            Row(
                round_index,
                name,
                round_index * protocol.deals_per_round + int(results.deal[g]),
                seat,
                [int(t) for t in results.scores["total"][g]],
                [int(t) for t in results.scores["tiebreak"][g]],
                [int(results.scores[part][g, seat]) for part in PARTS],
                actions_hash(results.game_actions(g)),
            )
        )
    return found


def play_anchors(
    engine: BatchEngine,
    agent: Agent,
    anchors: dict[str, Agent],
    names: list[str],
    round_index: int,
    setups: list[Setup],
    protocol: Protocol,
    runner: Runner = play_locally,
) -> list[Results]:
    """One round: the agent against each anchor of `names`, a batch each. Played here,
    one after another; by another runner (Ray), all of them at once, each batch a task."""

    def one(name: str) -> Results:
        return play_round(engine, agent, anchors[name], name, round_index, setups, protocol, runner)

    if runner is play_locally:
        return [one(name) for name in names]
    with ThreadPoolExecutor(max_workers=len(names)) as pool:  # threads that wait on tasks
        return list(pool.map(one, names))


@dataclass
class Played:
    """What a benchmark run played, and how long each side took."""

    rows: list[Row] = field(default_factory=list)
    rounds: list[list[str]] = field(default_factory=list)
    stopped: str = ""
    result: tuple[float, float, float] = (math.nan, math.nan, math.nan)
    seconds: float = 0.0
    agent_seconds: float = 0.0
    agent_moves: int = 0


def benchmark(
    agent: Agent,
    ladder: ladders.Ladder,
    protocol: Protocol,
    rules: Ruleset,
    on_round: Callable[[Played], None] | None = None,
    on_games: Callable[[Results, str, int, list[Setup]], None] | None = None,
    runner: Runner = play_locally,
) -> Played:
    """Play the protocol to its stop: `on_round(played)` after every round (a progress
    bar), `on_games(results, anchor, round, deals)` after every batch (game records).
    `runner` plays the batches: here, one after another, or as Ray tasks
    (`ray_batches.play_on_ray`), a round's batches at once; the games are the same."""
    engine = BatchEngine(rules, protocol.players)
    ratings = ratings_of(ladder)
    built: dict[str, Agent] = {}
    played = Played()
    start = time.perf_counter()
    estimate = math.nan
    for r in itertools.count():
        names = round_anchors(r, estimate, ladder, protocol)
        played.rounds.append(names)
        setups = round_deals(rules, protocol, r)
        for name in names:
            if name not in built:
                built[name] = make_agent(name, protocol.players, None, rules)
        batches = play_anchors(engine, agent, built, names, r, setups, protocol, runner)
        for name, results in zip(names, batches, strict=True):
            played.rows += rows_of(results, name, r, protocol)
            played.agent_seconds += float(results.agent_seconds[0])
            played.agent_moves += int(results.agent_decisions[0])
            if on_games is not None:
                on_games(results, name, r, setups)
        played.result = files.fit(played.rows, ratings, protocol.prior)
        estimate = played.result[0]
        played.seconds = time.perf_counter() - start
        stop = stop_reason(r + 1, played.result, ladder, protocol)
        if on_round is not None:
            on_round(played)
        if stop is not None:
            played.stopped = stop
            return played
    raise AssertionError  # pragma: no cover


# ---------------------------------------------------------------- the results file
def describe(
    spec: str | None, agent: Agent, description: str = "", root: str | None = None
) -> dict[str, Any]:
    """What the agent was: its spec, its class, the hash of every file the spec names and,
    with `root`, where the spec's relative paths start, from the results file's folder
    (`--verify` finds the files from there, wherever it runs)."""
    hashes: dict[str, str] = {}
    if spec is not None:
        named = parse_spec(spec).file
        if named is not None and Path(named).exists():
            hashes[named] = hash_path(Path(named))
    cls = type(agent)
    module = cls.__module__
    # a class loaded from a file lives in a module named after its path, and one of the
    # script being run (`python ppo_vector.py --benchmark`) in `__main__`: name the class only
    name = cls.__qualname__
    if not module.startswith("_morty_agent_") and module != "__main__":
        name = f"{module}.{name}"
    found = {"spec": spec, "class": name, "files": hashes, "description": description}
    return found | ({"root": root} if root is not None else {})


def hash_path(path: Path) -> str:
    """SHA-256 of a file, or of a folder's files (their relative paths and contents)."""
    digest = hashlib.sha256()
    for item in sorted(path.rglob("*")) if path.is_dir() else [path]:
        if item.is_file():
            digest.update(str(item.relative_to(path) if path.is_dir() else item.name).encode())
            digest.update(item.read_bytes())
    return digest.hexdigest()


def results_data(
    played: Played,
    ladder: ladders.Ladder,
    ladder_path: Path,
    protocol: Protocol,
    rules: Ruleset,
    agent: dict[str, Any],
) -> dict[str, Any]:
    deals = len(played.rounds) * protocol.deals_per_round
    setups = deal_setups(rules, protocol.players, deals, protocol.seed)
    result = files.summarise(played.rows, ratings_of(ladder), protocol.prior)
    departed = departures(protocol, ladder)
    result = {
        **{k: result[k] for k in ("rating", "ci_low", "ci_high", "half_width")},
        "target_met": played.stopped == "precision",
        "stopped": played.stopped,
        "comparable": not departed,
        "departures": departed,
        **{k: result[k] for k in ("deals", "games", "anchors", "score")},
    }
    return {
        "format": files.FORMAT,
        "format_version": files.FORMAT_VERSION,
        "protocol": protocol.to_dict(),
        "versions": {
            "mortyenv": mortyenv.__version__,
            "ruleset": {"name": rules.name, "version": rules.version},
            "ladder": {
                "players": ladder.players,
                "version": ladder.version,
                "sha256": hashlib.sha256(ladder_path.read_bytes()).hexdigest(),
            },
        },
        "agent": agent,
        "deals": {"count": deals, "sha256": files.deals_hash(setups)},
        "result": result,
        "rounds": played.rounds,
        "games": {"columns": files.COLUMNS, "rows": [row.to_list() for row in played.rows]},
    }


def trace_name(row: Row) -> str:
    return f"r{row.round:03d}-d{row.deal:05d}-s{row.seat}-{row.anchor}.json"


def game_record(rules: Ruleset, setup: Setup, actions: list[int], players: list[str]) -> GameRecord:
    """The game replayed in the reference engine (every action checked) as a record."""
    game = Game(rules, setup)
    for action in actions:
        game.apply(action)
    return GameRecord.from_game(game, players=players)


def write_traces(
    folder: Path, rules: Ruleset, spec: str, protocol: Protocol
) -> Callable[[Results, str, int, list[Setup]], None]:
    """`on_games` that writes every game of a batch as a game record into `folder`."""
    folder.mkdir(parents=True, exist_ok=True)

    def write(results: Results, name: str, round_index: int, setups: list[Setup]) -> None:
        for row, g in zip(rows_of(results, name, round_index, protocol), itertools.count()):
            seats = [spec if a == 0 else name for a in results.seats[g]]
            setup, actions = setups[int(results.deal[g])], results.game_actions(g)
            game_record(rules, setup, actions, seats).save(folder / trace_name(row))

    return write
