"""Evaluation suites: versioned lists of tasks, each an env, a scenario split and an episode count.

Suites are YAML files in ``benchmarkzoo/evaluation/suites/``. Normalization references (the
random policy's and the baseline's mean return per task) are measured by the tool itself
(``benchmarkzoo suites calibrate NAME``) and stored in the suite file.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from benchmarkzoo.core.errors import BenchmarkZooError
from benchmarkzoo.core.yaml_loading import load_safe

SUITES_DIR = Path(__file__).parent / "suites"
SUITE_NAME = r"^[a-z0-9-]+-v\d+$"


class SuiteError(BenchmarkZooError, ValueError):
    """A suite that does not exist or whose file is malformed."""


class References(BaseModel):
    """Mean return of the random policy and of the baseline on a task, measured at ``seed``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    random: float
    baseline: float
    seed: int
    episodes: int


class Score(BaseModel):
    """The scalar score of one episode, which the task's mean, references and suite IQM are taken of.

    * ``return``: the episode return of a single-agent env; the team return (sum over agents) of
      a multi-agent one. Vector-reward (``mo``) tasks must choose one of the two kinds below.
    * ``utility``: ``weights @ return`` of a vector return (a linear utility). With ``weights``
      the mean of a task's weight set (``[0.5, 0.5]`` for 11 evenly spaced weights on the
      2-simplex) it is the episode's expected utility over that set.
    * ``metric``: a named per-episode metric the env reports at the end of an episode (e.g.
      ``cooperative_success``).
    * ``hypervolume_ratio``: the hypervolume of the episode's vector return over that of its own
      scenario's exact Pareto front, both against the task's ``multi_objective.reference_point``
      (:func:`benchmarkzoo.evaluation.mo_metrics.scenario_scores`). Needs ``multi_objective`` and
      an env that computes exact fronts (``pareto_front``). Scoring each episode against its own
      scenario's front keeps an easy sea's return from outweighing a hard sea's.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["return", "utility", "metric", "hypervolume_ratio"] = "return"
    weights: tuple[float, ...] | None = None
    metric: str | None = None

    @model_validator(mode="after")
    def _fields_match_kind(self) -> Score:
        if (self.kind == "utility") != (self.weights is not None):
            raise ValueError("score: kind 'utility' takes 'weights' (one per objective), and only it does")
        if (self.kind == "metric") != (self.metric is not None):
            raise ValueError("score: kind 'metric' takes 'metric' (a metric name), and only it does")
        return self


class MultiObjective(BaseModel):
    """Fixed settings of a vector-reward task's multi-objective aggregates.

    Attributes:
        reference_point: the hypervolume's reference point, one coordinate per objective; it
            should be dominated by every return a policy can reach (the worst return of each objective).
        weight_steps: the expected-utility weight set is the simplex lattice with step
            ``1 / weight_steps`` (``10`` gives 11 evenly spaced weights for 2 objectives).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    reference_point: tuple[float, ...] = Field(min_length=2)
    weight_steps: int = Field(default=10, ge=1, le=100)


class Task(BaseModel):
    """One task: ``episodes`` episodes of ``env`` on the scenarios of ``scenario_set``'s ``split``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_.-]*$")
    env: str
    description: str | None = None  # what the task measures, and why it is set up so (horizon, reward, score)
    scenario_set: str
    split: str
    episodes: int = Field(gt=0, le=100_000)
    env_kwargs: dict[str, Any] = Field(default_factory=dict)
    score: Score = Field(default_factory=Score)
    multi_objective: MultiObjective | None = None
    references: References | None = None

    @model_validator(mode="after")
    def _weights_match_objectives(self) -> Task:
        mo = self.multi_objective
        if self.score.kind == "hypervolume_ratio" and mo is None:
            raise ValueError(
                "score kind 'hypervolume_ratio' is taken against the task's reference point: give the task "
                "`multi_objective: {reference_point: [...]}`"
            )
        if mo is not None and self.score.weights is not None and len(self.score.weights) != len(mo.reference_point):
            raise ValueError(
                f"score.weights has {len(self.score.weights)} entries; the reference point has "
                f"{len(mo.reference_point)} objectives"
            )
        return self


class Suite(BaseModel):
    """A versioned suite; ``name`` ends in ``-v<N>`` and changes whenever a task does."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=SUITE_NAME)
    description: str
    tasks: tuple[Task, ...]

    @field_validator("tasks")
    @classmethod
    def _unique_ids(cls, tasks: tuple[Task, ...]) -> tuple[Task, ...]:
        ids = [t.id for t in tasks]
        duplicates = sorted({i for i in ids if ids.count(i) > 1})
        if duplicates:
            raise ValueError(f"task ids must be unique; repeated: {duplicates}")
        if not tasks:
            raise ValueError("a suite needs at least one task")
        return tasks

    def task(self, task_id: str) -> Task:
        """The task ``task_id``; an unknown id raises :class:`SuiteError` listing the suite's tasks."""
        for task in self.tasks:
            if task.id == task_id:
                return task
        raise SuiteError(f"Suite {self.name} has no task {task_id!r}; tasks: {[t.id for t in self.tasks]}.")


def list_suites() -> list[str]:
    """Names of the shipped suites."""
    return sorted(p.stem for p in SUITES_DIR.glob("*.yaml"))


def suite_path(name: str) -> Path:
    """The shipped file of suite ``name``; only well-formed names are looked up (no paths)."""
    path = SUITES_DIR / f"{name}.yaml"
    if not re.fullmatch(SUITE_NAME, name) or not path.is_file():
        raise SuiteError(f"No suite named {name!r}; available suites: {', '.join(list_suites())}.")
    return path


def suite_file(name_or_path: str | Path) -> Path:
    """The file of a suite given by name (``quickstart-v0``) or by path to a YAML file."""
    path = Path(name_or_path)
    if path.suffix in (".yaml", ".yml") and path.is_file():
        return path
    return suite_path(str(name_or_path))


def load_suite(name_or_path: str | Path) -> Suite:
    """A suite by name (``quickstart-v0``) or by path to a YAML file."""
    path = suite_file(name_or_path)
    try:
        data = load_safe(path.read_text())
    except yaml.YAMLError as error:
        raise SuiteError(f"{path} is not valid YAML: {error}") from error
    try:
        return Suite.model_validate(data)
    except ValidationError as error:
        # Every problem, not just the first: a typo shows as both "extra key" and "missing key".
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in error.errors()[:5])
        raise SuiteError(f"{path}: {problems}.") from error


def save_suite(suite: Suite, path: Path) -> None:
    """Write ``suite`` as YAML, atomically."""
    from benchmarkzoo.core.atomic import atomic_write_text

    data = suite.model_dump(mode="json", exclude_none=True)
    for task in data["tasks"]:
        if not task.get("env_kwargs"):
            task.pop("env_kwargs", None)
        if task.get("score") == {"kind": "return"}:
            task.pop("score")
    atomic_write_text(path, yaml.safe_dump(data, sort_keys=False, width=100))
