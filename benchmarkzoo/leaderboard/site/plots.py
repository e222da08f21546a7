r"""Build-time plots of the leaderboard site, written as deterministic SVG files.

matplotlib is imported lazily (the ``eval`` extra) and used through the object API with the
Agg-based SVG canvas, never pyplot, so building a site has no global state and no display.
Determinism: a fixed ``svg.hashsalt`` (ids of clip paths and glyphs), no ``Date`` metadata, and
text drawn as paths; so the same inputs give the same bytes, and every plot is kept by its inputs
(:mod:`~benchmarkzoo.leaderboard.site.plot_cache`): a rebuild draws only what changed. Labels come from submissions, so
mathtext parsing is off (a policy named ``$\frac`` must not break the build) and long labels
are shortened; matplotlib escapes the text it writes into SVG comments, and the pages show the
files through ``<img>``, where SVG never runs script.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from benchmarkzoo.core.extras import require
from benchmarkzoo.evaluation.mo_metrics import non_dominated
from benchmarkzoo.leaderboard.site.plot_cache import cached

#: Fixed style: no user or site matplotlibrc can change the bytes of a build.
_RC = {
    "svg.hashsalt": "benchmarkzoo-leaderboard",
    "svg.fonttype": "path",
    "text.parse_math": False,
    "font.family": "DejaVu Sans",
    "font.size": 9.0,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "path.simplify": False,
}
_COLORS = ("#1b6ca8", "#d1495b", "#edae49", "#00798c", "#66a182", "#8d5a97", "#30638e", "#a05c34")
MAX_LABEL = 32


def short(label: str, limit: int = MAX_LABEL) -> str:
    """A label cut to ``limit`` characters (with an ellipsis), one line."""
    label = " ".join(str(label).split())
    return label if len(label) <= limit else label[: limit - 1] + "…"


def color(i: int) -> str:
    """The ``i``-th colour of the site's palette (it cycles)."""
    return _COLORS[i % len(_COLORS)]


@dataclass(frozen=True)
class Interval:
    """A point estimate with its interval, for one labelled row of an interval plot."""

    label: str
    value: float
    low: float
    high: float


@contextlib.contextmanager
def _figure(width: float, height: float) -> Iterator[Any]:
    """A figure on the SVG canvas under the fixed style (no pyplot, so no figure outlives its plot)."""
    needed_for = "plots of the leaderboard site"
    mpl = require("matplotlib", "eval", needed_for)
    figure = require("matplotlib.figure", "eval", needed_for)
    svg = require("matplotlib.backends.backend_svg", "eval", needed_for)
    with mpl.rc_context(_RC):  # rcParams are read while drawing too, so savefig happens inside
        fig = figure.Figure(figsize=(width, height), layout="constrained")
        svg.FigureCanvasSVG(fig)
        yield fig


def _svg(fig: Any) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": "benchmarkzoo"})
    return buffer.getvalue()


def _horizontal_box() -> dict[str, Any]:
    """``boxplot`` keywords for horizontal boxes: ``orientation`` from matplotlib 3.10, ``vert`` before."""
    mpl = require("matplotlib", "eval", "plots of the leaderboard site")
    major, minor = (int(p) for p in mpl.__version__.split(".")[:2])
    return {"orientation": "horizontal"} if (major, minor) >= (3, 10) else {"vert": False}


@cached
def interval_plot(panels: Mapping[str, Sequence[Interval]]) -> bytes:
    """rliable-style interval estimates: one panel per statistic, one row per entry (first row on top)."""
    rows = max((len(p) for p in panels.values()), default=1)
    with _figure(2.6 * max(len(panels), 1) + 1.2, 0.45 * rows + 1.0) as fig:
        axes = fig.subplots(1, max(len(panels), 1), sharey=True, squeeze=False)[0]
        for ax, (title, intervals) in zip(axes, panels.items()):
            y = np.arange(len(intervals))[::-1]  # (rows,): first entry on top
            for i, (row, yi) in enumerate(zip(intervals, y)):
                ax.plot([row.low, row.high], [yi, yi], color=color(i), linewidth=6, alpha=0.45, solid_capstyle="butt")
                ax.plot([row.value], [yi], marker="|", markersize=14, color=color(i), markeredgewidth=2)
            ax.set_title(title)
            ax.set_yticks(y, [short(r.label) for r in intervals])
            ax.set_ylim(-0.7, len(intervals) - 0.3)
            ax.grid(axis="y", visible=False)
        axes[0].set_xlabel("normalized score (random 0, baseline 1)")
        return _svg(fig)


@cached
def profile_plot(taus: np.ndarray, curves: Sequence[tuple[str, np.ndarray, np.ndarray, np.ndarray]]) -> bytes:
    """Performance profiles: for each entry ``(label, fraction (num_taus,), low, high)``, with its band."""
    with _figure(6.4, 3.6) as fig:
        ax = fig.subplots()
        for i, (label, fraction, low, high) in enumerate(curves):
            ax.fill_between(taus, low, high, color=color(i), alpha=0.2, linewidth=0)
            ax.plot(taus, fraction, color=color(i), label=short(label), linewidth=1.6)
        ax.set_xlabel("normalized score τ")
        ax.set_ylabel("fraction of episodes with score > τ")
        ax.set_ylim(-0.02, 1.02)
        if curves:
            ax.legend(loc="lower left", frameon=False)
        return _svg(fig)


@cached
def improvement_plot(pairs: Sequence[Interval]) -> bytes:
    """Probability of improvement P(X > Y) with intervals; each row's label is ``"X > Y"``."""
    with _figure(6.4, 0.45 * max(len(pairs), 1) + 1.0) as fig:
        ax = fig.subplots()
        y = np.arange(len(pairs))[::-1]  # (pairs,): first pair on top
        for row, yi in zip(pairs, y):
            ax.plot([row.low, row.high], [yi, yi], color=color(0), linewidth=6, alpha=0.45, solid_capstyle="butt")
            ax.plot([row.value], [yi], marker="|", markersize=14, color=color(0), markeredgewidth=2)
        ax.axvline(0.5, color="#555555", linestyle="--", linewidth=1)
        ax.set_yticks(y, [short(p.label, 2 * MAX_LABEL + 3) for p in pairs])
        ax.set_xlim(0.0, 1.0)
        ax.set_ylim(-0.7, max(len(pairs), 1) - 0.3)
        ax.set_xlabel("P(X > Y): an episode of X scores above one of Y, averaged over tasks")
        ax.grid(axis="y", visible=False)
        return _svg(fig)


@cached
def distribution_plot(rows: Sequence[tuple[str, np.ndarray]], xlabel: str) -> bytes:
    """Per-episode values per entry ``(label, values (num_episodes,))``: a box and every episode as a dot."""
    with _figure(6.4, 0.5 * max(len(rows), 1) + 1.1) as fig:
        ax = fig.subplots()
        y = np.arange(len(rows))[::-1]  # (rows,): first entry on top
        rng = np.random.default_rng(0)  # fixed jitter: the same inputs give the same picture
        for i, ((_, values), yi) in enumerate(zip(rows, y)):
            values = np.asarray(values, dtype=np.float64)
            if values.size:
                ax.boxplot(
                    values,
                    positions=[yi],
                    widths=0.55,
                    showfliers=False,
                    **_horizontal_box(),
                    medianprops={"color": color(i)},
                    boxprops={"color": "#444444"},
                    whiskerprops={"color": "#444444"},
                    capprops={"color": "#444444"},
                )
                jitter = rng.uniform(-0.18, 0.18, size=values.size)  # (num_episodes,)
                ax.scatter(values, yi + jitter, s=7, color=color(i), alpha=0.55, linewidths=0)
        ax.set_yticks(y, [short(label) for label, _ in rows])
        ax.set_ylim(-0.7, max(len(rows), 1) - 0.3)
        ax.set_xlabel(xlabel)
        ax.grid(axis="y", visible=False)
        return _svg(fig)


_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<")


@dataclass(frozen=True)
class FrontPanel:
    """One panel of a Pareto-front plot: a title, the exact front ``(P, m)`` or ``None``, and each entry's points.

    ``points`` holds one ``(n, m)`` array per entry, in the order of the plot's labels; only the
    first two objectives are drawn.
    """

    title: str
    front: np.ndarray | None
    points: Sequence[np.ndarray]


def _front_line(ax: Any, front: np.ndarray, label: str | None, **style: Any) -> None:
    """A 2-objective front (maximized) as its attainment staircase, with its points marked."""
    front = np.asarray(front, dtype=np.float64)
    order = np.lexsort((-front[:, 1], front[:, 0]))  # objective 1 ascending, then objective 2 descending
    xy = front[order, :2]  # (P, 2)
    if front.shape[1] == 2:  # with more objectives a projection is no staircase: points only
        ax.step(xy[:, 0], xy[:, 1], where="pre", label=label, **style)
        label = None
    ax.plot(xy[:, 0], xy[:, 1], linestyle="none", marker=".", markersize=4, color=style.get("color"), label=label)


def _pareto_panel(
    ax: Any,
    panel: FrontPanel,
    labels: Sequence[str],
    *,
    first: bool,
    reference_point: Sequence[float] | None,
    own_fronts: bool,
) -> None:
    """One panel of :func:`pareto_plot`; only the ``first`` panel labels what the legend shows."""
    if panel.front is not None and len(panel.front):
        _front_line(ax, panel.front, "exact front" if first else None, color="#555555", linewidth=1.2)
    for i, points in enumerate(panel.points):
        points = np.asarray(points, dtype=np.float64)
        if points.ndim != 2 or not len(points):
            continue
        if own_fronts:
            _front_line(ax, non_dominated(points), None, color=color(i), linewidth=1.0, alpha=0.8)
        ax.scatter(
            points[:, 0],
            points[:, 1],
            s=max(46 - 12 * i, 10),
            marker=_MARKERS[i % len(_MARKERS)],
            facecolors="none",
            edgecolors=color(i),
            linewidths=1.1,
            alpha=0.85,
            label=short(labels[i]) if first else None,
        )
    if reference_point is not None:
        ax.plot(
            [reference_point[0]],
            [reference_point[1]],
            marker="x",
            color="#000000",
            linestyle="none",
            markersize=6,
            label="reference point" if first else None,
        )
    ax.set_title(panel.title, fontsize=8.5)


@cached
def pareto_plot(
    panels: Sequence[FrontPanel],
    labels: Sequence[str],
    columns: int = 3,
    reference_point: Sequence[float] | None = None,
    own_fronts: bool = False,
    axis_labels: tuple[str, str] = ("objective 1", "objective 2"),
) -> bytes:
    """Small multiples of objective 1 vs objective 2: the exact front (grey staircase) and every entry's points.

    ``axis_labels`` labels the x and y axes (the objectives' names where the env declares them).

    Entries get a colour and a hollow marker each, drawn smaller entry after entry, so points that
    coincide (e.g. several entries on the same front point) all stay visible. With ``own_fronts``
    each entry's non-dominated points are joined by a staircase in its colour (the single-panel
    view of all episodes, where no one exact front applies).
    """
    panels = list(panels) or [FrontPanel("no episodes", None, [])]
    cols = min(columns, len(panels))
    rows = -(-len(panels) // cols)
    with _figure(2.35 * cols + 1.4 if cols > 1 else 6.4, 2.3 * rows + 0.9 if cols > 1 else 4.0) as fig:
        axes = fig.subplots(rows, cols, squeeze=False)
        for k, ax in enumerate(axes.flat):
            if k >= len(panels):
                ax.set_visible(False)
                continue
            _pareto_panel(ax, panels[k], labels, first=k == 0, reference_point=reference_point, own_fronts=own_fronts)
            if k % cols == 0:
                ax.set_ylabel(axis_labels[1])
            if k // cols == rows - 1 or k + cols >= len(panels):
                ax.set_xlabel(axis_labels[0])
        handles, names = axes.flat[0].get_legend_handles_labels()
        if handles:
            fig.legend(handles, names, loc="outside lower center", ncols=min(len(names), 4), frameon=False)
        return _svg(fig)
