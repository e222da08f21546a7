"""Envs from other distributions: the ``benchmarkzoo.envs`` entry-point group.

A distribution makes its envs part of benchmarkzoo's registry by declaring, in its packaging
metadata, an entry point that calls :func:`benchmarkzoo.register`::

    [project.entry-points."benchmarkzoo.envs"]
    mylab = "mylab_envs:register_envs"   # a callable, called with no arguments
    # or: mylab = "mylab_envs.registration"   (a module whose import registers)

The registry loads the group once per process, at the first lookup that needs it (``list_envs``,
or ``spec`` / ``make`` of an id not registered yet), never at ``import benchmarkzoo``: finding
the entry points reads every installed distribution's metadata (about 30 ms with 130
distributions installed, a tenth of the import), and a plugin's own imports can cost more. A
plugin that fails to load is reported once as a :class:`PluginWarning` naming its distribution
and the error; the other envs stay usable.
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
import re
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


def _warn(message: str) -> None:
    warnings.warn(
        f"{message} Its envs may be missing; fix or uninstall that distribution.", PluginWarning, stacklevel=3
    )


def entry_points(group: str = GROUP) -> list[importlib.metadata.EntryPoint]:
    """The group's entry points of every installed distribution, sorted by distribution and name."""
    try:
        found = list(importlib.metadata.entry_points(group=group))
    except Exception:  # one malformed entry_points.txt anywhere (a line without '=') raises for all
        found = _entry_points_one_by_one(group)
    return sorted(found, key=lambda ep: (_distribution(ep), ep.name))


def _entry_points_one_by_one(group: str) -> list[importlib.metadata.EntryPoint]:
    """Each distribution's entry points read alone (slower: every METADATA is parsed), skipping malformed ones."""
    found: list[importlib.metadata.EntryPoint] = []
    seen: set[str] = set()
    for dist in importlib.metadata.distributions():
        name = re.sub(r"[-_.]+", "-", dist.name or "").lower()
        if name in seen:  # the first on sys.path wins, as in importlib.metadata.entry_points()
            continue
        seen.add(name)
        try:
            found.extend(ep for ep in dist.entry_points if ep.group == group)
        except Exception as caught:
            if f"[{group}]" in (
                dist.read_text("entry_points.txt") or ""
            ):  # others' broken files are not ours to report
                _warn(
                    f"benchmarkzoo could not read the {group!r} entry points of the distribution {dist.name!r}: "
                    f"{type(caught).__name__}: {caught}."
                )
    return found


def load_group(registered: Callable[[], Collection[str]], group: str = GROUP) -> tuple[Plugin, ...]:
    """Load every entry point of ``group``, sorted by distribution and name, and report each.

    Args:
        registered: returns the ids registered so far; read before and after each entry point to
            attribute the ids it added.
        group: the entry-point group.

    Returns:
        One :class:`Plugin` per entry point, failed ones included.
    """
    plugins = []
    for entry_point in entry_points(group):
        before = set(registered())
        error = None
        try:
            target = entry_point.load()
            if callable(target):  # a module registers on import; a callable when called
                target()
        except Exception as caught:  # a broken plugin must not break benchmarkzoo, nor the other plugins
            error = f"{type(caught).__name__}: {caught}"
            _warn(
                f"benchmarkzoo could not load the {group!r} entry point {entry_point.name!r} "
                f"({entry_point.value}) of the distribution {_distribution(entry_point)!r}: {error}."
            )
        added = tuple(sorted(set(registered()) - before))
        plugins.append(Plugin(_distribution(entry_point), entry_point.name, entry_point.value, added, error))
    return tuple(plugins)
