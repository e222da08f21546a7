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
