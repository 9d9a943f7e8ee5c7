"""Your own agent by import path: `mypkg.mymodule:MyAgent` or `path/to/my_agent.py:MyAgent`.

Every tool that takes agent specs (`morty tournament --agents`, `morty play --opponents`,
the trainers' evaluation) accepts these beside the registered names. The object named is
either an `Agent` subclass, built as `MyAgent(seed, **settings)`, or a factory
`(num_players, seed, rules, **settings) -> Agent`, the same signature as `register_agent`'s;
the settings come from the spec (`my_agent.py:MyAgent:depth=3`), checked against the
keyword parameters it takes (`declared_parameters`). Every mistake is an
`AgentError` of one line naming the agent and, where there is one, the file and line: no
such file or module, a file that does not import (a syntax error, a failing import, an
exception at import), no such name, not an agent, a class without `act_batch`, a
constructor or factory that cannot take the settings or raises.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
import types
import typing
from pathlib import Path
from types import ModuleType
from typing import Any

from agents.base import Agent, AgentError
from agents.errors import defined_at, describe_error
from agents.settings import Flag, Int, Key, Real, Text

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
        raise AgentError(f"agent {name!r}: no file {target}")
    module_name = f"_morty_agent_{path.stem}_{abs(hash(str(path))):x}"
    if module_name in sys.modules:  # loaded once per process, like an imported module
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise AgentError(f"agent {name!r}: {target} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # dataclasses and pickling look the module up here
    try:
        spec.loader.exec_module(module)
    except Exception as err:  # a syntax error, a failing import, an error at import
        del sys.modules[module_name]
        problem = describe_error(err, path)
        raise AgentError(f"agent {name!r}: importing {target}: {problem}") from None
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
        if err.name == target:
            raise AgentError(f"agent {name!r}: no module {target!r}") from None
        raise AgentError(f"agent {name!r}: importing {target}: {describe_error(err)}") from None
    except Exception as err:
        raise AgentError(f"agent {name!r}: importing {target}: {describe_error(err)}") from None


def load_factory(name: str) -> Any:
    """The class or factory that `name` (`TARGET:NAME`) points at, checked to be one."""
    target, _, attr = name.rpartition(":")
    module = _module(name, target)
    if not hasattr(module, attr):
        raise AgentError(
            f"agent {name!r}: {target} has no {attr!r} (its agents and functions: "
            f"{', '.join(_candidates(module)) or 'none'})"
        )
    obj = getattr(module, attr)
    if inspect.isclass(obj):
        if not issubclass(obj, Agent):
            raise AgentError(f"agent {name!r}: {attr} is a class but not an agents.Agent subclass")
        if inspect.isabstract(obj):
            missing = ", ".join(sorted(obj.__abstractmethods__))
            raise AgentError(
                f"agent {name!r}: {attr} does not define {missing} ({defined_at(obj)})"
            )
    elif not callable(obj):
        raise AgentError(f"agent {name!r}: {attr} is a {type(obj).__name__}, {NOT_AN_AGENT}")
    else:
        leading = list(inspect.signature(obj).parameters.values())[:3]
        if len(leading) < 3 and not any(p.kind == p.VAR_POSITIONAL for p in leading):
            raise AgentError(
                f"agent {name!r}: {attr}{inspect.signature(obj)} cannot be called as "
                f"factory(num_players, seed, rules) ({defined_at(obj)})"
            )
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


def make_external(
    name: str, num_players: int, seed: Any, rules: Any, settings: dict[str, Any] | None = None
) -> Agent:
    """The agent `name` points at, for a game of `num_players`, built with `settings` (its
    keyword parameters, already checked); what the constructor or factory raises is an
    AgentError naming the agent and the line."""
    obj = load_factory(name)
    settings = settings or {}
    leading = (seed,) if inspect.isclass(obj) else (num_players, seed, rules)
    try:
        inspect.signature(obj).bind(*leading, **settings)
    except TypeError as err:
        form = "(seed" if inspect.isclass(obj) else "(num_players, seed, rules"
        given = "".join(f", {k}={v!r}" for k, v in settings.items())
        raise AgentError(
            f"agent {name!r}: {obj.__name__}{form}{given}) fails: {err} ({defined_at(obj)})"
        ) from None
    except ValueError:  # no signature to read (a builtin): the call itself will tell
        pass
    try:
        agent = obj(*leading, **settings)
    except Exception as err:
        raise AgentError(f"agent {name!r}: building it raised {describe_error(err)}") from None
    if not isinstance(agent, Agent):
        raise AgentError(
            f"agent {name!r}: the factory returned a {type(agent).__name__}, not an agents.Agent"
        )
    return agent


def declared_parameters(obj: Any) -> tuple[dict[str, Key], set[str]]:
    """(the settings an own agent's class or factory takes, the ones it requires): its
    `parameters` dict of keys if it has one, else its keyword parameters after `seed` (a
    class) or after `(num_players, seed, rules)` (a factory), typed by their annotations or
    defaults (bool, int, float, str; anything else is passed as the text written)."""
    own = getattr(obj, "parameters", None)
    if isinstance(own, dict) and all(isinstance(k, Key) for k in own.values()):
        return dict(own), set()
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        return {}, set()
    leading = 1 if inspect.isclass(obj) else 3
    try:
        hints = typing.get_type_hints(obj.__init__ if inspect.isclass(obj) else obj)
    except Exception:  # an annotation that does not resolve: type by the defaults
        hints = {}
    keys: dict[str, Key] = {}
    required: set[str] = set()
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    params = list(signature.parameters.values())
    for i, param in enumerate(params):
        if param.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            continue
        if i < leading and param.kind in positional:
            continue
        has_default = param.default is not inspect.Parameter.empty
        if not has_default:
            required.add(param.name)
        keys[param.name] = _key_for(param.name, hints.get(param.name), param.default, has_default)
    return keys, required


def _key_for(name: str, hint: Any, default: Any, has_default: bool) -> Key:
    """The key of an own agent's keyword parameter (declared_parameters)."""
    kind = hint
    optional = not has_default or default is None
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        optional = optional or len(args) < len(typing.get_args(hint))
        kind = args[0] if len(args) == 1 else None
    if kind is None and has_default and default is not None:
        kind = type(default)
    value = default if has_default else None
    doc = f"a parameter of your agent ({name})"
    if kind is bool:
        return Flag(value, doc, optional=optional)
    if kind is int:
        return Int(value, doc, optional=optional)
    if kind is float:
        return Real(value, doc, optional=optional)
    return _AsWritten(value, doc, optional=optional)


class _AsWritten(Text):
    """A setting passed to your agent as the text written (a path, a name)."""

    def convert(self, value: Any) -> Any:
        return value
