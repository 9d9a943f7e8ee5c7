"""Your own agent by import path: `mypkg.mymodule:MyAgent` or `path/to/my_agent.py:MyAgent`.

Every tool that takes agent names (`morty tournament --agents`, `morty play --opponents`,
the trainers' evaluation) accepts these beside the registered names. The object named is
either an `Agent` subclass, built as `MyAgent(seed)`, or a factory
`(num_players, seed, rules) -> Agent`, the same signature as `register_agent`'s. Every
mistake (no such file or module, no such name, not an agent) is a ValueError of one line
naming what was wrong.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from agents.base import Agent

NOT_AN_AGENT = "not an Agent subclass or a factory (num_players, seed, rules) -> Agent"


def is_external(name: str) -> bool:
    """Whether `name` has the form of an import path: `TARGET:NAME`, TARGET a `.py` file or
    a dotted module name, NAME an identifier (it may still fail to load)."""
    target, sep, attr = name.rpartition(":")
    if not sep or not attr.isidentifier():
        return False
    return target.endswith(".py") or all(part.isidentifier() for part in target.split("."))


def _module_from_file(name: str, target: str) -> ModuleType:
    path = Path(target).resolve()
    if not path.is_file():
        raise ValueError(f"agent {name!r}: no file {target}")
    module_name = f"_morty_agent_{path.stem}_{abs(hash(str(path))):x}"
    if module_name in sys.modules:  # loaded once per process, like an imported module
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ValueError(f"agent {name!r}: {target} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # dataclasses and pickling look the module up here
    try:
        spec.loader.exec_module(module)
    except ModuleNotFoundError as err:  # what the file imports is not installed
        del sys.modules[module_name]
        raise ValueError(f"agent {name!r}: importing {target}: {err}") from None
    except BaseException:
        del sys.modules[module_name]
        raise
    try:  # Ray workers cannot import this file by name: ship its classes by value
        import cloudpickle

        cloudpickle.register_pickle_by_value(module)
    except ImportError:
        pass
    return module


def _module(name: str, target: str) -> ModuleType:
    if target.endswith(".py"):
        return _module_from_file(name, target)
    try:
        return importlib.import_module(target)
    except ModuleNotFoundError as err:
        missing = f"no module {target!r}" if err.name == target else f"importing {target}: {err}"
        raise ValueError(f"agent {name!r}: {missing}") from None


def load_factory(name: str) -> Any:
    """The class or factory that `name` (`TARGET:NAME`) points at, checked to be one."""
    target, _, attr = name.rpartition(":")
    module = _module(name, target)
    if not hasattr(module, attr):
        raise ValueError(
            f"agent {name!r}: {target} has no {attr!r} (its agents and functions: "
            f"{', '.join(_candidates(module)) or 'none'})"
        )
    obj = getattr(module, attr)
    if inspect.isclass(obj) and not issubclass(obj, Agent):
        raise ValueError(f"agent {name!r}: {attr} is a class but not an agents.Agent subclass")
    if not callable(obj):
        raise ValueError(f"agent {name!r}: {attr} is a {type(obj).__name__}, {NOT_AN_AGENT}")
    try:  # the call make_external will make
        inspect.signature(obj).bind(*((None,) if inspect.isclass(obj) else (2, None, None)))
    except TypeError:
        built_as = "MyAgent(seed)" if inspect.isclass(obj) else "factory(num_players, seed, rules)"
        raise ValueError(
            f"agent {name!r}: {attr}{inspect.signature(obj)} cannot be called as {built_as}"
        ) from None
    except ValueError:  # no signature to read (a builtin): the call itself will tell
        pass
    return obj


def _candidates(module: ModuleType) -> list[str]:
    """The names in `module` that could be agents: Agent subclasses and its own functions."""
    return sorted(
        name
        for name, obj in vars(module).items()
        if not name.startswith("_")
        and (
            (inspect.isclass(obj) and issubclass(obj, Agent))
            or (inspect.isfunction(obj) and obj.__module__ == module.__name__)
        )
    )


def make_external(name: str, num_players: int, seed: Any, rules: Any) -> Agent:
    """The agent `name` points at, for a game of `num_players`."""
    obj = load_factory(name)
    agent = obj(seed) if inspect.isclass(obj) else obj(num_players, seed, rules)
    if not isinstance(agent, Agent):
        raise ValueError(
            f"agent {name!r}: the factory returned a {type(agent).__name__}, not an agents.Agent"
        )
    return agent
