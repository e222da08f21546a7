"""benchmarkzoo: a Gymnasium/PettingZoo benchmark suite of seeded, batched CPU simulators.

>>> import benchmarkzoo
>>> env = benchmarkzoo.make("benchmarkzoo/Maze-v0")
>>> "benchmarkzoo/Maze-v0" in [s.id for s in benchmarkzoo.list_envs(kind="single", family="gridworld")]
True
"""

from benchmarkzoo import catalogue  # noqa: F401  (registers the built-in envs)
from benchmarkzoo.registration import (
    EnvSpec,
    list_envs,
    list_families,
    list_generators,
    load_plugins,
    make,
    make_aec,
    make_generator,
    make_parallel,
    make_vec,
    register,
    register_generator,
    spec,
)

__version__ = "0.1.0"

__all__ = [
    "EnvSpec",
    "__version__",
    "list_envs",
    "list_families",
    "list_generators",
    "load_plugins",
    "make",
    "make_aec",
    "make_generator",
    "make_parallel",
    "make_vec",
    "register",
    "register_generator",
    "spec",
]
