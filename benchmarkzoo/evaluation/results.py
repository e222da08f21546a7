"""The results file: a versioned schema defined once, as pydantic models that also export JSON Schema.

Raw per-episode outcomes are the source of truth; every aggregate in the file is recomputable
from them with :func:`recompute`, which is what ``leaderboard validate`` checks.
"""

from __future__ import annotations

import json
import platform
import sys
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Any, Final, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

from benchmarkzoo.core.atomic import atomic_write_text
from benchmarkzoo.core.errors import BenchmarkZooError
from benchmarkzoo.evaluation import metrics, mo_metrics
from benchmarkzoo.evaluation.suites import MultiObjective, Score

SCHEMA_VERSION: Final = 1
#: A task's status in a results file (see :class:`TaskResult`).
TaskStatus = Literal["ok", "failed", "incomplete"]
DEPENDENCIES = (
    "numpy",
    "gymnasium",
    "pettingzoo",
    "mo-gymnasium",
    "torch",
    "stable-baselines3",
    "ray",
    "pybullet",
    "eclipse-sumo",
)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


#: The default score: the (team) return.
RETURN = Score()


class ScoreError(BenchmarkZooError, ValueError):
    """A task's score cannot be taken of its episodes (e.g. ``return`` of a vector return)."""


class Episode(_Model):
    """One episode's raw outcome.

    ``return`` is a number (single-agent), a list with one entry per objective (``mo``) or per
    agent in ``possible_agents`` order (``parallel``; then ``team_return`` is their sum), or per
    agent a list with one entry per objective (``moma``; the team's vector return, which
    utilities and multi-objective metrics score, is their sum per objective).
    """

    index: int = Field(ge=0)
    seed: int = Field(ge=0)
    scenario_seed: int = Field(ge=0)
    scenario_hash: str = Field(pattern=r"^[0-9a-f]{64}$")
    episode_return: float | list[float] | list[list[float]] = Field(alias="return")
    team_return: float | None = None
    length: int = Field(ge=0)
    success: bool | None = None
    metrics: dict[str, float] = Field(default_factory=dict)

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, populate_by_name=True)


class MultiObjectiveAggregates(_Model):
    """See :mod:`benchmarkzoo.evaluation.mo_metrics`; the front-based ones need recorded fronts.

    ``hypervolume``, ``expected_utility`` and ``sparsity`` are of every episode's return pooled
    across scenarios. With exact fronts, ``scenario_hypervolume_ratio`` and ``scenario_utility_loss``
    score each scenario against its own front: their IQM over the scenarios played (``scenarios``),
    each with a 95% bootstrap interval.
    """

    hypervolume: float
    expected_utility: float
    sparsity: float
    pareto_optimal_rate: float | None = None
    front_coverage: float | None = None
    scenarios: int | None = None
    scenario_hypervolume_ratio: float | None = None
    scenario_hypervolume_ratio_ci: tuple[float, float] | None = None
    scenario_utility_loss: float | None = None
    scenario_utility_loss_ci: tuple[float, float] | None = None


class TaskAggregates(_Model):
    """Per-task statistics of the episodes' scores (the task's :class:`Score`), plus multi-objective ones."""

    mean: float
    median: float
    std: float
    ci_low: float
    ci_high: float
    success_rate: float | None = None
    normalized_mean: float | None = None
    multi_objective: MultiObjectiveAggregates | None = None


class TaskResult(_Model):
    """Everything about one task: what was run, every episode, and the aggregates.

    ``status`` is ``incomplete`` while a run is under way or after it was interrupted: its
    episodes are the finished ones (any indices), and ``evaluate --resume`` plays the rest.
    ``pareto_fronts`` maps each scenario hash played to its exact front (``gamma = 1``, the
    task's time limit) when the env computes one.
    """

    id: str
    env_id: str
    kind: str = "single"
    env_spec: dict[str, Any]
    scenario_set: str
    split: str
    status: TaskStatus
    error: str | None = None
    score: Score = Field(default_factory=Score)
    multi_objective: MultiObjective | None = None
    references: dict[str, float] | None = None
    pareto_fronts: dict[str, list[list[float]]] | None = None
    episodes: list[Episode]
    aggregates: TaskAggregates | None = None
    steps: int = Field(ge=0)
    wall_time_s: float = Field(ge=0)


class SuiteAggregates(_Model):
    """Across tasks with references: normalized IQM, mean and optimality gap, with stratified bootstrap intervals."""

    tasks: int
    iqm: float
    iqm_ci: tuple[float, float]
    mean: float
    mean_ci: tuple[float, float]
    optimality_gap: float
    optimality_gap_ci: tuple[float, float]


class PolicyInfo(_Model):
    """The policy evaluated.

    Attributes:
        name: shown in results and on the leaderboard.
        kind: ``random``, ``baseline``, ``callable``, ``sb3``, ``rllib`` or ``onnx``.
        spec: the ``--policy`` string it was loaded from.
        content_hash: sha256 of its checkpoint or script, if it has one.
    """

    name: str
    kind: str
    spec: str
    content_hash: str | None = None


class EarlierRun(_Model):
    """The timing of an earlier invocation of a resumed run, as its own file recorded it.

    Attributes:
        started_at: when that invocation started (ISO 8601, UTC).
        wall_time_s, steps, steps_per_s: its own time and the environment steps it played
            (0 where a file written before these figures were kept did not record them).
        episodes: the episodes it played.
    """

    started_at: str
    wall_time_s: float = Field(default=0.0, ge=0)
    steps: int = Field(default=0, ge=0)
    steps_per_s: float = Field(default=0.0, ge=0)
    episodes: int = Field(default=0, ge=0)


class Provenance(_Model):
    """Where and with what a run happened: versions, machine, backend, and how long it took.

    Attributes:
        dependencies: installed versions of the packages in :data:`DEPENDENCIES`.
        backend, num_envs, workers: where the episodes played (they do not change the results).
        started_at: ISO 8601 time, UTC, to the second.
        wall_time_s, steps, steps_per_s: this invocation's time and the environment steps it
            played itself. After ``--resume`` the episodes kept from the file are not counted:
            they are ``resumed_episodes`` / ``resumed_steps``, timed in ``earlier_runs``.
        resumed_episodes, resumed_steps: episodes (and their steps) kept from the resumed file.
        earlier_runs: every earlier invocation of a resumed run, oldest first, with its own figures.
    """

    benchmarkzoo_version: str
    dependencies: dict[str, str]
    python: str
    platform: str
    cpu: str
    backend: str
    num_envs: int
    workers: int
    started_at: str
    wall_time_s: float = 0.0
    steps: int = 0
    steps_per_s: float = 0.0
    simulator_restarts: int = Field(default=0, ge=0)
    """Episodes replayed on a fresh simulator after theirs died (SUMO, PyBullet), summed over the run's tasks."""
    resumed_episodes: int = Field(default=0, ge=0)
    resumed_steps: int = Field(default=0, ge=0)
    earlier_runs: list[EarlierRun] = Field(default_factory=list)

    @model_serializer(mode="wrap")
    def _omit_unresumed(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # A run that resumed nothing writes the bytes it wrote before these fields existed, so a
        # stored file's name (a hash of its JSON) and the duplicate check see the same file.
        data = handler(self)
        for name in _RESUME_FIELDS:
            if not data.get(name):
                data.pop(name, None)
        return data


_RESUME_FIELDS: Final = ("resumed_episodes", "resumed_steps", "earlier_runs")


class Results(_Model):
    """A results file (``schema_version`` 1).

    ``submitter`` is who submitted it to a leaderboard (``leaderboard add --submitter``); ``evaluate``
    leaves it unset, and the maintainers' reference entries carry ``benchmarkzoo``.
    """

    schema_version: Literal[1] = SCHEMA_VERSION
    suite: str
    submitter: str | None = Field(default=None, min_length=1, max_length=64)
    protocol_seed: int
    provenance: Provenance
    policy: PolicyInfo
    tasks: list[TaskResult]
    aggregates: SuiteAggregates | None = None

    def write(self, path: str | Path) -> None:
        """Write atomically (a reader never sees half a file)."""
        atomic_write_text(path, self.model_dump_json(indent=1, by_alias=True) + "\n")

    @classmethod
    def read(cls, path: str | Path) -> Results:
        """Read a results file, validated against the schema (untrusted files go through ``leaderboard.validate``)."""
        return cls.model_validate_json(Path(path).read_text())


def export_schema(path: str | Path) -> None:
    """Write the JSON Schema of :class:`Results` (the ``leaderboard/schema/`` copy)."""
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", **Results.model_json_schema(by_alias=True)}
    atomic_write_text(path, json.dumps(schema, indent=1, sort_keys=True) + "\n")


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def provenance(backend: str, num_envs: int, workers: int) -> Provenance:
    """Where and with what a run happens (versions, platform, CPU, backend)."""
    import benchmarkzoo

    versions = {}
    for name in DEPENDENCIES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return Provenance(
        benchmarkzoo_version=benchmarkzoo.__version__,
        dependencies=versions,
        python=sys.version.split()[0],
        platform=platform.platform(),
        cpu=_cpu_model(),
        backend=backend,
        num_envs=num_envs,
        workers=workers,
        started_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
    )


def _score(episode: Episode, score: Score) -> float:
    ret = episode.episode_return
    if score.kind == "hypervolume_ratio":
        raise ScoreError("a hypervolume_ratio score is taken against the scenarios' fronts: use episode_scores.")
    if score.kind == "metric":
        if score.metric not in episode.metrics:
            raise ScoreError(
                f"episode {episode.index} has no metric {score.metric!r}; it has {sorted(episode.metrics)}."
            )
        return episode.metrics[score.metric]
    if score.weights is not None:  # kind "utility": Score's validator gives weights to it alone
        vector = vector_return(episode)
        if vector.shape != (len(score.weights),):
            raise ScoreError(
                f"score weights {list(score.weights)} need a return with {len(score.weights)} objectives; "
                f"episode {episode.index} returned {ret!r}."
            )
        return float(np.asarray(score.weights) @ vector)
    if episode.team_return is not None:
        return episode.team_return
    if isinstance(ret, list):
        raise ScoreError(
            "the episodes have vector returns: give the task an explicit score, e.g. "
            "`score: {kind: utility, weights: [0.5, 0.5]}`."
        )
    return float(ret)


def vector_return(episode: Episode) -> np.ndarray:
    """The episode's vector return: ``mo``'s as it is, ``moma``'s per-agent returns summed per objective."""
    vector = np.asarray(episode.episode_return, dtype=np.float64)
    return vector.sum(axis=0) if vector.ndim == 2 else vector


def episode_scores(
    episodes: list[Episode],
    score: Score = RETURN,
    fronts: dict[str, list[list[float]]] | None = None,
    multi_objective: MultiObjective | None = None,
) -> np.ndarray:
    """``(episodes,)`` float64: each episode's scalar score under ``score``.

    A ``hypervolume_ratio`` score needs the scenarios' exact ``fronts`` and the task's
    ``multi_objective`` settings (its reference point); the other kinds read the episode alone.

    Raises:
        ScoreError: the score cannot be taken of these episodes (and says why).
    """
    if score.kind == "hypervolume_ratio":
        return _hypervolume_ratios(episodes, fronts, multi_objective)
    return np.array([_score(e, score) for e in episodes], dtype=np.float64)


def task_scores(task: TaskResult) -> np.ndarray:
    """``(episodes,)`` float64: the scores of a task's recorded episodes, under its own score."""
    return episode_scores(task.episodes, task.score, task.pareto_fronts, task.multi_objective)


def _hypervolume_ratios(
    episodes: list[Episode], fronts: dict[str, list[list[float]]] | None, settings: MultiObjective | None
) -> np.ndarray:
    if fronts is None or settings is None:
        raise ScoreError(
            "a hypervolume_ratio score needs the exact Pareto front of every scenario played (the results' "
            "`pareto_fronts`, which `evaluate` records when the env computes fronts) and the task's reference "
            "point; this task has " + ("no fronts." if fronts is None else "no multi_objective settings.")
        )
    reference, volumes, ratios = settings.reference_point, {}, []
    for episode in episodes:
        key = episode.scenario_hash
        if key not in fronts:
            raise ScoreError(f"episode {episode.index} played scenario {key}, whose Pareto front is not recorded.")
        if key not in volumes:
            front = np.asarray(fronts[key], dtype=np.float64).reshape(-1, len(reference))
            try:
                volumes[key] = mo_metrics.front_hypervolume(front, reference, key)
            except ValueError as error:
                raise ScoreError(str(error)) from error
        ratios.append(mo_metrics.hypervolume(vector_return(episode)[None, :], reference) / volumes[key])
    return np.asarray(ratios, dtype=np.float64)


def multi_objective_aggregates(
    episodes: list[Episode], settings: MultiObjective, fronts: dict[str, list[list[float]]] | None = None
) -> MultiObjectiveAggregates:
    """Hypervolume, expected utility and sparsity of the episodes' returns; front attainment if ``fronts``."""
    m = len(settings.reference_point)
    points = np.asarray([vector_return(e) for e in episodes], dtype=np.float64)
    if points.ndim != 2 or points.shape[1] != m:
        raise ScoreError(f"the multi-objective settings have {m} objectives; the returns have shape {points.shape}.")
    weights = mo_metrics.weight_set(m, settings.weight_steps)
    pooled = MultiObjectiveAggregates(
        hypervolume=mo_metrics.hypervolume(points, settings.reference_point),
        expected_utility=mo_metrics.expected_utility(points, weights),
        sparsity=mo_metrics.sparsity(points),
    )
    if fronts is None:
        return pooled
    hashes = [e.scenario_hash for e in episodes]
    missing = sorted(set(hashes) - set(fronts))
    if missing:
        raise ScoreError(f"the results record no Pareto front for scenario(s) {missing} that episodes played.")
    optimal, coverage = mo_metrics.front_attainment(points, hashes, fronts)
    try:
        scenarios, ratios, losses = mo_metrics.scenario_scores(
            points, hashes, fronts, settings.reference_point, weights
        )
    except ValueError as error:
        raise ScoreError(str(error)) from error
    return pooled.model_copy(
        update={
            "pareto_optimal_rate": optimal,
            "front_coverage": coverage,
            "scenarios": len(scenarios),
            "scenario_hypervolume_ratio": metrics.iqm(ratios),
            "scenario_hypervolume_ratio_ci": metrics.bootstrap_ci(ratios, metrics.iqm),
            "scenario_utility_loss": metrics.iqm(losses),
            "scenario_utility_loss_ci": metrics.bootstrap_ci(losses, metrics.iqm),
        }
    )


def task_aggregates(
    episodes: list[Episode],
    references: dict[str, float] | None,
    score: Score = RETURN,
    multi_objective: MultiObjective | None = None,
    fronts: dict[str, list[list[float]]] | None = None,
) -> TaskAggregates:
    """Statistics of one task, from its episodes (and recorded fronts) alone."""
    returns = episode_scores(episodes, score, fronts, multi_objective)
    low, high = metrics.bootstrap_ci(returns)
    successes = [e.success for e in episodes if e.success is not None]
    normalized = None
    if references is not None:
        normalized = float(metrics.normalize(returns, references["random"], references["baseline"]).mean())
    return TaskAggregates(
        mean=float(returns.mean()),
        median=float(np.median(returns)),
        std=float(returns.std()),
        ci_low=low,
        ci_high=high,
        success_rate=float(np.mean(successes)) if successes else None,
        normalized_mean=normalized,
        multi_objective=multi_objective_aggregates(episodes, multi_objective, fronts) if multi_objective else None,
    )


#: Multi-objective aggregates added after results files were first written. ``schema_version`` 1
#: keeps them optional: a file that leaves them out (or null) was written before them and is checked
#: without them; a file that gives a value must give the right one.
LATER_MO_AGGREGATES = (
    "scenarios",
    "scenario_hypervolume_ratio",
    "scenario_hypervolume_ratio_ci",
    "scenario_utility_loss",
    "scenario_utility_loss_ci",
)


def as_claimed(recomputed: TaskAggregates | None, claimed: TaskAggregates | None) -> TaskAggregates | None:
    """``recomputed`` without the later aggregates ``claimed`` (a file's own) leaves out, to compare the two."""
    if recomputed is None or claimed is None:
        return recomputed
    mo, claimed_mo = recomputed.multi_objective, claimed.multi_objective
    if mo is None or claimed_mo is None:
        return recomputed
    unset = {name: None for name in LATER_MO_AGGREGATES if getattr(claimed_mo, name) is None}
    return recomputed.model_copy(update={"multi_objective": mo.model_copy(update=unset)}) if unset else recomputed


def aggregates_of(task: TaskResult) -> TaskAggregates | None:
    """The aggregates a finished task's episodes give (``None`` unless ``ok``)."""
    if task.status != "ok" or not task.episodes:
        return None
    return task_aggregates(task.episodes, task.references, task.score, task.multi_objective, task.pareto_fronts)


def suite_aggregates(tasks: list[TaskResult]) -> SuiteAggregates | None:
    """Normalized IQM, mean and optimality gap over the tasks that have references and finished."""
    per_task = [
        metrics.normalize(task_scores(t), t.references["random"], t.references["baseline"])
        for t in tasks
        if t.status == "ok" and t.references is not None and t.episodes
    ]
    if not per_task:
        return None
    return SuiteAggregates(
        tasks=len(per_task),
        iqm=metrics.suite_iqm(per_task),
        iqm_ci=metrics.stratified_bootstrap_ci(per_task, metrics.suite_iqm),
        mean=metrics.suite_mean(per_task),
        mean_ci=metrics.stratified_bootstrap_ci(per_task, metrics.suite_mean),
        optimality_gap=metrics.suite_optimality_gap(per_task),
        optimality_gap_ci=metrics.stratified_bootstrap_ci(per_task, metrics.suite_optimality_gap),
    )


def recompute(results: Results) -> Results:
    """A copy of ``results`` whose aggregates are recomputed from the raw episodes."""
    tasks = [t.model_copy(update={"aggregates": aggregates_of(t)}) for t in results.tasks]
    return results.model_copy(update={"tasks": tasks, "aggregates": suite_aggregates(tasks)})
