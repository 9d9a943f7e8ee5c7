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

Everything the agent, the anchors and the deals do is seeded from (seed, round, anchor),
so the same command gives the same games and the same results file, byte for byte
(`mortyenv.arena.results`); `--verify` (`mortyenv.arena.verify`) checks such a file and
replays a sample of its games on both engines.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import math
import sys
import time
import zlib
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import mortyenv
from agents import LOADERS, Agent, can_play, check_agent, make_agent
from mortyenv.arena import ladder as ladders
from mortyenv.arena import results as files
from mortyenv.arena.results import PARTS, Row, actions_hash
from mortyenv.arena.tournament import Results, deal_setups, lineups, play
from mortyenv.engine import BatchEngine
from mortyenv.record import GameRecord
from mortyenv.reference import Game
from mortyenv.rules import Ruleset
from mortyenv.setup import Setup
from mortyenv.stats import per_move
from mortyenv.usage import UsageError

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
) -> Results:
    """The agent against copies of anchor `name` on `setups`, in every distinct seating,
    as one batch seeded from (seed, round, anchor)."""
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
) -> Played:
    """Play the protocol to its stop: `on_round(played)` after every round (a progress
    bar), `on_games(results, anchor, round, deals)` after every batch (game records)."""
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
            results = play_round(engine, agent, built[name], name, r, setups, protocol)
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
def describe(spec: str | None, agent: Agent, description: str = "") -> dict[str, Any]:
    """What the agent was: its spec, its class, the hash of every file the spec names."""
    hashes: dict[str, str] = {}
    if spec is not None:
        kind, sep, path = spec.partition(":")
        named = path if (sep and kind in LOADERS) else spec.rpartition(":")[0]
        if sep and Path(named).exists():
            hashes[named] = _hash_path(Path(named))
    cls = type(agent)
    module = cls.__module__
    # a class loaded from a file lives in a module named after its path: name the class only
    name = cls.__qualname__
    if not module.startswith("_morty_agent_"):
        name = f"{module}.{name}"
    return {"spec": spec, "class": name, "files": hashes, "description": description}


def _hash_path(path: Path) -> str:
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
    result = {
        **{k: result[k] for k in ("rating", "ci_low", "ci_high", "half_width")},
        "target_met": played.stopped == "precision",
        "stopped": played.stopped,
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


# ---------------------------------------------------------------- command line
def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--agent",
        default=None,
        help="the agent: a name, a saved policy (KIND:PATH) or your own class "
        "(mypkg.mymodule:MyAgent, path/to/file.py:MyAgent)",
    )
    parser.add_argument("--players", type=int, default=2, help="players per game (2-4)")
    parser.add_argument(
        "--precision",
        type=float,
        default=Protocol.precision,
        help="stop once the rating's 95 %% interval is at most +- this many Elo points",
    )
    parser.add_argument(
        "--max-deals", type=int, default=Protocol.max_deals, help="stop after this many deals"
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=BENCHMARK_SEED,
        help="the deals' seed (keep the default for results others can compare)",
    )
    parser.add_argument(
        "--ladder-version", type=int, default=None, help="the ladder to rate on (default: newest)"
    )
    parser.add_argument("--out", type=Path, default=None, help="write the results file here")
    parser.add_argument(
        "--traces", type=Path, default=None, help="write every game as a game record here"
    )
    parser.add_argument(
        "--description", default="", help="a line about the agent, kept in the file"
    )
    parser.add_argument(
        "--verify",
        type=Path,
        default=None,
        metavar="RESULTS",
        help="check a results file: its deals, rounds and numbers, and a sample of its games "
        "played again and replayed in both engines (--traces: its game records too)",
    )
    parser.add_argument(
        "--sample",
        default="2",
        help="--verify: how many batches (a round against one anchor) to play again; 'all'",
    )
    parser.add_argument("--verify-seed", type=int, default=None, help="--verify: which batches")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")


def run(args: argparse.Namespace) -> int:
    if args.verify is not None:
        return _run_verify(args)
    if args.agent is None:
        raise UsageError("name the agent to benchmark: --agent NAME (or --verify RESULTS)")
    rules = Ruleset.default()
    try:
        rules.check_num_players(args.players)
    except ValueError as err:
        raise UsageError(f"--players: {err}") from err
    if args.precision <= 0:
        raise UsageError(f"--precision must be > 0 Elo points, got {args.precision}")
    protocol = Protocol(
        args.players, seed=args.seed, max_deals=args.max_deals, precision=args.precision
    )
    if args.max_deals < protocol.min_rounds * protocol.deals_per_round:
        raise UsageError(
            f"--max-deals must be at least {protocol.min_rounds * protocol.deals_per_round} "
            f"({protocol.min_rounds} rounds of {protocol.deals_per_round} deals)"
        )
    if args.seed < 0:
        raise UsageError(f"--seed must be >= 0, got {args.seed}")
    try:
        ladder = ladders.load(args.players, args.ladder_version)
        check_agent(args.agent)
        if not can_play(args.agent, args.players):
            raise ValueError(f"agent {args.agent!r} does not play {args.players} players")
        agent = make_agent(args.agent, args.players, None, rules)
    except ValueError as err:
        raise UsageError(str(err)) from None
    ladder_path = ladders.path_of(ladder.players, ladder.version)
    bar = _progress(not args.no_progress, protocol)
    on_games = write_traces(args.traces, rules, args.agent, protocol) if args.traces else None
    played = benchmark(agent, ladder, protocol, rules, bar, on_games)
    described = describe(args.agent, agent, args.description)
    data = results_data(played, ladder, ladder_path, protocol, rules, described)
    _report(data, played, ladder)
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(files.dumps(data))
        timing = args.out.with_name(args.out.stem + ".timing.json")
        timing.write_text(json.dumps(_timing(played), indent=1) + "\n")
        print(f"wrote {args.out} (and the times per move, which differ run to run: {timing})")
    if args.traces is not None:
        print(f"wrote {len(played.rows)} game records to {args.traces}")
    return 0


def _run_verify(args: argparse.Namespace) -> int:
    from mortyenv.arena.verify import Tampered, verify

    sample = None if args.sample == "all" else _count(args.sample)
    try:
        lines = verify(args.verify, sample, args.verify_seed, args.traces, args.agent)
    except Tampered as err:
        print(f"morty benchmark: {args.verify}: verification failed: {err}", file=sys.stderr)
        return 1
    except ValueError as err:
        raise UsageError(str(err)) from None
    for line in lines:
        print(f"ok  {line}")
    print(f"{args.verify}: verified")
    return 0


def _count(text: str) -> int:
    if not text.isdigit():
        raise UsageError(f"--sample must be a number of batches or 'all', got {text!r}")
    return int(text)


def _timing(played: Played) -> dict[str, Any]:
    return {
        "agent_seconds_per_move": played.agent_seconds / max(played.agent_moves, 1),
        "agent_moves": played.agent_moves,
        "seconds": played.seconds,
    }


def _progress(shown: bool, protocol: Protocol) -> Callable[[Played], None] | None:
    """A bar over rounds whose total is re-estimated from the interval after each round
    (the half-width shrinks as 1 / sqrt(deals)), so its time left is an estimate too."""
    if not shown:
        return None
    from tqdm import tqdm

    bar = tqdm(total=protocol.min_rounds, unit="round", leave=False, file=sys.stderr)

    def update(played: Played) -> None:
        rounds = len(played.rounds)
        rating, low, high = played.result
        half = (high - low) / 2
        needed = math.ceil(rounds * (half / protocol.precision) ** 2)
        most = protocol.max_deals // protocol.deals_per_round
        bar.total = min(most, max(rounds + 1, needed, protocol.min_rounds))
        bar.update(1)
        bar.set_postfix_str(f"{rating:.0f} +-{half:.0f} Elo (target +-{protocol.precision:g})")
        if played.stopped:
            bar.close()

    return update


def _report(data: dict[str, Any], played: Played, ladder: ladders.Ladder) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    if not console.is_terminal:
        console = Console(width=140)
    result = data["result"]
    table = Table(
        title=f"{data['agent']['spec']} on the {ladder.players}-player ladder v{ladder.version}: "
        f"{result['deals']} deals, {result['games']} games (95 % intervals clustered by deal)"
    )
    columns = ("anchor", "ladder Elo", "deals", "games", "win rate [95% CI]", "first place")
    for column in columns:
        table.add_column(column, justify="left" if column == "anchor" else "right")
    for a in result["anchors"]:
        table.add_row(
            a["name"],
            f"{a['rating']:.0f}",
            str(a["deals"]),
            str(a["games"]),
            f"{a['win_rate']:.1%} [{a['ci_low']:.1%}, {a['ci_high']:.1%}]",
            f"{a['first_place']:.1%}",
        )
    console.print(table)
    score = result["score"]
    parts = ", ".join(f"{p} {score[p]['mean']:.1f}" for p in PARTS)
    met = "target met" if result["target_met"] else f"target not met, stopped: {result['stopped']}"
    seconds = _timing(played)["agent_seconds_per_move"]
    console.print(
        f"rating {result['rating']:.0f} [{result['ci_low']:.0f}, {result['ci_high']:.0f}] "
        f"(+-{result['half_width']:.0f} Elo, {met})"
    )
    console.print(f"mean score {score['total']['mean']:.1f}: {parts}")
    console.print(f"{per_move(seconds)} a move; {played.seconds:.0f} s in all")
