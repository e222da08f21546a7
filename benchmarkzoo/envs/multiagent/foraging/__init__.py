"""Foraging: level-based foraging in the spirit of LBF (Papoudakis et al., 2021).

``sim.py`` holds the rules (once, batched over worlds and agents), ``generator.py`` the scenarios
(agent and food positions and levels), ``env.py`` the PettingZoo ``ParallelEnv`` (and its
multi-objective sibling), ``vector_env.py`` the native multi-world form, ``baseline.py`` a
scripted heuristic team, ``render.py`` a pygame drawing.
"""
