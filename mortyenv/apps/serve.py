"""`morty serve`: play in the browser. One page and a JSON API on a local web server.

The server binds to 127.0.0.1 unless told otherwise; on a loopback address it answers only
requests addressed to 127.0.0.1 or localhost. A game is played against the agents the
server offers (`--agents`: specs, your own among them), named by a client exactly as given;
a client never names a file to load. The page, the API, the limits and the security
rules are in docs/web.md; the app itself is `mortyenv.web.create_app`.
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import socket

from mortyenv.arena.tournament import agent_list
from mortyenv.usage import UsageError, at_least, port, positive
from mortyenv.web.app import HINT_ITERATIONS, IDLE_SECONDS, MAX_GAMES


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to bind (default: %(default)s)"
    )
    parser.add_argument("--port", type=port, default=8000, help="port (default: %(default)s)")
    parser.add_argument(
        "--agents",
        type=agent_list,
        default=None,
        help="the agents a game may be played against, comma-separated specs: names, saved "
        "networks (sb3:model.zip, ppo:PATH, ...) or your own (path/to/file.py:MyAgent), each "
        "with settings after a colon (mcts:walks=64); a client names one exactly as written "
        "here (default: every registered agent by its name)",
    )
    parser.add_argument(
        "--max-games",
        type=at_least(1),
        default=MAX_GAMES,
        help="games held at once; more get a 503 (default: %(default)s)",
    )
    parser.add_argument(
        "--idle-minutes",
        type=positive,
        default=IDLE_SECONDS / 60,
        help="a game without a request for this long is dropped (default: %(default)s)",
    )
    parser.add_argument(
        "--hint-iterations",
        type=at_least(1),
        default=HINT_ITERATIONS,
        help="MCTS rollouts of a hint (default: %(default)s)",
    )


def loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_address(host: str, port: int) -> None:
    """UsageError unless the server can listen on (host, port): a host that does not
    resolve or a port in use is one line here, before the engine is loaded, instead of
    the web server's traceback later."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except socket.gaierror as err:
        raise UsageError(f"--host {host!r}: {err.strerror}") from err
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server does
        try:
            probe.bind(address)
        except OSError as err:
            raise UsageError(f"cannot listen on {host}:{port}: {err.strerror}") from err


def warm_up() -> None:
    """Load the compiled engine before the first request, so the first reply is quick.

    Requests run in worker threads, and a search (a hint, an MCTS agent) steps batches big
    enough for numba's threads; numba's own `workqueue` layer must not be entered from two
    threads at once, so the server asks for a thread-safe layer (OpenMP or TBB) unless
    NUMBA_THREADING_LAYER says otherwise, and runs one threaded batch here: a machine
    without one fails now, with numba's message, rather than in a game."""
    import numba
    import numpy as np

    from agents import make_agent
    from mortyenv.engine import BatchEngine
    from mortyenv.engine.runtime.batched import PARALLEL_FROM
    from mortyenv.reference import Game
    from mortyenv.rules import Ruleset
    from mortyenv.setup import Setup

    if "NUMBA_THREADING_LAYER" not in os.environ:
        numba.config.THREADING_LAYER = "threadsafe"
    rules = Ruleset.default()
    make_agent("heuristic", 2, seed=0, rules=rules).act(Game(rules, Setup.random(rules, 2, 0)))
    engine = BatchEngine(rules, 2)
    state = engine.reset(batch_size=PARALLEL_FROM, seed=0)
    engine.step(state, engine.random_actions(state, np.random.default_rng(0)))


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from mortyenv.web import create_app

    check_address(args.host, args.port)
    hosts = ["127.0.0.1", "localhost"] if loopback(args.host) else None
    app = create_app(
        agents=args.agents,
        max_games=args.max_games,
        idle_seconds=args.idle_minutes * 60,
        hint_iterations=args.hint_iterations,
        allowed_hosts=hosts,
    )
    warm_up()
    print(f"morty serve: open http://{args.host}:{args.port}/ (Ctrl-C stops)", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0
