"""An exception, or where a piece of code lives, in a few words for a one-line error.

Your own agent's mistakes are reported in one line that names the file and line to look at
(`agents.base.AgentError`): where its module failed to import, where its constructor or
`act_batch` raised, where the code that chose a wrong action is defined.
"""

from __future__ import annotations

import inspect
import traceback
from pathlib import Path
from typing import Any


def where(err: BaseException, path: Path | None = None) -> str:
    """`file:line` of the innermost frame of `err` in `path` (in any file if None), or of a
    syntax error; '' if none is known."""
    if isinstance(err, SyntaxError) and err.filename:
        return f"{err.filename}:{err.lineno}"
    frames = traceback.extract_tb(err.__traceback__)
    if path is not None:
        frames = [f for f in frames if Path(f.filename).resolve() == path] or frames
    return f"{frames[-1].filename}:{frames[-1].lineno}" if frames else ""


def describe_error(err: BaseException, path: Path | None = None) -> str:
    """An exception in one line: its type, message and where it was raised (the innermost
    frame in `path`, if it passed through that file)."""
    at = where(err, path)
    message = f"{type(err).__name__}: {err}".rstrip(": ")
    if isinstance(err, SyntaxError):
        message = f"SyntaxError: {err.msg}"
    message = " ".join(message.split())  # an exception's message may span lines
    return f"{message} ({at})" if at else message


def source_file(obj: Any) -> Path | None:
    """The file `obj` (a function, a class, or an instance of one) is defined in, if known."""
    try:
        return Path(inspect.getsourcefile(_defined(obj)) or "").resolve()
    except TypeError:
        return None


def defined_at(obj: Any) -> str:
    """file:line where `obj` (a function, a class, or an instance of one) is defined."""
    target = _defined(obj)
    try:
        return f"{inspect.getsourcefile(target)}:{inspect.getsourcelines(target)[1]}"
    except (OSError, TypeError):
        return getattr(target, "__module__", "?")


def _defined(obj: Any) -> Any:
    """The function or class whose source names `obj`: an instance's class."""
    if inspect.isfunction(obj) or inspect.ismethod(obj) or inspect.isclass(obj):
        return obj
    return type(obj)
