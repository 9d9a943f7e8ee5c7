"""The JSON view of a game: everything on the table, nothing that is hidden.

RULES.md section 8: all shelves, the display, the rack, kittens, badges and discarded tiles
are public; the order of the bag and the removed tiles are not. So this view is built from
the public parts of a reference `Game` only; the bag and the removed tiles appear as counts.
A test builds two games that differ only in their hidden parts and checks that their views
(and their records) are equal.
"""

from __future__ import annotations

from typing import Any

from mortyenv.record import GameRecord
from mortyenv.reference import Game, Placed
from mortyenv.render.common import badge_requirement, cell_labels, mode_text, rounds_total
from mortyenv.rules import Ruleset
from mortyenv.setup import Setup


def tile_view(rules: Ruleset, placed: Placed | None) -> dict[str, Any] | None:
    """A tile as the page draws it: number, lid, the face on show and the face behind."""
    if placed is None:
        return None
    tile_id, face = placed
    tile = rules.tiles[tile_id]
    return {
        "tile": tile_id,
        "number": tile.number,
        "lid": rules.lids[tile.lid],
        "face": rules.ingredients[tile.faces[face]],
        "back": rules.ingredients[tile.faces[1 - face]],
    }


def rules_view(rules: Ruleset) -> dict[str, Any]:
    """What the page needs to draw any ruleset: shelf size, names, which rows each lid allows."""
    return {
        "name": rules.name,
        "version": rules.version,
        "rows": rules.rows,
        "cols": rules.cols,
        "row_names": [rules.row_name(r) for r in range(rules.rows)],
        "row_bonus": list(rules.row_bonus),
        "ingredients": list(rules.ingredients),
        "lids": list(rules.lids),
        "lid_rows": {rules.lids[lid]: list(rows) for lid, rows in rules.lid_rows.items()},
    }


def source_tile(game: Game, source: int) -> Placed | None:
    """The (tile id, face) in a display or rack slot, or None when the slot is empty."""
    if game.codec.is_rack(source):
        return game.rack[source - game.codec.display_max]
    return game.display[source]


def legal_view(game: Game) -> list[dict[str, Any]]:
    """Every legal action of the player to act, with where it puts which tile and its kitten
    cost (section 4: one kitten to flip, one to equal a neighbour)."""
    codec = game.codec
    player = game.current_player
    costs: dict[int, int] = {}
    for source in range(codec.num_sources):
        tile = source_tile(game, source)
        if tile is not None:
            for p in game.placements(player, tile):
                costs[codec.encode(source, p.row, p.col, p.flip)] = p.cost
    moves = []
    for action in game.legal_actions():
        entry: dict[str, Any] = {"action": action, "string": game.action_string(action)}
        if action == codec.pass_action:
            entry.update(source=None, row=None, col=None, flip=None, cost=0)
        else:
            source, row, col, flip = codec.decode(action)
            entry.update(
                source=codec.source_name(source), row=row, col=col, flip=flip, cost=costs[action]
            )
        moves.append(entry)
    return moves


def badges_view(game: Game) -> list[dict[str, Any]]:
    """The game's badges, each with its pennants left to right and who holds them."""
    rules = game.rules
    badges = []
    for k, badge_id in enumerate(game.badges):
        badge = rules.badges[badge_id]
        holders = {game.pennant[s][k]: s for s in range(game.num_players)}
        pennants = [
            {"value": value, "seat": holders.get(value) if i < game.pennants_taken[k] else None}
            for i, value in enumerate(rules.pennants[: game.num_players])
        ]
        badges.append(
            {
                "id": badge_id,
                "name": badge.name,
                "requirement": badge_requirement(rules, badge),
                "pennants": pennants,
            }
        )
    return badges


def game_view(
    game: Game,
    seat: int | None,
    players: list[str],
    moves: list[dict[str, Any]],
    can_undo: bool = False,
) -> dict[str, Any]:
    """The `state` of the JSON API. `seat` is the human's seat (None when nobody plays, as in
    a replayed record): `legal` lists its actions when it is to act, else nothing."""
    rules = game.rules
    over = game.is_over
    to_play = None if over else game.current_player
    return {
        "round": game.round,
        "rounds": rounds_total(game),
        "phase": "over" if over else game.phase,
        "to_play": to_play,
        "over": over,
        "seat": seat,
        "players": list(players),
        "scores": game.score_breakdown(),
        "winners": game.winners() if over else [],
        "display": [tile_view(rules, t) for t in game.display[: game.display_size]],
        "rack": [tile_view(rules, t) for t in game.rack],
        "shelves": [
            [[tile_view(rules, c) for c in row] for row in shelf] for shelf in game.shelves
        ],
        "kittens": list(game.kittens),
        "rows_done": [list(r) for r in game.rows_done],
        "badges": badges_view(game),
        "labels": [
            {"row": r, "col": c, "ingredient": rules.ingredients[ing]}
            for (r, c), ing in sorted(cell_labels(game).items())
        ],
        "side": game.side,
        "mode": mode_text(game),
        "bag_count": len(game.bag),
        "removed_count": len(game.removed),
        "discarded_count": len(game.discarded),
        "legal": legal_view(game) if seat is not None and to_play == seat else [],
        "moves": moves,
        "can_undo": can_undo,
        "rules": rules_view(rules),
    }


def public_setup(game: Game) -> Setup:
    """The game's deal as far as anyone has seen it, for its record: the tiles drawn so far in
    their order and faces, then the unseen tiles (the rest of the bag and the removed ones)
    in a fixed order, sorted by id, face 0. No action so far touched an unseen tile, so the
    record replays exactly to its last position, yet tells nothing of the bag order or of
    which tiles were removed."""
    setup = game.setup
    assert setup is not None
    drawn = len(setup.bag) - len(game.bag)
    unseen = sorted([t for t, _ in setup.bag[drawn:]] + list(setup.removed))
    left = len(setup.bag) - drawn
    return Setup(
        setup.num_players,
        list(setup.bag[:drawn]) + [(t, 0) for t in unseen[:left]],
        unseen[left:],
        setup.rack,
        setup.badges,
        setup.side,
        setup.extra_roll,
        setup.first_player,
    )


def public_record(game: Game, players: list[str]) -> dict[str, Any]:
    """The game record (the format of `morty play`) of the game so far, with its public deal
    (`public_setup`): it replays exactly, and may be handed out at any time."""
    record = GameRecord.from_game(game, players=players)
    record.setup = public_setup(game)
    return record.to_dict()
