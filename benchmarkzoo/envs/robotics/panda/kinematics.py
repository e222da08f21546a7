"""The Panda's kinematics in a PyBullet client of its own: end-effector moves turned into joint moves.

The joint-space experts plan in end-effector space (the same plans as the end-effector experts)
and need, for each world, the joint positions that put the end effector at the planned point.
PyBullet's ``calculateInverseKinematics`` answers that from the body's current joint
positions; asking the sim's own body would add calls to the sim's client that a replay of the
episode's actions does not make, so this model is a second world in a DIRECT client of its own
(the same URDF at the same base, no cube, never stepped). Set to a world's joint positions it
gives exactly the solution the sim's end-effector control computes for the same target
(:meth:`PandaWorld.act <benchmarkzoo.envs.robotics.panda.sim.PandaWorld.act>`), and it is
deterministic: the result depends only on the joint positions and the target.
"""

from __future__ import annotations

import numpy as np

from benchmarkzoo.envs.robotics.panda.sim import EE_DOWN, EE_LINK, MOTOR_JOINTS, PandaWorld, Params, pybullet


class ArmModel:
    """A kinematic copy of the Panda for inverse kinematics: a :class:`PandaWorld` of its own, never stepped.

    Its table and floor are there because every world has them; inverse kinematics sees only the arm.
    """

    def __init__(self) -> None:
        self.world = PandaWorld(Params())

    def arm_targets(self, joints: np.ndarray, ee_targets: np.ndarray) -> np.ndarray:
        """``(B, 7)`` arm joint positions putting the end effector at ``ee_targets``, gripper down.

        Args:
            joints: ``(B, 9)`` rad / m, each world's current arm and finger joint positions (the
                solver starts from them, as the sim's end-effector control does).
            ee_targets: ``(B, 3)`` m, the end-effector target of each world.
        """
        p, c, robot = pybullet(), self.world.client, self.world.robot
        solutions = np.empty((len(joints), 7))
        for i, (q, target) in enumerate(zip(joints, ee_targets)):
            for joint, angle in zip(MOTOR_JOINTS, q):
                p.resetJointState(robot, joint, float(angle), physicsClientId=c)
            angles = p.calculateInverseKinematics(
                robot, EE_LINK, [float(v) for v in target], EE_DOWN, physicsClientId=c
            )
            solutions[i] = angles[:7]
        return solutions

    def close(self) -> None:
        """Disconnect the model's client (idempotent)."""
        self.world.close()
