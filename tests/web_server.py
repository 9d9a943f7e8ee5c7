"""A real `morty serve` for the browser and load tests: a subprocess on a free port of
127.0.0.1, waited for until it answers, stopped (by its own process id) when done."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx2 as httpx

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Server:
    url: str
    process: subprocess.Popen[bytes]

    def rss_mib(self) -> float:
        """The server's resident memory now, from /proc."""
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        raise AssertionError("no VmRSS line")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def running_server(*extra: str, start_timeout: float = 300.0) -> Iterator[Server]:
    """`morty serve --port P` on 127.0.0.1; the first start on a machine compiles the
    engine's kernels (a minute or more on a busy machine), later ones load them from the cache."""
    port = free_port()
    command = [sys.executable, "-m", "mortyenv.cli", "serve", "--port", str(port), *extra]
    process = subprocess.Popen(command, cwd=ROOT, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + start_timeout
        while True:
            if process.poll() is not None:
                raise AssertionError(f"morty serve exited: {process.stderr.read().decode()}")  # type: ignore[union-attr]
            try:
                if httpx.get(f"{url}/api/agents", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise AssertionError(f"morty serve did not answer within {start_timeout} s")
            time.sleep(0.2)
        yield Server(url, process)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
