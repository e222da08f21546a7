"""``rgb_array`` frames through PyBullet's software renderer (``ER_TINY_RENDERER``): no display, no GPU."""

from __future__ import annotations

import numpy as np

from benchmarkzoo.envs.robotics.panda.sim import PandaWorld, pybullet

WIDTH = HEIGHT = 480
#: Fixed camera: looking at the table centre from the front right, 1.5 m away, 30 degrees down.
CAMERA = {
    "cameraTargetPosition": (-0.2, 0.0, 0.1),
    "distance": 1.5,
    "yaw": 45.0,
    "pitch": -30.0,
    "roll": 0.0,
    "upAxisIndex": 2,
}
FOV, NEAR, FAR = 60.0, 0.05, 5.0


def render_world(world: PandaWorld) -> np.ndarray:
    """A ``(HEIGHT, WIDTH, 3)`` uint8 frame of ``world`` with its (first) goal marked by a translucent green sphere.

    Moving the goal marker (a visual-only body) does not touch the dynamics, so rendering
    never changes an episode.
    """
    p, c = pybullet(), world.client
    p.resetBasePositionAndOrientation(
        world.goal_marker, world.goal[:3].tolist(), (0.0, 0.0, 0.0, 1.0), physicsClientId=c
    )
    view = p.computeViewMatrixFromYawPitchRoll(**CAMERA, physicsClientId=c)
    projection = p.computeProjectionMatrixFOV(FOV, WIDTH / HEIGHT, NEAR, FAR, physicsClientId=c)
    _, _, rgba, _, _ = p.getCameraImage(WIDTH, HEIGHT, view, projection, renderer=p.ER_TINY_RENDERER, physicsClientId=c)
    return np.asarray(rgba, dtype=np.uint8).reshape(HEIGHT, WIDTH, 4)[:, :, :3].copy()
