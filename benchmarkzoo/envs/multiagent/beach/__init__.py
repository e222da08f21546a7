"""Beach: the beach problem domain (Mannion et al., 2018), MOMAland's ``mobeach``, as a native batched env.

``sim.py`` holds the rules (once, batched over worlds), ``generator.py`` the scenarios (agent
types and start sections), ``env.py`` the config and the PettingZoo ``ParallelEnv``,
``vector_env.py`` the native multi-world form, ``baseline.py`` iterated best responses,
``bounds.py`` the outcome bounds.
"""
