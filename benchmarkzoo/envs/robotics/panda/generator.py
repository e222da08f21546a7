"""Panda scenarios and their generators: where the goal is, where the object starts, what it is made of.

Train, test and out-of-distribution tiers are the same generators with other ranges (wider
workspace, heavier or more slippery objects). Positions are in the world frame: the table top
is ``z = 0``, its centre region ``|x|, |y| <= 0.25``; the robot base stands at ``(-0.6, 0, 0)``.
Object sizes are drawn in whole millimetres so an env caches one collision shape per size.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from benchmarkzoo.core.errors import GeneratorArgumentError
from benchmarkzoo.core.scenario import Scenario
from benchmarkzoo.generators.base import Generator

#: Half-width of the reachable, visible workspace above the table centre (m).
WORKSPACE_HALF_WIDTH = 0.3
#: Highest goal the generators place (m above the table).
WORKSPACE_HEIGHT = 0.5
MAX_REDRAWS = 1000


@dataclasses.dataclass(frozen=True, eq=False)
class ReachScenario(Scenario):
    """A goal for the end effector (the point between the fingertips).

    Attributes:
        goal: m, ``(x, y, z)``.
    """

    kind = "panda/reach"
    goal: tuple[float, float, float]


@dataclasses.dataclass(frozen=True, eq=False)
class ObjectScenario(Scenario):
    """A cube on the table and a goal for it.

    Attributes:
        object_xy: m, the cube's centre on the table (it rests at ``z = object_size / 2``).
        object_yaw: rad, its rotation about the vertical.
        object_size: m, edge length (whole millimetres).
        object_mass: kg.
        object_friction: lateral friction coefficient of the cube (PyBullet multiplies it by the
            table's and the fingers', both 1.0 here).
        goal: m, ``(x, y, z)`` of the cube's centre.
    """

    kind = "panda/object"
    object_xy: tuple[float, float]
    object_yaw: float
    object_size: float
    object_mass: float
    object_friction: float
    goal: tuple[float, float, float]


def _check_range(name: str, value: Any, low: float, high: float) -> tuple[float, float]:
    """``value`` as a ``(lo, hi)`` float pair with ``low <= lo <= hi <= high``, else :class:`GeneratorArgumentError`."""
    try:
        lo, hi = (float(v) for v in value)
    except (TypeError, ValueError):
        raise GeneratorArgumentError(f"{name} must be a (low, high) pair of numbers; got {value!r}.") from None
    if not (low <= lo <= hi <= high):
        raise GeneratorArgumentError(
            f"{name} must be a (low, high) pair with {low} <= low <= high <= {high}; got {value!r}."
        )
    return (lo, hi)


def _uniform(rng: np.random.Generator, bounds: tuple[float, float]) -> float:
    return float(bounds[0] + (bounds[1] - bounds[0]) * rng.random())


class PandaGenerator(Generator):
    """Base class of the Panda generators; ``task`` names the env family (``"Reach"``, ``"Push"``, ...)."""

    task = "Panda"


class ReachGenerator(PandaGenerator):
    """Reach: a goal uniform in a box above the table centre (panda-gym's ranges by default).

    Args:
        goal_xy_range: m, ``x`` and ``y`` are uniform in ``[-r/2, r/2]``.
        goal_z_range: m, ``(low, high)`` above the table.
    """

    scenario_type = ReachScenario
    task = "Reach"

    def __init__(self, goal_xy_range: float = 0.3, goal_z_range: tuple[float, float] = (0.0, 0.3)):
        self.goal_xy_range = self._check_float_range("goal_xy_range", goal_xy_range, 0.0, 2 * WORKSPACE_HALF_WIDTH)
        self.goal_z_range = _check_range("goal_z_range", goal_z_range, 0.0, WORKSPACE_HEIGHT)

    def __call__(self, rng: np.random.Generator) -> ReachScenario:
        half = self.goal_xy_range / 2
        x, y = (half * (2.0 * rng.random() - 1.0) for _ in range(2))
        return ReachScenario(goal=(x, y, _uniform(rng, self.goal_z_range)))


class ObjectGenerator(PandaGenerator):
    """Shared draws of the object tasks: a cube's place, yaw, size, mass and friction, and its goal.

    Args:
        object_xy_range: m, the cube's centre is uniform in ``[-r/2, r/2]^2``.
        goal_xy_range: m, the goal's ``x, y`` likewise.
        min_goal_distance: m, goals closer than this to the cube (horizontally) are redrawn,
            so no episode starts solved.
        object_size: m, ``(low, high)`` edge length, drawn in whole millimetres.
        object_mass: kg, ``(low, high)``.
        object_friction: ``(low, high)`` lateral friction coefficient.
        object_yaw: rad, the yaw is uniform in ``[-a, a]``.
    """

    scenario_type = ObjectScenario

    def __init__(
        self,
        object_xy_range: float = 0.3,
        goal_xy_range: float = 0.3,
        min_goal_distance: float = 0.1,
        object_size: tuple[float, float] = (0.035, 0.045),
        object_mass: tuple[float, float] = (0.5, 1.5),
        object_friction: tuple[float, float] = (0.4, 0.6),
        object_yaw: float = 0.0,
    ):
        span = 2 * WORKSPACE_HALF_WIDTH
        self.object_xy_range = self._check_float_range("object_xy_range", object_xy_range, 0.0, span)
        self.goal_xy_range = self._check_float_range("goal_xy_range", goal_xy_range, 0.0, span)
        self.min_goal_distance = self._check_float_range("min_goal_distance", min_goal_distance, 0.0, 0.3)
        self.object_size = _check_range("object_size", object_size, 0.02, 0.06)
        self.object_mass = _check_range("object_mass", object_mass, 0.01, 10.0)
        self.object_friction = _check_range("object_friction", object_friction, 0.01, 2.0)
        self.object_yaw = self._check_float_range("object_yaw", object_yaw, 0.0, float(np.pi))
        if self.min_goal_distance > 0.0 and self.min_goal_distance >= (self.object_xy_range + self.goal_xy_range):
            raise GeneratorArgumentError(
                f"min_goal_distance {min_goal_distance} cannot be met with object_xy_range {object_xy_range} and "
                f"goal_xy_range {goal_xy_range}: lower it or widen the ranges."
            )

    def _goal_z(self, rng: np.random.Generator, size: float) -> float:
        return size / 2

    def __call__(self, rng: np.random.Generator) -> ObjectScenario:
        size = round(_uniform(rng, self.object_size) * 1000.0) / 1000.0
        mass = _uniform(rng, self.object_mass)
        friction = _uniform(rng, self.object_friction)
        yaw = self.object_yaw * (2.0 * rng.random() - 1.0)
        half_obj, half_goal = self.object_xy_range / 2, self.goal_xy_range / 2
        ox, oy = (half_obj * (2.0 * rng.random() - 1.0) for _ in range(2))
        for _ in range(MAX_REDRAWS):
            gx, gy = (half_goal * (2.0 * rng.random() - 1.0) for _ in range(2))
            if (gx - ox) ** 2 + (gy - oy) ** 2 >= self.min_goal_distance**2:
                break
        else:  # unreachable with the check in __init__ unless the ranges are degenerate
            raise GeneratorArgumentError(f"{self!r} found no goal {self.min_goal_distance} m from the object.")
        return ObjectScenario(
            object_xy=(ox, oy), object_yaw=yaw, object_size=size, object_mass=mass, object_friction=friction,
            goal=(gx, gy, self._goal_z(rng, size)),
        )


class PushGenerator(ObjectGenerator):
    """Push: the goal lies on the table (the cube's centre height), at least ``min_goal_distance`` away."""

    task = "Push"


class PickAndPlaceGenerator(ObjectGenerator):
    """Pick and place: like Push, but the goal floats up to ``goal_z_range`` above the resting height.

    Args:
        goal_z_range: m, ``(low, high)`` lift above the resting height.
        goal_on_table: probability that the goal is on the table instead (panda-gym's 0.3).
        **kwargs: the ranges of :class:`ObjectGenerator`.
    """

    task = "PickAndPlace"

    def __init__(
        self,
        object_xy_range: float = 0.3,
        goal_xy_range: float = 0.3,
        min_goal_distance: float = 0.1,
        object_size: tuple[float, float] = (0.035, 0.045),
        object_mass: tuple[float, float] = (0.5, 1.5),
        object_friction: tuple[float, float] = (0.4, 0.6),
        object_yaw: float = 0.0,
        goal_z_range: tuple[float, float] = (0.0, 0.2),
        goal_on_table: float = 0.3,
    ):
        super().__init__(
            object_xy_range, goal_xy_range, min_goal_distance, object_size, object_mass, object_friction, object_yaw
        )
        self.goal_z_range = _check_range("goal_z_range", goal_z_range, 0.0, WORKSPACE_HEIGHT - 0.1)
        self.goal_on_table = self._check_float_range("goal_on_table", goal_on_table, 0.0, 1.0)

    def _goal_z(self, rng: np.random.Generator, size: float) -> float:
        lift = _uniform(rng, self.goal_z_range)
        return size / 2 + (0.0 if rng.random() < self.goal_on_table else lift)
