"""A multi-objective task's Pareto plots and aggregate table.

Each episode plays its own scenario, with its own exact front, so no single front fits all the
points. The page shows (1) every episode's return with each entry's non-dominated set, the point
set the aggregates are taken of; (2) small multiples of the first scenarios by seed, each with
its exact front and every entry's return on it; (3) every episode's distance to its own
scenario's front, which compares across scenarios. (2) and (3) need recorded fronts.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np

from benchmarkzoo import registration
from benchmarkzoo.evaluation.results import aggregates_of
from benchmarkzoo.leaderboard.site import plots, stats
from benchmarkzoo.leaderboard.site.files import write

#: Scenarios drawn with their exact fronts on a multi-objective task's page (the first, by scenario seed).
FRONT_SCENARIOS = 6


@dataclasses.dataclass(frozen=True)
class _Task:
    """What every plot of one multi-objective task reads."""

    rows: list[dict[str, Any]]  # the task page's rows, one per entry, in ranking order
    vectors: list[np.ndarray]  # per row: (num_episodes, num_objectives) return vectors
    names: list[str]  # (num_objectives,) the objectives' names, as the env declares them
    fronts: dict[str, np.ndarray]  # scenario hash -> (num_points, num_objectives) exact front
    scenarios: list[tuple[int, str]]  # (scenario seed, scenario hash) of every scenario played, sorted
    prefix: str  # site path of the task's plots, without the "-<plot>.svg" ending
    out: Path

    @property
    def labels(self) -> list[str]:
        return [r["entry"]["policy"] for r in self.rows]

    @property
    def objectives(self) -> int:
        return self.vectors[0].shape[1]

    @property
    def more(self) -> str:
        """Which objectives a 2-D plot shows, when there are more than two."""
        return (
            f" ({self.names[0]} and {self.names[1]} of the {self.objectives} objectives)" if self.objectives > 2 else ""
        )

    @property
    def axes(self) -> tuple[str, str]:
        """The 2-D plots' axis labels: the first two objectives' names."""
        return (self.names[0], self.names[1]) if self.objectives >= 2 else (self.names[0], "")

    def write(self, plot: str, content: bytes) -> str:
        """Write the plot ``<prefix>-<plot>.svg``; returns its site path."""
        name = f"{self.prefix}-{plot}.svg"
        write(self.out / name, content)
        return name


def mo_view(task_slug: str, suite_slug: str, rows: list[dict[str, Any]], out: Path) -> dict[str, Any] | None:
    """A multi-objective task's Pareto plots (written) and table rows; ``None`` for a single-objective task."""
    task = _task(rows, f"{suite_slug}/plots/task-{task_slug}", out)
    if task is None:
        return None
    plot_paths = [_all_episodes_plot(task)]
    distances: list[np.ndarray | None] = [None] * len(rows)
    if task.fronts:
        plot_paths.append(_scenario_fronts_plot(task))
        distances = _front_distances(task)
        plot_paths.append(_distance_plot(task, distances))
    table = [
        {
            "entry": r["entry"],
            # recomputed, so entries written before the per-scenario aggregates existed show them too
            "mo": (recomputed.multi_objective if (recomputed := aggregates_of(r["result"])) else None),
            "mean_distance": float(d.mean()) if d is not None and d.size else None,
            "rank": r.get("rank", r["entry"]["rank"]),
            "score": r["board"].get("mean"),  # the ranking score, as the results table shows it
        }
        for r, d in zip(rows, distances)
    ]
    return {
        "plots": plot_paths,
        "rows": table,
        "fronts": bool(task.fronts),
        "scenarios": len(task.scenarios),
        "objectives": task.objectives,
        "names": task.names,
    }


def objective_names(env_id: str, count: int) -> list[str]:
    """The objectives' names the env declares (its spec's outcome bounds), else ``objective 1..count``.

    The bounds are the env's own declaration of its vector reward, one :class:`Objective` per
    component in the reward's order; nothing is simulated. A plugin env that is not installed, or
    bounds of another length, fall back to numbers.
    """
    try:
        names = [o.name for o in registration.spec(env_id).bounds().objectives]
    except (ImportError, KeyError, ValueError, TypeError):  # not installed here, or no bounds declared
        names = []
    return names if len(names) == count else [f"objective {k + 1}" for k in range(count)]


def _task(rows: list[dict[str, Any]], prefix: str, out: Path) -> _Task | None:
    """The task's return vectors and recorded fronts; ``None`` unless it is multi-objective with vector returns."""
    vectors = [stats.vector_returns(r["result"].episodes) for r in rows]
    info = rows[0]["result"] if rows else None
    if info is None or not (info.kind == "mo" or info.multi_objective is not None):
        return None
    present = [v for v in vectors if v is not None]
    if len(present) != len(vectors):
        return None
    scenarios = sorted({(e.scenario_seed, e.scenario_hash) for r in rows for e in r["result"].episodes})
    names = objective_names(info.env_id, present[0].shape[1])
    return _Task(rows, present, names, _recorded_fronts(rows), scenarios, prefix, out)


def _recorded_fronts(rows: list[dict[str, Any]]) -> dict[str, np.ndarray]:
    """Every scenario's exact front that some entry recorded (the first entry's, where several did)."""
    fronts: dict[str, np.ndarray] = {}
    for r in rows:
        for key, front in sorted((r["result"].pareto_fronts or {}).items()):
            fronts.setdefault(key, np.asarray(front, dtype=np.float64))
    return fronts


def _all_episodes_plot(task: _Task) -> dict[str, str]:
    """(1): every episode's return vector with each entry's non-dominated staircase, and the reference point."""
    settings = task.rows[0]["result"].multi_objective
    reference = list(settings.reference_point[:2]) if settings is not None and task.objectives >= 2 else None
    n = len(task.scenarios)
    panel = plots.FrontPanel(f"all {n} scenarios", None, task.vectors)
    drawn = plots.pareto_plot([panel], task.labels, reference_point=reference, own_fronts=True, axis_labels=task.axes)
    name = task.write("pareto-all", drawn)
    return {
        "src": name,
        "caption": (
            f"Return vector of every episode{task.more}, one point per episode over all {n} "
            "scenarios played; each entry's staircase joins its non-dominated points, the point set whose "
            "pooled hypervolume (against the reference point, ×), expected utility and sparsity the table "
            "reports. Episodes play different scenarios with different exact fronts, so no exact front is drawn "
            "here and the pooled figures mix them: the per-scenario columns score each scenario against its own "
            "front (see the scenarios below)."
        ),
    }


def _scenario_fronts_plot(task: _Task) -> dict[str, str]:
    """(2): the first scenarios' exact fronts, each with every entry's returns on that scenario."""
    drawn = [(seed, key) for seed, key in task.scenarios if key in task.fronts][:FRONT_SCENARIOS]
    panels = []
    for seed, key in drawn:
        points = [v[[e.scenario_hash == key for e in r["result"].episodes]] for r, v in zip(task.rows, task.vectors)]
        panels.append(
            plots.FrontPanel(f"scenario seed {seed} ({len(task.fronts[key])} front points)", task.fronts[key], points)
        )
    name = task.write("pareto-scenarios", plots.pareto_plot(panels, task.labels, axis_labels=task.axes))
    return {
        "src": name,
        "caption": (
            f"The exact Pareto front{task.more} (grey staircase: undiscounted, within the task's time limit) of the "
            f"first {len(drawn)} of the {len(task.scenarios)} scenarios played, by scenario seed, with "
            "every entry's return on that scenario; a return on the staircase's corners is Pareto-optimal."
        ),
    }


def _front_distances(task: _Task) -> list[np.ndarray | None]:
    """Per row: every episode's distance to its scenario's front, or ``None`` if a scenario has no recorded front."""
    distances: list[np.ndarray | None] = []
    for r, v in zip(task.rows, task.vectors):
        keys = [e.scenario_hash for e in r["result"].episodes]
        if all(key in task.fronts for key in keys):
            distances.append(np.array([stats.front_distance(p, task.fronts[key]) for p, key in zip(v, keys)]))
        else:
            distances.append(None)
    return distances


def _distance_plot(task: _Task, distances: list[np.ndarray | None]) -> dict[str, str]:
    """(3): the distribution of every entry's distances to the fronts."""
    data = [(label, d if d is not None else np.array([])) for label, d in zip(task.labels, distances)]
    xlabel = "distance to the scenario's exact front (additive ε, in units of the front's range)"
    name = task.write("front-distance", plots.distribution_plot(data, xlabel))
    return {
        "src": name,
        "caption": (
            "Every episode's distance to its own scenario's exact front: the least ε such that raising each "
            "objective by ε times that objective's range over the front reaches the front (0: Pareto-optimal). "
            "Unlike raw returns it compares across scenarios whose fronts differ in scale."
        ),
    }
