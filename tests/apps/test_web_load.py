"""Load on a real `morty serve` at 127.0.0.1: 50 games at once, 20 moves each, from a pool
of clients. No error, no lost move, every finished game's record replays, the server's
memory stays bounded; it prints requests per second and the server's RSS."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from time import perf_counter
from typing import Any

import httpx2 as httpx
import numpy as np
import pytest
from web_server import Server, running_server

from mortyenv.record import GameRecord
from mortyenv.rules import Ruleset

GAMES = 50
MOVES = 20
RSS_LIMIT_MIB = 1500


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    with running_server("--max-games", "500") as running:
        yield running


def play(client: httpx.Client, url: str, seed: int, moves: int) -> tuple[int, list[dict]]:
    """`moves` random legal moves, in as many games as it takes (a game lasts about 18 of
    them); every answer is checked to hold the move just sent. Returns (requests, records)."""
    rng = np.random.default_rng(seed)
    requests, records, game = 0, [], None
    for _ in range(moves):
        if game is None:
            created = client.post(f"{url}/api/games", json={"opponents": ["greedy"], "seed": seed})
            assert created.status_code == 201, created.text
            requests += 1
            data = created.json()
            game = (data["id"], {"Authorization": f"Bearer {data['token']}"}, data["state"])
        game_id, auth, state = game
        action = int(rng.choice([m["action"] for m in state["legal"]]))
        answer = client.post(
            f"{url}/api/games/{game_id}/moves", json={"action": action}, headers=auth
        )
        requests += 1
        assert answer.status_code == 200, answer.text
        after = answer.json()
        assert after["moves"][: len(state["moves"])] == state["moves"]  # nothing lost
        assert after["moves"][len(state["moves"])]["action"] == action  # the move is in
        game = (game_id, auth, after)
        if after["over"]:
            records.append(client.get(f"{url}/api/games/{game_id}/record").json())
            requests += 1
            game = None
    if game is not None:  # the server holds what this client saw
        assert client.get(f"{url}/api/games/{game[0]}").json() == game[2]
        requests += 1
    return requests, records


def test_fifty_games_at_once_twenty_moves_each(server: Server) -> None:
    rss_before = server.rss_mib()
    limits = httpx.Limits(max_connections=GAMES, max_keepalive_connections=GAMES)
    with httpx.Client(limits=limits, timeout=60) as client:
        start = perf_counter()
        with ThreadPoolExecutor(GAMES) as pool:
            results = list(pool.map(lambda s: play(client, server.url, s, MOVES), range(GAMES)))
        seconds = perf_counter() - start
    requests = sum(r for r, _ in results)
    records = [record for _, rs in results for record in rs]
    rss_after = server.rss_mib()
    print(
        f"\nload: {GAMES} games x {MOVES} moves, {requests} requests in {seconds:.1f} s "
        f"({requests / seconds:.0f} requests/s, {GAMES * MOVES / seconds:.0f} moves/s with the "
        f"agents' replies); server RSS {rss_before:.0f} MiB before, {rss_after:.0f} MiB after"
    )
    rules = Ruleset.default()
    for data in records:
        GameRecord.from_dict(data).replay(rules)
    assert rss_after < RSS_LIMIT_MIB


def test_concurrent_moves_on_one_game_are_served_one_at_a_time(server: Server) -> None:
    """Eight copies of one move at once: exactly one lands, the others find the cell taken."""
    with httpx.Client(timeout=60) as client:
        data = client.post(f"{server.url}/api/games", json={"seed": 1}).json()
        auth = {"Authorization": f"Bearer {data['token']}"}
        move = next(m for m in data["state"]["legal"] if m["source"] is not None)
        url = f"{server.url}/api/games/{data['id']}/moves"
        barrier = threading.Barrier(8)

        def send(_: int) -> int:
            barrier.wait()
            return client.post(url, json={"action": move["action"]}, headers=auth).status_code

        with ThreadPoolExecutor(8) as pool:
            codes = sorted(pool.map(send, range(8)))
        assert codes == [200] + [400] * 7
        state: dict[str, Any] = client.get(f"{server.url}/api/games/{data['id']}").json()
        assert [m["action"] for m in state["moves"] if m["seat"] == 0] == [move["action"]]
