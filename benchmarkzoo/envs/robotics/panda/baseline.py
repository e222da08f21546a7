"""Scripted experts: the Panda baselines, proof that each task is solvable, and a source of demonstrations.

They read only the observation (no privileged simulator state) and are stateless: the action
is a function of the current observation dict, so one expert drives any number of worlds and
its actions for a world never depend on the batch around it. Each computes a target for the
end effector and moves towards it with a proportional step clipped to the action bounds. In
joint control (:func:`joint_actions`) that step becomes joint moves by inverse kinematics from
the arm's joint positions, the one reading beyond the observation (which has none).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from benchmarkzoo.envs.robotics.panda.kinematics import ArmModel
from benchmarkzoo.envs.robotics.panda.sim import Params

MAX_STEP = Params().max_ee_step  # m per unit action
MAX_JOINT_STEP = Params().max_joint_step  # rad per unit joint action
MAX_FINGER_STEP = Params().max_finger_step  # m of finger opening per unit action
FINGER_REACH = (0.015, 0.03)  # m from the end effector to the closed fingers' outer faces along x and y


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
    target = np.where(pushing, push, np.where(lined_up, descend, np.where(low & near_cube, rise, travel)))
    return move_towards(ee, target)


def face_normal(yaw: np.ndarray, to_goal: np.ndarray) -> np.ndarray:
    """``(B, 2)`` unit outward normal of the side face a strike should push, for cubes of ``yaw`` ``(B,)`` rad.

    A slippery cube leaves along the normal of the face it is struck on (the fingertips cannot
    drag it sideways), so the best single strike is on the face whose normal points most
    nearly at the goal (``to_goal``, ``(B, 2)``): of the four normals ``yaw + k pi / 2``, the one
    with the largest component along it.
    """
    angles = yaw[:, None] + np.arange(4)[None, :] * (np.pi / 2)  # (B, 4)
    normals = np.stack([np.cos(angles), np.sin(angles)], axis=-1)  # (B, 4, 2)
    best = np.argmax(np.einsum("bkj,bj->bk", normals, to_goal), axis=1)
    return normals[np.arange(len(yaw)), best]


def slide_actions(
    obs: dict[str, np.ndarray],
    friction: float = 0.04,
    clearance: float = 0.01,
    hover: float = 0.05,
    accel: float = 0.3,
) -> np.ndarray:
    """Slide, gripper closed: line up behind the cube's face that points most nearly at the goal, strike it square.

    A slippery cube struck by the fingertips leaves along the normal of the face they hit (they
    cannot drag it sideways), and in end-effector control the hand cannot turn to square up to
    a goal off the cube's axes; so the expert strikes the face of :func:`face_normal` squarely
    (a diagonal strike hits off centre and sets the cube spinning) and aims to throw the cube
    as far as the goal lies along that normal, ``d``. A cube sliding at ``v`` stops after
    ``v^2 / (2 mu g)``; in contact with the cube the hand speeds up by ``accel`` m/s a step
    until the cube moves at ``sqrt(2 mu g d)``, then stops and lets it slide. ``mu`` is not
    observed: the expert assumes ``friction``, the middle of the default range. The speed is
    coarse: the cube, bounced off the accelerating fingertips, gains about 0.3 m/s a step and
    leaves at 0.6-0.9 m/s whatever ``d`` is: it stops long of near goals and short of the
    farthest, and a slippery one may leave the table's far end; there is no time for a second
    strike. Within 5 cm on 20 / 100 test seeds (mostly the goal's sideways offset, which one
    strike cannot reach); on 98 the cube ends nearer the goal than it began (``goal_progress``
    above 0.01, mean 0.69).

    Args:
        obs: batched observation dict (``observation`` ``(B, 18)``: end effector 0:3, its
            velocity 3:6, cube 6:9, its velocity 12:15).
        friction: assumed friction coefficient between cube and table.
        clearance: as for :func:`push_actions`.
        hover: as for :func:`push_actions`.
        accel: m/s of speed the hand gains per step while throwing.

    Returns:
        ``(B, 3)`` float64 actions.
    """
    vec = obs["observation"].astype(np.float64)
    ee, ee_velocity, cube, velocity = vec[:, 0:3], vec[:, 3:6], vec[:, 6:9], vec[:, 12:15]
    goal = obs["desired_goal"].astype(np.float64)
    half = cube[:, 2:3]  # a resting cube's centre height is half its edge
    to_goal = goal[:, :2] - cube[:, :2]
    direction = face_normal(vec[:, 11], to_goal)
    distance = np.maximum(np.sum(to_goal * direction, axis=1, keepdims=True), 0.0)  # the goal's reach along it
    speed = np.sum(velocity[:, :2] * direction, axis=1, keepdims=True)  # m/s along the strike
    hand_speed = np.sum(ee_velocity[:, :2] * direction, axis=1, keepdims=True)
    moving = np.linalg.norm(velocity[:, :2], axis=1, keepdims=True) > 0.02
    release = np.sqrt(2.0 * friction * 9.81 * distance)  # m/s that carries the cube to the goal
    # The closed fingers reach 1.5 cm from the end effector along x, 3 cm along y (the two side by side).
    reach = FINGER_REACH[0] * np.abs(direction[:, :1]) + FINGER_REACH[1] * np.abs(direction[:, 1:])
    behind = cube[:, :2] - direction * (half + reach + clearance)
    rel = ee[:, :2] - cube[:, :2]
    along = np.sum(rel * direction, axis=1, keepdims=True)  # < 0 behind the cube
    lateral = rel - along * direction
    push_z = np.maximum(0.8 * half, 0.012)
    travel_z = 2.0 * half + hover
    low = ee[:, 2:3] < 2.0 * half + 0.01
    in_line = (along < -0.5 * half) & (np.linalg.norm(lateral, axis=1, keepdims=True) < 0.3 * half) & low
    touching = in_line & (along > -(half + reach + 0.003))  # the fingertips at the cube's face
    lined_up = np.linalg.norm(ee[:, :2] - behind, axis=1, keepdims=True) < 0.01
    near_cube = np.linalg.norm(rel, axis=1, keepdims=True) < half + 0.03
    dt = Params().control_dt
    # The arm lags its targets: aim 1.2 steps of travel ahead for the speed wanted this step.
    throw_speed = np.minimum(np.maximum(hand_speed, speed) + accel, release)
    throw = np.concatenate([ee[:, :2] + direction * throw_speed * dt * 1.2 - lateral, push_z], axis=1)
    creep = np.concatenate([ee[:, :2] + direction * 0.004 - lateral, push_z], axis=1)  # to the face, gently
    hold = np.concatenate([ee[:, :2] - direction * 0.005, push_z], axis=1)  # stop the hand, let the cube go
    descend = np.concatenate([behind, push_z], axis=1)
    rise = np.concatenate([ee[:, :2], travel_z], axis=1)
    travel = np.concatenate([behind, travel_z], axis=1)
    target = np.where(
        touching & (speed < release),
        throw,
        np.where(
            moving, hold, np.where(in_line, creep, np.where(lined_up, descend, np.where(low & near_cube, rise, travel)))
        ),
    )
    return move_towards(ee, target)


def pick_and_place_actions(
    obs: dict[str, np.ndarray],
    hover: float = 0.05,
    carry_speed: float = 0.5,
    carry_clearance: float = 0.02,
    squeeze: float = 0.01,
) -> np.ndarray:
    """Pick and place: open over the cube, descend, close until the fingers squeeze it, lift, carry, place.

    The phase is read off the observation alone (the policy is stateless):

    * held: the cube is between the fingertips (within 2.5 cm of the end effector) and either
      off the table or touched by both fingers (finger opening at most 2 mm over its edge,
      which a resting cube shows as twice its centre height);
    * grasping: the fingertips surround the cube's centre, not yet squeezing: close, stay put;
    * otherwise approach: fingers open, over the cube at ``hover``, then straight down.

    Held, the cube is lifted to ``carry_clearance`` above its resting height (or the goal's height
    if that is higher), carried horizontally at ``carry_speed`` of the full action, then lowered
    onto the goal, fingers squeezing all the while.

    Success within 50 steps (``benchmarkzoo/PandaPickAndPlace-v0``): test seeds 99 / 100,
    train seeds 190 / 200; the misses are heavy cubes slipping out during the lift.

    Args:
        obs: batched observation dict; ``observation`` ``(B, 19)``: end effector (0:3), its
            velocity (3:6), finger opening (6), cube position (7:10).
        hover: m above the cube's centre to approach at.
        carry_speed: fraction of the full action while the cube is held.
        carry_clearance: m to lift the cube above the table before carrying it sideways.
        squeeze: m inside the cube's faces the closing fingers aim for.

    Returns:
        ``(B, 4)`` float64 actions.
    """
    vec = obs["observation"].astype(np.float64)
    goal = obs["desired_goal"].astype(np.float64)
    move, grip = _pick_and_place(
        vec[:, 0:3], vec[:, 6:7], vec[:, 7:10], goal, hover, carry_speed, 0.0225 + carry_clearance, squeeze
    )
    return np.concatenate([move, grip], axis=1)


def _pick_and_place(
    ee: np.ndarray,
    width: np.ndarray,
    cube: np.ndarray,
    goal: np.ndarray,
    hover: float,
    carry_speed: float,
    carry_height: float,
    squeeze: float,
) -> tuple[np.ndarray, np.ndarray]:
    """The arm moves ``(B, 3)`` and gripper actions ``(B, 1)`` of :func:`pick_and_place_actions` for one cube.

    ``ee``, ``cube``, ``goal``: ``(B, 3)``; ``width``: ``(B, 1)``; the cube is carried at
    ``carry_height`` (or the goal's height, if higher).
    """
    xy_gap = np.linalg.norm(ee[:, :2] - cube[:, :2], axis=1, keepdims=True)
    z_gap = np.abs(ee[:, 2:3] - cube[:, 2:3])
    resting = cube[:, 2:3] < 0.031  # the largest training cube rests at 0.0225 m; lifted ones are higher
    squeezed = width < 2.0 * cube[:, 2:3] + 0.002  # the fingers touch its faces
    held = (xy_gap < 0.025) & (z_gap < 0.025) & (squeezed | ~resting)
    grasping = ~held & (xy_gap < 0.01) & (z_gap < 0.004)
    above = xy_gap < 0.01
    approach = np.concatenate([cube[:, :2], np.where(above, cube[:, 2:3], cube[:, 2:3] + hover)], axis=1)
    # Carry: up to the carry height over the cube, across to above the goal, then down onto it.
    carry_z = np.maximum(goal[:, 2:3], carry_height)
    lifted = cube[:, 2:3] > carry_z - 0.01
    over_goal = np.linalg.norm(cube[:, :2] - goal[:, :2], axis=1, keepdims=True) < 0.02
    carry = np.where(
        over_goal,
        goal,
        np.where(lifted, np.concatenate([goal[:, :2], carry_z], axis=1), np.concatenate([ee[:, :2], carry_z], axis=1)),
    )
    # The carried cube sits where the end effector is; steer the cube, not the fingertips, to the goal.
    carry_target = ee + (carry - cube)
    move = np.where(
        held, carry_speed * move_towards(ee, carry_target), np.where(grasping, 0.0, move_towards(ee, approach))
    )
    # Close gently, to 1 cm inside the cube's faces: fingers slammed shut sink deep into it and
    # squeeze it out. A resting cube's edge is twice its centre height.
    close = np.clip((2.0 * cube[:, 2:3] - squeeze - width) / MAX_FINGER_STEP, -1.0, 0.0)
    grip = np.where(held, -1.0, np.where(grasping, close, 1.0))
    return move, grip


def stack_actions(obs: dict[str, np.ndarray], carry_height: float = 0.1, placed: float = 0.012) -> np.ndarray:
    """Stack: pick and place the first cube on its goal, let go, then the second on top of it.

    Both cubes are carried ``carry_height`` above the table, clear of the other one. The
    first counts as placed once within ``placed`` of its goal; then the hand opens and rises
    off it before fetching the second.

    Args:
        obs: batched observation dict; ``observation`` ``(B, 31)``: end effector (0:3), finger
            opening (6), first cube (7:10), second cube (19:22); ``desired_goal`` ``(B, 6)``.
        carry_height: m, the height above the table at which a cube is carried.
        placed: m, the distance to its goal within which the first cube counts as placed.

    Returns:
        ``(B, 4)`` float64 actions.
    """
    vec = obs["observation"].astype(np.float64)
    goal = obs["desired_goal"].astype(np.float64)
    ee, width, first, second = vec[:, 0:3], vec[:, 6:7], vec[:, 7:10], vec[:, 19:22]
    done = np.linalg.norm(first - goal[:, 0:3], axis=1, keepdims=True) < placed
    cube = np.where(done, second, first)
    target = np.where(done, goal[:, 3:6], goal[:, 0:3])
    move, grip = _pick_and_place(ee, width, cube, target, 0.05, 0.5, carry_height, 0.01)
    # Let go of the placed cube: open, straight up, before heading for the other.
    on_first = (
        done
        & (np.linalg.norm(ee[:, :2] - first[:, :2], axis=1, keepdims=True) < 0.03)
        & (ee[:, 2:3] < first[:, 2:3] + 0.04)
    )
    opening = on_first & (width < 0.07)
    move = np.where(opening, 0.0, np.where(on_first, np.array([[0.0, 0.0, 1.0]]), move))
    grip = np.where(on_first, 1.0, grip)
    return np.concatenate([move, grip], axis=1)


_POLICIES = {
    "Reach": reach_actions,
    "Push": push_actions,
    "Slide": slide_actions,
    "PickAndPlace": pick_and_place_actions,
    "Stack": stack_actions,
}


def joint_actions(arm: ArmModel, joints: np.ndarray, obs: dict[str, np.ndarray], actions: np.ndarray) -> np.ndarray:
    """End-effector actions turned into joint-control actions that make the same move (``(B, 7)`` or ``(B, 8)``).

    The end-effector target is the one the sim's end-effector control would aim for
    (``ee + action * max_ee_step``, at or above the table); inverse kinematics on ``arm`` from
    each world's joint positions gives the joint targets, and the action is the change to
    them in units of ``max_joint_step``, scaled down as a whole (not clipped joint by joint,
    which would bend the path) when a joint would move further than an action allows. The
    gripper action, where there is one, is passed through.

    Args:
        arm: the kinematic model.
        joints: ``(B, 9)`` each world's joint positions (arm, then fingers).
        obs: the batched observation the end-effector actions were computed from.
        actions: ``(B, 3)`` or ``(B, 4)`` end-effector actions.
    """
    ee = obs["observation"][:, 0:3].astype(np.float64)
    target = ee + MAX_STEP * actions[:, :3]
    target[:, 2] = np.maximum(target[:, 2], 0.0)
    change = (arm.arm_targets(joints, target) - joints[:, :7]) / MAX_JOINT_STEP  # (B, 7)
    change /= np.maximum(1.0, np.abs(change).max(axis=1, keepdims=True))
    return np.concatenate([change, actions[:, 3:]], axis=1)


class PandaExpert:
    """Scripted expert for the Panda envs, in end-effector or joint control.

    Works on a :class:`~benchmarkzoo.envs.robotics.panda.env.PandaEnv` (``expert(env, obs)``
    returns an ``(action_size,)`` float32 action) or a
    :class:`~benchmarkzoo.envs.robotics.panda.vector_env.PandaVectorEnv` (``(num_envs, action_size)``).

    With ``control="joints"`` the end-effector plan is turned into joint moves by
    :func:`joint_actions`: the observation carries no joint positions, so this form also reads
    the arm's joint positions off the env (``env.joint_positions()``, what the arm's encoders
    report), the one thing it knows beyond the observation. Success within 50 steps on the
    first 20 test seeds: ``PandaReachJoints-v0`` 20 / 20, ``PandaPickAndPlaceJoints-v0``
    the numbers in the env docstring.
    """

    def __init__(self) -> None:
        self._arm: ArmModel | None = None  # made on the first joint-control call

    def __call__(self, env: Any, obs: dict[str, np.ndarray]) -> np.ndarray:
        """The expert's action for ``env`` seeing ``obs`` (batched for a native vector env); see the class."""
        env = getattr(env, "unwrapped", env)
        control = env.params.control
        if control not in ("ee", "joints"):
            raise ValueError(
                f"{env.env_id}: the scripted experts command the end effector or the joints; got {control!r}."
            )
        policy = _POLICIES[env.generator.task]
        batched = obs if hasattr(env, "worlds") else {key: value[None] for key, value in obs.items()}
        actions = policy(batched)
        if control == "joints":
            if self._arm is None:
                self._arm = ArmModel()
            actions = joint_actions(self._arm, env.joint_positions(), batched, actions)
        actions = actions.astype(np.float32)
        return actions if hasattr(env, "worlds") else actions[0]

    def __getstate__(self) -> dict[str, Any]:
        """Pickle without the kinematic model's PyBullet client (a copy makes its own)."""
        return {**self.__dict__, "_arm": None}
