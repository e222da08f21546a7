"""Outcome bounds of Quadrotor-v0, Quadrotor-Goal-v0 and MO-Quadrotor-v0 (see :mod:`benchmarkzoo.core.bounds`).

``sim.py`` ``step``: ``reward = 1 - cost`` with ``cost`` a weighted sum of four terms each in
``[0, 1]``, so a step pays ``[1 - W, 1]`` (``W`` the weights' sum), minus ``crash_penalty`` on
the step that crashes or leaves the arena, which terminates the episode (nothing else does:
every other episode is truncated at the step limit). ``step_objectives``: progress
``clip(d_before - d_after, -c, c)`` minus the same penalty, and energy ``-mean(u^2)`` in
``[-1, 0]``. ``crashed`` and ``out_of_bounds`` are the last step's flags (``Outcome.info``).
"""

from __future__ import annotations

from typing import Any

from benchmarkzoo.core.bounds import Objective, Outcome, OutcomeBounds, Range, Rule, constructor_kwargs
from benchmarkzoo.envs.control.quadrotor import sim

_FLAGS = {"crashed": Range(0.0, 1.0), "out_of_bounds": Range(0.0, 1.0)}


def _terminated(o: Outcome) -> bool:
    return bool(o.metrics["crashed"] or o.metrics["out_of_bounds"])


def _episode_end(penalty: float, objective: str, first: Objective) -> Rule:
    """The crash penalty is paid exactly when the episode terminated; otherwise it ran to the limit."""

    def broken(o: Outcome) -> str | None:
        value = float(o.returns[0, 0])
        if not _terminated(o):
            if o.max_length is not None and o.length < o.max_length:
                return (
                    f"the episode ended after {o.length} of {o.max_length} steps without crashing or leaving the "
                    "arena; nothing else ends one early"
                )
            allowed = first.step.scaled(o.length)
        else:
            allowed = first.step.scaled(o.length) + Range(-penalty, -penalty)
        if not allowed.contains(value):
            return (
                f"{objective} {value!r} of an episode of {o.length} steps that "
                f"{'crashed' if _terminated(o) else 'did not crash'} lies outside {allowed}"
            )
        return None

    return Rule(
        f"crash_penalty ({penalty:g}) is paid on the last step exactly when the episode crashed or left the "
        "arena; otherwise the episode lasted the step limit",
        broken,
    )


def bounds(kwargs: dict[str, Any], max_steps: int | None) -> OutcomeBounds:
    """Quadrotor-v0 and Quadrotor-Goal-v0: the scalar reward."""
    from benchmarkzoo.envs.control.quadrotor.env import QuadrotorEnv

    kw = constructor_kwargs(QuadrotorEnv, kwargs)
    weights = sum(float(kw[k]) for k in ("pos_weight", "tilt_weight", "spin_weight", "effort_weight"))
    penalty = float(kw["crash_penalty"])
    objective = Objective("return", step=Range(1.0 - weights, 1.0), once=Range(-penalty, 0.0))
    return OutcomeBounds(
        max_length=max_steps,
        objectives=(objective,),
        success=True,
        metrics=_FLAGS,
        integer_metrics=frozenset(_FLAGS),
        rules=(_episode_end(penalty, "return", objective),),
    )


def mo_bounds(kwargs: dict[str, Any], max_steps: int | None) -> OutcomeBounds:
    """MO-Quadrotor-v0: progress and energy."""
    from benchmarkzoo.envs.control.quadrotor.mo_env import MOQuadrotorEnv

    kw = constructor_kwargs(MOQuadrotorEnv, kwargs)
    penalty = float(kw["crash_penalty"])
    c = sim.max_progress_per_step(sim.Params())  # the env never sets dt, so Params' default is the env's
    progress = Objective("progress", step=Range(-c, c), once=Range(-penalty, 0.0))
    return OutcomeBounds(
        max_length=max_steps,
        objectives=(progress, Objective("energy", step=Range(-1.0, 0.0))),
        success=True,
        metrics=_FLAGS,
        integer_metrics=frozenset(_FLAGS),
        rules=(_episode_end(penalty, "progress", progress),),
    )
