"""Envs from other distributions: the ``benchmarkzoo.envs`` entry-point group.

A distribution makes its envs part of benchmarkzoo's registry by declaring, in its packaging
metadata, an entry point that calls :func:`benchmarkzoo.register`::

    [project.entry-points."benchmarkzoo.envs"]
    mylab = "mylab_envs:register_envs"   # a callable, called with no arguments
    # or: mylab = "mylab_envs.registration"   (a module whose import registers)

The registry loads the group once per process, at its first use (``list_envs``, ``spec``,
``make``...), never at ``import benchmarkzoo``: finding the entry points reads every installed
distribution's metadata (about 30 ms with 130 distributions installed, a tenth of the import),
and a plugin's own imports can cost more. A plugin that fails to load is reported once as a
:class:`PluginWarning` naming its distribution and the error; the other envs stay usable.
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
import warnings
from collections.abc import Callable, Collection

#: The entry-point group a distribution declares its envs under.
GROUP = "benchmarkzoo.envs"


class PluginWarning(RuntimeWarning):
    """A distribution's ``benchmarkzoo.envs`` entry point failed to load; the envs it did not register are missing."""


@dataclasses.dataclass(frozen=True)
class Plugin:
    """One loaded (or failed) entry point of the group.

    Attributes:
        distribution: the name of the distribution that declares it, e.g. ``"mylab-envs"``.
        name: the entry point's name.
        value: what it points to, ``"module:attr"`` or ``"module"``.
        env_ids: the ids it registered (also those it registered before failing).
        error: ``"ExceptionType: message"`` if it failed, else ``None``.
    """

    distribution: str
    name: str
    value: str
    env_ids: tuple[str, ...]
    error: str | None = None


def _distribution(entry_point: importlib.metadata.EntryPoint) -> str:
    dist = getattr(entry_point, "dist", None)  # None for an EntryPoint built by hand
    return dist.name if dist is not None else "<unknown distribution>"


def load_group(registered: Callable[[], Collection[str]], group: str = GROUP) -> tuple[Plugin, ...]:
    """Load every entry point of ``group``, sorted by distribution and name, and report each.

    Args:
        registered: returns the ids registered so far; read before and after each entry point to
            attribute the ids it added.
        group: the entry-point group.

    Returns:
        One :class:`Plugin` per entry point, failed ones included.
    """
    found = sorted(importlib.metadata.entry_points(group=group), key=lambda ep: (_distribution(ep), ep.name))
    plugins = []
    for entry_point in found:
        before = set(registered())
        error = None
        try:
            target = entry_point.load()
            if callable(target):  # a module registers on import; a callable when called
                target()
        except Exception as caught:  # a broken plugin must not break benchmarkzoo, nor the other plugins
            error = f"{type(caught).__name__}: {caught}"
            warnings.warn(
                f"benchmarkzoo could not load the {group!r} entry point {entry_point.name!r} "
                f"({entry_point.value}) of the distribution {_distribution(entry_point)!r}: {error}. "
                "Its envs may be missing; fix or uninstall that distribution.",
                PluginWarning,
                stacklevel=2,
            )
        added = tuple(sorted(set(registered()) - before))
        plugins.append(Plugin(_distribution(entry_point), entry_point.name, entry_point.value, added, error))
    return tuple(plugins)
