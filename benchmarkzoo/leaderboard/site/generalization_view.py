"""A generalization suite's page data: every entry's score on train beside test beside ood, per scenario set.

A suite is a generalization suite when it plays one scenario set on more than one split (generalization-v1:
each single-agent family on ``train``, ``test`` and ``ood``). The page shows the plot a generalization
paper shows: per scenario set, one group of bars per split, one bar per entry, each the mean normalized
episode score (random 0, baseline 1) with its 95% percentile-bootstrap interval
(:func:`benchmarkzoo.evaluation.metrics.bootstrap_ci`, fixed random state), and a table of the same
numbers with each entry's drop from test to every other tier.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from benchmarkzoo.evaluation import metrics
from benchmarkzoo.evaluation.results import Results, task_scores
from benchmarkzoo.leaderboard.site import plot_cache, plots
from benchmarkzoo.leaderboard.site.files import write

#: Splits in reading order; other tiers (``ood_rooms``) follow in name order.
SPLIT_ORDER = ("train", "test", "ood")
#: Panels per row of the plot.
COLUMNS = 3


def _split_key(split: str) -> tuple[int, str]:
    return (SPLIT_ORDER.index(split), "") if split in SPLIT_ORDER else (len(SPLIT_ORDER), split)


def families(results: Results) -> dict[str, dict[str, str]]:
    """``{scenario set: {split: task id}}`` of the scenario sets ``results`` plays on more than one split."""
    found: dict[str, dict[str, str]] = {}
    for task in results.tasks:
        found.setdefault(task.scenario_set, {})[task.split] = task.id
    return {
        name: dict(sorted(splits.items(), key=lambda kv: _split_key(kv[0])))
        for name, splits in found.items()
        if len(splits) > 1
    }


def _cell(results: Results, task_id: str) -> dict[str, Any] | None:
    """The mean normalized score of one task of one entry, with its interval; ``None`` without references."""
    task = next((t for t in results.tasks if t.id == task_id), None)
    if task is None or task.status != "ok" or task.references is None or not task.episodes:
        return None
    scores = metrics.normalize(task_scores(task), task.references["random"], task.references["baseline"])
    low, high = metrics.bootstrap_ci(scores)
    return {"task": task_id, "value": float(np.mean(scores)), "ci": (low, high), "episodes": int(scores.size)}


def _rows(entries: list[dict[str, Any]], splits: dict[str, str]) -> list[dict[str, Any]]:
    """One row per entry: its cell per split and the change from test to each other tier."""
    rows = []
    for entry in entries:
        cells = {split: _cell(entry["results"], task) for split, task in splits.items()}
        test = cells.get("test")
        drops = {
            split: cell["value"] - test["value"]
            for split, cell in cells.items()
            if split not in ("train", "test") and cell is not None and test is not None
        }
        rows.append({"entry": entry, "cells": cells, "drops": drops})
    return rows


def generalization_view(suite_slug: str, entries: list[dict[str, Any]], out: Path) -> dict[str, Any] | None:
    """Write the suite's generalization plot under ``out``; returns the page data, or ``None`` if not such a suite."""
    if not entries:
        return None
    groups = families(entries[0]["results"])
    if not groups:
        return None
    view_families: list[dict[str, Any]] = [
        {"name": name, "splits": list(splits), "tasks": splits, "rows": _rows(entries, splits)}
        for name, splits in groups.items()
    ]
    plot = f"{suite_slug}/plots/generalization.svg"
    panels = [  # only what the plot draws, so the plot cache can key it (an entry holds its parsed results)
        {
            "name": f["name"],
            "splits": f["splits"],
            "rows": [{"policy": row["entry"]["policy"], "cells": row["cells"]} for row in f["rows"]],
        }
        for f in view_families
    ]
    write(out / plot, generalization_plot(panels, [e["policy"] for e in entries]))
    return {"href": f"{suite_slug}/generalization.html", "plot": plot, "families": view_families}


@plot_cache.cached
def generalization_plot(view_families: Sequence[dict[str, Any]], policies: Sequence[str]) -> bytes:
    """Grouped bars: a panel per scenario set, a group per split, a bar per entry with its 95% interval.

    ``view_families``: per scenario set, its ``name``, ``splits`` and ``rows``: per entry, its ``policy``
    and ``cells`` (:func:`_cell` per split, ``None`` for a missing one).
    """
    count = max(len(view_families), 1)
    ncols = min(COLUMNS, count)
    nrows = -(-count // ncols)
    width = 0.8 / max(len(policies), 1)
    with plots._figure(3.4 * ncols + 0.6, 2.6 * nrows + 0.8) as fig:
        axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
        for ax, family in zip(axes, view_families):
            x = np.arange(len(family["splits"]))  # (splits,)
            for i, row in enumerate(family["rows"]):
                cells = [row["cells"][s] for s in family["splits"]]
                values = np.array([c["value"] if c else np.nan for c in cells])  # (splits,)
                low = np.array([c["value"] - c["ci"][0] if c else 0.0 for c in cells])
                high = np.array([c["ci"][1] - c["value"] if c else 0.0 for c in cells])
                offset = (i - (len(family["rows"]) - 1) / 2) * width
                ax.bar(x + offset, values, width, color=plots.color(i), label=plots.short(row["policy"]))
                ax.errorbar(x + offset, values, yerr=[low, high], fmt="none", ecolor="#333333", linewidth=1, capsize=2)
            ax.axhline(0.0, color="#555555", linewidth=0.8)
            ax.axhline(1.0, color="#555555", linewidth=0.8, linestyle="--")
            ax.set_xticks(x, family["splits"])
            ax.set_title(plots.short(family["name"]))
            ax.grid(axis="x", visible=False)
        for ax in axes[len(view_families) :]:
            ax.set_visible(False)
        axes[0].set_ylabel("normalized score (random 0, baseline 1)")
        fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncols=min(len(policies), 4))
        return plots._svg(fig)


__all__ = ["families", "generalization_plot", "generalization_view"]
