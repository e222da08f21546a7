"""Outcome bounds of MAPF-v0, MAPF-Lifelong-v0 and MO-MAPF-v0 (see :mod:`benchmarkzoo.core.bounds`).

``sim.py`` ``step``: ``np.where(arrived, goal_reward, np.where(active, step_reward, 0.0))``; an
agent is active until it arrives (then it leaves the grid and gets 0), and ``state.arrival`` is
the 1-based step of its arrival. So an agent that arrived at step ``c`` returns
``goal_reward + (c - 1) * step_reward`` and one that did not ``L * step_reward``; summed, the team
return is ``A * (goal_reward - step_reward) + step_reward * sum_of_costs`` with ``A`` the agents
that arrived (``episode_metrics``). The episode ends early only when every agent arrived
(``cooperative_success``; its length is then the makespan). Lifelong (``Params.lifelong``): an
agent gets ``goal_reward`` on every goal it reaches and ``step_reward`` on every other step, is
never terminated, so the team return is ``G * (goal_reward - step_reward) + N * L * step_reward``
with ``G = goals_reached`` (``lifelong_metrics``) and ``throughput = G / L``. ``objective_rewards``
(MO-MAPF-v0): ``arrival`` 1 once, ``energy`` -1 per move, ``waiting`` -1 per step on the grid
neither moving nor arriving.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from benchmarkzoo.core.bounds import (
    Objective,
    Outcome,
    OutcomeBounds,
    Range,
    Rule,
    close,
    constructor_kwargs,
    fixed_length,
)

if TYPE_CHECKING:  # the bounds import no env module until they are computed
    from benchmarkzoo.envs.multiagent.mapf.generator import MapfGenerator

_ONE_SHOT = ("success_rate", "cooperative_success", "makespan", "sum_of_costs")


def _num_agents(kw: dict[str, Any]) -> int:
    from benchmarkzoo.registration import make_generator

    return int(cast("MapfGenerator", make_generator(kw["generator"], kw["generator_kwargs"])).num_agents)


def _one_shot_metrics(n: int, limit: int | None) -> dict[str, Range]:
    top = float(limit) if limit is not None else float("inf")
    return {
        "success_rate": Range(0.0, 1.0),
        "cooperative_success": Range(0.0, 1.0),
        "makespan": Range(1.0, top),
        "sum_of_costs": Range(float(n), n * top),
    }


def _one_shot_rule(n: int, team_of: Callable[[int, float], float] | None) -> Rule:
    """MAPF-v0's episode end and metrics.

    ``team_of(arrived, sum_of_costs)`` is the team return the rewards fix (``None`` for MO-MAPF-v0,
    whose vector rewards another rule checks).
    """

    def broken(o: Outcome) -> str | None:
        m = o.metrics
        arrived = m["success_rate"] * n
        if not close(arrived, round(arrived)):
            return f"success_rate {m['success_rate']!r} is not a fraction of the {n} agents"
        arrived = round(arrived)
        everyone = arrived == n
        if bool(m["cooperative_success"]) != everyone or o.success != everyone:
            return (
                f"success {o.success}, cooperative_success {m['cooperative_success']!r} and success_rate "
                f"{m['success_rate']!r} disagree"
            )
        if everyone and o.length != m["makespan"]:
            return f"every agent arrived, so the length {o.length} should be the makespan {m['makespan']!r}"
        if not everyone and (o.length != o.max_length or m["makespan"] != o.length):
            return (
                f"not every agent arrived, so the episode lasted the step limit {o.max_length} and the makespan is "
                f"its length; the file has length {o.length}, makespan {m['makespan']!r}"
            )
        low, high = arrived + (n - arrived) * o.length, arrived * m["makespan"] + (n - arrived) * o.length
        if not low <= m["sum_of_costs"] <= high:
            return f"sum_of_costs {m['sum_of_costs']!r} of {arrived} arrivals lies outside [{low}, {high}]"
        team = None if team_of is None else team_of(arrived, m["sum_of_costs"])
        if team is not None and not close(float(o.team[0]), team):
            return f"the team return {float(o.team[0])!r} should be {team!r} given {arrived} arrivals and sum_of_costs"
        return None

    text = "an episode ends early only when every agent arrived (success = cooperative_success, length = makespan)"
    if team_of is not None:
        text += "; the team return is A * (goal_reward - step_reward) + step_reward * sum_of_costs"
    return Rule(text, broken)


def bounds(kwargs: dict[str, Any], max_steps: int | None) -> OutcomeBounds:
    """MAPF-v0."""
    from benchmarkzoo.envs.multiagent.mapf.env import MapfEnv

    kw = constructor_kwargs(MapfEnv, kwargs)
    step, goal, n = float(kw["step_reward"]), float(kw["goal_reward"]), _num_agents(kw)
    return OutcomeBounds(
        max_length=max_steps,
        agents=n,
        success=True,
        objectives=(
            Objective(
                "return",
                step=Range(min(step, 0.0), max(step, 0.0)),
                once=Range(min(0.0, goal - step), max(0.0, goal - step)),
                # arriving replaces a step's reward: with step_reward <= 0 nobody beats goal_reward
                total=Range(-math.inf, max(goal, 0.0)) if step <= 0 else Range(),
            ),
        ),
        metrics=_one_shot_metrics(n, max_steps),
        integer_metrics=frozenset(("cooperative_success", "makespan", "sum_of_costs")),
        rules=(_one_shot_rule(n, lambda a, soc: a * (goal - step) + step * soc),),
    )


def lifelong_bounds(kwargs: dict[str, Any], max_steps: int | None) -> OutcomeBounds:
    """MAPF-Lifelong-v0."""
    from benchmarkzoo.envs.multiagent.mapf.lifelong import LifelongMapfEnv

    kw = constructor_kwargs(LifelongMapfEnv, kwargs)
    step, goal, n = float(kw["step_reward"]), float(kw["goal_reward"]), _num_agents(kw)
    top = float(n * max_steps) if max_steps is not None else float("inf")

    def broken(o: Outcome) -> str | None:
        goals = o.metrics["goals_reached"]
        team = goals * (goal - step) + n * o.length * step
        if not close(float(o.team[0]), team):
            return f"the team return {float(o.team[0])!r} should be {team!r} given goals_reached {goals!r}"
        if not close(o.metrics["throughput"], goals / o.length):
            return f"throughput {o.metrics['throughput']!r} should be goals_reached / length = {goals / o.length!r}"
        return None

    return OutcomeBounds(
        max_length=max_steps,
        agents=n,
        objectives=(Objective("return", step=Range(min(step, goal), max(step, goal))),),
        metrics={"goals_reached": Range(0.0, top), "throughput": Range(0.0, float(n))},
        integer_metrics=frozenset(("goals_reached",)),
        rules=(
            fixed_length(),
            Rule(
                "the team return is goals_reached * (goal_reward - step_reward) + N * L * "
                "step_reward; throughput is goals_reached / L",
                broken,
            ),
        ),
    )


def mo_bounds(kwargs: dict[str, Any], max_steps: int | None) -> OutcomeBounds:
    """MO-MAPF-v0: arrival, energy, waiting per agent."""
    from benchmarkzoo.envs.multiagent.mapf.mo import MOMapfEnv

    n = _num_agents(constructor_kwargs(MOMapfEnv, kwargs))

    def broken(o: Outcome) -> str | None:
        arrived = round(o.metrics["success_rate"] * n)
        if not close(float(o.team[0]), arrived):
            return f"the arrival objective sums to {float(o.team[0])!r} over the agents; success_rate says {arrived}"
        if (o.returns[:, 1] + o.returns[:, 2] < -o.length - 1e-6).any():
            return f"an agent's energy and waiting sum below -{o.length}: it pays at most one of them per step"
        return None

    return OutcomeBounds(
        max_length=max_steps,
        agents=n,
        success=True,
        objectives=(
            Objective("arrival", step=Range(0.0, 0.0), once=Range(0.0, 1.0)),
            Objective("energy", step=Range(-1.0, 0.0)),
            Objective("waiting", step=Range(-1.0, 0.0)),
        ),
        metrics=_one_shot_metrics(n, max_steps),
        integer_metrics=frozenset(("cooperative_success", "makespan", "sum_of_costs")),
        rules=(
            _one_shot_rule(n, None),
            Rule(
                "the arrival objective sums to the agents that arrived; an agent pays "
                "energy or waiting, not both, on a step",
                broken,
            ),
        ),
    )
