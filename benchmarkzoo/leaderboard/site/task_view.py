"""A task's page data: one row per entry, and the distribution plots of scores, lengths and domain metrics."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import Any

import numpy as np

from benchmarkzoo.evaluation.results import task_scores
from benchmarkzoo.leaderboard.site import plots
from benchmarkzoo.leaderboard.site.animation_view import animation_view
from benchmarkzoo.leaderboard.site.files import slug, write
from benchmarkzoo.leaderboard.site.mo_view import mo_view

#: Domain metrics plotted per task (all of them are in the table).
MAX_METRIC_PLOTS = 6


def score_words(score: Any) -> str:
    """What a task's :class:`~benchmarkzoo.evaluation.suites.Score` takes of an episode, in words."""
    if score.kind == "utility":
        return f"the utility (weights {', '.join(f'{w:g}' for w in score.weights)}) of its vector return"
    if score.kind == "metric":
        return f"its {score.metric} metric"
    if score.kind == "hypervolume_ratio":
        return "the hypervolume of its vector return over that of its own scenario's exact Pareto front"
    return "its return (the team return of a multi-agent task)"


def task_view(
    task_id: str,
    suite_slug: str,
    entries: list[dict[str, Any]],
    out: Path,
    replays: tuple[Path, Collection[str] | None] | None = None,
) -> dict[str, Any]:
    """One task's page data, with its distribution plots written.

    ``replays``: the leaderboard folder and the env families to replay (``None``: the default ones); given,
    the page also shows a replayed episode (:func:`~.animation_view.animation_view`).

    The rows are ranked by the task's own score (the mean episode score, the "Mean score" column),
    not by the suite rank, which also weighs the suite's other tasks (and verification): a task page
    whose order disagreed with the scores it shows was the bug this ordering fixes. The suite rank
    is shown beside it.
    """
    task_slug = slug(task_id)
    rows = [_row(e, result) for e in entries if (result := _result(e, task_id)) is not None]
    rows.sort(key=lambda r: (r["board"].get("mean") is None, -(r["board"].get("mean") or 0.0), r["entry"]["rank"]))
    for rank, row in enumerate(rows, start=1):
        row["rank"] = rank
    info = rows[0]["result"] if rows else None
    metric_names = sorted({name for row in rows for name in row["metrics"]})
    plot_paths = _distribution_plots(f"{suite_slug}/plots/task-{task_slug}", rows, metric_names, out) if rows else []
    return {
        "id": task_id,
        "href": f"{suite_slug}/tasks/{task_slug}.html",
        "info": info,
        "rows": rows,
        "metric_names": metric_names,
        "plots": plot_paths,
        "ranking": score_words(info.score) if info is not None else None,
        "mo": mo_view(task_slug, suite_slug, rows, out),
        "animation": None if replays is None else animation_view(task_id, rows, out, *replays),
    }


def _result(entry: dict[str, Any], task_id: str) -> Any:
    """The entry's result for ``task_id``, or ``None`` if it did not play the task."""
    return next((t for t in entry["results"].tasks if t.id == task_id), None)


def _row(entry: dict[str, Any], result: Any) -> dict[str, Any]:
    """An entry's row of the task table: its board numbers, episode scores, lengths and metric means."""
    metric_values: dict[str, list[float]] = {}
    for episode in result.episodes:
        for name, value in episode.metrics.items():
            metric_values.setdefault(name, []).append(value)
    lengths = np.array([ep.length for ep in result.episodes], dtype=np.float64)  # (num_episodes,)
    return {
        "entry": entry,
        "board": entry["tasks"].get(result.id, {}),
        "result": result,
        "scores": task_scores(result),
        "lengths": lengths,
        "mean_length": float(lengths.mean()) if lengths.size else None,
        "metrics": {k: float(np.mean(v)) for k, v in metric_values.items()},
        "metric_values": metric_values,
    }


def _distribution_plots(prefix: str, rows: list[dict[str, Any]], metric_names: list[str], out: Path) -> list[dict]:
    """Write the score, length and metric distributions (files ``<prefix>-*.svg``); returns their paths and captions."""
    labels = [r["entry"]["policy"] for r in rows]
    name = f"{prefix}-returns.svg"
    write(out / name, plots.distribution_plot(list(zip(labels, [r["scores"] for r in rows])), "episode score"))
    plot_paths = [
        {
            "src": name,
            "caption": (
                f"Score of every episode: {score_words(rows[0]['result'].score)}, the value the task's mean and the "
                "suite's IQM are taken of (box: quartiles; dots: episodes)."
            ),
        }
    ]
    name = f"{prefix}-lengths.svg"
    write(out / name, plots.distribution_plot(list(zip(labels, [r["lengths"] for r in rows])), "episode length"))
    plot_paths.append({"src": name, "caption": "Length of every episode, in steps."})
    for k, metric in enumerate(metric_names[:MAX_METRIC_PLOTS]):
        name = f"{prefix}-metric-{k}.svg"
        data = [(r["entry"]["policy"], np.array(r["metric_values"].get(metric, []))) for r in rows]
        write(out / name, plots.distribution_plot(data, plots.short(metric, 60)))
        plot_paths.append({"src": name, "caption": f"Domain metric {metric} of every episode."})
    return plot_paths
