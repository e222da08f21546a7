"""One PyBullet DIRECT client per world: the Panda, its table, and (for the object tasks) a cube.

Why it is fast: a control step is one ``stepSimulation`` call (PyBullet runs the
``substeps`` physics steps internally, motors held at their targets), one inverse-kinematics
call, one motor command for all nine joints, and four state reads. A reset is
``restoreState`` of a snapshot taken once at construction, plus the cube; nothing is loaded.

Why it is deterministic: PyBullet in DIRECT mode gives the same output for the same call
sequence, and ``restoreState`` restores contact points and solver caches as well as positions.
An episode therefore depends only on its scenario and its actions, not on the episodes the
client played before (a test checks this bit for bit), which is what lets a fresh env replay
a pickled one and the native vector env match ``SyncVectorEnv``.
"""

from __future__ import annotations

import contextlib
import dataclasses
from types import ModuleType
from typing import Any

import numpy as np

from benchmarkzoo.core.extras import require
from benchmarkzoo.envs.robotics.panda.generator import ObjectScenario, ReachScenario

PANDA_URDF = "franka_panda/panda.urdf"  # shipped in pybullet_data
BASE_POSITION = (-0.6, 0.0, 0.0)  # m, the robot base, on the table's far edge
EE_LINK = 11  # panda_grasptarget: the point between the fingertips
ARM_JOINTS = (0, 1, 2, 3, 4, 5, 6)
FINGER_JOINTS = (9, 10)
MOTOR_JOINTS = ARM_JOINTS + FINGER_JOINTS
MOTOR_FORCES = (87.0, 87.0, 87.0, 87.0, 12.0, 120.0, 120.0, 170.0, 170.0)  # N m / N, as panda-gym
NEUTRAL_ARM = (0.00, 0.41, 0.00, -1.85, 0.00, 2.26, 0.79)  # rad; puts the end effector near (0, 0, 0.2)
EE_DOWN = (1.0, 0.0, 0.0, 0.0)  # quaternion (x, y, z, w): gripper pointing down
PANDA_GYM_GAIN, PANDA_GYM_SUBSTEPS = 0.1, 20  # PyBullet's default position gain; panda-gym's physics steps
TABLE_HALF_EXTENTS = (0.55, 0.35, 0.2)  # m; the table top is z = 0
TABLE_CENTRE = (-0.3, 0.0, -0.2)
FLOOR_HEIGHT = -0.4  # m: the floor under the table, where dropped cubes come to rest
GOAL_RGBA = (0.1, 0.9, 0.1, 0.4)
OBJECT_RGBA = (0.1, 0.3, 0.9, 1.0)

_pybullet: ModuleType | None = None


def pybullet() -> ModuleType:
    """The ``pybullet`` module, imported on first use (``MissingExtraError`` names the ``robotics`` extra)."""
    global _pybullet
    if _pybullet is None:
        _pybullet = require("pybullet", "robotics", "The benchmarkzoo Panda envs")
    return _pybullet


@dataclasses.dataclass(frozen=True)
class Params:
    """Physics and control constants of one world.

    Attributes:
        control_dt: s per env step (panda-gym's 0.04).
        substeps: physics steps per env step (panda-gym runs 20 of 2 ms; 4 of 10 ms track the
            same targets, see the docstring of :class:`~benchmarkzoo.envs.robotics.panda.env.PandaEnv`).
        max_ee_step: m, end-effector displacement commanded by an action of 1.
        max_finger_step: m, change of the finger opening commanded by a gripper action of 1.
        block_gripper: fingers held closed, no gripper action.
        with_object: the world has a cube.
    """

    control_dt: float = 0.04
    substeps: int = 4
    max_ee_step: float = 0.05
    max_finger_step: float = 0.2
    block_gripper: bool = True
    with_object: bool = False

    @property
    def action_size(self) -> int:
        return 3 if self.block_gripper else 4

    @property
    def obs_size(self) -> int:
        """End effector position and velocity (6), finger opening (1, with a free gripper), cube pose and twist (12)."""
        return 6 + (0 if self.block_gripper else 1) + (12 if self.with_object else 0)


class PandaWorld:
    """One Panda world in its own PyBullet DIRECT physics client.

    Args:
        params: physics and control constants.
    """

    def __init__(self, params: Params):
        p = pybullet()
        import pybullet_data

        self.params = params
        self.client = p.connect(p.DIRECT)
        c = self.client
        p.setAdditionalSearchPath(pybullet_data.getDataPath(), physicsClientId=c)
        p.setGravity(0.0, 0.0, -9.81, physicsClientId=c)
        p.setPhysicsEngineParameter(
            fixedTimeStep=params.control_dt, numSubSteps=params.substeps, deterministicOverlappingPairs=1,
            physicsClientId=c,
        )
        self.robot = p.loadURDF(PANDA_URDF, BASE_POSITION, useFixedBase=True, physicsClientId=c)
        for joint, angle in zip(ARM_JOINTS, NEUTRAL_ARM):
            p.resetJointState(self.robot, joint, angle, physicsClientId=c)
        for finger in FINGER_JOINTS:
            p.changeDynamics(self.robot, finger, lateralFriction=1.0, spinningFriction=0.001, physicsClientId=c)
        table = p.createCollisionShape(p.GEOM_BOX, halfExtents=TABLE_HALF_EXTENTS, physicsClientId=c)
        table_visual = p.createVisualShape(
            p.GEOM_BOX, halfExtents=TABLE_HALF_EXTENTS, rgbaColor=(0.95, 0.95, 0.95, 1.0), physicsClientId=c
        )
        self.table = p.createMultiBody(0.0, table, table_visual, TABLE_CENTRE, physicsClientId=c)
        p.changeDynamics(self.table, -1, lateralFriction=1.0, physicsClientId=c)
        floor = p.createCollisionShape(p.GEOM_PLANE, physicsClientId=c)
        self.floor = p.createMultiBody(0.0, floor, -1, (0.0, 0.0, FLOOR_HEIGHT), physicsClientId=c)
        # The goal marker is visual only (no collision shape, no mass): it never touches the physics.
        goal_visual = p.createVisualShape(p.GEOM_SPHERE, radius=0.02, rgbaColor=GOAL_RGBA, physicsClientId=c)
        self.goal_marker = p.createMultiBody(0.0, -1, goal_visual, (0.0, 0.0, -1.0), physicsClientId=c)
        self._snapshot = p.saveState(physicsClientId=c)
        self._shapes: dict[float, tuple[int, int]] = {}  # cube size -> (collision, visual) shape ids
        self.object: int | None = None
        self.goal = np.zeros(3)  # (3,) m
        self._ee: tuple[float, float, float] | None = None  # end-effector position read by the last observe()
        self._closed = False
        # PyBullet's position motors remove the fraction `gain` of the joint error per physics step;
        # match panda-gym's 20 steps at the default 0.1 with `substeps` steps: 1 - (1 - g)^substeps equal.
        gain = 1.0 - (1.0 - PANDA_GYM_GAIN) ** (PANDA_GYM_SUBSTEPS / params.substeps)
        self._gains = (gain,) * len(MOTOR_JOINTS)

    # ---- episodes ---------------------------------------------------------------------------------

    def load(self, scenario: ReachScenario | ObjectScenario) -> None:
        """Start an episode: the arm at rest in its neutral pose, the cube (if any) at rest in place."""
        p, c = pybullet(), self.client
        if self.object is not None:
            p.removeBody(self.object, physicsClientId=c)
            self.object = None
        p.restoreState(self._snapshot, physicsClientId=c)
        self.goal = np.array(scenario.goal, dtype=np.float64)
        self._ee = None
        if self.params.with_object:
            size = scenario.object_size
            shapes = self._shapes.get(size)
            if shapes is None:
                half = (size / 2,) * 3
                shapes = self._shapes[size] = (
                    p.createCollisionShape(p.GEOM_BOX, halfExtents=half, physicsClientId=c),
                    p.createVisualShape(p.GEOM_BOX, halfExtents=half, rgbaColor=OBJECT_RGBA, physicsClientId=c),
                )
            x, y = scenario.object_xy
            orientation = p.getQuaternionFromEuler((0.0, 0.0, scenario.object_yaw))
            self.object = p.createMultiBody(
                scenario.object_mass, shapes[0], shapes[1], (x, y, size / 2), orientation, physicsClientId=c
            )
            p.changeDynamics(self.object, -1, lateralFriction=scenario.object_friction, physicsClientId=c)

    def act(self, action: np.ndarray) -> None:
        """Apply one action (``(action_size,)`` in ``[-1, 1]``, already validated) and advance ``control_dt``.

        The arm's joint targets come from inverse kinematics for the end effector displaced by
        ``action[:3] * max_ee_step`` (its height kept at or above the table top), gripper down;
        the fingers' target opening is the current one plus ``action[3] * max_finger_step``.
        """
        p, c, params = pybullet(), self.client, self.params
        ee = self._ee
        if ee is None:
            ee = p.getLinkState(self.robot, EE_LINK, computeForwardKinematics=1, physicsClientId=c)[4]
        step = params.max_ee_step
        target = (ee[0] + step * float(action[0]), ee[1] + step * float(action[1]),
                  max(0.0, ee[2] + step * float(action[2])))
        angles = p.calculateInverseKinematics(self.robot, EE_LINK, target, EE_DOWN, physicsClientId=c)
        if params.block_gripper:
            half_width = 0.0
        else:
            fingers = p.getJointStates(self.robot, FINGER_JOINTS, physicsClientId=c)
            half_width = (fingers[0][0] + fingers[1][0] + params.max_finger_step * float(action[3])) / 2
        p.setJointMotorControlArray(
            self.robot, MOTOR_JOINTS, p.POSITION_CONTROL, targetPositions=(*angles[:7], half_width, half_width),
            forces=MOTOR_FORCES, positionGains=self._gains, physicsClientId=c,
        )
        p.stepSimulation(physicsClientId=c)

    def observe(self) -> tuple[np.ndarray, np.ndarray]:
        """The observation vector ``(obs_size,)`` and the achieved goal ``(3,)``, float64.

        Layout: end-effector position (3) and velocity (3); finger opening (1) with a free
        gripper; with a cube, its position (3), orientation as Euler angles (3), linear (3) and
        angular (3) velocity. The achieved goal is the cube's position, or the end effector's.
        """
        p, c = pybullet(), self.client
        link = p.getLinkState(self.robot, EE_LINK, computeLinkVelocity=1, computeForwardKinematics=1,
                              physicsClientId=c)
        self._ee = link[4]
        parts: list[Any] = [link[4], link[6]]
        if not self.params.block_gripper:
            fingers = p.getJointStates(self.robot, FINGER_JOINTS, physicsClientId=c)
            parts.append((fingers[0][0] + fingers[1][0],))
        if self.object is not None:
            position, orientation = p.getBasePositionAndOrientation(self.object, physicsClientId=c)
            velocity, angular = p.getBaseVelocity(self.object, physicsClientId=c)
            parts += [position, p.getEulerFromQuaternion(orientation), velocity, angular]
            achieved = position
        else:
            achieved = link[4]
        return np.fromiter((v for part in parts for v in part), dtype=np.float64), np.array(achieved)

    # ---- resources --------------------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        return not self._closed and pybullet().isConnected(physicsClientId=self.client)

    def close(self) -> None:
        """Disconnect the client (idempotent)."""
        if not self._closed:
            self._closed = True
            p = pybullet()
            if p.isConnected(physicsClientId=self.client):
                p.disconnect(physicsClientId=self.client)

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # at interpreter shutdown the module may already be gone
            self.close()
