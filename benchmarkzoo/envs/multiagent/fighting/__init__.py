"""FightingDuel: a side-view two-player fighting game on a batched numpy simulator.

``characters.py`` holds the move tables (a frozen dataclass per move), ``sim.py`` the rules
(batched, integer physics), ``generator.py`` the scenarios (characters, stage, start, opponent),
``env.py`` the PettingZoo ParallelEnv, ``vector_env.py`` its native multi-world form,
``ladder_env.py`` FightingLadder-v0 (seat 0 up the ladder; both forms), ``bots.py`` the scripted ladder,
``render.py`` the pygame view, ``bounds.py`` the outcome bounds.
"""
