"""Quadrotor: a batched rigid-body quadrotor with randomized physical parameters.

``sim.py`` holds the dynamics (once), ``generator.py`` the scenarios (physical parameters,
initial state, goal), ``env.py`` and ``vector_env.py`` the Gymnasium views, ``baseline.py`` a
cascaded PID controller, ``render.py`` a three-view pygame drawing. ``mo_env.py`` and
``mo_vector_env.py`` are the multi-objective views (progress, energy) of the same simulator,
``front.py`` their recorded PID reference front.
"""
