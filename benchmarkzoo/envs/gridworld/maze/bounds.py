"""Outcome bounds of Maze-v0 and MazeKeys-v0 (see :mod:`benchmarkzoo.core.bounds`).

The reward code (``maze/sim.py`` ``step``: ``np.where(reached, goal_reward, step_reward)``, and
``maze_keys/sim.py`` likewise) pays ``goal_reward`` on the step that reaches the goal and
``step_reward`` on every other step; the episode terminates on that step and only then
(``env.py``: ``terminated = success``), else it is truncated at the step limit. So success and
length fix the return exactly.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from benchmarkzoo.core.bounds import Objective, Outcome, OutcomeBounds, Range, Rule, close, constructor_kwargs


def goal_bounds(env_class: Callable[..., Any], kwargs: dict[str, Any], max_steps: int | None) -> OutcomeBounds:
    """Bounds of a goal-reaching gridworld: ``goal_reward`` once on arrival, ``step_reward`` on every other step."""
    kw = constructor_kwargs(env_class, kwargs)
    step, goal = float(kw["step_reward"]), float(kw["goal_reward"])

    def expected(o: Outcome) -> float:
        return goal + (o.length - 1) * step if o.success else o.length * step

    def broken(o: Outcome) -> str | None:
        if not o.success and o.max_length is not None and o.length < o.max_length:
            return (
                f"the episode failed but ended after {o.length} of {o.max_length} steps; only reaching the goal "
                "ends one early"
            )
        if not close(float(o.returns[0, 0]), expected(o)):
            formula = "goal_reward + (length - 1) * step_reward" if o.success else "length * step_reward"
            return (
                f"return {float(o.returns[0, 0])!r} with success={o.success} and length {o.length} should be "
                f"{expected(o)!r} ({formula})"
            )
        return None

    return OutcomeBounds(
        max_length=max_steps,
        objectives=(
            Objective("return", step=Range(step, step), once=Range(min(0.0, goal - step), max(0.0, goal - step))),
        ),
        success=True,
        rules=(
            Rule(
                "success iff the episode terminated at the goal; the return is then "
                f"goal_reward + (L - 1) * step_reward ({goal:g} + (L - 1) * {step:g}), "
                "else L * step_reward and L is the step limit",
                broken,
            ),
        ),
    )


def bounds(kwargs: dict[str, Any], max_steps: int | None) -> OutcomeBounds:
    """Maze-v0."""
    from benchmarkzoo.envs.gridworld.maze.env import MazeEnv

    return goal_bounds(MazeEnv, kwargs, max_steps)
