"""Panda: Franka Panda manipulation tasks (reach, push, slide, pick-and-place) on PyBullet, in the spirit of panda-gym.

``sim.py`` wraps one PyBullet DIRECT client per world, ``generator.py`` draws the scenarios
(goal and object placement, object size, mass and friction), ``reward.py`` holds the batched
goal-conditioned reward, ``env.py`` and ``vector_env.py`` are the Gymnasium views,
``workers.py`` holds worlds in worker processes for the vector env, ``baseline.py`` the
scripted experts and ``render.py`` PyBullet's software renderer.
"""
