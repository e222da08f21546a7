"""Optional dependencies: load them only when used, and name the extra when one is missing.

``import benchmarkzoo`` must stay light (no torch, ray, pybullet, sumo, pygame or matplotlib),
so every heavy import in the package goes through :func:`require`.
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

from benchmarkzoo.core.errors import MissingExtraError

#: The importable modules each extra provides; ``available(extra)`` checks exactly these.
EXTRA_MODULES: dict[str, tuple[str, ...]] = {
    "mo": ("mo_gymnasium",),
    "traffic": ("sumo", "sumo_rl", "sumolib", "traci", "libsumo"),
    "robotics": ("pybullet",),
    "render": ("pygame",),
    "sb3": ("stable_baselines3", "torch"),
    "rllib": ("ray", "torch"),
    "eval": ("pydantic", "matplotlib", "jsonschema", "jinja2", "openskill", "PIL"),
}


def require(module: str, extra: str, needed_for: str) -> ModuleType:
    """Import ``module``, or raise :class:`MissingExtraError` naming the extra that provides it.

    Args:
        module: dotted module name, e.g. ``"pygame"``.
        extra: the benchmarkzoo extra that installs it, e.g. ``"render"``.
        needed_for: what the caller was doing, for the message, e.g. ``"Maze-v0 rendering"``.
    """
    try:
        return importlib.import_module(module)
    except ImportError as error:
        if error.name is not None and module.split(".")[0] != error.name.split(".")[0]:
            raise  # the module exists but one of *its* imports failed: show the real cause
        raise MissingExtraError(module, extra, needed_for) from error


def missing_modules(extra: str) -> list[str]:
    """The modules of ``extra`` that cannot be found (without importing anything)."""
    if extra not in EXTRA_MODULES:
        raise ValueError(f"Unknown extra {extra!r}; known extras: {', '.join(EXTRA_MODULES)}")
    return [m for m in EXTRA_MODULES[extra] if importlib.util.find_spec(m) is None]


def available(extra: str) -> bool:
    """Whether every module of ``extra`` is installed."""
    return not missing_modules(extra)
