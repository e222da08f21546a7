"""Plausibility: every recorded episode against what its env can produce.

The bounds are the env's own (``EnvSpec.bounds``, declared by each env family next to its
reward code, see :mod:`benchmarkzoo.core.bounds`), computed for the task as the suite defines
it: the spec's kwargs, the scenario split's generator and the task's overrides. Nothing the
submission says about its env is trusted here. An episode is refused when its length is outside
``1..limit``, a return (per agent and objective) or the team's is outside its bound, success is
missing or present against what the env reports, a metric is missing, unknown, out of range or
fractional where it counts things, or a consistency rule of the env is broken.
"""

from __future__ import annotations

import math

import numpy as np

from benchmarkzoo.core.bounds import Outcome, OutcomeBounds
from benchmarkzoo.evaluation.results import Episode, TaskResult
from benchmarkzoo.evaluation.suites import Task
from benchmarkzoo.leaderboard.untrusted_json import SubmissionError
from benchmarkzoo.registration import EnvSpec
from benchmarkzoo.scenario_sets import Split, load_set


def task_bounds(task: Task, spec: EnvSpec, split: Split | None = None) -> OutcomeBounds:
    """The bounds of ``task``'s episodes: the env made as the task makes it (runner.make_task_env's kwargs).

    ``split`` is the task's scenario split when the caller has loaded it already (parsing a set costs more
    than checking its episodes).
    """
    if split is None:
        split = load_set(task.scenario_set).split(task.split)
    return spec.bounds({**split.env_kwargs(), **task.env_kwargs})


def check_plausible(where: str, task: Task, spec: EnvSpec, task_result: TaskResult, split: Split | None = None) -> None:
    """Raise :class:`SubmissionError` with :func:`plausibility_problem`'s reason, if there is one."""
    reason = plausibility_problem(where, task, spec, task_result, split)
    if reason is not None:
        raise SubmissionError(reason)


def plausibility_problem(
    where: str, task: Task, spec: EnvSpec, task_result: TaskResult, split: Split | None = None
) -> str | None:
    """The refusal naming the task, episode, value and bound of the first implausible outcome, or ``None``.

    Args:
        where: the task as refusals name it, e.g. ``"task maze-test"``.
        task: the suite's task (trusted).
        spec: the task's env spec (trusted).
        task_result: the submission's outcomes of the task (untrusted; returns already shaped as the kind's).
        split: the task's scenario split, if loaded already.
    """
    if spec.outcome_bounds is None:  # a third-party env registered without them: nothing to check against
        return (
            f"{where}: {spec.id} declares no outcome_bounds, so its outcomes cannot be checked; register the env "
            "with outcome_bounds='module:function' (see ARCHITECTURE.md, Outcome bounds)."
        )
    bounds = task_bounds(task, spec, split)
    for episode in task_result.episodes:
        reason = episode_problem(spec, bounds, episode)
        if reason is not None:
            return f"{where}, episode {episode.index}: {reason}."
    return None


def _returns(spec: EnvSpec, episode: Episode) -> np.ndarray:
    """``(agents, objectives)`` float64 of any kind's recorded return."""
    ret = episode.episode_return
    if spec.kind == "single":
        return np.array([[ret]], dtype=np.float64)
    if spec.kind == "mo":
        return np.array([ret], dtype=np.float64)
    if spec.kind == "parallel":
        return np.array(ret, dtype=np.float64).reshape(-1, 1)
    return np.array(ret, dtype=np.float64)


def episode_problem(spec: EnvSpec, bounds: OutcomeBounds, episode: Episode) -> str | None:
    """Why ``episode`` cannot be an episode of ``spec`` under ``bounds``, or ``None``."""
    length, limit = episode.length, bounds.max_length
    if length < 1 or (limit is not None and length > limit):
        shown = str(length) if abs(length) < 10**30 else f"{str(length)[:12]}... ({len(str(length))} digits)"
        return f"length {shown} is outside [1, {limit if limit is not None else 'inf'}], {spec.id}'s step limit"
    returns = _returns(spec, episode)
    agents, objectives = returns.shape
    if objectives != len(bounds.objectives):
        return f"the return has {objectives} objectives; {spec.id} has {len(bounds.objectives)}"
    if bounds.agents is not None and agents != bounds.agents:
        return f"the return has {agents} agents; {spec.id} plays this task with {bounds.agents}"
    multiagent = spec.kind in ("parallel", "moma")
    for j, objective in enumerate(bounds.objectives):
        bound = objective.episode(length)
        for i in range(agents):
            value = float(returns[i, j])
            if not bound.contains(value):
                who = f"agent {i}'s " if multiagent else ""
                what = f"{who}{objective.name} return" if objective.name != "return" else f"{who}return"
                return (
                    f"{what} {value!r} is outside {bound}, the bound of {spec.id}'s episode of {length} steps "
                    f"(L * {objective.step} + {objective.once}, within {objective.total})"
                )
    for j, objective in enumerate(bounds.team or ()):
        bound, value = objective.episode(length), float(returns[:, j].sum())
        if not bound.contains(value):
            return (
                f"the team's {objective.name} return {value!r} is outside {bound}, the bound of {spec.id}'s "
                f"episode of {length} steps"
            )
    if bounds.success and episode.success is None:
        return f"success is missing; {spec.id} reports it for every episode"
    if not bounds.success and episode.success is not None:
        return f"success is {episode.success}, but {spec.id} reports no success"
    problem = _metrics_problem(spec, bounds, episode.metrics)
    if problem is not None:
        return problem
    outcome = Outcome(
        returns=returns, length=length, success=episode.success, metrics=episode.metrics, max_length=limit
    )
    for rule in bounds.rules:
        reason = rule.broken(outcome)
        if reason is not None:
            return f"{reason} ({spec.id}'s rule: {rule.description})"
    return None


def _metrics_problem(spec: EnvSpec, bounds: OutcomeBounds, metrics: dict[str, float]) -> str | None:
    unknown = sorted(set(metrics) - set(bounds.metrics))
    if unknown:
        return f"metric {unknown[0]!r} is not one {spec.id} reports (it reports {sorted(bounds.metrics)})"
    missing = sorted(set(bounds.metrics) - set(metrics) - bounds.optional_metrics)
    if missing:
        return f"metric {missing[0]!r} is missing; {spec.id} reports it for every episode"
    for name, value in sorted(metrics.items()):
        bound = bounds.metrics[name]
        if not bound.contains(value):
            return f"metric {name} {value!r} is outside {bound}, {spec.id}'s range of it"
        if name in bounds.integer_metrics and value != math.floor(value):
            return f"metric {name} {value!r} is not a whole number; {spec.id} counts it"
    return None
