"""CLI commands ``benchmarkzoo leaderboard site`` and ``benchmarkzoo leaderboard serve``.

Mounted on :data:`benchmarkzoo.leaderboard.commands.leaderboard_group`; ``leaderboard build``
calls :func:`write_site` after writing leaderboard JSON.
"""

from __future__ import annotations

import time
from pathlib import Path

import click

from benchmarkzoo.core.errors import BenchmarkZooError
from benchmarkzoo.leaderboard.options import animate_option, root_option

_ROOT = root_option("The leaderboard folder (the site is ROOT/site).")


class SiteError(BenchmarkZooError, ValueError):
    """The site cannot be built or served; the message says why and what to do."""


def write_site(root: Path, families: frozenset[str] | None = None) -> Path:
    """Build ``root/site`` from ``root/leaderboard.json`` and report it; returns the index page.

    ``families``: the env families whose task pages replay an episode (default ``DEFAULT_FAMILIES``).
    """
    from benchmarkzoo.leaderboard.site.builder import build_site_from_root

    if not (root / "leaderboard.json").is_file():
        raise SiteError(f"{root / 'leaderboard.json'} does not exist; run `benchmarkzoo leaderboard build` first.")
    try:
        index, refused = build_site_from_root(root, families=families)
    except FileExistsError as error:
        raise SiteError(str(error)) from error
    for reason in refused:
        click.echo(f"site: skipped {reason}", err=True)
    click.echo(f"wrote site {index}")
    return index


def write_collection_site(root: Path, collection, ratings=None, families: frozenset[str] | None = None) -> Path:
    """Build ``root/site`` from the entries ``leaderboard build`` just ranked (a :class:`~..store.Collection`).

    ``ratings`` are ``root/ratings/``'s files as :func:`~.builder.load_ratings` read them (read here if ``None``).
    """
    from benchmarkzoo.leaderboard.site.builder import SITE_DIR, build_site, load_ratings

    try:
        ratings = load_ratings(root) if ratings is None else ratings
        index = build_site(collection.board, collection.submissions, root / SITE_DIR, ratings, root, families)
    except FileExistsError as error:
        raise SiteError(str(error)) from error
    click.echo(f"wrote site {index}")
    return index


@click.command("site")
@_ROOT
@animate_option()
def site_command(root: Path, families: frozenset[str]) -> None:
    """Build the static site ROOT/site from ROOT/leaderboard.json and ROOT/ratings/ (as `build` does after the JSON)."""
    write_site(root, families)


@click.command("serve")
@_ROOT
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True, help="0 picks a free port.")
def serve_command(root: Path, port: int) -> None:
    """Serve the built site ROOT/site on 127.0.0.1 until interrupted."""
    from benchmarkzoo.leaderboard.site import serve

    try:
        server, _ = serve.start(root / "site", port)
    except (FileNotFoundError, OSError) as error:
        raise SiteError(str(error)) from error
    click.echo(f"serving {root / 'site'} at {serve.url(server)} (Ctrl-C stops)")
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown()
        server.server_close()
