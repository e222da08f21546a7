"""Multi-agent envs: PettingZoo ``ParallelEnv`` views on batched numpy simulators.

Each env also has a native multi-world vector form (:mod:`benchmarkzoo.vector.multiagent`).
"""
