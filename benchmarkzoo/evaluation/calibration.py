"""Normalization references, measured by the tool itself, out of sample: one command reproduces them.

``calibrate`` plays the random policy and the env's baseline on every task of a suite under a
*calibration* protocol seed (:data:`CALIBRATION_SEED`), never the leaderboard's: episode ``k``
of task ``t`` is seeded ``derive_seed(seed, t, k)``, and it plays the scenarios of the task split's
calibration twin (:meth:`~benchmarkzoo.scenario_sets.ScenarioSet.calibration_twin`: the same
generator and kwargs on seeds no leaderboard episode plays). A new seed alone is not enough: a
deterministic baseline replays the same scenario identically under any seed and would score
exactly 1 on the leaderboard. So random and baseline land near, not on, 0 and 1.

Beside the suite file it writes ``<suite>.calibration.json`` (:class:`CalibrationRecord`):
every calibration episode's seeds, scenario hash and score, per policy. From it alone the
discrimination of a task (:func:`discrimination`: bootstrap intervals of both means, and the
baseline's wins paired by scenario) is recomputed without playing anything, which is what the
test suite does; ``check`` plays tasks again and compares with the record bit for bit.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from benchmarkzoo.core.errors import BenchmarkZooError
from benchmarkzoo.evaluation import metrics
from benchmarkzoo.evaluation.io import atomic_write_text
from benchmarkzoo.evaluation.protocol import run_task
from benchmarkzoo.evaluation.results import task_scores
from benchmarkzoo.evaluation.suites import References, Suite, Task, load_suite, save_suite, suite_file
from benchmarkzoo.leaderboard.validate import LEADERBOARD_SEED
from benchmarkzoo.scenario_sets import CALIBRATION_SUFFIX

#: The protocol seed references are measured with: any seed but the leaderboard's.
CALIBRATION_SEED = 1
POLICIES = ("random", "baseline")
#: A task discriminates when the baseline beats random on at least this share of its scenarios.
MIN_PAIRED_WINS = 0.8


class CalibrationError(BenchmarkZooError, ValueError):
    """A calibration that cannot run (seed 0, a failing task) or a record that does not match its suite."""


class PolicyEpisodes(BaseModel):
    """One policy's calibration episodes of a task, in episode index order."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    seeds: tuple[int, ...]
    scenario_seeds: tuple[int, ...]
    scenario_hashes: tuple[str, ...]
    scores: tuple[float, ...]  # the task's score of each episode (return, utility or metric)
    steps: int = Field(ge=0)
    wall_time_s: float = Field(ge=0)


class TaskCalibration(BaseModel):
    """The calibration of one task: the task it was measured on (by hash), its seed, both policies' episodes."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    task_hash: str
    seed: int
    num_envs: int
    random: PolicyEpisodes
    baseline: PolicyEpisodes


class CalibrationRecord(BaseModel):
    """``<suite>.calibration.json``: the episodes every reference of a suite was computed from."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    suite: str
    tasks: dict[str, TaskCalibration]


def task_hash(task: Task) -> str:
    """sha256 of the task's definition without its references: a record is stale when the task changes."""
    data = task.model_dump(mode="json", exclude={"references"}, exclude_none=True)  # new optional fields keep hashes
    return hashlib.sha256(json.dumps(data, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def record_path(suite_path: Path) -> Path:
    """Where the calibration record of the suite file ``suite_path`` lives: beside it."""
    return suite_path.with_name(f"{suite_path.stem}.calibration.json")


def load_record(name_or_path: str | Path) -> CalibrationRecord | None:
    """The calibration record of a suite (by name or file), ``None`` if it has none."""
    path = record_path(suite_file(name_or_path))
    if not path.is_file():
        return None
    try:
        return CalibrationRecord.model_validate_json(path.read_text())
    except ValidationError as error:
        raise CalibrationError(f"{path} is not a calibration record: {error.errors()[0]['msg']}.") from error


def _save_record(record: CalibrationRecord, path: Path) -> None:
    atomic_write_text(path, json.dumps(record.model_dump(mode="json"), indent=1) + "\n")


def _play(task: Task, policy: str, num_envs: int, seed: int) -> PolicyEpisodes:
    started = time.perf_counter()
    twin = task.model_copy(update={"references": None, "split": task.split + CALIBRATION_SUFFIX})
    result = run_task(twin, policy, num_envs=num_envs, seed=seed)
    if result.status != "ok":
        raise CalibrationError(f"Calibrating task {task.id} with {policy} failed: {result.error}")
    episodes = result.episodes
    return PolicyEpisodes(
        seeds=tuple(e.seed for e in episodes),
        scenario_seeds=tuple(e.scenario_seed for e in episodes),
        scenario_hashes=tuple(e.scenario_hash for e in episodes),
        scores=tuple(float(s) for s in task_scores(result)),
        steps=result.steps,
        wall_time_s=time.perf_counter() - started,
    )


def _check_seed(seed: int) -> None:
    if seed == LEADERBOARD_SEED:
        raise CalibrationError(
            f"Calibration seed {seed} is the leaderboard's protocol seed: references measured on the episodes "
            f"submissions play score random and baseline 0 and 1 by construction. Use another seed "
            f"(default {CALIBRATION_SEED})."
        )


def _select(suite: Suite, task_ids: Sequence[str] | None) -> list[Task]:
    if not task_ids:
        return list(suite.tasks)
    return [suite.task(task_id) for task_id in task_ids]


def calibrate(
    name_or_path: str | Path,
    num_envs: int = 16,
    seed: int = CALIBRATION_SEED,
    task_ids: Sequence[str] | None = None,
    on_task: Callable[[Task, TaskCalibration], None] | None = None,
) -> Suite:
    """Play random and the baseline on tasks of a suite; store their mean scores and every episode's.

    The suite file and its record are rewritten (atomically) after each task, so an interrupted
    calibration keeps the tasks it finished.

    Args:
        name_or_path: a shipped suite's name (its file in the package is rewritten) or a suite
            YAML file (rewritten in place).
        num_envs: worlds per vector env (the results are the same for any).
        seed: the calibration protocol seed; the leaderboard's (0) is refused.
        task_ids: only these tasks (the others keep their references and records).
        on_task: called with each task and its calibration as it finishes.
    """
    _check_seed(seed)
    path = suite_file(name_or_path)
    suite = load_suite(path)
    for task in _select(suite, task_ids):
        played = {p: _play(task, p, num_envs, seed) for p in POLICIES}
        calibration = TaskCalibration(task_hash=task_hash(task), seed=seed, num_envs=num_envs, **played)
        references = References(
            random=float(np.mean(played["random"].scores)),
            baseline=float(np.mean(played["baseline"].scores)),
            seed=seed,
            episodes=task.episodes,
        )
        _store(path, task, references, calibration)
        if on_task is not None:
            on_task(task, calibration)
    return load_suite(path)


def _store(path: Path, task: Task, references: References, calibration: TaskCalibration) -> Suite:
    """Write one task's references and record into the files as they are now (other calibrations may share them).

    Calibrations of different tasks of one suite may run side by side (SUMO tasks take hours in
    all); each re-reads both files under an exclusive lock and changes only its task. The lock is
    on the folder: the files themselves are replaced, not rewritten, so a lock on one would not hold.
    """
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        fcntl.flock(folder, fcntl.LOCK_EX)
        suite = load_suite(path)
        if task_hash(suite.task(task.id)) != task_hash(task):
            raise CalibrationError(f"Task {task.id} of {path} changed while it was calibrated; calibrate it again.")
        tasks = tuple(task.model_copy(update={"references": references}) if t.id == task.id else t for t in suite.tasks)
        suite = suite.model_copy(update={"tasks": tasks})
        record = load_record(path) or CalibrationRecord(suite=suite.name, tasks={})
        kept = {**record.tasks, task.id: calibration}
        save_suite(suite, path)
        _save_record(
            CalibrationRecord(suite=suite.name, tasks={t.id: kept[t.id] for t in suite.tasks if t.id in kept}),
            record_path(path),
        )
    finally:
        os.close(folder)  # releases the lock
    return suite


def check(name_or_path: str | Path, task_ids: Sequence[str] | None = None, num_envs: int | None = None) -> list[str]:
    """Play tasks again at their recorded seed; the differences from the record (empty: reproduced bit for bit).

    Args:
        name_or_path: a shipped suite's name or a suite YAML file, with its calibration record beside it.
        task_ids: only these tasks (default: every task of the suite).
        num_envs: worlds per vector env (default: the recorded one; results are the same for any).

    Returns:
        One line per difference, naming the task (and policy); empty when every task reproduced.

    Raises:
        CalibrationError: the suite has no calibration record.
    """
    path = suite_file(name_or_path)
    suite = load_suite(path)
    record = load_record(path)
    if record is None:
        raise CalibrationError(f"{suite.name} has no calibration record {record_path(path).name}; calibrate it first.")
    problems = []
    for task in _select(suite, task_ids):
        recorded = record.tasks.get(task.id)
        if recorded is None:
            problems.append(f"{task.id}: not in the record")
            continue
        if recorded.task_hash != task_hash(task):
            problems.append(f"{task.id}: the task changed since it was calibrated")
            continue
        for policy in POLICIES:
            played = _play(task, policy, num_envs or recorded.num_envs, recorded.seed)
            mine, theirs = (
                played.model_dump(exclude={"wall_time_s"}),
                getattr(recorded, policy).model_dump(exclude={"wall_time_s"}),
            )
            for key in mine:
                if mine[key] != theirs[key]:
                    problems.append(f"{task.id}/{policy}: {key} differ from the record")
    return problems


@dataclass(frozen=True)
class Discrimination:
    """How clearly a task's baseline beats random on its calibration episodes.

    Attributes:
        random_ci, baseline_ci: 95% percentile bootstrap intervals of each policy's mean score
            (:func:`metrics.bootstrap_ci`, its fixed random state).
        paired_wins: the share of scenarios on which the baseline's mean score beats random's
            (strictly; a tie is not a win).
        scenarios: how many scenarios were paired.
    """

    random_ci: tuple[float, float]
    baseline_ci: tuple[float, float]
    paired_wins: float
    scenarios: int

    @property
    def separated(self) -> bool:
        """The baseline's interval lies wholly above random's."""
        return self.baseline_ci[0] > self.random_ci[1]

    @property
    def ok(self) -> bool:
        """The task discriminates: intervals separated, and paired wins at least :data:`MIN_PAIRED_WINS`."""
        return self.separated and self.paired_wins >= MIN_PAIRED_WINS


def _per_scenario(episodes: PolicyEpisodes) -> dict[str, float]:
    by: dict[str, list[float]] = {}
    for scenario, score in zip(episodes.scenario_hashes, episodes.scores):
        by.setdefault(scenario, []).append(score)
    return {k: float(np.mean(v)) for k, v in by.items()}


def discrimination(calibration: TaskCalibration) -> Discrimination:
    """The discrimination of one task, from its recorded calibration episodes alone."""
    random, baseline = _per_scenario(calibration.random), _per_scenario(calibration.baseline)
    if random.keys() != baseline.keys():
        raise CalibrationError("random and baseline were calibrated on different scenarios.")
    wins = sum(baseline[k] > random[k] for k in random)
    return Discrimination(
        random_ci=metrics.bootstrap_ci(calibration.random.scores),
        baseline_ci=metrics.bootstrap_ci(calibration.baseline.scores),
        paired_wins=wins / len(random),
        scenarios=len(random),
    )


__all__ = [
    "CALIBRATION_SEED",
    "CalibrationError",
    "CalibrationRecord",
    "Discrimination",
    "TaskCalibration",
    "calibrate",
    "check",
    "discrimination",
    "load_record",
    "record_path",
    "task_hash",
]
