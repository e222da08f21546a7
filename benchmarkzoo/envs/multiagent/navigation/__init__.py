"""Navigation: continuous multi-robot navigation among circular obstacles (MPE, VMAS and CAMAR lineage).

``sim.py`` holds the physics (once, batched over worlds and robots), ``generator.py`` the scenarios
(uniform placement with minimum separations), ``env.py`` the PettingZoo ``ParallelEnv``,
``vector_env.py`` the native multi-world form (both also of ``MO-Navigation-v0``, the same world
with per-robot vector rewards), ``baseline.py`` a potential-field planner,
``render.py`` a pygame drawing.
"""
