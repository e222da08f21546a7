"""Panda scenarios and their generators: where the goal is, where the object starts, what it is made of.

Train, test and out-of-distribution tiers are the same generators with other ranges (wider
workspace, heavier or more slippery objects). Positions are in the world frame: the table top
is ``z = 0``, its centre region ``|x|, |y| <= 0.25``; the robot base stands at ``(-0.6, 0, 0)``.
Object sizes are drawn in whole millimetres so an env caches one collision shape per size.
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

import numpy as np
from typing_extensions import override

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


@dataclasses.dataclass(frozen=True, eq=False)
class StackScenario(ObjectScenario):
    """Two equal cubes on the table: the first goes to ``goal`` on the table, the second on top of it.

    Attributes:
        second_xy: m, the second cube's centre on the table (same size, yaw, mass and friction).
        goal: m, ``(x, y, z)`` of the first cube's centre; the second's goal is ``object_size`` higher.
    """

    kind = "panda/stack"
    second_xy: tuple[float, float]

    @property
    def goals(self) -> tuple[float, ...]:
        """Both goals, ``(x1, y1, z1, x2, y2, z2)``."""
        x, y, z = self.goal
        return (x, y, z, x, y, z + self.object_size)


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
    """Base class of the Panda generators; ``task`` names the env family (``"Reach"``, ``"Push"``, ...).

    ``x_range`` is the interval of ``x`` its goals and objects may occupy (the workspace check of
    ``reset(options={"scenario": ...})``); Slide's reaches further out, over a longer table.
    """

    task = "Panda"
    x_range: tuple[float, float] = (-WORKSPACE_HALF_WIDTH, WORKSPACE_HALF_WIDTH)


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

    @override
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

    scenario_type: ClassVar[type[ObjectScenario]] = ObjectScenario

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

    #: m added to every goal's ``x`` (Slide's goals lie beyond the arm's pushing range).
    goal_x_offset = 0.0

    def _goal_z(self, rng: np.random.Generator, size: float) -> float:
        return size / 2

    @override
    def __call__(self, rng: np.random.Generator) -> ObjectScenario:
        size = round(_uniform(rng, self.object_size) * 1000.0) / 1000.0
        mass = _uniform(rng, self.object_mass)
        friction = _uniform(rng, self.object_friction)
        yaw = self.object_yaw * (2.0 * rng.random() - 1.0)
        half_obj, half_goal = self.object_xy_range / 2, self.goal_xy_range / 2
        ox, oy = (half_obj * (2.0 * rng.random() - 1.0) for _ in range(2))
        for _ in range(MAX_REDRAWS):
            gx, gy = (half_goal * (2.0 * rng.random() - 1.0) for _ in range(2))
            gx += self.goal_x_offset
            if (gx - ox) ** 2 + (gy - oy) ** 2 >= self.min_goal_distance**2:
                break
        else:  # unreachable with the check in __init__ unless the ranges are degenerate
            raise GeneratorArgumentError(f"{self!r} found no goal {self.min_goal_distance} m from the object.")
        return ObjectScenario(
            object_xy=(ox, oy),
            object_yaw=yaw,
            object_size=size,
            object_mass=mass,
            object_friction=friction,
            goal=(gx, gy, self._goal_z(rng, size)),
        )


class PushGenerator(ObjectGenerator):
    """Push: the goal lies on the table (the cube's centre height), at least ``min_goal_distance`` away."""

    task = "Push"


class SlideGenerator(ObjectGenerator):
    """Slide: a slippery cube near the table centre, its goal 0.25-0.55 m ahead (panda-gym's ranges).

    The arm must strike the cube and let it slide: the goal lies beyond where it can push it
    comfortably. The table is longer than the other tasks' (its far edge at ``x = 0.6``).
    panda-gym slides a flat puck; the Panda's fingertips, which reach about 1 cm below the
    end-effector point, press a 2 cm puck (or a cylinder) into PyBullet's table instead of
    striking its side, so the object here is the same cube as Push's, only slippery.
    Defaults: friction 0.035-0.045 (panda-gym's puck has 0.04), the goal ``x`` uniform in
    ``goal_x_offset +- goal_xy_range / 2``.

    Args:
        goal_x_offset: m, the centre of the goals' ``x`` range.
        **kwargs: the ranges of :class:`ObjectGenerator`.
    """

    task = "Slide"
    x_range = (-WORKSPACE_HALF_WIDTH, 0.6)

    def __init__(
        self,
        goal_x_offset: float = 0.4,
        object_friction: tuple[float, float] = (0.035, 0.045),
        **kwargs: Any,
    ):
        self.goal_x_offset = self._check_float_range("goal_x_offset", goal_x_offset, 0.0, 0.45)
        super().__init__(object_friction=object_friction, **kwargs)
        goal_xy_range = self.goal_xy_range
        if goal_x_offset + goal_xy_range / 2 > self.x_range[1] + 1e-9:
            raise GeneratorArgumentError(
                f"goal_x_offset + goal_xy_range / 2 must be at most {self.x_range[1]} m (the table's usable end); "
                f"got {goal_x_offset} + {goal_xy_range} / 2."
            )


class PickAndPlaceGenerator(ObjectGenerator):
    """Pick and place: like Push, but the goal floats up to ``goal_z_range`` above the resting height.

    Args:
        goal_z_range: m, ``(low, high)`` lift above the resting height.
        goal_on_table: probability that the goal is on the table instead (panda-gym's 0.3).
        **kwargs: the ranges of :class:`ObjectGenerator`.
    """

    task = "PickAndPlace"

    def __init__(self, goal_z_range: tuple[float, float] = (0.0, 0.2), goal_on_table: float = 0.3, **kwargs: Any):
        super().__init__(**kwargs)
        self.goal_z_range = _check_range("goal_z_range", goal_z_range, 0.0, WORKSPACE_HEIGHT - 0.1)
        self.goal_on_table = self._check_float_range("goal_on_table", goal_on_table, 0.0, 1.0)

    def _goal_z(self, rng: np.random.Generator, size: float) -> float:
        lift = _uniform(rng, self.goal_z_range)
        return size / 2 + (0.0 if rng.random() < self.goal_on_table else lift)


class StackGenerator(ObjectGenerator):
    """Stack: two cubes, a goal on the table for the first and one on top of it for the second (panda-gym's Stack).

    Every pair of the two cubes and the goal is at least ``separation`` apart horizontally (the
    goal at least ``min_goal_distance`` from the first cube), so no cube starts on the goal or
    on the other cube. Args as for :class:`ObjectGenerator`, plus:

    Args:
        separation: m, the least horizontal distance between any two of cube, cube and goal.
    """

    scenario_type = StackScenario
    task = "Stack"

    def __init__(self, separation: float = 0.08, **kwargs: Any):
        super().__init__(**kwargs)
        self.separation = self._check_float_range("separation", separation, 0.07, 0.15)
        if self.separation >= self.object_xy_range:
            raise GeneratorArgumentError(
                f"separation {separation} needs object_xy_range above it; got object_xy_range {self.object_xy_range}."
            )

    @override
    def __call__(self, rng: np.random.Generator) -> StackScenario:
        first = super().__call__(rng)
        half = self.object_xy_range / 2
        points = (first.object_xy, first.goal[:2])
        for _ in range(MAX_REDRAWS):
            second = (half * (2.0 * rng.random() - 1.0), half * (2.0 * rng.random() - 1.0))
            if all(np.hypot(second[0] - x, second[1] - y) >= self.separation for x, y in points):
                break
        else:
            raise GeneratorArgumentError(f"{self!r} found no place for the second cube {self.separation} m clear.")
        return StackScenario(**{f.name: getattr(first, f.name) for f in dataclasses.fields(first)}, second_xy=second)
