"""`morty serve`'s JSON API, in process: every field, every error code, a whole game whose
record replays, and no hidden information in any answer (docs/web.md)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from starlette.testclient import TestClient

from agents import AGENTS
from agents.builtin import Entry
from mortyenv.record import GameRecord
from mortyenv.reference import Game
from mortyenv.rules import Ruleset
from mortyenv.setup import Setup
from mortyenv.web import create_app
from mortyenv.web.sessions import WebGame
from mortyenv.web.state import game_view, public_record

RULES = Ruleset.default()
STATE_FIELDS = {
    "round", "phase", "to_play", "over", "scores", "winners", "display", "rack", "shelves",
    "kittens", "bag_count", "legal", "moves",
}  # fmt: skip
SCORE_KEYS = {"rows", "basic", "extra", "labels", "kittens", "badges", "total", "tiebreak"}


class Clock:
    """A clock the test moves by hand, for the idle timeout."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(max_games=1000)) as test_client:
        yield test_client


def new_game(client: TestClient, **body: Any) -> tuple[str, dict[str, str], dict[str, Any]]:
    """(id, auth headers, state) of a new game."""
    answer = client.post("/api/games", json={"players": 2, "opponents": ["greedy"], **body})
    assert answer.status_code == 201, answer.text
    data = answer.json()
    return data["id"], {"Authorization": f"Bearer {data['token']}"}, data["state"]


def server_game(client: TestClient, game_id: str) -> WebGame:
    return client.app.state.store.get(game_id)  # type: ignore[attr-defined]


def first_take(state: dict[str, Any]) -> dict[str, Any]:
    return next(m for m in state["legal"] if m["source"] is not None)


# ------------------------------------------------------------------ the contract
def test_new_game_answers_201_with_id_token_and_every_state_field(client: TestClient) -> None:
    answer = client.post(
        "/api/games", json={"players": 2, "opponents": ["heuristic"], "seat": 0, "seed": 0}
    )
    assert answer.status_code == 201
    data = answer.json()
    assert set(data) == {"id", "token", "state"}
    state = data["state"]
    assert set(state) >= STATE_FIELDS
    assert state["round"] == 0 and state["phase"] == "draft" and state["over"] is False
    assert state["to_play"] == 0 and state["seat"] == 0 and state["winners"] == []
    assert state["players"] == ["human", "heuristic"]
    assert len(state["scores"]) == 2 and all(set(s) == SCORE_KEYS for s in state["scores"])
    assert len(state["display"]) == RULES.display_size[2]
    assert all(set(t) == {"tile", "number", "lid", "face", "back"} for t in state["display"])
    assert len(state["rack"]) == RULES.rack_size
    assert np.array(state["shelves"], dtype=object).shape == (2, RULES.rows, RULES.cols)
    assert state["kittens"] == [RULES.start_kittens] * 2
    assert state["bag_count"] == 96 - RULES.removed[2] - RULES.display_size[2]
    assert state["moves"] == []
    assert state["legal"][-1] == {
        "action": 468, "string": "pass (take a kitten)",
        "source": None, "row": None, "col": None, "flip": None, "cost": 0,
    }  # fmt: skip
    legal_keys = {"action", "string", "source", "row", "col", "flip", "cost"}
    assert all(set(m) == legal_keys for m in state["legal"])
    assert client.get(f"/api/games/{data['id']}").json() == state


def test_the_same_seed_deals_the_game_morty_play_deals(client: TestClient) -> None:
    _, _, state = new_game(client, seed=42)
    deal = np.random.default_rng(np.random.SeedSequence(42).spawn(4)[0])
    game = Game(RULES, Setup.random(RULES, 2, deal))
    assert [t["tile"] for t in state["display"]] == [t for t, _ in game.display[:4]]


def test_legal_matches_the_reference_engine_with_kitten_costs(client: TestClient) -> None:
    game_id, _, state = new_game(client, seed=5)
    game = server_game(client, game_id).game
    assert [m["action"] for m in state["legal"]] == game.legal_actions()
    for move in state["legal"][:-1]:
        assert move["string"] == game.action_string(move["action"])
        assert move["cost"] == move["flip"]  # an empty shelf: only a flip costs a kitten


def test_a_move_by_index_and_by_string_gets_the_agents_replies(client: TestClient) -> None:
    game_id, auth, state = new_game(client, seed=1)
    move = first_take(state)
    answer = client.post(
        f"/api/games/{game_id}/moves", json={"action": move["action"]}, headers=auth
    )
    assert answer.status_code == 200
    state = answer.json()
    assert state["moves"][0] == {
        "action": move["action"],
        "string": move["string"],
        "seat": 0,
        "round": 0,
    }
    assert [m["seat"] for m in state["moves"][1:]] and state["to_play"] == 0
    move = first_take(state)  # its string without the tile: 'take D1 -> bottom/col0'
    short = move["string"].split(" (")[0] + " -> " + move["string"].split(" -> ")[1]
    answer = client.post(f"/api/games/{game_id}/moves", json={"action": short}, headers=auth)
    assert answer.status_code == 200, answer.text
    assert answer.json()["moves"][len(state["moves"])]["action"] == move["action"]
    answer = client.post(f"/api/games/{game_id}/moves", json={"action": "pass"}, headers=auth)
    assert answer.status_code == 200


def test_agents_open_when_the_human_sits_second(client: TestClient) -> None:
    _, _, state = new_game(client, seat=1, seed=3)
    assert state["to_play"] == 1 and state["moves"][0]["seat"] == 0 and state["legal"]


def play_to_the_end(client: TestClient, game_id: str, auth: dict[str, str], seed: int) -> dict:
    rng = np.random.default_rng(seed)
    state = client.get(f"/api/games/{game_id}").json()
    while not state["over"]:
        action = int(rng.choice([m["action"] for m in state["legal"]]))
        answer = client.post(f"/api/games/{game_id}/moves", json={"action": action}, headers=auth)
        assert answer.status_code == 200, answer.text
        assert answer.json()["moves"][len(state["moves"])]["action"] == action
        state = answer.json()
    return state


@pytest.mark.parametrize("players", [2, 3])
def test_a_whole_game_through_the_api_replays_from_its_record(
    client: TestClient, players: int
) -> None:
    game_id, auth, _ = new_game(client, players=players, opponents=["greedy"], seat=1, seed=9)
    state = play_to_the_end(client, game_id, auth, seed=players)
    assert state["over"] and state["phase"] == "over" and state["to_play"] is None
    assert state["legal"] == [] and state["winners"]
    answer = client.get(f"/api/games/{game_id}/record")
    assert answer.status_code == 200
    assert "attachment" in answer.headers["content-disposition"]
    record = GameRecord.from_dict(answer.json())
    assert record.actions == [m["action"] for m in state["moves"]]
    assert record.action_strings == [m["string"] for m in state["moves"]]
    assert record.players == state["players"]
    game = record.replay(RULES)  # checks every action, the scores and the winners
    assert game.score_breakdown() == state["scores"] and record.winners == state["winners"]
    record.replay_batch(RULES)
    # a finished game takes no move and no hint; undo takes back its last move
    for path, body in (("moves", {"action": 468}), ("hint", None)):
        answer = client.post(f"/api/games/{game_id}/{path}", json=body, headers=auth)
        assert answer.status_code == 409, path
    undone = client.post(f"/api/games/{game_id}/undo", headers=auth).json()
    assert not undone["over"] and undone["to_play"] == 1 and undone["legal"]
    last = max(i for i, m in enumerate(state["moves"]) if m["seat"] == 1)
    assert undone["moves"] == state["moves"][:last]
    # the record of the game part way replays to where it is
    part = GameRecord.from_dict(client.get(f"/api/games/{game_id}/record").json())
    assert part.actions == record.actions[:last] and part.replay(RULES).round == undone["round"]
    # the record's positions, for the page's viewer
    answer = client.post("/api/records/replay", json=record.to_dict())
    assert answer.status_code == 200
    positions = answer.json()["positions"]
    assert len(positions) == len(record.actions) + 1
    assert positions[-1]["scores"] == state["scores"] and positions[-1]["legal"] == []
    assert positions[-1]["moves"] == [{**m} for m in state["moves"]]


def test_a_special_jar_action_offers_the_rack(client: TestClient) -> None:
    """Play placements at random until the human earns a special jar action (a few games at
    most): then only rack tiles (and pass) are legal, and one is played by its string."""
    for seed in range(40):
        rng = np.random.default_rng(seed)
        game_id, auth, state = new_game(client, seed=seed)
        while not state["over"] and state["phase"] != "special":
            takes = [m for m in state["legal"] if m["source"] is not None] or state["legal"]
            move = {"action": int(rng.choice([m["action"] for m in takes]))}
            state = client.post(f"/api/games/{game_id}/moves", json=move, headers=auth).json()
        if state["phase"] == "special":
            break
    assert state["phase"] == "special" and state["to_play"] == 0
    sources = {m["source"] for m in state["legal"]}
    assert None in sources and all(s is None or s.startswith("R") for s in sources)
    rack = next(m for m in state["legal"] if m["source"] is not None)
    answer = client.post(
        f"/api/games/{game_id}/moves", json={"action": rack["string"]}, headers=auth
    )
    assert answer.status_code == 200
    assert answer.json()["rack"][int(rack["source"][1:])] is None


def test_hint_scores_every_legal_move(client: TestClient) -> None:
    game_id, auth, state = new_game(client, seed=4)
    answer = client.post(f"/api/games/{game_id}/hint", headers=auth)
    assert answer.status_code == 200
    hint = answer.json()
    assert hint["iterations"] > 0
    assert sorted(m["action"] for m in hint["moves"]) == [m["action"] for m in state["legal"]]
    for line in hint["moves"]:
        assert set(line) == {"action", "string", "visits", "value", "prior"}
        assert line["value"] is None or 0 <= line["value"] <= 1
    visits = [m["visits"] for m in hint["moves"]]
    assert visits == sorted(visits, reverse=True)
    assert client.get(f"/api/games/{game_id}").json() == state  # a hint changes nothing
    assert client.post(f"/api/games/{game_id}/hint").status_code == 401


def test_undo_takes_back_the_move_and_the_replies(client: TestClient) -> None:
    game_id, auth, before = new_game(client, seed=6)
    assert before["can_undo"] is False
    assert client.post(f"/api/games/{game_id}/undo", headers=auth).status_code == 409
    after = client.post(
        f"/api/games/{game_id}/moves", json={"action": first_take(before)["action"]}, headers=auth
    ).json()
    assert after["can_undo"] is True and len(after["moves"]) >= 2
    answer = client.post(f"/api/games/{game_id}/undo", headers=auth)
    assert answer.status_code == 200
    assert answer.json() == before
    assert client.post(f"/api/games/{game_id}/undo").status_code == 401


# ------------------------------------------------------------------ errors
def test_every_error_code(client: TestClient) -> None:
    game_id, auth, state = new_game(client, seed=8)
    other_id, other_auth, _ = new_game(client, seed=8)
    moves = f"/api/games/{game_id}/moves"
    take = first_take(state)

    def status(answer: Any) -> int:
        assert "error" in answer.json(), answer.text
        return answer.status_code

    # 400: illegal actions, each with the reason
    black = next(
        s for s, t in enumerate(state["display"]) if t["lid"] == "BLACK"
    )  # a black lid only goes on the bottom row
    illegal = ((black * RULES.rows + 0) * RULES.cols + 0) * 2
    answer = client.post(moves, json={"action": illegal}, headers=auth)
    assert status(answer) == 400 and "black lid may not go on row 0" in answer.json()["error"]
    assert status(client.post(moves, json={"action": 469}, headers=auth)) == 400
    assert status(client.post(moves, json={"action": -1}, headers=auth)) == 400
    assert status(client.post(moves, json={"action": "take D9 -> top/col0"}, headers=auth)) == 400
    assert status(client.post(moves, json={"action": "dance"}, headers=auth)) == 400
    wrong_tile = take["string"].replace(
        f"({take['string'].split('(')[1].split(')')[0]})", "(1 gold eye)"
    )
    assert status(client.post(moves, json={"action": wrong_tile}, headers=auth)) == 400
    # 401 / 403: the token
    assert status(client.post(moves, json={"action": take["action"]})) == 401
    assert client.post(moves, json={"action": 1}).headers["www-authenticate"] == "Bearer"
    assert (
        status(client.post(moves, json={"action": 1}, headers={"Authorization": "Basic x"})) == 401
    )
    assert status(client.post(moves, json={"action": 1}, headers=other_auth)) == 403
    # 404: no such game (or file)
    for path in ("", "/record"):
        assert status(client.get(f"/api/games/nope{path}")) == 404
    for path in ("/moves", "/undo", "/hint"):
        assert status(client.post(f"/api/games/nope{path}", json={}, headers=auth)) == 404
    assert status(client.get("/static/../app.py")) == 404
    assert status(client.get("/no/such/page")) == 404
    # 413: a body over the cap
    big = {"action": 1, "padding": "x" * 70_000}
    assert status(client.post(moves, json=big, headers=auth)) == 413
    assert status(client.post("/api/games", json={"players": 2, "x": "y" * 70_000})) == 413
    # 422: malformed bodies
    bad_moves = [
        "{", "[]", '"take"', "{}", '{"action": true}', '{"action": 1.5}',
        '{"action": null}', '{"action": [1]}', '{"action": 1, "flip": 1}',
    ]  # fmt: skip
    for body in bad_moves:
        answer = client.post(
            moves, content=body, headers={**auth, "Content-Type": "application/json"}
        )
        assert status(answer) == 422, body
    assert status(client.post(moves, headers=auth)) == 422  # no body at all
    bad_games = [
        {"players": 9}, {"players": "2"}, {"opponents": ["nobody"]}, {"opponents": "greedy"},
        {"players": 3, "opponents": ["greedy"] * 3}, {"seat": 2}, {"seed": -1},
        {"side": "C"}, {"mode": "hard"}, {"colour": "red"}, [2],
    ]  # fmt: skip
    for body in bad_games:
        assert status(client.post("/api/games", json=body)) == 422, body
    assert status(client.post("/api/records/replay", json={"format": "x"})) == 422
    # and none of it changed the game
    assert client.get(f"/api/games/{game_id}").json() == state
    assert client.get(f"/api/games/{other_id}").json()["moves"] == []


def test_a_full_server_answers_503_and_idle_games_are_dropped() -> None:
    clock = Clock()
    with TestClient(create_app(max_games=2, idle_seconds=60, clock=clock)) as client:
        first, _, _ = new_game(client, seed=1)
        clock.now = 30
        new_game(client, seed=2)
        answer = client.post("/api/games", json={})
        assert answer.status_code == 503 and answer.headers["retry-after"]
        clock.now = 80  # the first game idled 80 s, the second 50 s
        third, _, _ = new_game(client, seed=3)
        assert client.get(f"/api/games/{first}").status_code == 404
        assert client.get(f"/api/games/{third}").status_code == 200
        assert len(client.app.state.store) == 2  # type: ignore[attr-defined]


def test_idle_games_are_swept_without_a_request() -> None:
    clock = Clock()
    with TestClient(create_app(idle_seconds=60, clock=clock, sweep_seconds=0.01)) as client:
        new_game(client, seed=1)
        store = client.app.state.store  # type: ignore[attr-defined]
        assert len(store) == 1
        clock.now = 61
        deadline = time.monotonic() + 5
        while len(store) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(store) == 0


def test_hosts_other_than_the_allowed_ones_are_refused() -> None:
    app = create_app(allowed_hosts=["127.0.0.1", "localhost"])
    with TestClient(app, base_url="http://127.0.0.1") as client:
        assert client.get("/api/agents").status_code == 200
    with TestClient(app, base_url="http://localhost:8000") as client:
        assert client.get("/api/agents").status_code == 200  # the port is not the host
    with TestClient(app, base_url="http://evil.example") as client:
        refused = client.get("/api/agents")
        assert refused.status_code == 400
        assert refused.headers["content-type"] == "application/json"
        assert "answers requests addressed to 127.0.0.1 or localhost" in refused.json()["error"]
        assert "'evil.example'" in refused.json()["error"]


def test_the_page_and_its_files_are_served_from_the_package(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "default-src 'self'" in page.headers["content-security-policy"]
    for name in ("app.js", "board.js", "style.css"):
        answer = client.get(f"/static/{name}")
        assert answer.status_code == 200 and answer.text
        assert f"/static/{name}" in page.text or f"./{name}" in client.get("/static/app.js").text
    assert "https://" not in page.text + client.get("/static/app.js").text  # no CDN
    assert client.get("/api/agents").json()["default"] == "heuristic"


# ------------------------------------------------------------------ hidden information
def tile_ids(data: Any) -> Iterator[int]:
    """Every tile id anywhere in an answer."""
    if isinstance(data, dict):
        if "tile" in data and "lid" in data:
            yield data["tile"]
        for value in data.values():
            yield from tile_ids(value)
    elif isinstance(data, list):
        for value in data:
            yield from tile_ids(value)


def keys(data: Any) -> Iterator[str]:
    if isinstance(data, dict):
        for key, value in data.items():
            yield key
            yield from keys(value)
    elif isinstance(data, list):
        for value in data:
            yield from keys(value)


def public_tiles(game: Game) -> set[int]:
    shelves = {c[0] for shelf in game.shelves for row in shelf for c in row if c is not None}
    loose = {t[0] for t in game.display + game.rack if t is not None}
    return shelves | loose


def test_no_answer_holds_the_bag_order_or_the_removed_tiles(client: TestClient) -> None:
    game_id, auth, state = new_game(client, seed=11)
    game = server_game(client, game_id)
    removed = set(game.setup.removed)
    rng = np.random.default_rng(0)
    answers = [state]
    while not state["over"]:
        hidden_now = {t for t, _ in game.game.bag}
        for answer in (state, client.get(f"/api/games/{game_id}").json()):
            assert set(tile_ids(answer)) <= public_tiles(game.game)
            assert not set(tile_ids(answer)) & (removed | hidden_now)
        action = int(rng.choice([m["action"] for m in state["legal"]]))
        state = client.post(
            f"/api/games/{game_id}/moves", json={"action": action}, headers=auth
        ).json()
        answers.append(state)
        if len(answers) == 3:
            answers.append(client.post(f"/api/games/{game_id}/hint", headers=auth).json())
        if len(answers) in (2, 20):  # the record: the tiles drawn, then the unseen ones sorted
            setup = client.get(f"/api/games/{game_id}/record").json()["setup"]
            drawn = len(game.setup.bag) - len(game.game.bag)
            assert setup["bag"][:drawn] == [list(t) for t in game.setup.bag[:drawn]]
            unseen = [t for t, _ in setup["bag"][drawn:]] + setup["removed"]
            assert unseen == sorted(unseen) and {f for _, f in setup["bag"][drawn:]} == {0}
    for answer in answers:
        assert not {"bag", "removed", "setup", "seed", "token"} & set(keys(answer))
        assert json.dumps([t for t, _ in game.setup.bag[4:12]])[1:-1] not in json.dumps(answer)


def test_games_that_differ_only_in_hidden_tiles_look_the_same() -> None:
    """Swap the removed tiles with the bag's last ones and shuffle the undrawn bag: the view
    and the record (at the deal and after a move of round 1) must not change."""
    setup = Setup.random(RULES, 2, seed=3)
    shown = RULES.display_size[2]
    bag = list(setup.bag)
    removed = list(setup.removed)
    removed[0], bag[-1] = bag[-1][0], (removed[0], bag[-1][1])
    rest = bag[shown:]
    np.random.default_rng(1).shuffle(rest)
    other = Setup(2, bag[:shown] + rest, removed, setup.rack, setup.badges, setup.side)
    one, two = Game(RULES, setup), Game(RULES, other)
    assert one.bag != two.bag and one.removed != two.removed
    for _ in range(2):
        assert game_view(one, 0, ["human", "x"], []) == game_view(two, 0, ["human", "x"], [])
        assert public_record(one, ["human", "x"]) == public_record(two, ["human", "x"])
        GameRecord.from_dict(public_record(one, ["human", "x"])).replay(RULES)
        action = one.legal_actions()[0]
        one.apply(action)
        two.apply(action)


def test_morty_serve_refuses_bad_limits_and_knows_loopback(capsys: pytest.CaptureFixture) -> None:
    from mortyenv.apps.serve import loopback
    from mortyenv.cli import main

    for bad in (["--max-games", "0"], ["--idle-minutes", "-1"]):
        with pytest.raises(SystemExit) as exit_:  # argparse's error, as one line
            main(["serve", *bad])
        assert exit_.value.code == 2
        assert f"morty serve: argument {bad[0]}: must be" in capsys.readouterr().err
    assert loopback("127.0.0.1") and loopback("localhost") and loopback("::1")
    assert not loopback("0.0.0.0") and not loopback("192.168.1.2") and not loopback("example")


def test_an_agent_that_cannot_play_the_game_is_a_422(monkeypatch: pytest.MonkeyPatch) -> None:
    """As the shipped PPO policy for 3 players, which does not exist."""

    def picky(num_players: int, seed: Any, rules: Ruleset) -> Any:
        raise ValueError(f"no policy for {num_players} players")

    monkeypatch.setitem(AGENTS, "picky", Entry("picky", picky))
    with TestClient(create_app()) as client:
        answer = client.post("/api/games", json={"players": 3, "opponents": ["picky"]})
        assert answer.status_code == 422
        assert "no policy for 3 players" in answer.json()["error"]


def test_error_messages_speak_of_json_not_of_python(client: TestClient) -> None:
    game_id, auth, _ = new_game(client, seed=3)
    moves = f"/api/games/{game_id}/moves"
    sent = {
        "": "got nothing (no body, or null)",
        "[1, 2]": "got a list",
        "null": "got nothing (no body, or null)",
        '"take"': "got a string",
        "7": "got a number",
        "\xff\xfe": "the body is not UTF-8 text",
        '{"action": ': "the body is not JSON: expecting value at line 1, column 12",
    }
    for body, words in sent.items():
        answer = client.post(
            moves,
            content=body.encode("latin-1"),
            headers={**auth, "Content-Type": "application/json"},
        )
        assert answer.status_code == 422, body
        error = answer.json()["error"]
        assert words in error, (body, error)
        assert "NoneType" not in error and "codec" not in error and "utf-8" not in error
    answer = client.post("/api/games", json=[2])
    assert answer.json()["error"] == "expected a JSON object of game options, got a list"


def test_agents_list_the_player_counts_they_play(client: TestClient) -> None:
    listed = client.get("/api/agents").json()
    assert set(listed["players"]) == set(listed["agents"])
    assert listed["players"]["heuristic"] == [2, 3, 4]
    assert listed["players"]["ppo"] == [2, 4]  # the shipped PPO networks
    assert listed["players"]["az"] == [2, 3, 4]
    answer = client.post("/api/games", json={"players": 3, "opponents": ["ppo"]})
    assert answer.status_code == 422
    assert answer.json()["error"] == (
        "opponents: ppo cannot play a 3-player game (it has a network for 2 or 4 players only)"
    )


def test_every_move_names_its_round(client: TestClient) -> None:
    game_id, auth, state = new_game(client, seed=5, seat=1)
    moves = f"/api/games/{game_id}/moves"
    while state["round"] < 2:
        state = client.post(
            moves, json={"action": state["legal"][-1]["action"]}, headers=auth
        ).json()
    rounds = [m["round"] for m in state["moves"]]
    assert rounds == sorted(rounds) and rounds[0] == 0 and rounds[-1] in (1, 2)
    # each round is started by the next seat: (first player + round) mod players
    starts = {m["round"]: m["seat"] for m in reversed(state["moves"])}
    assert starts[0] == 0 and starts[1] == 1


def test_the_server_offers_the_agents_it_is_given_and_no_other(tmp_path: Any) -> None:
    """`morty serve --agents`: specs with settings and your own agents, named by a client
    exactly as given; a spec the server does not offer is a 422 and loads nothing; your own
    agent's mistake in a game is a 500 with its one line."""
    mine = tmp_path / "mine.py"
    mine.write_text(
        "from agents import Agent\n\n"
        "class Careless(Agent):\n"
        "    def act_batch(self, engine, state, games, mask):\n"
        "        return (~mask).argmax(axis=1)\n"
    )
    offered = ["greedy", "mcts:walks=8", f"{mine}:Careless"]
    with TestClient(create_app(agents=offered)) as client:
        listed = client.get("/api/agents").json()
        assert listed["agents"] == offered and listed["default"] == "greedy"
        answer = client.post("/api/games", json={"opponents": ["mcts:walks=8"], "seed": 1})
        assert answer.status_code == 201 and answer.json()["state"]["players"][1] == "mcts:walks=8"
        for other in ("mcts:walks=9", "heuristic", f"{tmp_path / 'other.py'}:Careless"):
            answer = client.post("/api/games", json={"opponents": [other]})
            assert answer.status_code == 422 and "this server offers" in answer.json()["error"]
        game_id, auth, state = new_game(client, opponents=[f"{mine}:Careless"], seat=0, seed=2)
        answer = client.post(
            f"/api/games/{game_id}/moves",
            json={"action": first_take(state)["action"]},
            headers=auth,
        )
        assert answer.status_code == 500
        error = answer.json()["error"]
        assert error.startswith(f"agent '{mine}:Careless' chose an illegal action as seat 1")
