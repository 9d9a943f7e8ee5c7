"""Bad input, generated: fuzzed bodies, ids, tokens and records get a 4xx, never a 500,
and never change a game. A fuzzed move that happens to be legal is played and undone."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from mortyenv.web import create_app

FUZZ = settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**20), 10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
ACTION_TEXT = st.from_regex(
    r"take [DRdx]\d{1,2}( \([a-z0-9 ]{0,20}\))? -> (top|middle|bottom|side)/col\d{1,2}(, flip)?",
    fullmatch=True,
)
MOVE_BODIES = st.one_of(
    JSON,
    st.fixed_dictionaries({"action": st.one_of(JSON, ACTION_TEXT, st.integers(-5, 480))}),
    st.dictionaries(st.sampled_from(["action", "Action", "flip", ""]), JSON, max_size=3),
)


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(max_games=100_000)) as test_client:
        yield test_client


@pytest.fixture(scope="module")
def game(client: TestClient) -> dict[str, Any]:
    data = client.post("/api/games", json={"opponents": ["greedy"], "seed": 2}).json()
    return {"id": data["id"], "auth": {"Authorization": f"Bearer {data['token']}"}}


def state_of(client: TestClient, game: dict[str, Any]) -> dict[str, Any]:
    return client.get(f"/api/games/{game['id']}").json()


def is_client_error(status: int) -> bool:
    return 400 <= status < 500


@FUZZ
@given(body=MOVE_BODIES)
def test_fuzzed_move_bodies(client: TestClient, game: dict[str, Any], body: Any) -> None:
    before = state_of(client, game)
    answer = client.post(
        f"/api/games/{game['id']}/moves",
        content=json.dumps(body),
        headers={**game["auth"], "Content-Type": "application/json"},
    )
    if answer.status_code == 200:  # a legal move, by chance: it was played; take it back
        legal = {m["action"] for m in before["legal"]}
        assert answer.json()["moves"][len(before["moves"])]["action"] in legal
        assert client.post(f"/api/games/{game['id']}/undo", headers=game["auth"]).json() == before
        return
    assert is_client_error(answer.status_code), answer.text
    assert "error" in answer.json()
    assert state_of(client, game) == before


@FUZZ
@given(body=st.binary(max_size=300))
def test_fuzzed_raw_bodies(client: TestClient, game: dict[str, Any], body: bytes) -> None:
    before = state_of(client, game)
    for path in ("moves", "undo", "hint"):
        answer = client.post(f"/api/games/{game['id']}/{path}", content=body, headers=game["auth"])
        if path == "hint" and answer.status_code == 200:
            continue  # any body, even a bad one, is ignored by a hint
        assert is_client_error(answer.status_code), (path, answer.text)
    assert is_client_error(client.post("/api/games", content=body).status_code) or body.strip() in (
        b"{}",
        b"null",
        b"",
    )
    assert state_of(client, game) == before


@FUZZ
@given(game_id=st.text(max_size=40))
def test_fuzzed_game_ids(client: TestClient, game: dict[str, Any], game_id: str) -> None:
    path = f"/api/games/{quote(game_id, safe='')}"
    for method, suffix in (("GET", ""), ("GET", "/record"), ("POST", "/moves"), ("POST", "/hint")):
        answer = client.request(method, path + suffix, json={"action": 1}, headers=game["auth"])
        assert is_client_error(answer.status_code), (game_id, suffix, answer.text)


@FUZZ
@given(header=st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=60))
def test_fuzzed_tokens(client: TestClient, game: dict[str, Any], header: str) -> None:
    before = state_of(client, game)
    legal = before["legal"][0]["action"]
    answer = client.post(
        f"/api/games/{game['id']}/moves", json={"action": legal}, headers={"Authorization": header}
    )
    assert answer.status_code in (401, 403)
    assert state_of(client, game) == before


@FUZZ
@given(
    body=st.dictionaries(
        st.sampled_from(["players", "opponents", "seat", "seed", "side", "mode", "x"]),
        JSON | st.integers(-1, 5) | st.sampled_from(["A", "B", "basic", "advanced", "greedy"]),
        max_size=6,
    )
)
def test_fuzzed_new_games(client: TestClient, body: dict[str, Any]) -> None:
    answer = client.post("/api/games", json=body)
    assert answer.status_code in (201, 422), answer.text


RECORD_FIELDS = [
    "format", "format_version", "ruleset", "setup", "actions", "action_strings", "scores",
    "winners", "players",
]  # fmt: skip


@pytest.fixture(scope="module")
def record(client: TestClient) -> dict[str, Any]:
    data = client.post("/api/games", json={"opponents": ["random"], "seed": 4}).json()
    auth = {"Authorization": f"Bearer {data['token']}"}
    state = data["state"]
    while not state["over"]:
        move = {"action": state["legal"][-1]["action"]}  # pass, pass, ...
        state = client.post(f"/api/games/{data['id']}/moves", json=move, headers=auth).json()
    return client.get(f"/api/games/{data['id']}/record").json()


@FUZZ
@given(
    field=st.sampled_from(RECORD_FIELDS),
    inner=st.sampled_from([None, "num_players", "bag", "removed", "rack", "badges", "side"]),
    value=JSON,
)
def test_fuzzed_records(
    client: TestClient, record: dict[str, Any], field: str, inner: str | None, value: Any
) -> None:
    broken = json.loads(json.dumps(record))
    if field == "setup" and inner is not None:
        broken["setup"][inner] = value
    else:
        broken[field] = value
    answer = client.post("/api/records/replay", json=broken)
    assert answer.status_code in (200, 422), answer.text
    if answer.status_code == 200:
        assert len(answer.json()["positions"]) == len(broken["actions"]) + 1
