"""`morty play`: a human plays Morty Sorty against the agents in the terminal.

The human's game is the reference `Game` (the engine written to be read next to the rules);
each opponent acts through `Agent.act(game)`. Every action is kept with the seat that chose
it, so `u` (undo) is a replay from the Setup, and the game record saved at the end (or on
quit) replays with `morty replay PATH.json`.

A move is typed as its slot and cell: `D2>m4` takes display slot 2 to the middle row,
column 4; a trailing `f` flips the tile first (`D2>m4f`); `R0>t1` places rack tile 0 with
a special jar action; `p` passes (takes a kitten). The `>` is optional (`d2m4f`). Every
action string the program prints is accepted too: `take D1 -> bottom/col0`, `take D1 (7 gold
mushroom) -> top/col1, flip` (the tile named must be the one in the slot), `pass (take a
kitten)`.

The agents are reseeded from the position before every move they make, so undoing a move and
playing it again brings the same replies.
"""

from __future__ import annotations

import argparse
import re
import secrets
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

from agents.base import Agent
from mortyenv.reference import Game
from mortyenv.render.text import color_wanted
from mortyenv.rules import Ruleset
from mortyenv.setup import Setup
from mortyenv.usage import UsageError, at_least, check_players

HELP = (
    "type a move as SLOT>CELL, e.g. D2>m4 (rows t/m/b, columns 0..5; add f to flip: D2>m4f); "
    "p = pass (take a kitten), h = hint, u = undo, b = board, s = scores, q = quit, ? = help"
)
MOVE = re.compile(r"^([dr])(\d+)\s*>?\s*([a-z])(\d+)\s*(f?)$")
# the long form `Game.action_string` prints: take D2 (7 silver mandrake) -> middle/col4, flip
LONG_MOVE = re.compile(
    r"^take\s+([dr])(\d+)\s*(?:\(([^)]*)\))?\s*->\s*([a-z]+)\s*/\s*col\s*(\d+)\s*(,\s*flip)?$"
)
HINT_ACTIONS = 5  # how many of the searched actions `h` shows


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--players", type=int, default=2, help="players at the table, 2..4 (default: %(default)s)"
    )
    parser.add_argument(
        "--opponents",
        default="heuristic",
        help="the agent in every other seat, or a comma list of one per other seat, in seat "
        "order: a name, a saved network (sb3:model.zip, ppo:PATH, ...) or your own "
        "(path/to/file.py:MyAgent), each with settings after a colon (mcts:walks=64) "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "--seed", type=int, default=None, help="seed of the deal and the agents (default: random)"
    )
    parser.add_argument(
        "--seat", type=int, default=0, help="your seat; seat 0 starts (default: %(default)s)"
    )
    parser.add_argument(
        "--side", choices=("A", "B"), default=None, help="board side (default: the ruleset's)"
    )
    parser.add_argument(
        "--mode",
        choices=("basic", "advanced"),
        default=None,
        help="game mode (default: the ruleset's)",
    )
    parser.add_argument(
        "--record", default=None, help="game record to write (default: play-SEED.json)"
    )
    parser.add_argument(
        "--hint-iterations",
        type=at_least(1),
        default=400,
        help="MCTS rollouts behind `h` (default: %(default)s)",
    )
    parser.add_argument(
        "--no-color",
        action="store_true",
        help="plain text, no ANSI colours (also when NO_COLOR is set or the output is no terminal)",
    )


# ------------------------------------------------------------------ move codes
def row_letters(rules: Ruleset) -> str:
    """One letter per shelf row (t, m, b), from the rules' row names."""
    return "".join(rules.row_name(r)[0] for r in range(rules.rows))


def cell_code(rules: Ruleset, row: int, col: int, flip: int) -> str:
    return f"{row_letters(rules)[row]}{col}" + ("f" if flip else "")


def move_code(game: Game, action: int) -> str:
    """Short code of an action, e.g. 'D2>m4f'; PASS is 'p'."""
    codec = game.codec
    if action == codec.pass_action:
        return "p"
    source, row, col, flip = codec.decode(action)
    return f"{codec.source_name(source)}>{cell_code(game.rules, row, col, flip)}"


def parse_move(game: Game, text: str) -> int:
    """The legal action a typed code or action string names; a ValueError saying what is
    wrong otherwise."""
    codec, rules = game.codec, game.rules
    text = " ".join(text.strip().lower().split())
    if text in ("p", "pass", codec.to_string(codec.pass_action)):
        return codec.pass_action
    letters = row_letters(rules)
    named = None  # the tile a long action string names, checked against the slot's
    if (found := MOVE.match(text)) is not None:
        kind, slot_text, row_letter, col_text, flip = found.groups()
        if row_letter not in letters:
            raise ValueError(f"no row {row_letter!r}: rows are {', '.join(letters)}")
        row = letters.index(row_letter)
    elif (found := LONG_MOVE.match(text)) is not None:
        kind, slot_text, named, row_name, col_text, flip = found.groups()
        names = [rules.row_name(r).lower() for r in range(rules.rows)]
        if row_name not in names:
            raise ValueError(f"no row {row_name!r}: rows are {', '.join(names)}")
        row = names.index(row_name)
    else:
        raise ValueError(f"{text!r} is not a move or a command; {HELP}")
    slot, col = int(slot_text), int(col_text)
    slots = codec.display_max if kind == "d" else rules.rack_size
    if slot >= slots:
        raise ValueError(f"no slot {kind.upper()}{slot}: slots are 0..{slots - 1}")
    if col >= rules.cols:
        raise ValueError(f"no column {col}: columns are 0..{rules.cols - 1}")
    source = slot if kind == "d" else codec.display_max + slot
    tile = source_tile(game, source)
    if named is not None and tile is not None and named.strip() != rules.tile_name(*tile):
        raise ValueError(f"{codec.source_name(source)} holds {rules.tile_name(*tile)}, not {named}")
    action = codec.encode(source, row, col, int(bool(flip)))
    if action not in game.legal_actions():  # the engine's message says why; a clone keeps
        game.clone().apply(action)  # the game as it is
    return action


def source_tile(game: Game, source: int) -> tuple[int, int] | None:
    """The (tile id, face) in a display or rack slot, or None if the slot is empty."""
    if game.codec.is_rack(source):
        return game.rack[source - game.codec.display_max]
    return game.display[source]


def legal_move_lines(game: Game) -> list[str]:
    """The legal moves of the player to act: one block per tile, cells grouped by kittens."""
    codec, rules = game.codec, game.rules
    player = game.current_player
    legal = set(game.legal_actions())
    lines = []
    for source in range(codec.num_sources):
        tile = source_tile(game, source)
        if tile is None or codec.is_rack(source) != (game.phase == "special"):
            continue
        by_cost: dict[int, list[str]] = defaultdict(list)
        for p in game.placements(player, tile):
            if codec.encode(source, p.row, p.col, p.flip) in legal:
                by_cost[p.cost].append(cell_code(rules, p.row, p.col, p.flip))
        back = rules.ingredients[rules.tiles[tile[0]].faces[1 - tile[1]]].lower()
        lines.append(f"  {codec.source_name(source)}  {rules.tile_name(*tile)} (back {back})")
        if not by_cost:
            lines.append("      no legal cell")
        for cost in sorted(by_cost):
            label = "free" if cost == 0 else f"{cost} kitten" + ("s" if cost > 1 else "")
            lines.append(f"      {label + ':':10} " + " ".join(by_cost[cost]))
    jar = " (skip the special jar action)" if game.phase == "special" else ""
    lines.append(f"  p   pass: take a kitten{jar}")
    return lines


# ------------------------------------------------------------------ the session
class PlaySession:
    """One human seat against agents. The setup, the actions and the seat that chose each
    are the whole state: undo and the saved record are both replays of them."""

    def __init__(
        self,
        rules: Ruleset,
        setup: Setup,
        human: int,
        agents: dict[int, Agent],
        hint_rng: np.random.Generator,
        hint_iterations: int = 400,
        agent_seed: int = 0,
    ):
        self.rules = rules
        self.setup = setup
        self.human = human
        self.agents = agents
        self.hint_rng = hint_rng
        self.hint_iterations = hint_iterations
        self.agent_seed = agent_seed
        self.game = Game(rules, setup)
        self.actors: list[int] = []  # the seat that chose each action of game.history

    @property
    def names(self) -> list[str]:
        return [
            "you" if seat == self.human else self.agents[seat].name
            for seat in range(self.game.num_players)
        ]

    def apply(self, action: int) -> None:
        seat = self.game.current_player
        self.game.apply(action)
        self.actors.append(seat)

    def opponents_move(self) -> list[str]:
        """Let the agents play until it is the human's turn or the game is over; one line
        per move played."""
        game = self.game
        lines = []
        while not game.is_over and game.current_player != self.human:
            seat = game.current_player
            agent = self.agents[seat]
            # seeded by the position: after an undo, the same moves bring the same replies
            agent.seed(np.random.default_rng([self.agent_seed, seat, len(game.history)]))
            action = agent.act(game)
            lines.append(f"seat {seat} ({self.names[seat]}): {game.action_string(action)}")
            self.apply(action)
        return lines

    def undo(self) -> str:
        """Replay from the setup without the human's last decision and the replies after it."""
        mine = [i for i, seat in enumerate(self.actors) if seat == self.human]
        if not mine:
            return "nothing to undo: you have not moved yet"
        keep = self.game.history[: mine[-1]]
        replies = len(self.game.history) - mine[-1] - 1
        self.game = Game(self.rules, self.setup)
        self.actors = []
        for action in keep:
            self.apply(action)
        return f"undid your last move and the {replies} opponent move(s) after it"

    def hint(self) -> list[str]:
        """MCTS mean reward and visits of the best few actions of this position."""
        from agents.search.config import MCTS
        from agents.search.mcts import MCTSAgent
        from mortyenv.engine import BatchEngine

        engine = BatchEngine(self.rules, self.game.num_players)
        state = engine.from_games([self.game])
        search = MCTSAgent(self.hint_rng, MCTS.with_settings({"walks": self.hint_iterations}))
        stats = search.analyse(engine, state)
        lines = [
            f"hint: MCTS, {self.hint_iterations} rollouts, ranked by visits (the search plays "
            "its most visited move); value = your mean reward in 0..1 (mostly the win share), "
            "reliable only with many visits; prior = the heuristic's preference"
        ]
        for s in stats[:HINT_ACTIONS]:
            lines.append(
                f"  {move_code(self.game, s.action):8} value {s.value:.3f}  visits {s.visits:4d}"
                f"  prior {s.prior:.2f}  {self.game.action_string(s.action)}"
            )
        return lines

    def score_lines(self) -> list[str]:
        keys = ("rows", "basic", "extra", "labels", "kittens", "badges", "total")
        lines = ["seat  player      " + " ".join(f"{k:>7}" for k in keys)]
        for seat, s in enumerate(self.game.score_breakdown()):
            row = " ".join(f"{s[k]:7d}" for k in keys)
            lines.append(f"{seat:4}  {self.names[seat]:10}  {row}")
        return lines

    def save(self, path: Path) -> Path:
        from mortyenv.record import GameRecord

        players = ["human" if name == "you" else name for name in self.names]
        return GameRecord.from_game(self.game, players=players).save(path)


def opponent_names(text: str, players: int) -> list[str]:
    """One agent spec for every other seat, or exactly one per other seat (a spec's
    settings may hold commas: `split_specs`), each checked before the game is dealt."""
    from agents import check_agent, split_specs

    try:
        names = [str(check_agent(spec)) for spec in split_specs(text)]
    except ValueError as err:
        raise UsageError(f"--opponents: {err}") from None
    if len(names) == 1:
        names = names * (players - 1)
    if len(names) != players - 1:
        raise UsageError(
            f"--opponents: give one agent, or {players - 1} comma-separated agents for "
            f"{players} players; got {text!r}"
        )
    return names


def build_session(args: argparse.Namespace, seed: int) -> PlaySession:
    """The deal, the agents and the hint search all draw from `seed`, in separate streams."""
    from agents import make_agent

    rules = Ruleset.default()
    check_players(rules, args.players)
    if not 0 <= args.seat < args.players:
        raise UsageError(f"--seat must be in 0..{args.players - 1}, got {args.seat}")
    deal, hint, *seats = (
        np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(args.players + 2)
    )
    setup = Setup.random(rules, args.players, deal, side=args.side, mode=args.mode)
    others = iter(opponent_names(args.opponents, args.players))
    try:
        agents = {
            seat: make_agent(next(others), args.players, seed=seats[seat], rules=rules)
            for seat in range(args.players)
            if seat != args.seat
        }
    except ValueError as err:  # an unknown agent, or one without a network for this table
        raise UsageError(f"--opponents: {err}") from err
    return PlaySession(rules, setup, args.seat, agents, hint, args.hint_iterations, seed)


def record_path(record: str | None, seed: int) -> Path:
    path = Path(record or f"play-{seed}")
    return path if path.suffix == ".json" else path.with_name(path.name + ".json")


def say(text: str = "") -> None:
    """Print and flush at once, so a pseudo-terminal (and pexpect) sees every line."""
    print(text, flush=True)


def read(prompt: str) -> str | None:
    """One line from the human; None at the end of input (Ctrl-D) or on Ctrl-C."""
    try:
        return input(prompt)
    except (EOFError, KeyboardInterrupt):
        say()
        return None


def run(args: argparse.Namespace) -> int:
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    session = build_session(args, seed)
    color = color_wanted(sys.stdout, args.no_color)
    seats = ", ".join(f"seat {s}: {n}" for s, n in enumerate(session.names))
    say(f"Morty Sorty Magic Shop, {args.players} players, seed {seed} ({seats})")
    say(HELP)
    try:
        finished = play(session, color)
    except KeyboardInterrupt:  # Ctrl-C while an agent thinks: quit, keeping the record
        say()
        finished = False
    if finished:
        say(render(session.game, color))
    say("\n".join(session.score_lines()))
    if finished:
        winners = [session.names[w] for w in session.game.winners()]
        say(("winner: " if len(winners) == 1 else "shared victory: ") + ", ".join(winners))
    else:
        say("you quit; the scores above are those if the game ended now")
    path = session.save(record_path(args.record, seed))
    say(f"saved game record to {path}")
    say(f"replay it with: morty replay {path}")
    return 0


def render(game: Game, color: bool) -> str:
    from mortyenv.render import render_text

    return render_text(game, color=color)


def play(session: PlaySession, color: bool) -> bool:
    """The game loop; True when the game ran to its end, False when the human quit."""
    while True:
        for line in session.opponents_move():
            say(line)
        game = session.game
        if game.is_over:
            return True
        say()
        say(render(game, color))
        kittens = game.kittens[session.human]
        what = "special jar action" if game.phase == "special" else f"round {game.round + 1}"
        say(f"your turn (seat {session.human}, {what}, {kittens} kittens); legal moves:")
        say("\n".join(legal_move_lines(game)))
        while True:
            text = read("your move> ")
            command = "q" if text is None else text.strip().lower()
            if command in ("q", "quit"):
                return False
            if command in ("", "?", "help"):
                say(HELP)
            elif command in ("h", "hint"):
                say(f"thinking ({session.hint_iterations} MCTS rollouts) ...")
                say("\n".join(session.hint()))
            elif command in ("b", "board"):
                say(render(game, color))
                say("\n".join(legal_move_lines(game)))
            elif command in ("s", "scores"):
                say("\n".join(session.score_lines()))
            elif command in ("u", "undo"):
                say(session.undo())
                if session.game is not game:
                    break
            else:
                try:
                    action = parse_move(game, command)
                except ValueError as err:
                    say(f"! {err}")
                    continue
                say(f"you: {game.action_string(action)}")
                session.apply(action)
                break
