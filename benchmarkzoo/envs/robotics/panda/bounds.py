"""Outcome bounds of the Panda envs (see :mod:`benchmarkzoo.core.bounds`).

``reward.py`` ``reward_from_distance``: ``-(d > threshold)`` (sparse) or ``-d`` (dense) with
``d`` the distance between the achieved and desired goals after the step; ``env.py`` ``step``
terminates on the first step with ``d < threshold`` (``is_success``) and nothing else ends an
episode early. So a failed episode lasted the step limit with ``d >= threshold`` on every step,
and a successful one had ``d >= threshold`` on every step but its last: the sparse return is
``-(L - 1)`` or ``-L`` exactly, the dense one at most ``-(L - 1) * threshold`` or
``-L * threshold``. (A distance of exactly ``threshold`` pays 0 without success; with distances
computed in float64 from float32 goals that tie is not met in practice, and is not allowed for.)
Goals are clipped to ``[-OBS_BOUND, OBS_BOUND]`` per entry, which bounds ``d``. With
``report_progress`` the env reports ``goal_progress``, ``1 - d / d0`` with ``d0`` the starting
distance floored at the threshold: at most 1, at least ``1 - far / threshold``.
"""

from __future__ import annotations

import math
from typing import Any

from benchmarkzoo.core.bounds import Objective, Outcome, OutcomeBounds, Range, Rule, constructor_kwargs


def bounds(kwargs: dict[str, Any], max_steps: int | None) -> OutcomeBounds:
    """The bounds of a Panda task made with ``kwargs`` and a limit of ``max_steps``."""
    from benchmarkzoo.envs.robotics.panda.env import OBS_BOUND, PandaConfig, PandaEnv

    kw = constructor_kwargs(PandaEnv, kwargs)
    config = PandaConfig.from_kwargs(kw).checked("Panda")
    params = config.sim_params(config.make_generator("Panda"), "Panda")
    threshold = params.distance_threshold
    sparse = kw["reward_type"] == "sparse"
    far = 2.0 * OBS_BOUND * math.sqrt(params.goal_size)  # the largest distance between two clipped goals
    step = Range(-1.0, 0.0) if sparse else Range(-far, 0.0)

    def allowed(o: Outcome) -> Range:
        """The return of an episode whose steps before the last all missed the goal."""
        before = o.length - 1
        if sparse:
            return Range(-before, -before) if o.success else Range(-o.length, -o.length)
        missed = Range(-far, -threshold)
        return missed.scaled(before) + (Range(-threshold, 0.0) if o.success else missed)

    def broken(o: Outcome) -> str | None:
        if not o.success and o.max_length is not None and o.length < o.max_length:
            return f"the episode failed but ended after {o.length} of {o.max_length} steps; only success ends one early"
        value = float(o.returns[0, 0])
        if not allowed(o).contains(value):
            return f"return {value!r} with success={o.success} and length {o.length} lies outside {allowed(o)}"
        return None

    reward = "-(d > threshold)" if sparse else "-d"
    return OutcomeBounds(
        max_length=max_steps,
        metrics={"goal_progress": Range(1.0 - far / threshold, 1.0)} if kw["report_progress"] else {},
        objectives=(Objective("return", step=step),),
        success=True,
        rules=(
            Rule(
                f"the episode ends early only on success (d < {threshold:g} m); every step before the last "
                f"missed the goal, so the return ({reward} per step) is at most that of L - 1 misses",
                broken,
            ),
        ),
    )
