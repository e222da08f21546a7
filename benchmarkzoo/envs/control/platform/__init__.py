"""Platform: cross a seeded row of platforms and gaps with parameterized moves (a discrete move, a continuous power).

``sim.py`` holds the dynamics (once), ``generator.py`` the courses, ``env.py`` and
``vector_env.py`` the Gymnasium views, ``baseline.py`` a planner that reads the course,
``bounds.py`` the outcome bounds. After Masson, Ranchod and Konidaris (2016), "Reinforcement
learning with parameterized actions", whose Platform domain has the same action structure.
"""
