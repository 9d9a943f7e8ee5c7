"""The ladder: the anchors' ratings for each player count, and the tournament that made them.

A ladder is data (`mortyenv/data/ladder/ladder_<P>p_v<N>.json`), computed once from a
large fixed tournament and never changed: a new tournament or a new anchor is a new
version. Its scale is Elo-like (400 points = odds of 10 to 1 of finishing above the other)
and anchored: `heuristic@1` is 1500 at every player count.

The tournament pairs anchors (`SCHEDULES`): on every deal of a pair, one anchor plays
against copies of the other in every distinct seating (2 players: ab, ba; 4 players: abbb,
babb, bbab, bbba), and, unless a pair says otherwise, the other way round too. This is the
table the benchmark seats an agent at (the agent against copies of one anchor), so the
scale means the same in both. Pairs are played in blocks of deals; a block's games depend
only on the ladder's seed, the pair and the block, so blocks can be played in any order, in
chunks, on any machine (`experiments/tools/build_ladder.py`), and give the same games. The
fit (`fit`) is Bradley-Terry over every comparison of an anchor's seat with another's, with
intervals clustered by deal (`mortyenv.stats.elo_intervals`); the intervals say how well
the tournament placed each anchor relative to `heuristic@1`.
"""

from __future__ import annotations

import hashlib
import json
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any

import numpy as np

from agents import make_agent
from mortyenv import Ruleset
from mortyenv.arena.tournament import deal_setups, entrants, lineups, play, wins_by_deal
from mortyenv.engine import BatchEngine
from mortyenv.stats import elo_intervals, rate_interval, seat_keys

FORMAT = "mortyenv-ladder"
FORMAT_VERSION = 1
SCALE_ANCHOR, SCALE_RATING = "heuristic@1", 1500.0
LADDER_SEED = 43_000  # the ladder's deals; the benchmark deals from another seed
DATA = Path(str(files("mortyenv") / "data" / "ladder"))


@dataclass(frozen=True)
class Pair:
    """Two anchors of the ladder tournament: `a` against copies of `b` (and, with `both`
    and more than 2 players, `b` against copies of `a`) on `deals` deals, in blocks."""

    a: str
    b: str
    deals: int
    block: int = 100
    both: bool = True

    def directions(self, players: int) -> list[tuple[str, str]]:
        """(alone, copied) of each table kind played."""
        if players == 2 or not self.both:
            return [(self.a, self.b)]
        return [(self.a, self.b), (self.b, self.a)]


# The ladder tournament of version 1, per player count: every link that carries information
# (win rates far from 0 and 1) gets many deals; az, 0.1 s a move, fewer, in 4 players only
# alone against copies of its neighbours.
SCHEDULES: dict[int, list[Pair]] = {
    2: [
        Pair("random@1", "greedy@1", 6000, 1000),
        Pair("greedy@1", "heuristic@1", 6000, 1000),
        Pair("random@1", "heuristic@1", 1000, 1000),
        Pair("greedy@1", "ppo@1", 1000, 1000),
        Pair("greedy@1", "az-net@1", 1000, 1000),
        Pair("heuristic@1", "ppo@1", 2000, 1000),
        Pair("heuristic@1", "az-net@1", 2000, 1000),
        Pair("ppo@1", "az-net@1", 2000, 1000),
        Pair("heuristic@1", "mcts-64@1", 600, 200),
        Pair("ppo@1", "mcts-64@1", 400, 200),
        Pair("mcts-64@1", "mcts@1", 300, 100),
        Pair("heuristic@1", "mcts@1", 400, 100),
        Pair("ppo@1", "mcts@1", 300, 100),
        Pair("az-net@1", "mcts@1", 400, 100),
        Pair("az@1", "az-net@1", 100, 25),
        Pair("az@1", "mcts@1", 100, 25),
        Pair("az@1", "heuristic@1", 50, 25),
    ],
    3: [
        Pair("random@1", "greedy@1", 2000, 500),
        Pair("greedy@1", "heuristic@1", 2000, 500),
        Pair("random@1", "heuristic@1", 400, 400),
        Pair("heuristic@1", "mcts-64@1", 300, 100),
        Pair("heuristic@1", "mcts@1", 250, 50),
        Pair("mcts-64@1", "mcts@1", 200, 50),
    ],
    4: [
        Pair("random@1", "greedy@1", 1000, 500),
        Pair("greedy@1", "heuristic@1", 1500, 500),
        Pair("random@1", "heuristic@1", 200, 200),
        Pair("greedy@1", "ppo@1", 300, 300),
        Pair("greedy@1", "az-net@1", 300, 300),
        Pair("heuristic@1", "ppo@1", 800, 400),
        Pair("heuristic@1", "az-net@1", 800, 400),
        Pair("ppo@1", "az-net@1", 800, 400),
        Pair("heuristic@1", "mcts-64@1", 200, 100),
        Pair("mcts-64@1", "mcts@1", 100, 50),
        Pair("heuristic@1", "mcts@1", 120, 40),
        Pair("az-net@1", "mcts@1", 120, 40),
        Pair("ppo@1", "mcts@1", 80, 40),
        Pair("az@1", "az-net@1", 40, 20, both=False),
        Pair("az@1", "mcts@1", 30, 15, both=False),
        Pair("az@1", "heuristic@1", 20, 20, both=False),
    ],
}


# ---------------------------------------------------------------- the data
@dataclass(frozen=True)
class Rung:
    """One anchor on the ladder."""

    name: str
    rating: float
    ci_low: float
    ci_high: float
    deals: int
    games: int
    seconds_per_move: float  # measured in the ladder tournament (one core)


@dataclass(frozen=True)
class Ladder:
    players: int
    version: int
    rungs: list[Rung]  # weakest first
    data: dict[str, Any]  # the whole file, as written

    def rung(self, name: str) -> Rung:
        return next(r for r in self.rungs if r.name == name)

    @property
    def names(self) -> list[str]:
        return [r.name for r in self.rungs]


def path_of(players: int, version: int) -> Path:
    return DATA / f"ladder_{players}p_v{version}.json"


def versions(players: int) -> list[int]:
    """The ladder versions published for `players`, oldest first."""
    found = [p.stem.rpartition("_v")[2] for p in DATA.glob(f"ladder_{players}p_v*.json")]
    return sorted(int(v) for v in found if v.isdigit())


def load(players: int, version: int | None = None, path: Path | None = None) -> Ladder:
    """The ladder for `players` (the newest version unless `version`), or the one in the
    file `path`; a ValueError of one line if there is none."""
    if path is None:
        published = versions(players)
        if not published:
            raise ValueError(f"no ladder for {players} players")
        if version is None:
            version = published[-1]
        if version not in published:
            raise ValueError(
                f"no ladder version {version} for {players} players; published: "
                f"{', '.join(map(str, published))}"
            )
        path = path_of(players, version)
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as err:
        raise ValueError(f"ladder {path}: {err}") from None
    if data.get("format") != FORMAT or data.get("players") != players:
        raise ValueError(f"ladder {path}: not a {players}-player ladder ({FORMAT})")
    rungs = [
        Rung(**{k: a[k] for k in Rung.__dataclass_fields__}) for a in data["anchors"]
    ]  # fmt: skip
    return Ladder(players, int(data["version"]), sorted(rungs, key=lambda r: r.rating), data)


# ---------------------------------------------------------------- the tournament
@dataclass
class Block:
    """The outcome of one block: per deal, the comparisons won by `alone` (index 0) and by
    the copied anchor (1), and each anchor's time."""

    alone: str
    copied: str
    deals: np.ndarray  # (D,) deal indices
    wins: np.ndarray  # (D, 2, 2) comparisons won, [0, 1]: alone over a copy
    games: int
    agent_seconds: np.ndarray  # (2,)
    agent_decisions: np.ndarray  # (2,)

    @property
    def sha256(self) -> str:
        """A checksum of the block's outcome: a block played again must give the same."""
        return hashlib.sha256(
            np.ascontiguousarray(self.wins, dtype=np.float64).tobytes()
        ).hexdigest()

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(path.stem + ".partial.npz")
        np.savez(
            partial,
            names=np.array([self.alone, self.copied]),
            deals=self.deals,
            wins=self.wins,
            games=np.int64(self.games),
            agent_seconds=self.agent_seconds,
            agent_decisions=self.agent_decisions,
        )
        partial.replace(path)

    @classmethod
    def load(cls, path: Path) -> Block:
        with np.load(path) as data:
            alone, copied = (str(n) for n in data["names"])
            return cls(
                alone,
                copied,
                data["deals"],
                data["wins"],
                int(data["games"]),
                data["agent_seconds"],
                data["agent_decisions"],
            )


def block_seed(players: int, alone: str, copied: str, lo: int) -> int:
    """The agents' seed of one block: from the ladder seed, the table and the first deal."""
    table = zlib.crc32(f"{alone} {copied}".encode())
    return int(np.random.SeedSequence([LADDER_SEED, players, table, lo]).generate_state(1)[0])


def block_file(folder: Path, players: int, alone: str, copied: str, lo: int) -> Path:
    return folder / f"{players}p" / f"{alone}__{copied}__{lo:06d}.npz"


def blocks(players: int) -> Iterator[tuple[str, str, int, int]]:
    """(alone, copied, first deal, end) of every block of the schedule, in order."""
    for pair in SCHEDULES[players]:
        for alone, copied in pair.directions(players):
            for lo in range(0, pair.deals, pair.block):
                yield alone, copied, lo, min(pair.deals, lo + pair.block)


def play_block(
    players: int, alone: str, copied: str, lo: int, hi: int, rules: Ruleset | None = None
) -> Block:
    """Deals [lo, hi) of the ladder, `alone` against copies of `copied` in every seating."""
    rules = rules or Ruleset.default()
    names = [alone] + [copied] * (players - 1)
    seatings = lineups(names, players)
    setups = deal_setups(rules, players, hi - lo, LADDER_SEED, first=lo)
    agents = [make_agent(name, players, None, rules) for name in entrants(names)]
    results = play(
        BatchEngine(rules, players),
        agents,
        entrants(names),
        seatings,
        setups,
        batch_size=len(setups) * len(seatings),
        seed=block_seed(players, alone, copied, lo),
    )
    wins = wins_by_deal(results.seats, seat_keys(results.scores), results.deal, 2)
    return Block(
        alone,
        copied,
        np.arange(lo, hi),
        wins,
        results.num_games,
        results.agent_seconds,
        results.agent_decisions,
    )


def build(
    players: int, folder: Path, minutes: float | None = None, rules: Ruleset | None = None
) -> tuple[int, int]:
    """Play the blocks of the schedule not yet in `folder`, one file each, stopping after
    the block that passes `minutes`; (blocks played now, blocks still to play)."""
    start = time.perf_counter()
    todo = [
        b for b in blocks(players) if not block_file(folder, players, b[0], b[1], b[2]).exists()
    ]
    played = 0
    for alone, copied, lo, hi in todo:
        if minutes is not None and time.perf_counter() - start > 60 * minutes:
            break
        t0 = time.perf_counter()
        block = play_block(players, alone, copied, lo, hi, rules)
        block.save(block_file(folder, players, alone, copied, lo))
        played += 1
        print(
            f"{players}p {alone} vs {copied} deals {lo}-{hi}: {block.games} games in "
            f"{time.perf_counter() - t0:.0f} s",
            flush=True,
        )
    return played, len(todo) - played


# ---------------------------------------------------------------- the fit
def fit(
    players: int,
    found: list[Block],
    version: int,
    command: str,
    rules: Ruleset | None = None,
    schedule: list[Pair] | None = None,
) -> dict[str, Any]:
    """The ladder file's contents from the tournament's blocks (all of `schedule`, by
    default the player count's `SCHEDULES`)."""
    rules = rules or Ruleset.default()
    schedule = SCHEDULES[players] if schedule is None else schedule
    names = sorted({n for b in found for n in (b.alone, b.copied)})
    if SCALE_ANCHOR not in names:
        raise ValueError(f"the ladder needs {SCALE_ANCHOR}, the scale's anchor")
    index = {n: i for i, n in enumerate(names)}
    deals = int(max(b.deals.max() for b in found)) + 1
    wins = np.zeros((deals, len(names), len(names)))
    seconds, decisions = np.zeros(len(names)), np.zeros(len(names))
    played: dict[str, set[int]] = {n: set() for n in names}
    games = dict.fromkeys(names, 0)
    for b in found:
        ij = [index[b.alone], index[b.copied]]
        wins[np.ix_(b.deals, ij, ij)] += b.wins
        seconds[ij] += b.agent_seconds
        decisions[ij] += b.agent_decisions
        for name in (b.alone, b.copied):
            played[name].update(b.deals.tolist())
            games[name] += b.games
    rating, low, high = elo_intervals(wins, {index[SCALE_ANCHOR]: SCALE_RATING})
    anchors = [
        {
            "name": n,
            "rating": round(float(rating[i]), 1),
            "ci_low": round(float(low[i]), 1),
            "ci_high": round(float(high[i]), 1),
            "deals": len(played[n]),
            "games": games[n],
            "seconds_per_move": float(f"{seconds[i] / max(decisions[i], 1):.3g}"),
        }
        for i, n in enumerate(names)
    ]
    pairs = []
    for pair in schedule:
        i, j = index[pair.a], index[pair.b]
        won, compared = wins[:, i, j], wins[:, i, j] + wins[:, j, i]
        met = compared > 0
        rate, rate_low, rate_high = rate_interval(won[met], compared[met])
        pairs.append(
            {
                "a": pair.a,
                "b": pair.b,
                "deals": int(met.sum()),
                "a_win_rate": round(rate, 4),
                "ci_low": round(rate_low, 4),
                "ci_high": round(rate_high, 4),
            }
        )
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "players": players,
        "version": version,
        "ruleset": {"name": rules.name, "version": rules.version},
        "scale": {"anchor": SCALE_ANCHOR, "rating": SCALE_RATING, "elo": 400},
        "anchors": sorted(anchors, key=lambda a: a["rating"]),
        "pairs": pairs,
        "tournament": {
            "seed": LADDER_SEED,
            "deals": deals,
            "games": int(sum(b.games for b in found)),
            "schedule": [vars(p) for p in schedule],
            "command": command,
            "blocks": [
                {
                    "alone": b.alone,
                    "copied": b.copied,
                    "deals": [int(b.deals[0]), int(b.deals[-1]) + 1],
                    "games": b.games,
                    "sha256": b.sha256,
                }
                for b in found
            ],
        },
    }
