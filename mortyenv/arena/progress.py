"""Progress bars that leave numba's compiling out of their clock.

The first run on an install compiles the engine's kernels (`mortyenv.engine.compiling`):
seconds in which no game moves, and after which the play runs hundreds of times faster.
A bar counted over them would show a rate, and so a time left, many times too slow for
the whole run. Within `leaving_out_compiles(bar)` the bar says "compiling" from the
moment a kernel starts to compile until the play next moves it on, the compile notice is
written above the bar (not through it), and the seconds numba spends compiling or loading
kernels are taken out of the bar's clock: its rate and time left are the play's.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

from mortyenv.engine import compiling

COMPILING = "compiling"


@contextmanager
def leaving_out_compiles(bar: Any) -> Iterator[Callable[[int], None]]:
    """`bar.update` (a tqdm bar), numba's seconds left out of its clock (see the module)."""
    if bar.disable:  # no bar: the notice goes to stderr as anywhere else
        yield bar.update
        return
    counted = compiling.numba_seconds()

    def compiling_now(kernel: str) -> None:
        bar.set_description_str(COMPILING, refresh=True)

    def update(n: int) -> None:
        nonlocal counted
        now = compiling.numba_seconds()
        bar.start_t += now - counted  # (and the time since the last update, for the rate)
        bar.last_print_t += now - counted
        counted = now
        if bar.desc == COMPILING:
            bar.set_description_str("", refresh=False)
        bar.update(n)

    with ExitStack() as stack:
        stack.enter_context(compiling.notices_to(lambda line: bar.write(line, file=sys.stderr)))
        stack.enter_context(compiling.on_compile(compiling_now))
        yield update
