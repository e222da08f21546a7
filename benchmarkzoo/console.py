"""Readable terminal output for the CLI: rich consoles and tables (rich is imported on use)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

#: Table width when output is not a terminal (and $COLUMNS is unset).
PIPE_WIDTH = 160


def console(stderr: bool = False) -> Console:
    """A rich console on stdout (or ``stderr``), without markup, as wide as a terminal when piped."""
    import os

    from rich.console import Console

    # markup=False: descriptions and extras like "benchmarkzoo[mo]" contain brackets rich would eat.
    console = Console(stderr=stderr, markup=False, highlight=False)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        # Piped output (a log, a file, a test runner) has no width; rich's default of 80 would
        # fold ids and hashes, so lay out tables as a wide terminal would.
        console = Console(stderr=stderr, markup=False, highlight=False, width=PIPE_WIDTH)
    return console


def table(title: str | None, *columns: str, wrap: tuple[str, ...] = ()) -> Table:
    """A rich table; only the ``wrap`` columns may wrap, so ids and numbers stay on one line."""
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    for column in columns:
        table.add_column(column, no_wrap=column not in wrap, overflow="fold")
    return table
