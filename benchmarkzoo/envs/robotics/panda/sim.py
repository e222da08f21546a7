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

from benchmarkzoo.core.errors import ClosedEnvError
from benchmarkzoo.core.extras import require
from benchmarkzoo.envs.robotics.panda.generator import ObjectScenario, ReachScenario, StackScenario

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
LONG_TABLE_HALF_EXTENTS = (0.7, 0.35, 0.2)  # Slide's, as panda-gym's: 1.4 m long, far edge at x = 0.6
LONG_TABLE_CENTRE = (-0.1, 0.0, -0.2)
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
            same targets, see the docstring of :class:`~benchmarkzoo.envs.robotics.panda.env.PandaEnv`;
            the envs take 5 of 8 ms with a free gripper, so that closing fingers hold a cube).
        control: ``"ee"`` (end-effector displacement through inverse kinematics) or ``"joints"``
            (a position change for each of the seven arm joints).
        max_ee_step: m, end-effector displacement commanded by an action of 1.
        max_joint_step: rad, joint position change commanded by a joint action of 1 (panda-gym's 0.05).
        max_finger_step: m, change of the finger opening commanded by a gripper action of 1.
        block_gripper: fingers held closed, no gripper action.
        with_object: the world has a cube.
        stack: the world has two cubes (Stack), and goals for both.
        distance_threshold: m, success is the achieved goal this close to the desired goal (all
            tasks use 0.05; for Stack that is the distance of both cubes at once, stricter than
            panda-gym's 0.1, which a stack with its top cube still on the table can meet).
        long_table: Slide's 1.4 m table instead of the 1.1 m one.
        x_range: m, the ``x`` interval scenarios may use (the rest of the workspace is fixed).
    """

    control_dt: float = 0.04
    substeps: int = 4
    control: str = "ee"
    max_ee_step: float = 0.05
    max_joint_step: float = 0.05
    max_finger_step: float = 0.2
    block_gripper: bool = True
    with_object: bool = False
    stack: bool = False
    distance_threshold: float = 0.05
    long_table: bool = False
    x_range: tuple[float, float] = (-0.3, 0.3)

    @property
    def num_objects(self) -> int:
        """Cubes on the table: 0 (Reach), 1, or 2 (Stack)."""
        return 0 if not self.with_object else 2 if self.stack else 1

    @property
    def goal_size(self) -> int:
        """Entries of a goal: ``x, y, z`` of the end effector or of each cube."""
        return 3 * max(1, self.num_objects)

    @property
    def arm_action_size(self) -> int:
        """Entries of the arm's part of an action: 7 joint targets, or 3 end-effector moves."""
        return 7 if self.control == "joints" else 3

    @property
    def action_size(self) -> int:
        """Entries of an action: the arm's, plus the gripper's unless it is blocked."""
        return self.arm_action_size + (0 if self.block_gripper else 1)

    @property
    def obs_size(self) -> int:
        """End effector position and velocity (6), finger opening (1, with a free gripper), cube pose and twist (12)."""
        return 6 + (0 if self.block_gripper else 1) + 12 * self.num_objects


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
            fixedTimeStep=params.control_dt,
            numSubSteps=params.substeps,
            deterministicOverlappingPairs=1,
            physicsClientId=c,
        )
        self.robot = p.loadURDF(PANDA_URDF, BASE_POSITION, useFixedBase=True, physicsClientId=c)
        for joint, angle in zip(ARM_JOINTS, NEUTRAL_ARM):
            p.resetJointState(self.robot, joint, angle, physicsClientId=c)
        for finger in FINGER_JOINTS:
            p.changeDynamics(self.robot, finger, lateralFriction=1.0, spinningFriction=0.001, physicsClientId=c)
        half_extents, centre = (
            (LONG_TABLE_HALF_EXTENTS, LONG_TABLE_CENTRE) if params.long_table else (TABLE_HALF_EXTENTS, TABLE_CENTRE)
        )
        table = p.createCollisionShape(p.GEOM_BOX, halfExtents=half_extents, physicsClientId=c)
        table_visual = p.createVisualShape(
            p.GEOM_BOX, halfExtents=half_extents, rgbaColor=(0.95, 0.95, 0.95, 1.0), physicsClientId=c
        )
        self.table = p.createMultiBody(0.0, table, table_visual, centre, physicsClientId=c)
        p.changeDynamics(self.table, -1, lateralFriction=1.0, physicsClientId=c)
        floor = p.createCollisionShape(p.GEOM_PLANE, physicsClientId=c)
        self.floor = p.createMultiBody(0.0, floor, -1, (0.0, 0.0, FLOOR_HEIGHT), physicsClientId=c)
        # The goal marker is visual only (no collision shape, no mass): it never touches the physics.
        goal_visual = p.createVisualShape(p.GEOM_SPHERE, radius=0.02, rgbaColor=GOAL_RGBA, physicsClientId=c)
        self.goal_marker = p.createMultiBody(0.0, -1, goal_visual, (0.0, 0.0, -1.0), physicsClientId=c)
        self._snapshot = p.saveState(physicsClientId=c)
        self._shapes: dict[float, tuple[int, int]] = {}  # cube size -> (collision, visual) shape ids
        self.objects: list[int] = []  # body ids of the cubes
        self.goal = np.zeros(params.goal_size)  # (goal_size,) m
        self._ee: tuple[float, float, float] | None = None  # end-effector position read by the last observe()
        self._closed = False
        # PyBullet's position motors remove the fraction `gain` of the joint error per physics step;
        # match panda-gym's 20 steps at the default 0.1 with `substeps` steps: 1 - (1 - g)^substeps equal.
        gain = 1.0 - (1.0 - PANDA_GYM_GAIN) ** (PANDA_GYM_SUBSTEPS / params.substeps)
        self._gains = (gain,) * len(MOTOR_JOINTS)

    # ---- episodes ---------------------------------------------------------------------------------

    def load(self, scenario: ReachScenario | ObjectScenario) -> None:
        """Start an episode: the arm at rest in its neutral pose, the cube (if any) at rest in place."""
        self._check_open()
        p, c = pybullet(), self.client
        for body in self.objects:
            p.removeBody(body, physicsClientId=c)
        self.objects = []
        p.restoreState(self._snapshot, physicsClientId=c)
        goal = scenario.goals if isinstance(scenario, StackScenario) else scenario.goal
        self.goal = np.array(goal, dtype=np.float64)
        self._ee = None
        if self.params.with_object:
            assert isinstance(scenario, ObjectScenario)  # for the type checker: the env checked it against params
            size = scenario.object_size
            shapes = self._shapes.get(size)
            if shapes is None:
                half = (size / 2,) * 3
                shapes = self._shapes[size] = (
                    p.createCollisionShape(p.GEOM_BOX, halfExtents=half, physicsClientId=c),
                    p.createVisualShape(p.GEOM_BOX, halfExtents=half, rgbaColor=OBJECT_RGBA, physicsClientId=c),
                )
            places = [scenario.object_xy]
            if isinstance(scenario, StackScenario):
                places.append(scenario.second_xy)
            orientation = p.getQuaternionFromEuler((0.0, 0.0, scenario.object_yaw))
            for x, y in places:
                body = p.createMultiBody(
                    scenario.object_mass, shapes[0], shapes[1], (x, y, size / 2), orientation, physicsClientId=c
                )
                p.changeDynamics(body, -1, lateralFriction=scenario.object_friction, physicsClientId=c)
                self.objects.append(body)

    @property
    def object(self) -> int | None:
        """The (first) cube's body id, or ``None``."""
        return self.objects[0] if self.objects else None

    def act(self, action: np.ndarray) -> None:
        """Apply one action (``(action_size,)`` in ``[-1, 1]``, already validated) and advance ``control_dt``.

        With end-effector control the arm's joint targets come from inverse kinematics for the
        end effector displaced by ``action[:3] * max_ee_step`` (its height kept at or above the
        table top), gripper down; with joint control they are the current joint positions plus
        ``action[:7] * max_joint_step``. The fingers' target opening is the current one plus
        ``action[-1] * max_finger_step``.
        """
        self._check_open()
        p, c, params = pybullet(), self.client, self.params
        if params.control == "joints":
            joints = p.getJointStates(self.robot, ARM_JOINTS, physicsClientId=c)
            angles = [state[0] + params.max_joint_step * float(a) for state, a in zip(joints, action[:7])]
        else:
            ee = self._ee
            if ee is None:
                ee = p.getLinkState(self.robot, EE_LINK, computeForwardKinematics=1, physicsClientId=c)[4]
            step = params.max_ee_step
            target = (
                ee[0] + step * float(action[0]),
                ee[1] + step * float(action[1]),
                max(0.0, ee[2] + step * float(action[2])),
            )
            angles = p.calculateInverseKinematics(self.robot, EE_LINK, target, EE_DOWN, physicsClientId=c)
        if params.block_gripper:
            half_width = 0.0
        else:
            fingers = p.getJointStates(self.robot, FINGER_JOINTS, physicsClientId=c)
            half_width = (fingers[0][0] + fingers[1][0] + params.max_finger_step * float(action[-1])) / 2
        p.setJointMotorControlArray(
            self.robot,
            MOTOR_JOINTS,
            p.POSITION_CONTROL,
            targetPositions=(*angles[:7], half_width, half_width),
            forces=MOTOR_FORCES,
            positionGains=self._gains,
            physicsClientId=c,
        )
        p.stepSimulation(physicsClientId=c)

    def observe(self) -> tuple[np.ndarray, np.ndarray]:
        """The observation vector ``(obs_size,)`` and the achieved goal ``(goal_size,)``, float64.

        Layout: end-effector position (3) and velocity (3); finger opening (1) with a free
        gripper; for each cube, its position (3), orientation as Euler angles (3), linear (3)
        and angular (3) velocity. The achieved goal is the cubes' positions, or the end
        effector's.
        """
        p, c = pybullet(), self.client
        link = p.getLinkState(self.robot, EE_LINK, computeLinkVelocity=1, computeForwardKinematics=1, physicsClientId=c)
        self._ee = link[4]
        parts: list[Any] = [link[4], link[6]]
        if not self.params.block_gripper:
            fingers = p.getJointStates(self.robot, FINGER_JOINTS, physicsClientId=c)
            parts.append((fingers[0][0] + fingers[1][0],))
        achieved = [] if self.objects else [link[4]]
        for body in self.objects:
            position, orientation = p.getBasePositionAndOrientation(body, physicsClientId=c)
            velocity, angular = p.getBaseVelocity(body, physicsClientId=c)
            parts += [position, p.getEulerFromQuaternion(orientation), velocity, angular]
            achieved.append(position)
        return (
            np.fromiter((v for part in parts for v in part), dtype=np.float64),
            np.fromiter((v for part in achieved for v in part), dtype=np.float64),
        )

    def joint_positions(self) -> np.ndarray:
        """``(9,)`` float64 rad / m: the seven arm joints' positions, then the two fingers'.

        Not part of the observation (panda-gym's layout has none); the joint-space expert reads
        it as a real arm's controller reads its encoders. A read: the episode is unchanged.
        """
        self._check_open()
        states = pybullet().getJointStates(self.robot, MOTOR_JOINTS, physicsClientId=self.client)
        return np.array([state[0] for state in states], dtype=np.float64)

    # ---- resources --------------------------------------------------------------------------------

    def _check_open(self) -> None:
        """Refuse a closed world here: PyBullet's own "Not connected to physics server" names nothing."""
        if self._closed:
            raise ClosedEnvError("This Panda world's PyBullet client was disconnected by close(); make a new env.")

    @property
    def connected(self) -> bool:
        """Whether the PyBullet client is open and connected."""
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
