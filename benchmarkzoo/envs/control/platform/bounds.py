"""Outcome bounds of Platform-v0 (see :mod:`benchmarkzoo.core.bounds`).

The reward code (``platform/sim.py`` ``step``): a landed move pays its progress
``(min(x', goal) - x) / goal`` (non-negative, and summing to at most 1 over an episode: it
telescopes to ``min(x, goal) / goal``), plus ``goal_reward`` once on landing on the goal
platform, which terminates the episode with success; a fall pays 0 and terminates it. So a
success returns exactly ``1 + goal_reward``, any other episode less than 1.
"""

from __future__ import annotations

from typing import Any

from benchmarkzoo.core.bounds import Objective, Outcome, OutcomeBounds, Range, Rule, close, constructor_kwargs


def bounds(kwargs: dict[str, Any], max_steps: int | None) -> OutcomeBounds:
    """Platform-v0."""
    from benchmarkzoo.envs.control.platform.env import PlatformEnv

    goal = float(constructor_kwargs(PlatformEnv, kwargs)["goal_reward"])

    def broken(o: Outcome) -> str | None:
        value = float(o.returns[0, 0])
        if o.success and not close(value, 1.0 + goal):
            return f"a successful episode returned {value!r}; it should be 1 + goal_reward = {1.0 + goal!r}"
        if not o.success and value > 1.0 + 1e-9:
            return f"a failed episode returned {value!r}; its progress sums to at most 1"
        return None

    return OutcomeBounds(
        max_length=max_steps,
        objectives=(Objective("return", step=Range(0.0, 1.0), once=Range(0.0, goal), total=Range(0.0, 1.0 + goal)),),
        success=True,
        rules=(
            Rule(
                f"a success returns 1 + goal_reward ({1.0 + goal:g}): the progress to the goal platform, then the "
                "bonus; any other episode returns its progress, at most 1",
                broken,
            ),
        ),
    )
