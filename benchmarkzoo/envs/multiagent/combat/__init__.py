"""MicroCombat: StarCraft-micro style combat without the engine, in the spirit of SMAC and SMAX.

``units.py`` holds the unit-type table, ``sim.py`` the rules (once, batched over worlds and units),
``generator.py`` the scenarios (line-ups and random compositions), ``env.py`` the PettingZoo
``ParallelEnv``, ``vector_env.py`` the native multi-world form, ``baseline.py`` a scripted
focus-fire team, ``render.py`` a pygame drawing.
"""
