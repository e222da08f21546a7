"""PettingZoo-style ``<name>_v<N>`` modules, made from the registry for every parallel and moma env.

PettingZoo users write ``from pettingzoo.butterfly import pistonball_v6`` and then call
``pistonball_v6.env()`` (an AEC env), ``pistonball_v6.parallel_env()`` or ``pistonball_v6.raw_env()``
(the AEC env without PettingZoo's wrappers). Each env family package here answers the same import
(``from benchmarkzoo.envs.multiagent import mapf_v0``) through a module ``__getattr__``
(:func:`family_getattr`): the module is built from the registered spec on first use, so a new
``register`` call is all a new env needs, and no module is written per env. MOMAland's modules
(``momaland.envs.item_gathering.moitemgathering_v0``) have the same three functions, so ``moma``
envs get them too.

Names follow PettingZoo's: the id's name in snake case plus the version
(``benchmarkzoo/MAPF-Lifelong-v0`` -> ``mapf_lifelong_v0``, ``RPSSelfPlay-v0`` -> ``rps_self_play_v0``).
Only the ``benchmarkzoo/`` namespace is served; a plugin's envs live in its own packages.
"""

from __future__ import annotations

import re
import sys
import types
from collections.abc import Callable
from typing import Any

from benchmarkzoo import registration

_MULTI_AGENT_KINDS = ("parallel", "moma")
# A word boundary before an upper-case letter that follows a lower-case letter or digit
# ("TrafficGrid"), or that starts a capitalised word after an acronym ("RPSSelf").
_WORD_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def module_name(env_id: str) -> str:
    """The PettingZoo-style module name of an id (``TrafficRESCO-cologne1-v0`` -> ``traffic_resco_cologne1_v0``)."""
    _, name, version = registration.check_id(env_id)
    words = _WORD_BOUNDARY.sub("_", name).replace("-", "_")
    return f"{words.lower()}_v{version}"


def modules_of(family: str) -> dict[str, registration.EnvSpec]:
    """The module names of a family's built-in multi-agent envs, each with its spec."""
    return {
        module_name(found.id): found
        for found in registration.registered_so_far()
        if found.family == family
        and found.kind in _MULTI_AGENT_KINDS
        and found.id.startswith(f"{registration.NAMESPACE}/")
    }


def build_module(package: str, found: registration.EnvSpec) -> types.ModuleType:
    """The ``<name>_v<N>`` submodule of ``package`` for one spec: ``env``, ``parallel_env`` and ``raw_env``."""
    env_id = found.id

    def parallel_env(**kwargs: Any) -> Any:
        """The PettingZoo ``ParallelEnv`` (``benchmarkzoo.make_parallel``); keywords override the spec's."""
        return registration.make_parallel(env_id, **kwargs)

    def env(**kwargs: Any) -> Any:
        """The AEC env by PettingZoo's standard conversion, order enforcing included (``benchmarkzoo.make_aec``)."""
        return registration.make_aec(env_id, **kwargs)

    def raw_env(**kwargs: Any) -> Any:
        """The AEC env without PettingZoo's wrappers (``parallel_to_aec_wrapper``), as PettingZoo's ``raw_env``."""
        from pettingzoo.utils.conversions import parallel_to_aec_wrapper

        return parallel_to_aec_wrapper(registration.make_parallel(env_id, **kwargs))

    name = f"{package}.{module_name(env_id)}"
    module = types.ModuleType(name, f"{env_id}: {found.description}\n\nMade from the registry by {__name__}.")
    functions: dict[str, Callable[..., Any]] = {"env": env, "parallel_env": parallel_env, "raw_env": raw_env}
    for attr, function in functions.items():
        function.__module__ = name
        function.__qualname__ = attr
        setattr(module, attr, function)
    module.ENV_ID = env_id  # type: ignore[attr-defined]
    module.__all__ = ["ENV_ID", *functions]  # type: ignore[attr-defined]
    return module


def family_getattr(package: str, family: str) -> tuple[Callable[[str], types.ModuleType], Callable[[], list[str]]]:
    """A family package's module ``__getattr__`` and ``__dir__``, serving its ``*_v<N>`` modules.

    A module, once built, is stored in ``sys.modules`` and on the package, so it is built once
    and ``import benchmarkzoo.envs.multiagent.mapf_v0`` also works after the first ``from`` import.
    """

    def module_getattr(attr: str) -> types.ModuleType:
        found = modules_of(family).get(attr)
        if found is None:
            raise AttributeError(f"module {package!r} has no attribute {attr!r}")
        module = build_module(package, found)
        sys.modules[module.__name__] = module
        setattr(sys.modules[package], attr, module)
        return module

    def module_dir() -> list[str]:
        return sorted({*vars(sys.modules[package]), *modules_of(family)})

    return module_getattr, module_dir
