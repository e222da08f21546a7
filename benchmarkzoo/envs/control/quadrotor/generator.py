"""Quadrotor scenarios and their generators: hover after a perturbation, fly to a goal.

A scenario is one vehicle (mass, arm length, inertia, motor constants, drag), its initial
state and its goal. Train and out-of-distribution tiers differ only in the ranges given to the
same generators, e.g. ``mass=(0.02, 0.05), thrust_to_weight=(1.5, 3.0)`` for heavier, weaker
and stronger vehicles than the defaults (which bracket a Crazyflie 2.x).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np
from typing_extensions import override

from benchmarkzoo.core.errors import GeneratorArgumentError, ScenarioError
from benchmarkzoo.core.scenario import Scenario
from benchmarkzoo.generators.base import Generator, redraw

GRAVITY = 9.81  # m/s^2, shared with sim.Params so that thrust_to_weight means what it says

#: Nominal vehicle (a Crazyflie 2.x): inertia scales from it with mass * arm_length^2.
NOMINAL_MASS = 0.028  # kg
NOMINAL_ARM = 0.046  # m, centre to motor axis
NOMINAL_INERTIA = (1.4e-5, 1.4e-5, 2.2e-5)  # kg m^2, body x, y, z

WALL_MARGIN = 0.5  # m: starts and goals keep this far from the walls and the ceiling
MIN_START_HEIGHT = 0.3  # m above the floor, at least
MAX_ARENA = 100.0  # m


@dataclasses.dataclass(frozen=True, eq=False)
class QuadrotorScenario(Scenario):
    """One vehicle, its initial state and its goal. World frame: x, y horizontal, z up; floor at z = 0.

    Attributes:
        mass: kg.
        arm_length: m, from the centre of mass to each motor axis.
        inertia: ``(Ixx, Iyy, Izz)`` kg m^2, principal moments about the body axes.
        max_thrust: N, the thrust of one motor at command +1.
        torque_coef: m, yaw reaction torque of a motor per newton of its thrust.
        drag: 1/s, linear drag: the drag acceleration is ``-drag * velocity``.
        start_pos: ``(x, y, z)`` m.
        start_vel: ``(vx, vy, vz)`` m/s, world frame.
        start_rot: the body-to-world rotation matrix, row-major, 9 numbers.
        start_ang_vel: ``(p, q, r)`` rad/s, body frame.
        goal: ``(x, y, z)`` m.
    """

    kind = "quadrotor"

    mass: float
    arm_length: float
    inertia: tuple[float, float, float]
    max_thrust: float
    torque_coef: float
    drag: float
    start_pos: tuple[float, float, float]
    start_vel: tuple[float, float, float]
    start_rot: tuple[float, ...]
    start_ang_vel: tuple[float, float, float]
    goal: tuple[float, float, float]

    def __post_init__(self) -> None:
        for name in ("mass", "arm_length", "max_thrust"):
            value = _as_float(name, getattr(self, name))
            if value <= 0:
                raise ScenarioError(f"QuadrotorScenario.{name} must be positive; got {value!r}.")
            object.__setattr__(self, name, value)
        for name in ("torque_coef", "drag"):
            value = _as_float(name, getattr(self, name))
            if value < 0:
                raise ScenarioError(f"QuadrotorScenario.{name} must be non-negative; got {value!r}.")
            object.__setattr__(self, name, value)
        for name, size in _VECTOR_FIELDS.items():
            object.__setattr__(self, name, _as_tuple(name, getattr(self, name), size))
        if min(self.inertia) <= 0:
            raise ScenarioError(f"QuadrotorScenario.inertia must be positive; got {self.inertia!r}.")
        r = self.start_rot
        gram_error = max(  # |R^T R - I|, entry by entry, written out: this runs on every autoreset
            abs(r[0] * r[0] + r[3] * r[3] + r[6] * r[6] - 1.0),
            abs(r[1] * r[1] + r[4] * r[4] + r[7] * r[7] - 1.0),
            abs(r[2] * r[2] + r[5] * r[5] + r[8] * r[8] - 1.0),
            abs(r[0] * r[1] + r[3] * r[4] + r[6] * r[7]),
            abs(r[0] * r[2] + r[3] * r[5] + r[6] * r[8]),
            abs(r[1] * r[2] + r[4] * r[5] + r[7] * r[8]),
        )
        det = (
            r[0] * (r[4] * r[8] - r[5] * r[7]) - r[1] * (r[3] * r[8] - r[5] * r[6]) + r[2] * (r[3] * r[7] - r[4] * r[6])
        )
        if gram_error > 1e-9 or det < 0:
            raise ScenarioError(f"QuadrotorScenario.start_rot must be a rotation matrix (row-major); got {r!r}.")

    @property
    def hover_command(self) -> float:
        """The motor command (same on all four) whose thrust balances gravity: ``2 m g / (4 max_thrust) - 1``."""
        return 2.0 * self.mass * GRAVITY / (4.0 * self.max_thrust) - 1.0


def _as_float(name: str, value: Any) -> float:
    ok = isinstance(value, int | float | np.number) and not isinstance(value, bool) and math.isfinite(value)
    if not ok:
        raise ScenarioError(f"QuadrotorScenario.{name} must be a finite number; got {value!r}.")
    return float(value)


def _as_tuple(name: str, value: Any, size: int) -> tuple[float, ...]:
    try:
        value = tuple(map(float, np.ravel(value) if isinstance(value, np.ndarray) else value))
    except (TypeError, ValueError):
        value = ()
    if len(value) != size or not math.isfinite(sum(value)):  # a NaN or an inf anywhere makes the sum non-finite
        raise ScenarioError(f"QuadrotorScenario.{name} must be {size} finite numbers; got {value!r}.")
    return value


_VECTOR_FIELDS = {"inertia": 3, "start_pos": 3, "start_vel": 3, "start_rot": 9, "start_ang_vel": 3, "goal": 3}


def rotation_from_yaw_tilt(yaw: float, tilt: float, tilt_axis: float) -> tuple[float, ...]:
    """Row-major ``Rz(yaw) @ R(tilt about the horizontal axis at angle tilt_axis)``.

    ``tilt`` is the angle between the body z axis and the world vertical. Plain Python floats:
    autoresets draw one of these per world, and numpy's per-call overhead would dominate.
    """
    kx, ky = math.cos(tilt_axis), math.sin(tilt_axis)
    s, c = math.sin(tilt), math.cos(tilt)
    # Rodrigues' formula for the unit axis (kx, ky, 0).
    t = (
        (c + kx * kx * (1 - c), kx * ky * (1 - c), ky * s),
        (kx * ky * (1 - c), c + ky * ky * (1 - c), -kx * s),
        (-ky * s, kx * s, c),
    )
    cy, sy = math.cos(yaw), math.sin(yaw)
    return (
        cy * t[0][0] - sy * t[1][0],
        cy * t[0][1] - sy * t[1][1],
        cy * t[0][2] - sy * t[1][2],
        sy * t[0][0] + cy * t[1][0],
        sy * t[0][1] + cy * t[1][1],
        sy * t[0][2] + cy * t[1][2],
        t[2][0],
        t[2][1],
        t[2][2],
    )


def _in_ball(normals: list[float], uniform: float, radius: float) -> tuple[float, float, float]:
    """A point uniform in the 3-D ball of ``radius``, from three standard normals and one uniform."""
    x, y, z = normals
    length = max(math.sqrt(x * x + y * y + z * z), 1e-12)
    scale = radius * uniform ** (1.0 / 3.0) / length
    return (x * scale, y * scale, z * scale)


def _lerp(bounds: tuple[float, float], u: float) -> float:
    return bounds[0] + (bounds[1] - bounds[0]) * u


class QuadrotorGenerator(Generator):
    """Shared part of the quadrotor generators: the vehicle's parameter ranges and the arena.

    Every range is ``(low, high)``, drawn uniformly; ``low == high`` fixes the value.

    Args:
        mass: kg.
        arm_length: m, centre to motor.
        inertia_scale: per-axis factor on the nominal inertia scaled by ``mass * arm_length^2``
            (``I = I_nominal * mass / 0.028 * (arm_length / 0.046)^2 * scale``).
        thrust_to_weight: all four motors at full command over the weight; above 1.05 so the
            vehicle can hover with margin. Sets ``max_thrust = ratio * mass * g / 4``.
        torque_coef: m, yaw reaction torque per newton of thrust.
        drag: 1/s, linear drag rate.
        arena_half_width: m, the arena is ``|x|, |y| <= arena_half_width``.
        arena_height: m, ``0 <= z <= arena_height``.
        init_pos: m, the start is drawn uniformly in a ball of this radius around the nominal start.
        init_vel: m/s, initial velocity uniform in a ball of this radius.
        init_tilt: rad, the body z axis starts within this angle of the vertical (uniform angle).
        init_ang_vel: rad/s, initial body rates uniform in a ball of this radius.
        init_yaw: rad, the heading is uniform in ``[-init_yaw, init_yaw]``.
    """

    scenario_type = QuadrotorScenario

    def __init__(
        self,
        mass: tuple[float, float] = (0.025, 0.035),
        arm_length: tuple[float, float] = (0.040, 0.052),
        inertia_scale: tuple[float, float] = (0.8, 1.2),
        thrust_to_weight: tuple[float, float] = (1.8, 2.5),
        torque_coef: tuple[float, float] = (0.005, 0.007),
        drag: tuple[float, float] = (0.0, 0.2),
        arena_half_width: float = 3.0,
        arena_height: float = 4.0,
        init_pos: float = 0.5,
        init_vel: float = 0.5,
        init_tilt: float = 0.5,
        init_ang_vel: float = 1.0,
        init_yaw: float = math.pi,
    ):
        self.mass = self._check_range("mass", mass, 1e-3, 100.0)
        self.arm_length = self._check_range("arm_length", arm_length, 1e-3, 10.0)
        self.inertia_scale = self._check_range("inertia_scale", inertia_scale, 0.01, 100.0)
        self.thrust_to_weight = self._check_range("thrust_to_weight", thrust_to_weight, 1.05, 20.0)
        self.torque_coef = self._check_range("torque_coef", torque_coef, 0.0, 1.0)
        self.drag = self._check_range("drag", drag, 0.0, 10.0)
        self.arena_half_width = self._check_float_range("arena_half_width", arena_half_width, 1.0, MAX_ARENA)
        self.arena_height = self._check_float_range("arena_height", arena_height, 1.0, MAX_ARENA)
        self.init_pos = self._check_float_range("init_pos", init_pos, 0.0, self.arena_half_width - WALL_MARGIN)
        self.init_vel = self._check_float_range("init_vel", init_vel, 0.0, 10.0)
        self.init_tilt = self._check_float_range("init_tilt", init_tilt, 0.0, 1.2)
        self.init_ang_vel = self._check_float_range("init_ang_vel", init_ang_vel, 0.0, 20.0)
        self.init_yaw = self._check_float_range("init_yaw", init_yaw, 0.0, math.pi)

    @staticmethod
    def _check_range(name: str, value: Any, low: float, high: float) -> tuple[float, float]:
        """Return ``value`` as a ``(lo, hi)`` float pair with ``low <= lo <= hi <= high``, else raise."""
        ok = isinstance(value, tuple | list) and len(value) == 2
        ok = ok and all(isinstance(v, int | float | np.number) and not isinstance(v, bool) for v in value)
        if ok:
            lo, hi = float(value[0]), float(value[1])
            ok = math.isfinite(lo) and math.isfinite(hi) and low <= lo <= hi <= high
        if not ok:
            raise GeneratorArgumentError(
                f"{name} must be a range (low, high) with {low} <= low <= high <= {high}; got {value!r}."
            )
        return (lo, hi)

    def _check_start_height(self, name: str, height: float) -> float:
        """``height`` (of the nominal start) must leave room for ``init_pos`` below and above."""
        low = MIN_START_HEIGHT + self.init_pos
        high = self.arena_height - WALL_MARGIN - self.init_pos
        if not low <= high:
            raise GeneratorArgumentError(
                f"init_pos={self.init_pos} does not fit in arena_height={self.arena_height}: starts must stay "
                f"{MIN_START_HEIGHT} m above the floor and {WALL_MARGIN} m below the ceiling."
            )
        return self._check_float_range(name, height, low, high)

    def _vehicle(self, rng: np.random.Generator) -> dict[str, Any]:
        """Draw the physical parameters: 8 uniforms for mass, arm, 3 inertia scales, thrust ratio, torque, drag."""
        u = rng.random(8).tolist()
        mass, arm = _lerp(self.mass, u[0]), _lerp(self.arm_length, u[1])
        size = mass / NOMINAL_MASS * (arm / NOMINAL_ARM) ** 2
        inertia = tuple(i * size * _lerp(self.inertia_scale, s) for i, s in zip(NOMINAL_INERTIA, u[2:5]))
        return {
            "mass": mass,
            "arm_length": arm,
            "inertia": inertia,
            "max_thrust": _lerp(self.thrust_to_weight, u[5]) * mass * GRAVITY / 4.0,
            "torque_coef": _lerp(self.torque_coef, u[6]),
            "drag": _lerp(self.drag, u[7]),
        }

    def _start(self, rng: np.random.Generator, centre: tuple[float, float, float]) -> dict[str, Any]:
        """Draw the initial state around ``centre``: 9 normals, then 6 uniforms (3 radii, yaw, tilt, tilt axis)."""
        n = rng.normal(size=9).tolist()
        u = rng.random(6).tolist()
        offset = _in_ball(n[0:3], u[0], self.init_pos)
        return {
            "start_pos": (centre[0] + offset[0], centre[1] + offset[1], centre[2] + offset[2]),
            "start_vel": _in_ball(n[3:6], u[1], self.init_vel),
            "start_rot": rotation_from_yaw_tilt(
                self.init_yaw * (2.0 * u[3] - 1.0), self.init_tilt * u[4], math.pi * (2.0 * u[5] - 1.0)
            ),
            "start_ang_vel": _in_ball(n[6:9], u[2], self.init_ang_vel),
        }


class HoverGenerator(QuadrotorGenerator):
    """Recover and hold a hover: the goal is a fixed point, the start a perturbed state around it.

    Args:
        hover_height: m, the goal is ``(0, 0, hover_height)``.
        **kwargs: the vehicle ranges and perturbations of :class:`QuadrotorGenerator`.
    """

    def __init__(self, hover_height: float = 2.0, **kwargs: Any):
        super().__init__(**kwargs)
        self.hover_height = self._check_start_height("hover_height", hover_height)

    @override
    def __call__(self, rng: np.random.Generator) -> QuadrotorScenario:
        goal = (0.0, 0.0, self.hover_height)
        # Python floats from checked ranges, a rotation by construction: the autoreset path skips re-checking.
        return QuadrotorScenario.unchecked(**self._vehicle(rng), **self._start(rng, goal), goal=goal)


class GoalGenerator(QuadrotorGenerator):
    """Fly to a goal: start near a hover at ``(0, 0, start_height)``, goal at a drawn distance from there.

    Args:
        start_height: m, the nominal start is ``(0, 0, start_height)``.
        goal_distance: m, ``(low, high)``: the goal is uniform in direction and in distance from
            the nominal start, redrawn until it lies ``0.5`` m inside the arena and at least
            ``goal_min_height`` above the floor.
        goal_min_height: m.
        **kwargs: the vehicle ranges and perturbations of :class:`QuadrotorGenerator` (smaller
            perturbations by default than for hovering).
    """

    def __init__(
        self,
        start_height: float = 2.0,
        goal_distance: tuple[float, float] = (0.5, 2.0),
        goal_min_height: float = 0.5,
        init_pos: float = 0.05,
        init_vel: float = 0.1,
        init_tilt: float = 0.1,
        init_ang_vel: float = 0.2,
        **kwargs: Any,
    ):
        super().__init__(init_pos=init_pos, init_vel=init_vel, init_tilt=init_tilt, init_ang_vel=init_ang_vel, **kwargs)
        self.start_height = self._check_start_height("start_height", start_height)
        self.goal_min_height = self._check_float_range(
            "goal_min_height", goal_min_height, MIN_START_HEIGHT, self.arena_height - WALL_MARGIN
        )
        reach = max(self.arena_half_width - WALL_MARGIN, self.arena_height - WALL_MARGIN - self.start_height)
        self.goal_distance = self._check_range("goal_distance", goal_distance, 0.0, reach)

    @override
    def __call__(self, rng: np.random.Generator) -> QuadrotorScenario:
        vehicle = self._vehicle(rng)
        centre = (0.0, 0.0, self.start_height)
        start = self._start(rng, centre)
        half, top = self.arena_half_width - WALL_MARGIN, self.arena_height - WALL_MARGIN

        def attempt() -> tuple[float, float, float] | None:
            x, y, z = rng.normal(size=3).tolist()  # a uniform direction, then a uniform distance
            scale = _lerp(self.goal_distance, float(rng.random())) / max(math.sqrt(x * x + y * y + z * z), 1e-12)
            goal = (centre[0] + x * scale, centre[1] + y * scale, centre[2] + z * scale)
            inside = abs(goal[0]) <= half and abs(goal[1]) <= half and self.goal_min_height <= goal[2] <= top
            return goal if inside else None

        goal = redraw(
            self, attempt, "goal inside the arena", "Lower goal_distance, or raise arena_half_width / arena_height."
        )
        return QuadrotorScenario.unchecked(**vehicle, **start, goal=goal)
