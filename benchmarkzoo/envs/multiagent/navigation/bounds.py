"""Outcome bounds of Navigation-v0 and MO-Navigation-v0 (see :mod:`benchmarkzoo.core.bounds`).

``sim.py`` ``step``: each active robot gets ``progress_reward * (d_before - d_after)``
``- collision_penalty * collided + goal_reward * arrived`` (MO: progress, ``-(a_0^2 + a_1^2) / 2``
in ``[-1, 0]``, ``-collided``); ``state.collisions += collided.sum(axis=0)`` counts the same
collisions. A move is at most ``max_speed * dt`` (velocities are clipped to ``max_speed``), so
progress per step lies in ``[-max_speed * dt, max_speed * dt]`` (walls, the safety filter and
collisions only shorten or cancel moves); over an episode progress telescopes to ``d_0 - d_L``,
within plus or minus the arena's diagonal (robots, starts and goals stay in the square
``[-arena_size, arena_size]^2``: a move that would leave it stops at the wall). A robot arrives
once and then leaves; the episode ends before the limit only when every robot arrived
(``cooperative_success``, the episode's success).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, cast

from benchmarkzoo.core.bounds import Objective, Outcome, OutcomeBounds, Range, Rule, close, constructor_kwargs

if TYPE_CHECKING:  # the bounds import no env module until they are computed
    from benchmarkzoo.envs.multiagent.navigation.generator import UniformGenerator


def _setting(env_class: Any, kwargs: dict[str, Any]) -> tuple[dict[str, Any], int, float]:
    """The merged kwargs, the number of robots and the arena's diagonal (m)."""
    from benchmarkzoo.registration import make_generator

    kw = constructor_kwargs(env_class, kwargs)
    generator = cast("UniformGenerator", make_generator(kw["generator"], kw["generator_kwargs"]))  # the env's kind
    return kw, int(generator.num_agents), 2.0 * math.sqrt(2.0) * float(generator.arena_size)


def _metrics(n: int, limit: int | None) -> dict[str, Range]:
    return {
        "success_rate": Range(0.0, 1.0),
        "cooperative_success": Range(0.0, 1.0),
        "collisions": Range(0.0, n * float(limit) if limit is not None else math.inf),
    }


def _arrivals(n: int, o: Outcome) -> tuple[int | None, str | None]:
    """The robots that arrived, or the reason the success metrics contradict each other."""
    arrived = o.metrics["success_rate"] * n
    if not close(arrived, round(arrived)):
        return None, f"success_rate {o.metrics['success_rate']!r} is not a fraction of the {n} robots"
    everyone = round(arrived) == n
    if bool(o.metrics["cooperative_success"]) != everyone or o.success != everyone:
        return None, (
            f"success {o.success}, cooperative_success {o.metrics['cooperative_success']!r} and "
            f"success_rate {o.metrics['success_rate']!r} disagree"
        )
    if not everyone and o.max_length is not None and o.length < o.max_length:
        return None, f"the episode ended after {o.length} of {o.max_length} steps, but not every robot arrived"
    return round(arrived), None


def bounds(kwargs: dict[str, Any], max_steps: int | None) -> OutcomeBounds:
    """Navigation-v0."""
    from benchmarkzoo.envs.multiagent.navigation.env import NavigationEnv

    kw, n, diagonal = _setting(NavigationEnv, kwargs)
    move, progress = float(kw["max_speed"]) * float(kw["dt"]), float(kw["progress_reward"])
    goal, penalty = float(kw["goal_reward"]), float(kw["collision_penalty"])
    per_step = abs(progress) * move

    def broken(o: Outcome) -> str | None:
        arrived, reason = _arrivals(n, o)
        if reason is not None:
            return reason
        assert arrived is not None  # _arrivals gives a count or a reason
        # The team return is progress_reward * (progress summed) - penalty * collisions + goal * arrivals.
        fixed = goal * arrived - penalty * o.metrics["collisions"]
        span = Range(-n * abs(progress) * min(diagonal, move * o.length), n * abs(progress) * diagonal)
        allowed = Range(fixed + span.low, fixed + span.high)
        if not allowed.contains(float(o.team[0])):
            return (
                f"the team return {float(o.team[0])!r} lies outside {allowed}: {arrived} arrivals and "
                f"{o.metrics['collisions']:g} collisions fix all but the progress term"
            )
        return None

    return OutcomeBounds(
        max_length=max_steps,
        agents=n,
        success=True,
        objectives=(
            Objective(
                "return",
                step=Range(-per_step - abs(penalty), per_step),
                once=Range(min(0.0, goal), max(0.0, goal)),
                total=Range(-math.inf, abs(progress) * diagonal + max(0.0, goal)),
            ),
        ),
        metrics=_metrics(n, max_steps),
        integer_metrics=frozenset(("cooperative_success", "collisions")),
        rules=(
            Rule(
                "success is cooperative_success (every robot arrived), the only early end; the team return is "
                "progress_reward * progress - collision_penalty * collisions + goal_reward * arrivals",
                broken,
            ),
        ),
    )


def mo_bounds(kwargs: dict[str, Any], max_steps: int | None) -> OutcomeBounds:
    """MO-Navigation-v0: progress, energy, collision per robot."""
    from benchmarkzoo.envs.multiagent.navigation.env import MONavigationEnv

    kw, n, diagonal = _setting(MONavigationEnv, kwargs)
    move = float(kw["max_speed"]) * float(kw["dt"])

    def broken(o: Outcome) -> str | None:
        _, reason = _arrivals(n, o)
        if reason is not None:
            return reason
        if not close(-float(o.team[2]), o.metrics["collisions"]):
            return (
                f"the collision objective sums to {float(o.team[2])!r}; the episode counted "
                f"{o.metrics['collisions']:g} collisions"
            )
        return None

    return OutcomeBounds(
        max_length=max_steps,
        agents=n,
        success=True,
        objectives=(
            Objective("progress", step=Range(-move, move), total=Range(-diagonal, diagonal)),
            Objective("energy", step=Range(-1.0, 0.0)),
            Objective("collision", step=Range(-1.0, 0.0)),
        ),
        metrics=_metrics(n, max_steps),
        integer_metrics=frozenset(("cooperative_success", "collisions")),
        rules=(
            Rule(
                "success is cooperative_success (every robot arrived), the only early end; the collision "
                "objective sums to minus the collisions",
                broken,
            ),
        ),
    )
