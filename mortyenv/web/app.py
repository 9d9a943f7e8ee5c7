"""The web app of `morty serve`: the page and the JSON API (Starlette, served by uvicorn).

    GET  /                              the page (static files under /static/, no build step)
    GET  /api/agents                    the agent names a game can be played against
    POST /api/games                     a new game          -> 201 {"id", "token", "state"}
    GET  /api/games/{id}                its state           -> 200 state
    POST /api/games/{id}/moves          the human's action  -> 200 state, agents replied  [token]
    POST /api/games/{id}/undo           take back a move    -> 200 state                  [token]
    POST /api/games/{id}/hint           MCTS on every move  -> 200 {"iterations", "moves"} [token]
    GET  /api/games/{id}/record         the game record     -> 200 GameRecord JSON
    POST /api/records/replay            a record's positions -> 200 {"players", "positions"}

Errors are `{"error": message}`: 400 illegal action, 401 no token, 403 wrong token, 404 no
such game, 409 not your turn / game over / nothing to undo, 413 body too large, 422
malformed body, 500 an agent of the server's that played wrong, 503 too many games. The
game work runs in worker threads, one game at a time under its lock; the event loop only
reads bodies and writes answers. docs/web.md has it all.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from functools import partial
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from agents import AGENTS, AgentError, can_play
from mortyenv.record import GameRecord
from mortyenv.rules import Ruleset
from mortyenv.web.bodies import GameOptions, move_body
from mortyenv.web.errors import (
    ApiError,
    BadHost,
    BodyTooLarge,
    MalformedBody,
    MissingToken,
    NotFound,
)
from mortyenv.web.sessions import Clock, GameStore, WebGame
from mortyenv.web.state import game_view

BODY_LIMIT = 64 * 1024  # bytes: a game record is about 5 KB, every other body far less
MAX_GAMES = 200
IDLE_SECONDS = 3600.0
HINT_ITERATIONS = 400
MAX_RECORD_ACTIONS = 400  # a game lasts about 40 decisions per player; a record is at most this
STATIC_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
}
HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}
PAGE_HEADERS = {
    **HEADERS,
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; "
        "object-src 'none'; frame-ancestors 'none'; base-uri 'none'"
    ),
}


def static_files() -> dict[str, tuple[bytes, str]]:
    """The page's files, read once: name -> (bytes, content type). Requests name a file of
    this table, never a path on disk."""
    folder = resources.files("mortyenv.web") / "static"
    files = {}
    for entry in folder.iterdir():
        suffix = "." + entry.name.rsplit(".", 1)[-1]
        if entry.is_file() and suffix in STATIC_TYPES:
            files[entry.name] = (entry.read_bytes(), STATIC_TYPES[suffix])
    return files


async def read_json(request: Request, limit: int) -> Any:
    """The request body as JSON (None when empty), reading no further than `limit` bytes."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise BodyTooLarge(f"request body of {declared} bytes; the limit is {limit}")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise BodyTooLarge(f"request body over the limit of {limit} bytes")
    if not body.strip():
        return None
    try:
        text = bytes(body).decode("utf-8")
    except UnicodeDecodeError as err:
        raise MalformedBody(f"the body is not UTF-8 text (byte {err.start} is not)") from err
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        where = f"line {err.lineno}, column {err.colno}"
        raise MalformedBody(f"the body is not JSON: {err.msg.lower()} at {where}") from err
    except RecursionError as err:
        raise MalformedBody("the body's JSON is nested too deeply") from err


class HostCheck:
    """Answers only requests addressed to `hosts` (the Host header, port left out); any
    other gets the API's JSON error, 400. Keeps a page elsewhere from reaching a local server
    through DNS rebinding."""

    def __init__(self, app: ASGIApp, hosts: list[str]):
        self.app = app
        self.hosts = [h.lower() for h in hosts]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        host = headers.get(b"host", b"").decode("latin-1")
        name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
        if name.lower().strip("[]") in [h.strip("[]") for h in self.hosts]:
            await self.app(scope, receive, send)
            return
        error = BadHost(
            f"this server answers requests addressed to {' or '.join(self.hosts)}, "
            f"not to {host[:64]!r}"
        )
        await answer({"error": error.message}, error.status)(scope, receive, send)


def bearer_token(request: Request) -> str:
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise MissingToken("this needs the game's token: Authorization: Bearer <token>")
    return token.strip()


def create_app(
    *,
    agents: list[str] | None = None,
    max_games: int = MAX_GAMES,
    idle_seconds: float = IDLE_SECONDS,
    hint_iterations: int = HINT_ITERATIONS,
    body_limit: int = BODY_LIMIT,
    allowed_hosts: list[str] | None = None,
    clock: Clock = time.monotonic,
    sweep_seconds: float | None = None,
) -> Starlette:
    """The app. `agents`: the agent specs a game may be played against (default: every
    registered name), which a client names exactly as written; no other spec, so a request
    never loads a file. `allowed_hosts` (e.g. 127.0.0.1, localhost) refuses requests
    addressed to any other host name, which keeps a web page elsewhere from reaching a local
    server through DNS rebinding; None accepts every host. Every `sweep_seconds` (default: a
    minute, or half the idle timeout if shorter) the games idle past the timeout are
    dropped."""
    rules = Ruleset.default()
    store = GameStore(max_games, idle_seconds, clock)
    files = static_files()
    agent_names = list(agents) if agents is not None else sorted(AGENTS)
    default = "heuristic" if "heuristic" in agent_names else agent_names[0]

    def owned(request: Request) -> WebGame:
        """The game of the path, after its token is checked (404, then 401 or 403)."""
        game = store.get(request.path_params["id"])
        game.check_token(bearer_token(request))
        return game

    async def locked(game: WebGame, work: Callable[[], Any]) -> Any:
        """Run `work` in a worker thread under the game's lock."""

        def run() -> Any:
            with game.lock:
                return work()

        return await run_in_threadpool(run)

    async def page(request: Request) -> Response:
        return static(request, "index.html")

    async def static_file(request: Request) -> Response:
        return static(request, request.path_params["name"])

    def static(request: Request, name: str) -> Response:
        if name not in files:
            raise NotFound(f"no file {name[:64]!r}")
        content, media_type = files[name]
        return Response(content, media_type=media_type, headers=PAGE_HEADERS)

    counts = range(min(rules.display_size), max(rules.display_size) + 1)
    plays = {name: [p for p in counts if can_play(name, p)] for name in agent_names}

    async def agents(request: Request) -> Response:
        return answer({"agents": agent_names, "default": default, "players": plays})

    async def new_game(request: Request) -> Response:
        body = await read_json(request, body_limit)
        options = GameOptions.parse(body, rules, agent_names, default)
        for name in sorted(set(options.opponents)):
            if options.players not in plays.get(name, counts):
                raise MalformedBody(
                    f"opponents: {name} cannot play a {options.players}-player game (it has a "
                    f"network for {' or '.join(map(str, plays[name]))} players only)"
                )
        store.check_room()
        try:
            game = await run_in_threadpool(partial(WebGame, rules, options, clock))
        except ValueError as err:  # an agent that cannot play this game (no PPO for 3 players)
            raise MalformedBody(f"opponents: {err}") from err
        store.add(game)
        state = await locked(game, game.view)
        return answer({"id": game.id, "token": game.token, "state": state}, 201)

    async def get_game(request: Request) -> Response:
        game = store.get(request.path_params["id"])
        return answer(await locked(game, game.view))

    async def move(request: Request) -> Response:
        game = owned(request)
        action = move_body(await read_json(request, body_limit))

        def work() -> dict[str, Any]:
            game.move(action)
            return game.view()

        return answer(await locked(game, work))

    async def undo(request: Request) -> Response:
        game = owned(request)
        await read_json(request, body_limit)  # no fields; a body is read and capped all the same

        def work() -> dict[str, Any]:
            game.undo()
            return game.view()

        return answer(await locked(game, work))

    async def hint(request: Request) -> Response:
        game = owned(request)
        await read_json(request, body_limit)
        return answer(await locked(game, partial(game.hint, hint_iterations)))

    async def record(request: Request) -> Response:
        game = store.get(request.path_params["id"])
        data = await locked(game, game.record)
        headers = {"Content-Disposition": f'attachment; filename="morty-{game.id}.json"'}
        return answer(data, headers=headers)

    async def replay(request: Request) -> Response:
        data = await read_json(request, body_limit)
        return answer(await run_in_threadpool(replay_record, rules, data))

    async def api_error(request: Request, err: Exception) -> Response:
        assert isinstance(err, ApiError)
        headers = {"Retry-After": "60"} if err.status == 503 else None
        if err.status == 401:
            headers = {"WWW-Authenticate": "Bearer"}
        return answer({"error": err.message}, err.status, headers=headers)

    async def agent_error(request: Request, err: Exception) -> Response:
        """An agent the server offers played wrong (your own agent's mistake, in one line)."""
        return answer({"error": str(err)}, 500)

    async def http_error(request: Request, err: Exception) -> Response:
        assert isinstance(err, HTTPException)
        return answer({"error": err.detail}, err.status_code, headers=err.headers)

    routes = [
        Route("/", page),
        Route("/static/{name}", static_file),
        Route("/api/agents", agents),
        Route("/api/games", new_game, methods=["POST"]),
        Route("/api/games/{id}", get_game),
        Route("/api/games/{id}/moves", move, methods=["POST"]),
        Route("/api/games/{id}/undo", undo, methods=["POST"]),
        Route("/api/games/{id}/hint", hint, methods=["POST"]),
        Route("/api/games/{id}/record", record),
        Route("/api/records/replay", replay, methods=["POST"]),
    ]
    middleware = []
    if allowed_hosts is not None:
        middleware.append(Middleware(HostCheck, hosts=allowed_hosts))
    handlers: dict[Any, Callable[[Request, Exception], Awaitable[Response]]] = {
        ApiError: api_error,
        AgentError: agent_error,
        HTTPException: http_error,
    }
    every = sweep_seconds if sweep_seconds is not None else min(60.0, idle_seconds / 2)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async def sweep() -> None:
            while True:
                await asyncio.sleep(every)
                store.drop_idle()

        task = asyncio.create_task(sweep())
        try:
            yield
        finally:
            task.cancel()

    app = Starlette(
        routes=routes, middleware=middleware, exception_handlers=handlers, lifespan=lifespan
    )
    app.state.store = store
    return app


def answer(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(data, status, headers={**HEADERS, **(headers or {})})


def replay_record(rules: Ruleset, data: Any) -> dict[str, Any]:
    """Every position of an uploaded record (the deal, then after each action), checked as
    `morty replay` checks it; a record that does not replay is a 422 saying where."""
    if data is None:
        raise MalformedBody("expected a game record (JSON) in the body")
    try:
        record = GameRecord.from_dict(data)
        if len(record.actions) > MAX_RECORD_ACTIONS:
            raise ValueError(f"record.actions: more than {MAX_RECORD_ACTIONS} actions")
        games = list(record.states(rules))
        seats = [g.current_player for g in games[:-1]]
        rounds = [g.round for g in games[:-1]]
        moves = [
            {"action": a, "string": t, "seat": seat, "round": r}
            for a, t, seat, r in zip(
                record.actions, record.action_strings, seats, rounds, strict=True
            )
        ]
        names = players(record)
        positions = [game_view(g, None, names, moves[:step]) for step, g in enumerate(games)]
    except (ValueError, TypeError, KeyError, IndexError, OverflowError, RecursionError) as err:
        raise MalformedBody(f"this record does not replay: {str(err)[:300]}") from err
    return {"players": names, "positions": positions}


def players(record: GameRecord) -> list[str]:
    return record.players or [f"seat {p}" for p in range(record.setup.num_players)]
