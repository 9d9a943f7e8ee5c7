"""`morty ladder`: the anchors of the committed ladders, with their ratings and intervals.

What a result cites: each player count's newest ladder (`mortyenv/data/ladder/`), its
version and file, and every anchor's Elo rating with its 95 % interval (clustered by deal),
the deals and games that placed it and its time a move in the ladder tournament.
"""

from __future__ import annotations

import argparse

from mortyenv.arena import ladder as ladders
from mortyenv.rules import Ruleset
from mortyenv.stats import per_move
from mortyenv.usage import check_players


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--players",
        type=int,
        default=None,
        help="only this player count's ladder (default: every player count's)",
    )


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    rules = Ruleset.default()
    if args.players is not None:
        check_players(rules, args.players)
    counts = [args.players] if args.players else range(rules.min_players, rules.max_players + 1)
    console = Console()
    if not console.is_terminal:
        console = Console(width=120)
    for players in counts:
        published = ladders.versions(players)
        if not published:
            continue
        ladder = ladders.load(players)
        path = ladders.path_of(players, ladder.version)
        table = Table(
            title=f"{players}-player ladder v{ladder.version} ({path.name}): "
            f"{ladders.SCALE_ANCHOR} = {ladders.SCALE_RATING:.0f}",
            caption="95 % intervals, clustered by deal",
        )
        for column in ("anchor", "Elo [95% CI]", "deals", "games", "time a move"):
            table.add_column(column, justify="left" if column == "anchor" else "right")
        for rung in reversed(ladder.rungs):  # strongest first
            table.add_row(
                rung.name,
                f"{rung.rating:.0f} [{rung.ci_low:.0f}, {rung.ci_high:.0f}]",
                f"{rung.deals:,}",
                f"{rung.games:,}",
                per_move(rung.seconds_per_move),
            )
        console.print(table)
    return 0
