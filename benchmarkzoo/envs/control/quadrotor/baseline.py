"""Cascaded PID controller: the Quadrotor baseline, a reference for learned policies.

It is privileged: it reads each world's state and drawn vehicle parameters (mass, inertia,
motor constants, drag) from the simulator instead of the observation, so it needs no tuning
per vehicle. The cascade, run every control step for all worlds at once:

1. position error -> velocity setpoint (P, clipped to ``max_speed``);
2. velocity error -> acceleration command (P, the horizontal part clipped to ``max_tilt``'s
   worth of acceleration), plus gravity and drag compensation -> desired thrust vector;
3. thrust vector -> collective thrust (its projection on the current body z axis) and a
   desired attitude (body z along the thrust vector, heading kept);
4. attitude error (the geometric ``e_R`` of Lee et al., 2010) -> body-rate setpoint (P);
5. body-rate error -> angular acceleration (P) -> torques, with gyroscopic and damping terms;
6. motor mixing: the exact inverse of the simulator's mixer, thrusts clipped to
   ``[0, max_thrust]``, then mapped back to commands ``2 f / max_thrust - 1``.

Like the simulator it uses only elementwise operations in a fixed order, so its actions for a
world do not depend on how many worlds are batched with it.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from benchmarkzoo.envs.control.quadrotor.sim import Params, State, cross3, dot3, norm3


@dataclasses.dataclass(eq=False)  # the gains, declared once; compared by identity, as any policy object
class CascadedPIDPolicy:
    """Hover and go-to-goal controller for the Quadrotor envs.

    Works on a :class:`~benchmarkzoo.envs.control.quadrotor.env.QuadrotorEnv` (returns a
    ``(4,)`` float32 action) or a
    :class:`~benchmarkzoo.envs.control.quadrotor.vector_env.QuadrotorVectorEnv` (returns
    ``(num_envs, 4)`` float32).

    Args:
        pos_gain: 1/s, velocity setpoint per metre of position error.
        vel_gain: 1/s, acceleration per m/s of velocity error.
        max_speed: m/s, cap on the velocity setpoint.
        max_tilt: rad, cap on the commanded tilt (through the horizontal acceleration).
        att_gain: 1/s, body-rate setpoint per radian of attitude error.
        rate_gain: 1/s, angular acceleration per rad/s of body-rate error.
    """

    pos_gain: float = 2.0
    vel_gain: float = 5.0
    max_speed: float = 2.0
    max_tilt: float = 0.5
    att_gain: float = 12.0
    rate_gain: float = 50.0

    def act(self, state: State, params: Params) -> np.ndarray:
        """``(B, 4)`` float32 motor commands for every world of ``state``."""
        g = params.gravity
        # 1. Position -> velocity setpoint, its norm clipped to max_speed.
        v_des = self.pos_gain * (state.goal - state.pos)  # (3, B)
        v_des *= np.minimum(1.0, self.max_speed / np.maximum(norm3(v_des), 1e-9))
        # 2. Velocity -> acceleration; horizontal part clipped so the tilt stays below max_tilt.
        acc = self.vel_gain * (v_des - state.vel)  # (3, B)
        horizontal = np.sqrt(acc[0] * acc[0] + acc[1] * acc[1])
        acc[0:2] *= np.minimum(1.0, g * math.tan(self.max_tilt) / np.maximum(horizontal, 1e-9))
        max_up = 4.0 * state.max_thrust / state.mass * 0.8 - g  # keep 20 % of the thrust for attitude
        acc[2] = np.clip(acc[2], -0.5 * g, max_up)
        force = state.mass * (acc + state.drag * state.vel)  # (3, B) thrust vector to apply
        force[2] += state.mass * g
        rot = state.rot
        thrust = dot3(force, rot[:, 2])  # collective thrust along the current body z axis
        # 3. Desired attitude: body z along the force, body x as close to the current heading as possible.
        z_des = force / norm3(force)
        y_des = cross3(z_des, rot[:, 0])
        y_des /= np.maximum(norm3(y_des), 1e-9)
        x_des = cross3(y_des, z_des)
        des = (x_des, y_des, z_des)
        cur = (rot[:, 0], rot[:, 1], rot[:, 2])

        # 4. e_R = vee(R_des^T R - R^T R_des) / 2, with (R_des^T R)_ij = des_i . cur_j.
        def m(i: int, j: int) -> np.ndarray:
            return dot3(des[i], cur[j])

        e_rot = 0.5 * np.stack([m(2, 1) - m(1, 2), m(0, 2) - m(2, 0), m(1, 0) - m(0, 1)])  # (3, B)
        rate_des = -self.att_gain * e_rot
        # 5. Rate loop: tau = I (k (w_des - w) + k_drag w) + w x I w.
        w = state.ang_vel
        iw = state.inertia * w
        torque = state.inertia * (self.rate_gain * (rate_des - w) + params.angular_drag * w) + cross3(w, iw)
        # 6. Mixing: invert sim.mix exactly.
        quarter = 0.25 * thrust
        if params.frame == "x":
            arm = state.arm_length * (1.0 / math.sqrt(2.0))
            x, y = torque[0] / (4.0 * arm), torque[1] / (4.0 * arm)
            z = torque[2] / (4.0 * np.maximum(state.torque_coef, 1e-9))
            f = np.stack([quarter + x - y + z, quarter + x + y - z, quarter - x + y + z, quarter - x - y - z])
        else:
            x, y = torque[0] / (2.0 * state.arm_length), torque[1] / (2.0 * state.arm_length)
            z = torque[2] / (4.0 * np.maximum(state.torque_coef, 1e-9))
            f = np.stack([quarter - y + z, quarter + x - z, quarter + y + z, quarter - x - z])
        f = np.clip(f, 0.0, state.max_thrust)  # (4, B)
        commands = f * (2.0 / state.max_thrust) - 1.0
        return np.clip(commands.T, -1.0, 1.0).astype(np.float32)

    def __call__(self, env) -> np.ndarray:
        """The motor commands for ``env``'s current state: ``(4,)`` float32, ``(num_envs, 4)`` for a vector env."""
        env = getattr(env, "unwrapped", env)
        actions = self.act(env.state, env.params)
        if hasattr(env, "scenarios"):  # the native vector env
            return actions
        return actions[0]


#: Equal weights on progress and energy pick the 0.6 m/s setting (see :class:`WeightedPIDPolicy`).
DEFAULT_WEIGHTS = (0.5, 0.5)


class WeightedPIDPolicy(CascadedPIDPolicy):
    """The ``MO-Quadrotor-v0`` baseline: the cascaded PID at the velocity limit a preference asks for.

    Among the recorded settings of :mod:`~benchmarkzoo.envs.control.quadrotor.front` (velocity
    limits 0.2 to 3 m/s and their mean ``[progress, energy]`` returns on the test split) it
    flies the one with the largest ``weights @ return``, ties going to more progress; so
    its expected return is a point of the reference front. With the recorded table, equal
    weights choose 0.6 m/s, ``(1, 0)`` 1.5 m/s and ``(0, 1)`` 0.2 m/s.

    Args:
        weights: ``(progress weight, energy weight)``, non-negative, not both zero.
    """

    def __init__(self, weights: tuple[float, float] = DEFAULT_WEIGHTS):
        from benchmarkzoo.envs.control.quadrotor import front  # front's recomputation imports this module

        w = np.asarray(weights, dtype=np.float64)
        if w.shape != (2,) or not np.isfinite(w).all() or (w < 0).any() or not w.any():
            raise ValueError(f"weights must be two non-negative numbers, not both zero; got {weights!r}.")
        table = np.array(front.RECORDED_SETTINGS)  # (K, 3): max_speed, progress, energy
        scores = table[:, 1:] @ w
        best = max(range(len(table)), key=lambda k: (scores[k], table[k, 1], table[k, 0]))
        super().__init__(max_speed=float(table[best, 0]))
        self.weights = w
