"""Options shared by the ``benchmarkzoo leaderboard`` commands."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

_F = TypeVar("_F", bound=Callable[..., Any])


def root_option(help: str) -> Callable[[_F], _F]:
    """``--root``, the leaderboard folder (default ``leaderboard``); ``help`` says what the command reads there."""
    return click.option(
        "--root",
        type=click.Path(file_okay=False, path_type=Path),
        default=Path("leaderboard"),
        show_default=True,
        help=help,
    )


def _families(_ctx: click.Context, _param: click.Parameter, value: str) -> frozenset[str]:
    from benchmarkzoo import registration
    from benchmarkzoo.leaderboard.site.animation_view import DEFAULT_FAMILIES

    known = {spec.family for spec in registration.list_envs()}
    words = {w.strip() for w in value.split(",") if w.strip()}
    if words == {"default"}:
        return DEFAULT_FAMILIES
    if words == {"all"}:
        return frozenset(known)
    if words == {"none"}:
        return frozenset()
    unknown = sorted(words - known)
    if unknown:
        raise click.BadParameter(
            f"expected env families separated by commas ({', '.join(sorted(known))}), or default, all or none; "
            f"got {', '.join(unknown)}."
        )
    return frozenset(words)


def animate_option() -> Callable[[_F], _F]:
    """``--animate``: the env families whose task pages replay an episode (see ``site/animation_view.py``)."""
    return click.option(
        "--animate",
        "families",
        default="default",
        show_default=True,
        callback=_families,
        help="Env families whose task pages show a replayed episode, separated by commas, or all or none. The "
        "default leaves out robotics and traffic, whose replays (PyBullet, SUMO) take seconds each the first time; "
        "replays are cached, so later builds replay only what changed.",
    )
