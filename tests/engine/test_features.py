"""Per-action features (`BatchEngine.action_features`): a hand-built position, a plain-Python
computation on the reference `Game` over random positions of 2, 3 and 4 players, the bag
kept hidden, and the structured observation."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import ingredient, new_game, on_threads

from mortyenv import Game
from mortyenv.engine import BatchEngine
from mortyenv.engine.learner.schema import (
    ACTION_FEATURES,
    KITTEN_SCALE,
    POINT_SCALE,
    TILE_SCALE,
    feature_layout,
)
from mortyenv.envs.observation import observation_encoder, structured_observation
from mortyenv.tables import Tables


def named(rules, row: np.ndarray) -> dict[str, float | list[float]]:
    layout = feature_layout(len(rules.lids), len(rules.ingredients), rules.rows, rules.cols)
    out: dict[str, float | list[float]] = {}
    for name, sl in layout.columns.items():
        values = [float(v) for v in row[sl]]
        out[name] = values if len(values) > 1 else values[0]
    return out


def features_of(game: Game, action: int) -> dict[str, float | list[float]]:
    """The features of `action`, computed the plain way from the reference Game: the
    neighbours read off the shelf, the unseen tiles counted, the score parts taken from
    the game after the action (`Game.score_breakdown`)."""
    rules, codec = game.rules, game.codec
    player = game.current_player
    top = int(max(rules.tile_number))
    f: dict[str, float | list[float]] = {name: 0.0 for name in ACTION_FEATURES}
    f["lid"] = [0.0] * len(rules.lids)
    f["ingredient"] = [0.0] * len(rules.ingredients)
    f["row"] = [0.0] * rules.rows
    cells = rules.rows * rules.cols
    for group, width in (("shelf_filled", cells), ("shelf_room", cells),
                         ("ingredients_after", len(rules.ingredients)),
                         ("lids_after", len(rules.lids))):  # fmt: skip
        f[group] = [0.0] * width
    after = game.clone()
    after.apply(action)
    before_score = game.score_breakdown()[player]
    after_score = after.score_breakdown()[player]
    f["kittens_after"] = after.kittens[player] / KITTEN_SCALE
    for part in ("basic", "rows", "extra", "labels", "badges", "kittens", "total"):
        f[f"d_{part}"] = (after_score[part] - before_score[part]) / POINT_SCALE
    if action == codec.pass_action:
        f["pass"] = 1.0
        return f
    source, row, col, flip = codec.decode(action)
    from_rack = source >= rules.display_max
    tile, face = game.rack[source - rules.display_max] if from_rack else game.display[source]
    face ^= flip
    n = rules.tiles[tile].number
    lid = rules.tiles[tile].lid
    shown = int(rules.tile_faces[tile, face])
    f.update(rack=float(from_rack), flip=float(flip), number=n / top, col=col / (rules.cols - 1))
    f["lid"][lid] = 1.0  # type: ignore[index]
    f["ingredient"][shown] = 1.0  # type: ignore[index]
    f["row"][row] = 1.0  # type: ignore[index]
    shelf = game.shelves[player]

    def number(r: int, c: int) -> int | None:
        cell = shelf[r][c]
        return None if cell is None else rules.tiles[cell[0]].number

    seen = set(t for t, _ in game.discarded) | {p[0] for p in game.display if p is not None}
    seen |= {cell[0] for s in game.shelves for line in s for cell in line if cell is not None}
    unseen = [t for t in rules.regular_ids if t not in seen]

    def fitting(r: int, low: int, high: int) -> int:
        allowed = [t for t in unseen if rules.lid_row_allowed[rules.tiles[t].lid][r]]
        return sum(low < rules.tiles[t].number < high for t in allowed)

    lefts = [c for c in range(col) if number(row, c) is not None]
    rights = [c for c in range(col + 1, rules.cols) if number(row, c) is not None]
    left_col, left_n = (lefts[-1], number(row, lefts[-1])) if lefts else (-1, 0)
    right_col, right_n = (rights[0], number(row, rights[0])) if rights else (rules.cols, top + 1)
    f.update(
        left_filled=float(bool(lefts)),
        left_step=(n - left_n) / top,
        left_cells=(col - left_col - 1) / rules.cols,
        left_fit=fitting(row, left_n, n) / TILE_SCALE,
        right_filled=float(bool(rights)),
        right_step=(min(right_n, top) - n) / top,
        right_cells=(right_col - col - 1) / rules.cols,
        right_fit=fitting(row, n, right_n) / TILE_SCALE,
        gap_fit=fitting(row, left_n, right_n) / TILE_SCALE,
        equal=float(
            n
            in (
                number(row, col - 1) if col else None,
                number(row, col + 1) if col + 1 < rules.cols else None,
            )
        ),
    )
    placed = [list(line) for line in shelf]
    placed[row][col] = (tile, face)
    numbers = [[None if c is None else rules.tiles[c[0]].number for c in line] for line in placed]
    # the row's gaps once placed: empty cells between filled ones (or the edges)
    dead, room, low, start = 0, 1.0, 0, 0
    for c in range(rules.cols + 1):
        if c < rules.cols and numbers[row][c] is None:
            continue
        high = top + 1 if c == rules.cols else numbers[row][c]
        if c - start:
            fit = fitting(row, low, high)
            dead += (c - start) * (fit == 0)
            room = min(room, fit / (c - start) / TILE_SCALE)
        low, start = high, c + 1
    rooms: list[float] = []
    for r in range(rules.rows):
        low, start = 0, 0
        for c in range(rules.cols + 1):
            if c < rules.cols and numbers[r][c] is None:
                continue
            high = top + 1 if c == rules.cols else numbers[r][c]
            per_cell = min(fitting(r, low, high) / max(c - start, 1) / TILE_SCALE, 1.0)
            rooms += [per_cell] * (c - start) + ([0.0] if c < rules.cols else [])
            low, start = high, c + 1
    f["shelf_room"] = rooms
    f["shelf_filled"] = [float(cell is not None) for line in placed for cell in line]
    showing = [int(rules.tile_faces[c[0], c[1]]) for line in placed for c in line if c]
    lids = [rules.tiles[c[0]].lid for line in placed for c in line if c]
    f["ingredients_after"] = [showing.count(i) / cells for i in range(len(rules.ingredients))]
    f["lids_after"] = [lids.count(k) / cells for k in range(len(rules.lids))]
    row_empty = sum(cell is None for cell in placed[row])
    column = [placed[r][col] for r in range(rules.rows)]
    shows = [int(rules.tile_faces[c[0], c[1]]) for c in column if c is not None]
    repeat = shows.count(shown) > 1
    label = int(rules.label_ingredient[rules.sides.index(game.side), row, col])
    every_shown = [int(rules.tile_faces[c[0], c[1]]) for line in shelf for c in line if c]
    f.update(
        row_left=row_empty / rules.cols,
        row_done=float(row_empty == 0),
        row_dead=dead / rules.cols,
        row_room=room,
        same_shown=every_shown.count(shown) / (rules.rows * rules.cols),
        column_left=sum(c is None for c in column) / rules.rows,
        column_repeat=float(repeat),
        jar=float(None not in column and not repeat and not game.columns_jarred[player][col]),
        label=float(label >= 0),
        label_match=float(label >= 0 and label == shown),
        badges_done=float(
            sum(
                a is None and b is not None
                for a, b in zip(game.pennant[player], after.pennant[player], strict=True)
            )
        ),
    )
    return f


def assert_features_match(rules, engine: BatchEngine, state, i: int, features: np.ndarray):
    game = engine.to_game(state, i)
    mask = engine.legal_action_mask(state, [i])[0]
    assert not features[~mask].any(), "an illegal action has features"
    for action in np.flatnonzero(mask):
        expected = features_of(game, int(action))
        got = named(rules, features[action])
        for name, value in expected.items():
            assert got[name] == pytest.approx(value, abs=1e-5), (
                f"{name} of {game.action_string(int(action))}: engine {got[name]}, "
                f"reference {value}"
            )


def test_hand_built_position(rules):
    # bottom row 3K . . . 12K . ; the display's 7K goes between them (section 4.3)
    shelf = """
    .    .    .    .    .    .
    .    .    .    .    .    .
    3KE  .    .    .    12KM .
    """
    game = new_game(rules, display=["7K", "20G", "3S", "9K"], shelves={0: shelf})
    engine = BatchEngine(rules, 2)
    state = engine.from_games([game])
    features = engine.action_features(state)
    action = game.codec.encode(0, 2, 2, 0)  # 7K to the bottom row, column 2
    f = named(rules, features[0, action])
    assert f["number"] == pytest.approx(7 / 24)
    assert f["row"] == [0.0, 0.0, 1.0]
    assert f["left_filled"] == 1.0 and f["left_step"] == pytest.approx(4 / 24)
    assert f["left_cells"] == pytest.approx(1 / 6) and f["right_cells"] == pytest.approx(1 / 6)
    assert f["right_step"] == pytest.approx(5 / 24)
    # every regular 4..6 that is not seen fits left (16 tiles of those numbers, none seen)
    assert f["left_fit"] == pytest.approx(12 / TILE_SCALE)
    assert f["right_fit"] == pytest.approx(15 / TILE_SCALE)  # 8 to 11, but the 9 in the display
    assert f["equal"] == 0.0 and f["pass"] == 0.0
    tile, face = game.display[0]
    before = (
        1 if rules.tile_faces[tile, face] in (ingredient(rules, "E"), ingredient(rules, "M")) else 0
    )
    gain = rules.basic_points[before + 1] - rules.basic_points[before]
    assert f["d_basic"] == pytest.approx(gain / POINT_SCALE)
    assert features[0, game.codec.pass_action, 0] == 1.0  # the `pass` column
    assert_features_match(rules, engine, state, 0, features[0])


def test_hand_built_label_pair(rules):
    # side B scores labels in pairs: EYE at the top left and the bottom right is one; the
    # bottom right shows EYE, and the display's gold EYE goes to the top left
    shelf = """
    .    .    .    .    .    .
    .    .    .    .    .    .
    .    .    .    .    .    20KE
    """
    game = new_game(rules, display=["1GE", "12K", "3S", "9K"], shelves={0: shelf}, side="B")
    engine = BatchEngine(rules, 2)
    state = engine.from_games([game])
    rows = engine.action_feature_rows(state)
    action = game.codec.encode(0, 0, 0, 0)
    f = named(rules, rows.features[np.flatnonzero(rows.action == action)[0]])
    side = rules.sides.index("B")
    assert f["d_labels"] == pytest.approx(Tables.build(rules, 2).pair_points[side] / POINT_SCALE)
    assert f["d_labels"] > 0 and f["label_match"] == 1.0
    features = engine.action_features(state)
    assert_features_match(rules, engine, state, 0, features[0])


def test_a_badge_the_shelf_meets_before_placing_counts_for_every_placement(rules):
    # a shelf built by hand with three full columns: Pillars (catalogue badge 7) is met but
    # not yet awarded, so any placement awards it (section 6); the features check a
    # placement only for what it changes (here: whether it fills a column), and must
    # still count it
    shelf = """
    1G   2G   .    .    .    24G
    1S   2S   .    .    .    24S
    1K   2K   .    .    .    24K
    """
    game = new_game(rules, display=["7K", "20G", "3S", "9K"], shelves={0: shelf}, badges=(7, 3))
    engine = BatchEngine(rules, 2)
    state = engine.from_games([game])
    rows = engine.action_feature_rows(state)
    placements = rows.action != game.codec.pass_action
    done = [named(rules, f)["badges_done"] for f in rows.features[placements]]
    assert done and min(done) >= 1.0
    assert_features_match(rules, engine, state, 0, engine.action_features(state)[0])


@pytest.mark.parametrize(
    ("players", "side", "mode"),
    [(2, None, None), (3, None, None), (4, None, None), (2, "B", "advanced"), (4, "B", "advanced")],
)
def test_features_match_the_reference_on_random_positions(rules, players, side, mode):
    # side B scores its labels in pairs, the advanced game has an extra scoring roll
    engine = BatchEngine(rules, players)
    rng = np.random.default_rng(players)
    state = engine.reset(batch_size=6, seed=players, side=side, mode=mode)
    checked = 0
    for step in range(70):
        if step % 7 == 3:
            features = engine.action_features(state)
            for i in np.flatnonzero(~state.over):
                assert_features_match(rules, engine, state, int(i), features[i])
                checked += 1
        engine.step(state, engine.random_actions(state, rng))
    assert checked >= 30


def test_features_do_not_read_the_bag(rules):
    # the hidden tiles (bag beyond bag_next, removed) shuffled among themselves: nothing
    # the features say may change, at every step of random games
    engine = BatchEngine(rules, 2)
    rng = np.random.default_rng(5)
    state = engine.reset(batch_size=8, seed=5)
    for _ in range(60):
        other = state.copy()
        for b in range(8):
            hidden = np.concatenate([other.bag[b, other.bag_next[b] :], other.removed[b]])
            faces = np.concatenate(
                [other.bag_face[b, other.bag_next[b] :], rng.integers(0, 2, len(other.removed[b]))]
            )
            order = rng.permutation(len(hidden))
            n_bag = other.bag.shape[1] - other.bag_next[b]
            other.bag[b, other.bag_next[b] :] = hidden[order][:n_bag]
            other.bag_face[b, other.bag_next[b] :] = faces[order][:n_bag]
            other.removed[b] = hidden[order][n_bag:]
        np.testing.assert_array_equal(engine.action_features(state), engine.action_features(other))
        engine.step(state, engine.random_actions(state, rng))


def test_features_refuse_a_wrong_mask(rules):
    engine = BatchEngine(rules, 2)
    state = engine.reset(batch_size=2, seed=0)
    with pytest.raises(ValueError, match="mask must be a bool array of shape"):
        engine.action_features(state, np.ones((2, 5), dtype=bool))
    with pytest.raises(ValueError, match="mask must be a bool array"):
        engine.action_features(state, engine.legal_action_mask(state).astype(np.int8))


def test_vector_env_gives_action_features(rules):
    import gymnasium

    env = gymnasium.make_vec("mortyenv/MortySorty-v1", num_envs=4, action_features=True)
    _, infos = env.reset(seed=0)
    feats = infos["action_features"]
    assert feats.shape[:2] == (4, 469) and feats.dtype == np.float32
    # a row for exactly the legal actions (PASS's row holds its kitten)
    assert np.array_equal(feats.any(axis=2), infos["action_mask"])
    actions = np.array([np.flatnonzero(m)[0] for m in infos["action_mask"]])
    _, _, _, _, infos = env.step(actions)
    assert np.array_equal(infos["action_features"].any(axis=2), infos["action_mask"])


@pytest.mark.parametrize("players", [2, 4])
def test_structured_observation_is_the_flat_one_laid_out(rules, players):
    engine = BatchEngine(rules, players)
    state = engine.reset(batch_size=3, seed=1)
    rng = np.random.default_rng(1)
    for _ in range(25):
        engine.step(state, engine.random_actions(state, rng))
    encoder = observation_encoder(rules, players)
    flat = encoder.encode(state, engine.current_player(state))
    parts = structured_observation(flat, players)
    assert parts["shelves"].shape == (3, players, rules.rows, rules.cols, encoder.cell_features)
    assert parts["display"].shape == (3, rules.display_max, encoder.tile_features)
    # the same numbers: every value of the flat vector appears once, in layout order
    joined = np.concatenate([part.reshape(3, -1) for part in parts.values()], axis=1)
    np.testing.assert_array_equal(joined, flat)
    # the shelf grid holds each cell where the shelf has it: filled flag = tile present
    seat = engine.current_player(state)
    for b in range(3):
        filled = parts["shelves"][b, 0, :, :, 0] > 0
        np.testing.assert_array_equal(filled, state.shelf[b, seat[b]] >= 0)
    with pytest.raises(ValueError, match="an observation has"):
        structured_observation(flat[:, :-1], players)


def test_features_are_the_same_at_any_thread_count(rules):
    import numba

    engine = BatchEngine(rules, 3)
    state = engine.reset(batch_size=80, seed=9)
    rng = np.random.default_rng(9)
    for _ in range(30):
        engine.step(state, engine.random_actions(state, rng))
    serial = on_threads(1, lambda: engine.action_features(state))
    threaded = on_threads(numba.config.NUMBA_NUM_THREADS, lambda: engine.action_features(state))
    np.testing.assert_array_equal(serial, threaded)
    one = engine.action_features(state, games=[17])
    np.testing.assert_array_equal(one[0], serial[17])
