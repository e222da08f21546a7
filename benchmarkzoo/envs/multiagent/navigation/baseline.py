"""A potential-field planner: the Navigation-v0 baseline.

Each robot wants the velocity ``v_goal + sum of repulsions``, capped at ``max_speed``:

* ``v_goal``: towards the goal at ``min(max_speed, sqrt(max_accel * d))`` (``d``: distance to the
  goal), a speed from which the robot can brake in about ``d``;
* a repulsion from every other robot and obstacle whose edge is within ``influence`` metres:
  ``gain * (1 - gap / influence)`` away from it, plus half as much turned 90 degrees clockwise
  (robots pass each other on the left and circle obstacles the same way, which breaks the
  symmetric stand-offs of a pure potential field).

Holonomic robots accelerate towards that velocity (``a = (v_want - v) / (max_accel * dt)``,
clipped to ``[-1, 1]``); unicycles turn towards it (a turn rate proportional to the sine of the heading
error, full rate when it is behind) and drive at its speed times the error's cosine (not backwards).
The planner reads the simulator
(privileged: every robot and obstacle, not only the ``k`` nearest), as MAPF-v0's baseline does;
every sum over other robots runs in index order, so its actions in a world do not depend on the
number of worlds.

Measured on ``scenarios/multiagent/navigation.yaml`` with the registered defaults (``max_cycles=100``,
every seed of each tier; ``tests/envs/multiagent/test_navigation.py`` asserts a floor on ``test``).
Success rate: robots that arrived / all robots; cooperative: episodes where every robot arrived;
collisions: robot-steps in collision per episode. ``influence`` and ``gain`` were chosen on the
first 100 ``train`` seeds.

| tier | dynamics | success rate | cooperative success | collisions |
|---|---|---:|---:|---:|
| test (4 robots, 4 obstacles, 4x4 m, 100 seeds) | holonomic | 0.998 | 0.99 | 0.78 |
| test | unicycle (safety filter) | 0.993 | 0.98 | 0 |
| ood (8 robots, 8 obstacles, 4x4 m) | holonomic | 0.965 | 0.76 | 7.3 |
| ood | unicycle | 0.912 | 0.53 | 0 |
| ood-large (16 robots, 16 obstacles, 6x6 m) | holonomic | 0.954 | 0.51 | 17.0 |
| ood-large | unicycle | 0.863 | 0.25 | 0 |

On ``MO-Navigation-v0`` (the same scenarios, ``scenarios/multiagent/mo-navigation.yaml``), mean
per-robot episode returns of (progress m, energy, collision):

| tier | holonomic | unicycle |
|---|---|---|
| test | (1.871, -9.11, -0.195) | (1.864, -18.07, 0) |
| ood | (1.902, -17.29, -0.914) | (1.843, -25.88, 0) |
| ood-large | (2.883, -20.69, -1.064) | (2.772, -32.30, 0) |

A zero-action policy scores ``(0, 0, 0)``: the planner buys progress with energy (and, holonomic, collisions).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from benchmarkzoo.envs.multiagent.navigation.sim import Params, State


class PotentialFieldPolicy:
    """Potential fields with obstacle and robot repulsion (module docstring).

    Works on a :class:`~benchmarkzoo.envs.multiagent.navigation.env.NavigationEnv` (returns an action
    dict for ``env.agents``) or a :class:`~benchmarkzoo.envs.multiagent.navigation.vector_env.NavigationVectorEnv`
    (returns ``(B, N, 2)`` float32).

    Args:
        influence: m, edge-to-edge distance under which others repel.
        gain: m/s, repulsion speed at contact.
        turn_gain: 1/s, turn rate per radian of heading error (unicycle).
    """

    def __init__(self, influence: float = 0.25, gain: float = 1.5, turn_gain: float = 4.0):
        self.influence = influence
        self.gain = gain
        self.turn_gain = turn_gain

    def _push(
        self, state: State, cx: np.ndarray, cy: np.ndarray, reach: np.ndarray | float, valid: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(B, N)`` sums of the repulsions from discs at ``(cx, cy)`` ``(B, 1 or N, K)`` (index order)."""
        rx, ry = state.px[:, :, None] - cx, state.py[:, :, None] - cy  # (B, N, K) away from the other
        dist = np.maximum(np.sqrt(rx * rx + ry * ry), 1e-9)
        gap = dist - reach
        strength = self.gain * np.clip(1.0 - gap / self.influence, 0.0, None)
        if valid is not None:
            strength = np.where(valid, strength, 0.0)
        ux, uy = rx / dist, ry / dist
        fx = strength * (ux + 0.5 * uy)  # away, plus half of it turned clockwise: (uy, -ux)
        fy = strength * (uy - 0.5 * ux)
        sx, sy = np.zeros_like(state.px), np.zeros_like(state.px)
        for k in range(fx.shape[2]):
            sx += fx[:, :, k]
            sy += fy[:, :, k]
        return sx, sy

    def act_batch(self, state: State, params: Params) -> np.ndarray:
        """``(B, N, 2)`` float32 actions for every robot of every world (inactive robots get zeros)."""
        gx, gy = state.gx - state.px, state.gy - state.py
        d = np.maximum(np.sqrt(gx * gx + gy * gy), 1e-9)
        speed = np.minimum(params.max_speed, np.sqrt(params.max_accel * d))
        wx, wy = gx / d * speed, gy / d * speed
        n = params.num_agents
        valid = state.active[:, None, :] & ~np.eye(n, dtype=bool)
        px, py = self._push(state, state.px[:, None, :], state.py[:, None, :], 2.0 * params.agent_radius, valid)
        wx, wy = wx + px, wy + py
        if params.num_obstacles:
            ox, oy = self._push(
                state, state.ox[:, None, :], state.oy[:, None, :], params.agent_radius + state.orad[:, None, :], None
            )
            wx, wy = wx + ox, wy + oy
        norm = np.sqrt(wx * wx + wy * wy)
        cap = np.where(norm > params.max_speed, params.max_speed / np.maximum(norm, 1e-12), 1.0)
        wx, wy = wx * cap, wy * cap
        actions = np.empty((*state.px.shape, 2), dtype=np.float32)
        if params.dynamics == "holonomic":
            dv = params.max_accel * params.dt
            actions[..., 0] = np.clip((wx - state.vx) / dv, -1.0, 1.0)
            actions[..., 1] = np.clip((wy - state.vy) / dv, -1.0, 1.0)
        else:
            norm = np.maximum(np.sqrt(wx * wx + wy * wy), 1e-12)
            sin = (state.hx * wy - state.hy * wx) / norm  # of the heading error
            cos = (state.hx * wx + state.hy * wy) / norm
            # turn at a rate proportional to sin(error) when facing the wanted direction, at full rate when not
            behind = np.where(sin < 0.0, -1.0, 1.0)
            error = np.where(cos >= 0.0, sin, behind)
            actions[..., 0] = np.clip(norm * np.maximum(cos, 0.0) / params.max_speed, -1.0, 1.0)
            actions[..., 1] = np.clip(self.turn_gain * error / params.max_turn_rate, -1.0, 1.0)
        actions[~state.active] = 0.0
        return actions

    def __call__(self, env: Any) -> dict[str, np.ndarray] | np.ndarray:
        """The actions for ``env``'s current state: a dict per agent, or ``(num_envs, N, 2)`` for a vector env."""
        env = getattr(env, "unwrapped", env)
        actions = self.act_batch(env.sim_state, env.params)
        if hasattr(env, "scenarios"):  # the native vector env
            return actions
        return {agent: actions[0, int(agent.rsplit("_", 1)[1])] for agent in env.agents}
