"""The ratings page's data: each competitive env's round robin as a rating table, a win-rate heat map, what it says.

The data are the files ``benchmarkzoo ratings --out ROOT/ratings/NAME.json`` writes (read through
:func:`~benchmarkzoo.evaluation.ratings_file.read_ratings`, so a malformed one stops the build
with its name and the fault). Without such files the site has no ratings page and no link to one.
Per env the page shows the openskill table (mu, sigma, the conservative rating ``mu - 1.96 sigma``,
the 95% interval, rank as the file orders it), the matrix of win rates as a heat map (rows and
columns in rank order; an SVG from matplotlib, and the same numbers as a table whose cells give
the Wilson interval and the counts in their title), and what the matrix says about transitivity:
the cyclic triples (A beats B beats C beats A) and the pairings that go against the rating
order, found in the numbers, not written by hand.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from benchmarkzoo.core.extras import require
from benchmarkzoo.evaluation import ratings as round_robin
from benchmarkzoo.evaluation.ratings_file import RatingsFile, RatingsFileError, command, read_ratings
from benchmarkzoo.leaderboard.site import plots
from benchmarkzoo.leaderboard.site.files import write
from benchmarkzoo.leaderboard.site.plot_cache import cached

#: The folder of a leaderboard root that holds ratings files.
RATINGS_DIR = "ratings"
#: The page, at the site's top: a name with a dot, so no suite's folder (a slug, never dotted) can take it.
PAGE = "ratings.html"
#: The heat map's colour map: red a losing row, white even, blue a winning row.
CMAP = "RdBu"
#: Cycles listed on the page per env (the count says how many there are).
SHOWN_CYCLES = 6


@dataclass(frozen=True)
class RatingsSource:
    """A ratings file and the ``--out`` path its command writes (relative to the leaderboard's parent)."""

    file: RatingsFile
    out: str


def load_ratings(root: str | Path) -> list[RatingsSource]:
    """Every ``root/ratings/*.json``, validated, in file-name order; raises :class:`RatingsFileError` on any fault."""
    root = Path(root).resolve()
    folder = root / RATINGS_DIR
    if not folder.is_dir():
        return []
    sources = [
        RatingsSource(read_ratings(p), f"{root.name}/{RATINGS_DIR}/{p.name}") for p in sorted(folder.glob("*.json"))
    ]
    for a, b in itertools.combinations(sources, 2):
        if a.file.env == b.file.env:
            raise RatingsFileError(
                f"ratings files {a.out} and {b.out} both rate {a.file.env}; keep one of them (the page shows one "
                "round robin per env)."
            )
    return sources


def _verdict(ci: Sequence[float]) -> str:
    """``win``/``loss`` when the Wilson interval lies above/below 0.5, else ``even``."""
    return "win" if ci[0] > 0.5 else "loss" if ci[1] < 0.5 else "even"


def _cycles(order: list[str], f: RatingsFile) -> Iterator[tuple[str, str, str]]:
    """Triples ``(a, b, c)``, ``a`` the highest-rated, where a scores above 0.5 against b, b against c, c against a."""
    beats = {(a, b) for a in order for b in order if a != b and f.win_rate[a][b].rate > 0.5}
    for a, b, c in itertools.combinations(order, 3):  # a above b above c in the ranking
        if {(a, b), (b, c), (c, a)} <= beats:
            yield a, b, c
        elif {(a, c), (c, b), (b, a)} <= beats:
            yield a, c, b


def transitivity(f: RatingsFile) -> dict[str, Any]:
    """What the matrix says about a ranking: cyclic triples, the ranks they span, pairings against the order."""
    order = [r.policy for r in f.ratings]
    rank = {p: k + 1 for k, p in enumerate(order)}
    cycles = list(_cycles(order, f))
    clear = [c for c in cycles if all(_verdict(f.win_rate[x][y].ci) == "win" for x, y in zip(c, c[1:] + c[:1]))]
    spanned = sorted({rank[p] for c in (clear or cycles) for p in c})
    upsets = [(low, high) for high, low in itertools.combinations(order, 2) if f.win_rate[low][high].rate > 0.5]
    return {
        "policies": len(order),
        "pairings": len(order) * (len(order) - 1) // 2,
        "cycles": cycles,
        "clear_cycles": clear,
        "shown_cycles": [
            [
                {"policy": x, "opponent": y, "rate": f.win_rate[x][y].rate, "ci": f.win_rate[x][y].ci}
                for x, y in zip(c, c[1:] + c[:1])
            ]
            for c in (clear or cycles)[:SHOWN_CYCLES]
        ],
        "ranks": (spanned[0], spanned[-1]) if spanned else None,
        "middle": bool(spanned) and spanned[0] > 1 and spanned[-1] < len(order),
        "top": order[0],
        "bottom": order[-1],
        "upsets": upsets,
        "clear_upsets": [u for u in upsets if _verdict(f.win_rate[u[0]][u[1]].ci) == "win"],
    }


def _section(source: RatingsSource, suites: list[dict[str, Any]]) -> dict[str, Any]:
    f = source.file
    order = [r.policy for r in f.ratings]
    index = {p: i for i, p in enumerate(f.policies)}
    matrix = []
    for a in order:
        row: list[dict[str, Any] | None] = []
        for b in order:
            if a == b:
                row.append(None)
                continue
            i, j, cell = index[a], index[b], f.win_rate[a][b]
            counts = {"wins": f.wins[i][j], "draws": f.draws[i][j], "losses": f.losses[i][j]}
            row.append({"opponent": b, "rate": cell.rate, "ci": cell.ci, "verdict": _verdict(cell.ci), **counts})
        matrix.append({"policy": a, "cells": row})
    return {
        "env": f.env,
        "anchor": f.option,
        "file": f,
        "command": command(f, source.out),
        "pairings": len(f.policies) * (len(f.policies) - 1) // 2,
        "total_matches": len(f.policies) * (len(f.policies) - 1) // 2 * f.matches_per_pairing,
        "aliases": [(p, bot) for p, bot in round_robin.ALIASES.items() if p in f.policies and f.option == "fighting"],
        "rows": [
            {"rank": k + 1, "policy": r.policy, "mu": r.mu, "sigma": r.sigma, "ci": r.ci, "win_rate": r.win_rate}
            for k, r in enumerate(f.ratings)
        ],
        "order": order,
        "matrix": matrix,
        "plot": f"ratings.{f.option}.svg",
        "transitivity": transitivity(f),
        "suites": [s for s in suites if f.env in s["envs"]],
    }


def ratings_view(sources: Sequence[RatingsSource], suites: list[dict[str, Any]], out: Path) -> dict[str, Any] | None:
    """Write every env's heat map under ``out``; returns the page data, or ``None`` without ratings files."""
    if not sources:
        return None
    sections = [_section(s, suites) for s in sources]
    for section in sections:
        cells = [row["cells"] for row in section["matrix"]]
        rates = np.array([[c["rate"] if c else np.nan for c in row] for row in cells])  # (n, n)
        clear = np.array([[c is not None and c["verdict"] != "even" for c in row] for row in cells])  # (n, n)
        write(out / section["plot"], win_rate_heatmap(section["order"], rates, clear))
    return {"href": PAGE, "sections": sections}


def links(page: dict[str, Any] | None, envs: Sequence[str]) -> list[dict[str, str]]:
    """The ratings page's sections for the envs a suite plays, as ``{"env", "href"}`` (site-relative)."""
    if page is None:
        return []
    return [{"env": s["env"], "href": f"{page['href']}#{s['anchor']}"} for s in page["sections"] if s["env"] in envs]


@cached
def win_rate_heatmap(labels: Sequence[str], rates: np.ndarray, clear: np.ndarray) -> bytes:
    """The win-rate matrix as a heat map with its colour bar: cell ``(i, j)`` is ``labels[i]`` against ``labels[j]``.

    ``rates`` is ``(n, n)`` (the diagonal unused), ``clear`` ``(n, n)`` bool: the Wilson interval
    excludes 0.5 (its label is bold). Every off-diagonal cell is one rectangle with the SVG id
    ``cell-i-j`` and its rate written on it.
    """
    mpl = require("matplotlib", "eval", "plots of the leaderboard site")
    patches = require("matplotlib.patches", "eval", "plots of the leaderboard site")
    cm = require("matplotlib.cm", "eval", "plots of the leaderboard site")
    colors = require("matplotlib.colors", "eval", "plots of the leaderboard site")
    cmap, norm = mpl.colormaps[CMAP], colors.Normalize(0.0, 1.0)
    n = len(labels)
    size = max(n, 7)  # a small pool still gets readable cells
    with plots._figure(0.56 * size + 2.4, 0.5 * size + 1.5) as fig:
        ax = fig.subplots()
        for i, j in itertools.product(range(n), range(n)):
            if i == j:
                ax.add_patch(patches.Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor="#e4e7ec", edgecolor="#ffffff"))
                continue
            rate = float(rates[i, j])
            box = patches.Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor=cmap(norm(rate)), edgecolor="#ffffff")
            box.set_gid(f"cell-{i}-{j}")
            ax.add_patch(box)
            ink = "#ffffff" if abs(rate - 0.5) > 0.3 else "#1d2330"  # readable on the dark ends of the scale
            weight = "bold" if clear[i, j] else "normal"
            ax.text(j, i, f"{rate:.2f}", ha="center", va="center", fontsize=7, color=ink, fontweight=weight)
        ax.set_xlim(-0.5, n - 0.5)
        ax.set_ylim(n - 0.5, -0.5)  # the highest-rated policy in the top row
        ax.set_xticks(range(n), [plots.short(s) for s in labels], rotation=45, ha="right")
        ax.set_yticks(range(n), [plots.short(s) for s in labels])
        ax.set_xlabel("opponent")
        ax.set_ylabel("policy")
        ax.grid(False)
        ax.set_aspect("equal")
        for spine in ax.spines.values():
            spine.set_visible(False)
        bar = fig.colorbar(cm.ScalarMappable(norm=norm, cmap=cmap), ax=ax, shrink=0.8)
        bar.set_label("win rate of the row (draws count half)")
        return plots._svg(fig)


__all__ = ["PAGE", "RATINGS_DIR", "RatingsSource", "links", "load_ratings", "ratings_view", "transitivity"]
