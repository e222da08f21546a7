"""The Quadrotor simulator: batched rigid-body dynamics over a frozen Params, shared by every view.

State arrays are laid out component first, ``(3, B)`` and ``(3, 3, B)``, so that every line
below is an elementwise operation on contiguous ``(B,)`` rows. That is also what makes the
batch of one (the single env) and the batch of N (the native vector env) bit-identical:
only ``+ - * /``, ``sqrt``, comparisons and clipping appear, each element is computed by the
same sequence of correctly rounded operations whatever the batch size, and every sum over
components is written out in a fixed order. No ``sum``, ``dot``, ``matmul`` or ``einsum``
(their summation order and BLAS kernels change with the shape), no ``sin``/``cos``/``exp``
(their SIMD and scalar implementations may round differently).

Model:

* Motors: command ``a_i`` in ``[-1, 1]`` gives thrust ``f_i = max_thrust * (a_i + 1) / 2``
  (linear, instantaneous: no motor lag), along the body z axis.
* Frame ``"x"``: motors 0..3 at front-left, back-left, back-right, front-right, at
  ``(+-l, +-l) / sqrt(2)``. Frame ``"plus"``: front ``(l, 0)``, left ``(0, l)``, back, right.
  Body axes: x forward, y left, z up. Motors 0 and 2 spin clockwise seen from above, so their
  reaction yaws the body counter-clockwise (+z); 1 and 3 the other way.
* Forces: collective thrust along body z, gravity ``-g`` on world z, linear drag ``-drag * v``.
* Torques (body): ``tau_x = sum y_i f_i``, ``tau_y = -sum x_i f_i``,
  ``tau_z = torque_coef * ((f_0 + f_2) - (f_1 + f_3))``; Euler's equation
  ``I dw/dt = tau - w x (I w)`` plus angular drag ``-angular_drag * w`` (per unit inertia).
* Integration: ``substeps`` semi-implicit Euler steps per control step (velocities first,
  then positions and attitude with the new velocities); attitude as a rotation matrix,
  ``R += h R [w]x``, re-orthonormalized (Gram-Schmidt) once per control step.
* Floor at ``z = 0``: a substep that ends below it puts the vehicle back on it and stops its
  descent; if it was descending faster than ``crash_speed`` that is a crash.

Rewards are made from one :func:`advance`: :func:`step` makes the scalar reward of
``Quadrotor-v0`` and ``Quadrotor-Goal-v0``, :func:`step_objectives` the vector reward
(progress, energy) of ``MO-Quadrotor-v0``.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from benchmarkzoo.envs.control.quadrotor.generator import GRAVITY, QuadrotorScenario

OBS_SIZE = 18
FRAMES = ("x", "plus")
MAX_SPEED_OBS = 20.0  # m/s: velocity observations are clipped to this
MAX_SPIN_OBS = 50.0  # rad/s: body-rate observations are clipped to this


@dataclasses.dataclass(frozen=True)
class Params:
    """Constants of one env instance (every world of a batch shares them).

    Attributes:
        arena_half_width: m, out of bounds when ``|x|`` or ``|y|`` exceeds it.
        arena_height: m, out of bounds above it.
        frame: ``"x"`` or ``"plus"``, the motor layout.
        dt: s, one control step (the action is held for it).
        substeps: integration steps per control step.
        gravity: m/s^2.
        angular_drag: 1/s, body-rate damping.
        crash_speed: m/s, hitting the floor faster than this is a crash.
        max_tilt: rad, a body z axis further than this from the vertical is a crash.
        success_radius: m, success needs the goal within this distance ...
        success_speed: m/s, ... and a speed below this.
        pos_weight, tilt_weight, spin_weight, effort_weight: reward weights (see :func:`step`).
        pos_scale: m, distance at which the position cost is one half.
        spin_scale: rad/s, body-rate norm at which the spin cost is one half.
        crash_penalty: subtracted from the reward of a step that crashes or leaves the arena.
    """

    arena_half_width: float = 3.0
    arena_height: float = 4.0
    frame: str = "x"
    dt: float = 0.01
    substeps: int = 2
    gravity: float = GRAVITY
    angular_drag: float = 1.0
    crash_speed: float = 1.0
    max_tilt: float = 1.4
    success_radius: float = 0.1
    success_speed: float = 0.2
    pos_weight: float = 0.7
    tilt_weight: float = 0.1
    spin_weight: float = 0.1
    effort_weight: float = 0.1
    pos_scale: float = 0.5
    spin_scale: float = 5.0
    crash_penalty: float = 10.0

    @property
    def h(self) -> float:
        """s, one integration substep."""
        return self.dt / self.substeps

    @property
    def min_up(self) -> float:
        """``cos(max_tilt)``: the smallest allowed world-z component of the body z axis."""
        return math.cos(self.max_tilt)

    @property
    def obs_high(self) -> np.ndarray:
        """``(18,)`` float64, observation bounds (the observation is clipped to ``[-high, high]``)."""
        pos = 2.0 * max(self.arena_half_width, self.arena_height)
        return np.array([pos] * 3 + [MAX_SPEED_OBS] * 3 + [1.0] * 9 + [MAX_SPIN_OBS] * 3)


@dataclasses.dataclass
class State:
    """Mutable state of ``B`` worlds, component first.

    Attributes:
        pos: ``(3, B)`` m, world frame.
        vel: ``(3, B)`` m/s, world frame.
        rot: ``(3, 3, B)`` body-to-world rotation, ``rot[i, j]`` = row i, column j; column 2 is the body z axis.
        ang_vel: ``(3, B)`` rad/s, body frame.
        goal: ``(3, B)`` m.
        mass: ``(B,)`` kg.
        inertia: ``(3, B)`` kg m^2.
        max_thrust: ``(B,)`` N per motor at command +1.
        torque_coef: ``(B,)`` m.
        drag: ``(B,)`` 1/s.
        arm_length: ``(B,)`` m.
    """

    pos: np.ndarray
    vel: np.ndarray
    rot: np.ndarray
    ang_vel: np.ndarray
    goal: np.ndarray
    mass: np.ndarray
    inertia: np.ndarray
    max_thrust: np.ndarray
    torque_coef: np.ndarray
    drag: np.ndarray
    arm_length: np.ndarray

    @property
    def num_worlds(self) -> int:
        """The number of worlds ``B`` in the batch."""
        return self.mass.shape[0]


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What one control step did to every world, before any reward is made of it.

    Attributes:
        distance: ``(B,)`` m, to the goal after the step.
        speed: ``(B,)`` m/s after the step.
        spin: ``(B,)`` rad/s, body-rate norm after the step.
        effort: ``(B,)`` ``mean_i(u_i^2)`` of the thrust fractions ``u_i = (a_i + 1) / 2``, in ``[0, 1]``.
        crashed: ``(B,)`` bool, a floor impact faster than ``crash_speed`` or a tilt beyond ``max_tilt``.
        out_of_bounds: ``(B,)`` bool, beyond the walls or above the ceiling.
    """

    distance: np.ndarray
    speed: np.ndarray
    spin: np.ndarray
    effort: np.ndarray
    crashed: np.ndarray
    out_of_bounds: np.ndarray

    @property
    def terminated(self) -> np.ndarray:
        """``(B,)`` bool: crashed or out of bounds."""
        return self.crashed | self.out_of_bounds

    def info(self, params: Params) -> dict[str, np.ndarray]:
        """The step info: ``is_success``, ``crashed``, ``out_of_bounds``, each ``(B,)`` bool.

        ``is_success``: within ``success_radius`` of the goal and slower than ``success_speed``.
        """
        success = (self.distance < params.success_radius) & (self.speed < params.success_speed)
        return {"is_success": success, "crashed": self.crashed, "out_of_bounds": self.out_of_bounds}


def init_state(num_worlds: int) -> State:
    """A batch of unit vehicles at the origin; every world must be :func:`load`-ed before it is stepped."""
    rot = np.zeros((3, 3, num_worlds))
    rot[0, 0] = rot[1, 1] = rot[2, 2] = 1.0
    return State(
        pos=np.zeros((3, num_worlds)),
        vel=np.zeros((3, num_worlds)),
        rot=rot,
        ang_vel=np.zeros((3, num_worlds)),
        goal=np.zeros((3, num_worlds)),
        mass=np.ones(num_worlds),
        inertia=np.ones((3, num_worlds)),
        max_thrust=np.full(num_worlds, 2.0 * GRAVITY / 4.0),
        torque_coef=np.zeros(num_worlds),
        drag=np.zeros(num_worlds),
        arm_length=np.ones(num_worlds),
    )


def load(state: State, worlds: np.ndarray | list[int], scenarios: list[QuadrotorScenario]) -> None:
    """Write ``scenarios[k]`` into world ``worlds[k]`` (vehicle, initial state, goal), for every ``k``.

    One array write per state field for the whole batch: autoresets load many worlds a step.
    """
    rows = np.array(
        [
            s.start_pos
            + s.start_vel
            + s.start_rot
            + s.start_ang_vel
            + s.goal
            + s.inertia
            + (s.mass, s.max_thrust, s.torque_coef, s.drag, s.arm_length)
            for s in scenarios
        ]
    ).T  # (29, K)
    state.pos[:, worlds] = rows[0:3]
    state.vel[:, worlds] = rows[3:6]
    state.rot[:, :, worlds] = rows[6:15].reshape(3, 3, -1)
    state.ang_vel[:, worlds] = rows[15:18]
    state.goal[:, worlds] = rows[18:21]
    state.inertia[:, worlds] = rows[21:24]
    state.mass[worlds] = rows[24]
    state.max_thrust[worlds] = rows[25]
    state.torque_coef[worlds] = rows[26]
    state.drag[worlds] = rows[27]
    state.arm_length[worlds] = rows[28]


# ---- vector helpers on (3, B) arrays, fixed operation order -------------------------------------


def dot3(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``(B,)``: ``(a0 b0 + a1 b1) + a2 b2`` for ``(3, B)`` arrays (or ``(K, 3, B)`` -> ``(K, B)`` along axis -2)."""
    p = a * b
    return (p[..., 0, :] + p[..., 1, :]) + p[..., 2, :]


def norm3(a: np.ndarray) -> np.ndarray:
    """``(B,)``: the Euclidean norm of each column of ``(3, B)`` ``a``."""
    return np.sqrt(dot3(a, a))


_NEXT = np.array([1, 2, 0])  # component i + 1 (mod 3)
_PREV = np.array([2, 0, 1])  # component i + 2 (mod 3)


def cross3(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``(3, B)``: ``a x b``; component i is ``a[i+1] b[i+2] - a[i+2] b[i+1]``, in three array operations."""
    return a[_NEXT] * b[_PREV] - a[_PREV] * b[_NEXT]


def orthonormalize(rot: np.ndarray) -> None:
    """Gram-Schmidt on the columns of ``(3, 3, B)`` ``rot``, in place (x kept in direction, z = x cross y)."""
    x, y = rot[:, 0], rot[:, 1]
    x /= norm3(x)
    y -= dot3(x, y) * x
    y /= norm3(y)
    rot[:, 2] = cross3(x, y)


def mix(state: State, thrusts: np.ndarray, frame: str) -> tuple[np.ndarray, np.ndarray]:
    """Collective thrust and body torques of motor thrusts ``(4, B)`` N.

    Returns:
        thrust: ``(B,)`` N along body z.
        torque: ``(3, B)`` N m, body frame.
    """
    f0, f1, f2, f3 = thrusts
    thrust = ((f0 + f1) + f2) + f3
    if frame == "x":
        arm = state.arm_length * (1.0 / math.sqrt(2.0))
        roll = arm * ((f0 + f1) - (f2 + f3))
        pitch = arm * ((f1 + f2) - (f0 + f3))
    else:
        roll = state.arm_length * (f1 - f3)
        pitch = state.arm_length * (f2 - f0)
    yaw = state.torque_coef * ((f0 + f2) - (f1 + f3))
    return thrust, np.stack([roll, pitch, yaw])


def advance(state: State, actions: np.ndarray, params: Params) -> Outcome:
    """Advance every world one control step, in place, and measure it; no reward.

    Args:
        state: the ``B`` worlds, advanced in place.
        actions: ``(B, 4)`` motor commands in ``[-1, 1]``, already validated.
        params: the simulator's parameters.
    """
    h, g = params.h, params.gravity
    pos, vel, rot, ang_vel = state.pos, state.vel, state.rot, state.ang_vel
    command = actions.T.astype(np.float64)  # (4, B)
    command += 1.0
    command *= 0.5  # thrust fractions u_i in [0, 1]
    thrust, torque = mix(state, command * state.max_thrust, params.frame)
    thrust_acc = thrust / state.mass  # (B,) m/s^2 along body z
    torque_acc = torque / state.inertia  # (3, B) rad/s^2 before gyroscopic and drag terms
    gyro_scale = 1.0 / state.inertia
    linear_drag = state.drag
    floor_hit = np.zeros(state.num_worlds, dtype=bool)
    for _ in range(params.substeps):
        # Euler's equation: dw = (tau - w x I w) / I - k w.
        gyro = cross3(ang_vel, state.inertia * ang_vel) * gyro_scale
        ang_vel += h * ((torque_acc - gyro) - params.angular_drag * ang_vel)
        acc = thrust_acc * rot[:, 2] - linear_drag * vel  # (3, B)
        acc[2] -= g
        vel += h * acc
        pos += h * vel
        # R <- R (I + h [w]x): column j gains R (h w x e_j) = hw[j+2] R[:, j+1] - hw[j+1] R[:, j+2].
        hw = h * ang_vel
        rot += rot[:, _NEXT] * hw[_PREV] - rot[:, _PREV] * hw[_NEXT]
        below = pos[2] < 0.0
        if below.any():
            floor_hit |= below & (vel[2] < -params.crash_speed)
            pos[2, below] = 0.0
            vel[2, below] = np.maximum(vel[2, below], 0.0)
    orthonormalize(rot)

    tilted = rot[2, 2] < params.min_up
    crashed = floor_hit | tilted
    out_of_bounds = (
        (np.abs(pos[0]) > params.arena_half_width)
        | (np.abs(pos[1]) > params.arena_half_width)
        | (pos[2] > params.arena_height)
    )
    distance, speed, spin = norm3(np.stack([pos - state.goal, vel, ang_vel]))  # (B,) each
    u2 = command * command  # (4, B)
    effort = (((u2[0] + u2[1]) + u2[2]) + u2[3]) * 0.25
    return Outcome(distance, speed, spin, effort, crashed, out_of_bounds)


def step(state: State, actions: np.ndarray, params: Params) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """Advance every world one control step, in place: the scalar reward of the Quadrotor envs.

    Args:
        state: the ``B`` worlds, advanced in place.
        actions: ``(B, 4)`` motor commands in ``[-1, 1]``, already validated.
        params: the simulator's parameters.

    Returns:
        rewards: ``(B,)`` float64,
            ``1 - (pos_weight * d / (d + pos_scale) + tilt_weight * (1 - R22) / 2
            + spin_weight * s / (s + spin_scale) + effort_weight * mean_i(u_i^2))``
            with ``d`` the distance to the goal, ``R22`` the world-z component of the body z
            axis, ``s`` the body-rate norm and ``u_i = (a_i + 1) / 2``, all after the step;
            minus ``crash_penalty`` when the step crashes or leaves the arena. In ``[0, 1]``
            otherwise when the weights sum to at most 1 (they do by default).
        terminated: ``(B,)`` bool, crashed (floor impact, tilt) or out of bounds.
        info: ``is_success`` ``(B,)`` bool (within ``success_radius`` of the goal and slower
            than ``success_speed``), ``crashed`` and ``out_of_bounds`` ``(B,)`` bool.
    """
    out = advance(state, actions, params)
    terminated = out.terminated
    distance, spin = out.distance, out.spin
    cost = params.pos_weight * (distance / (distance + params.pos_scale)) + params.tilt_weight * (
        (1.0 - state.rot[2, 2]) * 0.5
    )
    cost = (cost + params.spin_weight * (spin / (spin + params.spin_scale))) + params.effort_weight * out.effort
    rewards = 1.0 - cost
    rewards -= params.crash_penalty * terminated
    return rewards, terminated, out.info(params)


def step_objectives(
    state: State, actions: np.ndarray, params: Params
) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """Advance every world one control step, in place: the vector reward of ``MO-Quadrotor-v0``.

    Args:
        state: the ``B`` worlds, advanced in place.
        actions: ``(B, 4)`` motor commands in ``[-1, 1]``, already validated.
        params: the simulator's parameters.

    Returns:
        rewards: ``(B, 2)`` float32, computed in float64 and rounded once:

            * ``[:, 0]`` progress, m: ``clip(d_before - d_after, -c, c)``,
              the distance to the goal closed by this step, clipped at
              ``c = max_progress_per_step(params)`` (20 m/s, the velocity observation bound,
              which the default vehicles never reach inside the arena),
              minus ``crash_penalty`` when the step crashes or leaves the arena.
            * ``[:, 1]`` energy: ``-mean_i(u_i^2)`` with ``u_i = (a_i + 1) / 2`` the thrust
              fraction of motor ``i``, in ``[-1, 0]`` (the scalar reward's effort term).
        terminated, info: as in :func:`step`.
    """
    before = norm3(state.pos - state.goal)  # (B,) m
    out = advance(state, actions, params)
    terminated = out.terminated
    max_progress = max_progress_per_step(params)
    progress = np.clip(before - out.distance, -max_progress, max_progress)
    progress -= params.crash_penalty * terminated
    rewards = np.empty((state.num_worlds, 2), dtype=np.float32)
    rewards[:, 0] = progress
    rewards[:, 1] = -out.effort
    return rewards, terminated, out.info(params)


def max_progress_per_step(params: Params) -> float:
    """m: the bound on one step's progress, ``MAX_SPEED_OBS * dt`` (0.2 m with the defaults)."""
    return MAX_SPEED_OBS * params.dt


def reset_info(state: State, params: Params) -> dict[str, np.ndarray]:
    """The info of freshly loaded worlds: the same keys as :func:`step`'s.

    A vector env whose worlds all reset at once must lay out its infos as ``SyncVectorEnv`` does.

    Returns:
        ``is_success`` ``(B,)`` bool, as in :func:`step`; ``crashed`` and ``out_of_bounds`` all ``False``.
    """
    success = (norm3(state.pos - state.goal) < params.success_radius) & (norm3(state.vel) < params.success_speed)
    never = np.zeros(state.num_worlds, dtype=bool)
    return {"is_success": success, "crashed": never, "out_of_bounds": never.copy()}


def observe(state: State, params: Params) -> np.ndarray:
    """Observations of every world (a fresh array, safe to keep).

    Returns:
        ``(B, 18)`` float32: position minus goal (3, m), velocity (3, m/s, world), the rotation
        matrix row-major (9), body rates (3, rad/s); clipped to :attr:`Params.obs_high`.
    """
    high = params.obs_high
    rows = np.empty((OBS_SIZE, state.num_worlds))
    np.subtract(state.pos, state.goal, out=rows[0:3])
    rows[3:6] = state.vel
    rows[6:15] = state.rot.reshape(9, -1)
    rows[15:18] = state.ang_vel
    np.clip(rows, -high[:, None], high[:, None], out=rows)
    out = np.empty((state.num_worlds, OBS_SIZE), dtype=np.float32)
    out[...] = rows.T
    return out
