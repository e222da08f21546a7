"""SUMO traffic envs: signal control (one intersection, networks, RESCO) and route choice."""

from benchmarkzoo.envs.pettingzoo_modules import family_getattr

# PettingZoo-style modules of this family's multi-agent envs:
# `from benchmarkzoo.envs.traffic import traffic_grid_v0`.
__getattr__, __dir__ = family_getattr(__name__, "traffic")
