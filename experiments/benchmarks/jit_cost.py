"""What the compiled engine costs before its first move: a cold compile and a cached start.

Each measurement is a fresh Python process with its own empty numba cache directory
(`NUMBA_CACHE_DIR`): the first run compiles every kernel it touches and writes them to
the cache, the second loads them. Timed in the child: `import mortyenv`, then the first
`reset` + `step` + `scores` of one game (the serial kernels), then the same for a batch
past `batched.PARALLEL_FROM` (the threaded ones).

    python experiments/benchmarks/jit_cost.py
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

CHILD = """
import json, time
start = time.perf_counter()
import numpy as np
import mortyenv
from mortyenv.engine.runtime import batched
imported = time.perf_counter()
engine = mortyenv.BatchEngine(mortyenv.Ruleset.default(), 2)
times = {"import mortyenv": imported - start}
for label, batch in (("one game", 1), ("a threaded batch", batched.PARALLEL_FROM)):
    t0 = time.perf_counter()
    state = engine.reset(batch_size=batch, seed=0)
    engine.step(state, engine.random_actions(state, np.random.default_rng(0)))
    engine.scores(state)
    times[f"first reset + step + scores, {label}"] = time.perf_counter() - t0
print(json.dumps(times))
"""


def measure(cache: str) -> dict[str, float]:
    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    out = subprocess.run(
        [sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args(argv)
    with tempfile.TemporaryDirectory() as cache:
        cold, warm = measure(cache), measure(cache)
    print("| seconds | cold (compiles) | cached |")
    print("|---|---:|---:|")
    for key in cold:
        print(f"| {key} | {cold[key]:.2f} | {warm[key]:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
