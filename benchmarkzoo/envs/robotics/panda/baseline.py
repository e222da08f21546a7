"""Scripted experts: the Panda baselines, proof that each task is solvable, and a source of demonstrations.

They read only the observation (no privileged simulator state) and are stateless: the action
is a function of the current observation dict, so one expert drives any number of worlds and
its actions for a world never depend on the batch around it. Each computes a target for the
end effector and moves towards it with a proportional step clipped to the action bounds.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from benchmarkzoo.envs.robotics.panda.sim import Params

MAX_STEP = Params().max_ee_step  # m per unit action


def move_towards(ee: np.ndarray, target: np.ndarray, gain: float = 1.0) -> np.ndarray:
    """``(B, 3)`` actions stepping ``ee`` towards ``target`` (both ``(B, 3)``), each axis clipped to [-1, 1]."""
    return np.clip(gain * (target - ee) / MAX_STEP, -1.0, 1.0)


def reach_actions(obs: dict[str, np.ndarray]) -> np.ndarray:
    """Reach: straight to the goal. ``obs`` batched, returns ``(B, 3)``."""
    ee = obs["observation"][:, 0:3].astype(np.float64)
    return move_towards(ee, obs["desired_goal"].astype(np.float64))


def push_actions(
    obs: dict[str, np.ndarray], clearance: float = 0.025, hover: float = 0.05, push_speed: float = 0.02
) -> np.ndarray:
    """Push, gripper closed: line up behind the cube (seen from the goal), descend, push it along the line.

    Args:
        obs: batched observation dict (``observation`` ``(B, 18)``: end effector 0:3, cube 6:9).
        clearance: m between the cube's face and the fingertips when lining up behind it.
        hover: m above the cube's top to travel at, so the fingers pass over it.
        push_speed: m per step while pushing, at most.

    Returns:
        ``(B, 3)`` float64 actions.
    """
    vec = obs["observation"].astype(np.float64)
    ee, cube = vec[:, 0:3], vec[:, 6:9]
    goal = obs["desired_goal"].astype(np.float64)
    half = cube[:, 2:3]  # the cube rests on the table, so its centre height is half its edge
    to_goal = goal[:, :2] - cube[:, :2]
    distance = np.linalg.norm(to_goal, axis=1, keepdims=True)
    direction = to_goal / np.maximum(distance, 1e-9)  # (B, 2)
    behind = cube[:, :2] - direction * (half + clearance)  # (B, 2) where the fingertips line up
    rel = ee[:, :2] - cube[:, :2]
    along = np.sum(rel * direction, axis=1, keepdims=True)  # < 0 behind the cube
    lateral = rel - along * direction  # (B, 2) offset from the line through the cube to the goal
    push_z = np.maximum(0.8 * half, 0.012)  # fingertips just below the cube's centre
    travel_z = 2.0 * half + hover
    low = ee[:, 2:3] < 2.0 * half + 0.01
    pushing = (along < -0.5 * half) & (np.linalg.norm(lateral, axis=1, keepdims=True) < 0.6 * half) & low
    lined_up = np.linalg.norm(ee[:, :2] - behind, axis=1, keepdims=True) < 0.01
    near_cube = np.linalg.norm(rel, axis=1, keepdims=True) < half + 0.03
    # Pushing: slowly (a shoved cube slides on), slower still near the goal, pulling back onto the line.
    speed = np.clip(0.5 * distance, 0.005, push_speed)
    push = np.concatenate([ee[:, :2] + direction * speed - lateral, push_z], axis=1)
    descend = np.concatenate([behind, push_z], axis=1)
    rise = np.concatenate([ee[:, :2], travel_z], axis=1)  # straight up, clear of the cube
    travel = np.concatenate([behind, travel_z], axis=1)
    target = np.where(
        pushing, push, np.where(lined_up, descend, np.where(low & near_cube, rise, travel))
    )
    return move_towards(ee, target)


def pick_and_place_actions(obs: dict[str, np.ndarray], hover: float = 0.06) -> np.ndarray:
    """Pick and place (a first draft, 76 % on the test seeds): open above the cube, descend, close, carry.

    ``observation`` ``(B, 19)``: end effector (0:3), its velocity (3:6), finger opening (6),
    cube position (7:10). Returns ``(B, 4)`` actions.
    """
    vec = obs["observation"].astype(np.float64)
    ee, width, cube = vec[:, 0:3], vec[:, 6:7], vec[:, 7:10]
    goal = obs["desired_goal"].astype(np.float64)
    above = np.linalg.norm(ee[:, :2] - cube[:, :2], axis=1, keepdims=True) < 0.01
    at_cube = above & (np.abs(ee[:, 2:3] - cube[:, 2:3]) < 0.01)
    held = (width < 0.05) & (np.linalg.norm(ee - cube, axis=1, keepdims=True) < 0.02)
    # Approach: over the cube at hover height with the fingers open, then down to its centre.
    approach = np.concatenate([cube[:, :2], np.where(above, cube[:, 2:3], cube[:, 2:3] + hover)], axis=1)
    target = np.where(held, goal, approach)
    grip = np.where(held | at_cube, -1.0, 1.0)  # close once the fingertips surround the cube
    return np.concatenate([move_towards(ee, target), grip], axis=1)


_POLICIES = {"Reach": reach_actions, "Push": push_actions, "PickAndPlace": pick_and_place_actions}


class PandaExpert:
    """Scripted expert for the Panda envs.

    Works on a :class:`~benchmarkzoo.envs.robotics.panda.env.PandaEnv` (``expert(env, obs)``
    returns an ``(action_size,)`` float32 action) or a
    :class:`~benchmarkzoo.envs.robotics.panda.vector_env.PandaVectorEnv` (``(num_envs, action_size)``).
    """

    def __call__(self, env: Any, obs: dict[str, np.ndarray]) -> np.ndarray:
        env = getattr(env, "unwrapped", env)
        policy = _POLICIES[env.generator.task]
        if hasattr(env, "worlds"):  # the native vector env: already batched
            return policy(obs).astype(np.float32)
        batched = {key: value[None] for key, value in obs.items()}
        return policy(batched)[0].astype(np.float32)
