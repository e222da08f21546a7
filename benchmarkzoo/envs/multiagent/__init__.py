"""Multi-agent envs: PettingZoo ``ParallelEnv`` views on batched numpy simulators.

Each env also has a native multi-world vector form (:mod:`benchmarkzoo.vector.multiagent`).
"""

from benchmarkzoo.envs.pettingzoo_modules import family_getattr

# PettingZoo-style modules of this family's multi-agent envs, e.g. `from benchmarkzoo.envs.multiagent import mapf_v0`.
__getattr__, __dir__ = family_getattr(__name__, "multiagent")
