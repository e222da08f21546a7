"""The checks a parsed submission must pass: two tables of small functions, each returning a refusal or ``None``.

:data:`FILE_CHECKS` see the whole :class:`~benchmarkzoo.evaluation.results.Results`; :data:`TASK_CHECKS`
see one task at a time, as a :class:`TaskCase` that pairs the file's task with the suite's, the
registry's spec and the scenario split. :func:`benchmarkzoo.leaderboard.validate.validate` runs them
in order and refuses on the first message. Another layer of trust (plausibility bounds, replay)
adds itself by appending one function to a table; order matters only in that a check may assume
the ones before it passed (e.g. that the seeds are the protocol's).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeGuard

import benchmarkzoo
from benchmarkzoo import registration
from benchmarkzoo.core.seeding import derive_seed
from benchmarkzoo.evaluation.fronts import pareto_fronts
from benchmarkzoo.evaluation.results import Episode, Results, TaskResult
from benchmarkzoo.evaluation.suites import Suite, Task
from benchmarkzoo.leaderboard.plausibility import plausibility_problem
from benchmarkzoo.leaderboard.text import file_name_problem, shown
from benchmarkzoo.scenario_sets import Split

#: The one protocol seed of the leaderboard: otherwise a submitter could shop for a lucky seed.
LEADERBOARD_SEED = 0
#: The spec fields that decide what an env runs (the rest, such as its description, only describe it).
RUN_FIELDS = ("id", "kind", "entry_point", "vector_entry_point", "max_episode_steps", "kwargs")


@dataclass(frozen=True)
class TaskCase:
    """One task of a submission beside what the suite and the registry say it must be."""

    where: str  # "task maze-test", the prefix of every message about it
    task: Task  # the suite's task
    result: TaskResult  # the file's task
    spec: registration.EnvSpec  # the registry's spec of the suite's env
    split: Split  # the scenario split the suite plays
    protocol_seed: int


def close(a: object, b: object) -> bool:
    """Exact equality for everything but floats, which may differ in the last bits across platforms."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(close(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(close(x, y) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        if not (isinstance(a, int | float) and isinstance(b, int | float)):
            return False
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    return a == b


# --- the whole file ----------------------------------------------------------------------------


def protocol_seed(results: Results) -> str | None:
    """The file was evaluated with the leaderboard's protocol seed."""
    if results.protocol_seed != LEADERBOARD_SEED:
        return (
            f"leaderboard entries are evaluated with the protocol seed {LEADERBOARD_SEED}; the file used "
            f"{results.protocol_seed}. Re-run `benchmarkzoo evaluate` without --seed."
        )
    return None


def policy_name(results: Results) -> str | None:
    """The policy name can be shown and used as a file name."""
    problem = file_name_problem(results.policy.name)
    return f"policy name {shown(results.policy.name)} is refused: {problem}." if problem else None


def submitter_name(results: Results) -> str | None:
    """The submitter, if named, can be shown and used as a file name."""
    if results.submitter is None:
        return None
    problem = file_name_problem(results.submitter)
    return f"submitter {shown(results.submitter)} is refused: {problem}." if problem else None


def package_version(results: Results) -> str | None:
    """The file was made by the benchmarkzoo version this leaderboard runs."""
    if results.provenance.benchmarkzoo_version != benchmarkzoo.__version__:
        return (
            f"the file was made by benchmarkzoo {shown(results.provenance.benchmarkzoo_version)}; this leaderboard "
            f"runs {benchmarkzoo.__version__}. Re-run `benchmarkzoo evaluate` with this version."
        )
    return None


FILE_CHECKS: list[Callable[[Results], str | None]] = [protocol_seed, policy_name, submitter_name, package_version]


def task_ids(results: Results, suite: Suite) -> str | None:
    """Run after the suite is known: the file's tasks are the suite's, in order."""
    ours, theirs = [t.id for t in suite.tasks], [t.id for t in results.tasks]
    if ours != theirs:
        return f"suite {suite.name} has tasks {ours}; the file has {[shown(t, 40) for t in theirs]}."
    return None


# --- one task ----------------------------------------------------------------------------------


def env_id(case: TaskCase) -> str | None:
    """The task ran the suite's env (its id and its recorded spec's)."""
    if case.result.env_id != case.task.env or case.result.env_spec.get("id") != case.task.env:
        return f"{case.where}: the suite runs {case.task.env}; the file ran {shown(case.result.env_id)}."
    return None


def env_spec(case: TaskCase) -> str | None:
    """The recorded spec is the registry's: same run fields, and no field the registry does not have."""
    recorded, registered = case.result.env_spec, case.spec.to_dict()
    unknown = sorted(set(recorded) - set(registered))
    if unknown:
        return f"{case.where}: env_spec has fields the registry's {case.spec.id} does not: {shown(unknown)}."
    for field in RUN_FIELDS:
        if not close(recorded.get(field), registered[field]):
            return (
                f"{case.where}: env_spec {field} is {shown(recorded.get(field))}; {case.spec.id} runs with "
                f"{shown(registered[field])}."
            )
    return None


def env_kind(case: TaskCase) -> str | None:
    """The recorded kind is the registry's."""
    if case.result.kind != case.spec.kind:
        return f"{case.where}: {case.spec.id} is a {case.spec.kind!r} env; the file says {shown(case.result.kind)}."
    return None


def split_played(case: TaskCase) -> str | None:
    """The task played the suite's scenario set and split."""
    if (case.result.scenario_set, case.result.split) != (case.task.scenario_set, case.task.split):
        return f"{case.where}: the suite plays {case.task.scenario_set}:{case.task.split}."
    return None


def complete(case: TaskCase) -> str | None:
    """The task finished (``ok``): suite aggregates skip failed tasks, so a partial run could hide its worst."""
    if case.result.status == "incomplete":
        return (
            f"{case.where} is incomplete ({len(case.result.episodes)} of {case.task.episodes} episodes); finish the "
            "run with `benchmarkzoo evaluate --resume --out FILE`: the leaderboard takes complete runs only."
        )
    if case.result.status != "ok":
        return f"{case.where} failed ({shown(case.result.error)}); the leaderboard takes complete runs only."
    return None


def episode_count(case: TaskCase) -> str | None:
    """The task has the protocol's number of episodes."""
    if len(case.result.episodes) != case.task.episodes:
        return (
            f"{case.where}: the protocol plays {case.task.episodes} episodes; the file has {len(case.result.episodes)}."
        )
    return None


def protocol_episodes(case: TaskCase) -> str | None:
    """Episode k has the protocol's seed and scenario, and the scenario's recorded hash."""
    seeds = list(case.split.seeds)
    for k, episode in enumerate(case.result.episodes):
        expected_seed = derive_seed(case.protocol_seed, case.task.id, k)
        expected_scenario = seeds[k % len(seeds)]
        if (episode.index, episode.seed, episode.scenario_seed) != (k, expected_seed, expected_scenario):
            return (
                f"{case.where}, episode {k}: the protocol (seed {case.protocol_seed}) prescribes "
                f"seed {expected_seed} on scenario {expected_scenario}; the file has index {episode.index}, "
                f"seed {episode.seed}, scenario {episode.scenario_seed}."
            )
        if case.split.hashes.get(episode.scenario_seed) != episode.scenario_hash:
            return f"{case.where}, episode {k}: scenario hash {episode.scenario_hash[:12]} is not the recorded one."
    return None


def references(case: TaskCase) -> str | None:
    """The normalization references are the suite's."""
    expected = None
    if case.task.references is not None:
        expected = {"random": case.task.references.random, "baseline": case.task.references.baseline}
    if case.result.references != expected:
        return f"{case.where}: normalization references differ from the suite's."
    return None


def score_settings(case: TaskCase) -> str | None:
    """The score and multi-objective settings are the suite's."""
    if (case.result.score, case.result.multi_objective) != (case.task.score, case.task.multi_objective):
        return f"{case.where}: the score or multi-objective settings differ from the suite's."
    return None


def _shaped(kind: str, ret: object, team: float | None) -> bool:
    def numbers(values: object) -> TypeGuard[list[float]]:
        return isinstance(values, list) and all(isinstance(v, int | float) for v in values)

    if kind == "parallel":
        return numbers(ret) and team is not None and math.isclose(math.fsum(ret), team, rel_tol=1e-9, abs_tol=1e-9)
    if kind == "mo":
        return numbers(ret) and team is None
    if kind == "single":
        return isinstance(ret, int | float) and team is None
    if kind == "moma":
        return (
            isinstance(ret, list)
            and bool(ret)
            and team is None
            and all(numbers(r) and len(r) == len(ret[0]) for r in ret)
        )
    return True


def return_shape_problem(where: str, kind: str, episodes: list[Episode]) -> str | None:
    """The first episode whose return is not shaped as the env's ``kind``; ``None`` if all are.

    The shapes: a number (``single``), one per objective (``mo``), one per agent summing to the
    team return (``parallel``), or one list per agent with an entry per objective (``moma``).
    """
    for episode in episodes:
        ret, team = episode.episode_return, episode.team_return
        if not _shaped(kind, ret, team):
            return (
                f"{where}, episode {episode.index}: return {shown(ret)} (team return {shown(team)}) is not "
                f"shaped as a {kind!r} env's."
            )
    return None


def return_shapes(case: TaskCase) -> str | None:
    """Every episode's return is shaped as its env's kind (:func:`return_shape_problem`)."""
    return return_shape_problem(case.where, case.spec.kind, case.result.episodes)


def plausible(case: TaskCase) -> str | None:
    """Every episode within the outcome bounds its env declares (:mod:`benchmarkzoo.leaderboard.plausibility`)."""
    return plausibility_problem(case.where, case.task, case.spec, case.result, case.split)


def fronts(case: TaskCase) -> str | None:
    """The recorded Pareto fronts are the env's exact ones, recomputed."""
    exact = pareto_fronts(case.task, case.split, [e.scenario_seed for e in case.result.episodes])
    if not close(case.result.pareto_fronts, exact):
        return f"{case.where}: the recorded Pareto fronts are not the env's exact fronts."
    return None


TASK_CHECKS: list[Callable[[TaskCase], str | None]] = [
    env_id,
    env_spec,
    env_kind,
    split_played,
    complete,
    episode_count,
    protocol_episodes,
    references,
    score_settings,
    return_shapes,
    plausible,
    fronts,
]
