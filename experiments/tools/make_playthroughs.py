"""Write the golden playthroughs in tests/playthroughs/ (OpenSpiel style).

Each game is played by a seeded random policy that prefers placements (so shelves fill,
rows and columns complete and special jars happen), saved as a game record
(`<name>.json`), and written out as text (`<name>.txt`): for every position the board
(`render_text(color=False)`), the legal actions in compact form and the action chosen;
at the end the scores and winners. tests/rules/test_playthroughs.py replays each record in both
engines and compares the regenerated text line by line, so any change in rules, action
strings or rendering shows up as a readable diff. Run after an intended change:

    python experiments/tools/make_playthroughs.py
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mortyenv.engine import BatchEngine
from mortyenv.record import GameRecord
from mortyenv.reference import Game
from mortyenv.render.common import badge_requirement, mode_text
from mortyenv.render.text import render_text
from mortyenv.rules import Ruleset
from mortyenv.setup import Setup

OUT_DIR = Path(__file__).resolve().parents[2] / "tests" / "playthroughs"


@dataclass(frozen=True)
class Spec:
    name: str
    num_players: int
    side: str
    mode: str
    seed: int


GAMES = (
    Spec("2p_sideA_basic", 2, "A", "basic", 1),
    Spec("3p_sideB_advanced", 3, "B", "advanced", 4),
    Spec("4p_sideA_advanced", 4, "A", "advanced", 3),
)


def policy_name(seed: int) -> str:
    return f"placement-biased random (seed {seed})"


def biased_action(game: Game, rng: np.random.Generator) -> int:
    """Mostly a placement, weighted toward crowded rows and columns and against flips (which
    spend kittens); a pass now and then, and whenever nothing fits."""
    legal = game.legal_actions()
    placements = [a for a in legal if a != game.codec.pass_action]
    if not placements or rng.random() < 0.1:
        return game.codec.pass_action
    shelf = game.shelves[game.current_player]
    weights = []
    for action in placements:
        _, row, col, flip = game.codec.decode(action)
        filled = sum(c is not None for c in shelf[row]) + sum(
            shelf[r][col] is not None for r in range(game.rules.rows)
        )
        weights.append((1 + filled) ** 2 * (0.3 if flip else 1.0))
    p = np.array(weights) / sum(weights)
    return int(placements[rng.choice(len(placements), p=p)])


def play(rules: Ruleset, spec: Spec) -> GameRecord:
    rng = np.random.default_rng(spec.seed)
    setup = Setup.random(rules, spec.num_players, rng, side=spec.side, mode=spec.mode)
    game = Game(rules, setup)
    while not game.is_over:
        game.apply(biased_action(game, rng))
    return GameRecord.from_game(game, players=[policy_name(spec.seed)] * spec.num_players)


# ---------------------------------------------------------------- positions of a record
def reference_positions(record: GameRecord, rules: Ruleset) -> Iterator[tuple[Game, list[int]]]:
    """(game, legal actions) at every position, from the reference engine."""
    for game in record.states(rules):
        yield game, game.legal_actions()


def batch_positions(record: GameRecord, rules: Ruleset) -> Iterator[tuple[Game, list[int]]]:
    """The same from the BatchEngine: its own mask, its state drawn through `to_game`."""
    record.check_start(rules)
    engine = BatchEngine(rules, num_players=record.setup.num_players)
    state = engine.reset(setups=[record.setup])
    for step in range(len(record.actions) + 1):
        over = bool(engine.is_over(state)[0])
        legal = [] if over else np.flatnonzero(engine.legal_action_mask(state)[0]).tolist()
        yield engine.to_game(state, 0), legal
        if step < len(record.actions):
            engine.step(state, np.array([record.actions[step]]))


# ---------------------------------------------------------------- the text
def legal_text(game: Game, legal: list[int]) -> list[str]:
    """Legal actions grouped by slot: the cells a tile may go to (t1 = top row, column 1),
    and where it may go flipped."""
    codec, rules = game.codec, game.rules
    by_source: dict[int, tuple[list[str], list[str]]] = {}
    for action in legal:
        if action == codec.pass_action:
            continue
        source, row, col, flip = codec.decode(action)
        by_source.setdefault(source, ([], []))[flip].append(f"{rules.row_name(row)[0]}{col}")
    lines = [f"legal {len(legal)}: pass" + (" and" if by_source else "")]
    for source, (plain, flipped) in sorted(by_source.items()):
        if codec.is_rack(source):
            tile = game.rack[source - codec.display_max]
        else:
            tile = game.display[source]
        assert tile is not None
        text = f"  {codec.source_name(source)} ({rules.tile_name(*tile)}): {' '.join(plain)}"
        if flipped == plain:
            text += " | flipped: same"
        elif flipped:
            text += f" | flipped: {' '.join(flipped)}"
        lines.append(text)
    return lines


def players_text(record: GameRecord) -> str:
    names = record.players or ["unnamed"] * record.setup.num_players
    if len(set(names)) == 1:
        return f"all {names[0]}"
    return ", ".join(f"P{seat} {name}" for seat, name in enumerate(names))


def playthrough_text(
    name: str, record: GameRecord, positions: Iterable[tuple[Game, list[int]]]
) -> str:
    """The golden file's text, from a record and its positions in either engine."""
    setup = record.setup
    lines: list[str] = []
    first = True
    for step, (game, legal) in enumerate(positions):
        if first:
            rules = game.rules
            badges = "; ".join(
                f"{rules.badges[b].name} ({badge_requirement(rules, rules.badges[b])})"
                for b in setup.badges
            )
            lines += [
                f"# mortyenv golden playthrough: {name}",
                "# regenerate: python experiments/tools/make_playthroughs.py",
                f"# ruleset: {record.ruleset_name} v{record.ruleset_version}",
                f"# setup: {setup.num_players} players, side {setup.side}, {mode_text(game)}, "
                f"first player {setup.first_player}",
                f"# badges: {badges}",
                f"# removed face down: {len(setup.removed)} tiles",
                f"# players: {players_text(record)}",
                f"# actions: {len(record.actions)}",
                "",
            ]
            first = False
        lines.append(f"=== position {step} ===")
        lines += render_text(game, color=False).splitlines()
        if step < len(record.actions):
            action = record.actions[step]
            lines += legal_text(game, legal)
            lines.append(f"P{game.current_player} plays {action}: {game.action_string(action)}")
        lines.append("")
    final = game.score_breakdown()
    lines.append("=== result ===")
    for seat, score in enumerate(final):
        lines.append(f"P{seat}: " + ", ".join(f"{k} {v}" for k, v in score.items()))
    lines.append(f"winners: {', '.join(f'P{w}' for w in game.winners())}")
    return "\n".join(lines) + "\n"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", type=Path, default=OUT_DIR, help="folder for .txt and .json")


def run(args: argparse.Namespace) -> int:
    rules = Ruleset.default()
    args.out.mkdir(parents=True, exist_ok=True)
    for spec in GAMES:
        record = play(rules, spec)
        record.save(args.out / f"{spec.name}.json")
        text = playthrough_text(spec.name, record, reference_positions(record, rules))
        (args.out / f"{spec.name}.txt").write_text(text)
        specials = sum(s.startswith("take R") for s in record.action_strings)
        print(
            f"{spec.name}: {len(record.actions)} actions, {specials} rack placements, "
            f"{text.count(' done')} completed-row marks, scores {record.scores}, "
            f"{len(text) / 1024:.0f} KiB"
        )
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_arguments(parser)
    raise SystemExit(run(parser.parse_args()))
