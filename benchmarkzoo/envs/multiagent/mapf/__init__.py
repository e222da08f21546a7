"""MAPF: grid multi-agent pathfinding in the spirit of POGEMA.

``sim.py`` holds the rules (once, batched over worlds and agents), ``generator.py`` the scenarios
(maps, starts, goals; a MovingAI ``.map`` loader), ``env.py`` the PettingZoo ``ParallelEnv``,
``vector_env.py`` the native multi-world form, ``baseline.py`` prioritized planning with
space-time A*, ``render.py`` a pygame drawing.
"""
