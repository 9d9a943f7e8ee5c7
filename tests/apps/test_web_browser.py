"""The page in a real browser: Playwright drives Debian's chromium (headless) against a real
`morty serve`. It plays by clicking and by keys, watches the board change, asks for a hint,
undoes, steps through an opened record, downloads a finished game's record, and leaves a
screenshot in the test's tmp folder."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx2 as httpx
import numpy as np
import pytest
from web_server import Server, running_server

from mortyenv.record import GameRecord
from mortyenv.rules import Ruleset

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip

playwright = pytest.importorskip("playwright.sync_api")
expect = playwright.expect
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium (make)")

MY_TILES = '.panel[data-seat="0"] .cell .tile'
MOVES = "#moves li:not(.round)"  # the move list's moves, without its round separators
THEIR_TILES = '.panel[data-seat="1"] .cell .tile'


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    with running_server("--hint-iterations", "64") as running:
        yield running


@pytest.fixture
def page(server: Server) -> Iterator:
    with playwright.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        context = browser.new_context(
            viewport={"width": 1500, "height": 1000}, accept_downloads=True
        )
        tab = context.new_page()
        errors: list[str] = []
        tab.on("pageerror", lambda err: errors.append(str(err)))
        tab.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
        tab.set_default_timeout(20_000)
        yield tab
        browser.close()
        # a test that provokes an error answer lists the console line it expects
        assert [e for e in errors if e not in getattr(tab, "expected_errors", ())] == []


def takeable_by_number(page) -> list[str]:
    """The slots the human may take from ("D0", ...), lowest tile number first."""
    slots = page.locator(".slot.takeable")
    labels = [slots.nth(i).get_attribute("aria-label") for i in range(slots.count())]
    return [label.split(":")[0] for label in sorted(labels, key=lambda t: int(t.split()[1]))]


def finished_game(server: Server, seed: int) -> dict:
    """A game played to its end through the API: {"id", "token", "record"}."""
    rng = np.random.default_rng(seed)
    with httpx.Client(base_url=server.url, timeout=60) as client:
        data = client.post("/api/games", json={"opponents": ["greedy"], "seed": seed}).json()
        auth = {"Authorization": f"Bearer {data['token']}"}
        state = data["state"]
        while not state["over"]:
            action = int(rng.choice([m["action"] for m in state["legal"]]))
            state = client.post(
                f"/api/games/{data['id']}/moves", json={"action": action}, headers=auth
            ).json()
        record = client.get(f"/api/games/{data['id']}/record").json()
    return {"id": data["id"], "token": data["token"], "record": record}


def test_play_by_clicks_and_keys_hint_and_undo(page, server: Server, tmp_path: Path) -> None:
    page.goto(f"{server.url}/?seed=3")
    page.wait_for_selector(".slot.takeable")
    assert page.locator(MY_TILES).count() == 0
    assert "Round 1 / 18" in page.locator("#board .status").text_content()

    # a tile, then a lit cell: the tile lands, the agent replies, both are listed. The lowest
    # number goes leftmost (and below, the highest rightmost), so the shelf stays open.
    low, high = takeable_by_number(page)[0], takeable_by_number(page)[-1]
    page.click(f'.slot[data-source="{low}"]')
    lit = page.locator(".cell.target")
    assert lit.count() > 0
    assert page.locator(".slot .selected-ring").count() == 1
    lit.first.click()
    expect(page.locator(MY_TILES)).to_have_count(1)
    listed = page.locator(MOVES).all_text_contents()
    assert len(listed) >= 2 and listed[0].startswith("P0 you: take")  # and the replies
    assert page.locator(THEIR_TILES).count() == sum("P1 heuristic: take" in m for m in listed)
    assert page.locator("#moves li.you").count() == 1

    # the same by keys: a slot's digit, F to flip (the lit cells then cost a kitten), arrows,
    # Enter
    high = takeable_by_number(page)[-1]
    page.keyboard.press(high[1])
    page.keyboard.press("f")
    assert page.locator(".cell.target").count() > 0
    page.keyboard.press("f")
    for _ in range(7):  # the first press puts the cursor on a lit cell, the others move it
        page.keyboard.press("ArrowRight")
    assert page.locator(".cursor-ring").count() == 1
    page.keyboard.press("Enter")
    expect(page.locator(MY_TILES)).to_have_count(2)

    # hint: every legal move with its MCTS value; a line picked lights its move
    page.click("#hint")
    page.wait_for_selector("#hints:not([hidden]) #hint-rows tr")
    assert page.locator("#hint-rows tr").count() > 5
    page.locator("#hint-rows tr").first.hover()
    page.screenshot(path=tmp_path / "hint.png")

    # undo takes back the last move and the reply
    page.click("#undo")
    expect(page.locator(MY_TILES)).to_have_count(1)
    assert page.locator(MOVES).all_text_contents() == listed

    # pass by key: a kitten more, a tile fewer to place
    page.keyboard.press("p")
    expect(page.locator(MOVES)).not_to_have_count(len(listed))
    assert "pass" in page.locator("#moves li.you").last.text_content()
    page.wait_for_timeout(1600)  # let the placement animation settle
    page.screenshot(path=tmp_path / "board.png")
    assert (tmp_path / "board.png").stat().st_size > 20_000

    # S saves the game so far; the record replays to this position
    with page.expect_download() as download:
        page.keyboard.press("s")
    download.value.save_as(tmp_path / "part.json")
    record = GameRecord.load(tmp_path / "part.json")
    assert len(record.actions) == page.locator(MOVES).count()
    record.replay(Ruleset.default())

    # a reload goes on with the same game
    page.reload()
    page.wait_for_selector(".slot.takeable")
    assert page.locator(MOVES).count() > len(listed)


def test_a_hinted_move_played_by_keyboard_and_the_rounds_announced(page, server: Server) -> None:
    page.goto(f"{server.url}/?seed=3")
    page.wait_for_selector(".slot.takeable")
    assert "0–3" in page.locator("#prompt").text_content()  # 2 players: display slots D0-D3

    # hint, a click on a placing line, Enter: exactly that move is played
    page.click("#hint")
    page.wait_for_selector("#hints:not([hidden]) #hint-rows tr")
    rows = page.locator("#hint-rows tr")
    line = next(i for i in range(rows.count()) if "take" in rows.nth(i).text_content())
    hinted = rows.nth(line).locator("td").first.text_content()
    rows.nth(line).click()
    assert page.locator(".slot .selected-ring").count() == 1  # the pick is there ...
    assert page.locator(".cursor-ring").count() == 1  # ... on the hinted cell
    page.keyboard.press("Enter")
    expect(page.locator(MY_TILES)).to_have_count(1)
    assert page.locator("#moves li.you").first.text_content() == f"P0 you: {hinted}"
    assert page.locator(".cursor-ring").count() == 0  # nothing stale left behind
    assert page.locator("#flip").get_attribute("aria-pressed") == "false"

    # the start player moves one seat each round: P1 ends round 1 and starts round 2
    rounds = page.locator("#moves li.round").all_text_contents()
    assert rounds[:2] == ["Round 1 · P0 starts", "Round 2 · P1 starts"]
    assert "Round 2: P1 starts." in page.locator("#message").text_content()


def test_opponents_slots_and_errors_fit_the_player_count(page, server: Server) -> None:
    page.goto(f"{server.url}/?seed=4")
    page.wait_for_selector(".slot.takeable")
    offered = {n: [] for n in (2, 3, 4)}
    for n in offered:
        page.select_option("#players", str(n))
        offered[n] = page.locator("#opponents option").all_text_contents()
        assert page.locator("#seat option").count() == n
    assert {"ppo", "az", "heuristic"} <= set(offered[2])
    assert "ppo" not in offered[3] and "az" in offered[3] and "heuristic" in offered[3]
    assert "ppo" in offered[4] and "az" in offered[4]

    # a 4-player game: five display slots, four tall shelves
    page.select_option("#players", "4")
    page.select_option("#opponents", "greedy")
    page.fill("#seed", "1")
    page.click("#new-game button[type=submit]")
    expect(page.locator(".panel")).to_have_count(4)
    expect(page.locator("#prompt")).to_contain_text("0–4")

    # a request the API refuses (422): its message, in view, beside the controls
    page.mouse.wheel(0, 2000)  # down to the last shelf
    page.expected_errors = [  # Chromium logs every 4xx answer to the console
        "Failed to load resource: the server responded with a status of 422 (Unprocessable Entity)"
    ]
    page.fill("#seed", "99999999999999999999")
    page.click("#new-game button[type=submit]")
    message = page.locator("#message.error")
    expect(message).to_contain_text("seed: expected an integer")
    expect(message).to_be_in_viewport()
    expect(page.locator(".panel")).to_have_count(4)  # the game goes on


def test_open_a_record_and_step_through_it(page, server: Server, tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    record = finished_game(server, seed=5)["record"]
    path.write_text(json.dumps(record))
    page.goto(server.url)
    page.wait_for_selector(".slot.takeable")
    page.set_input_files("#open", str(path))
    page.wait_for_selector("#replay-controls:not([hidden])")
    total = len(record["actions"])
    assert page.locator("#replay-step").text_content() == f"move 0 / {total}"
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    assert page.locator("#replay-step").text_content() == f"move 3 / {total}"
    assert page.locator("#moves li.current").text_content().endswith(record["action_strings"][2])
    page.keyboard.press("End")
    assert "Game over" in page.locator("#board .status").text_content()
    page.screenshot(path=tmp_path / "replay.png")
    page.keyboard.press("Escape")
    page.wait_for_selector("#play-controls:not([hidden])")


def test_download_the_record_of_a_finished_game(page, server: Server, tmp_path: Path) -> None:
    game = finished_game(server, seed=7)
    saved = json.dumps({"id": game["id"], "token": game["token"]})
    page.add_init_script(f"sessionStorage.setItem('morty-game', {json.dumps(saved)})")
    page.goto(server.url)
    page.wait_for_selector("#download:not([disabled])")
    assert "Game over" in page.locator("#board .status").text_content()
    with page.expect_download() as download:
        page.click("#download")
    path = tmp_path / "download.json"
    download.value.save_as(path)
    record = GameRecord.load(path)
    assert record.actions == game["record"]["actions"]
    record.replay(Ruleset.default())
