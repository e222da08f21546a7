"""Conformance checks that ship with the package, so users run exactly what our tests run.

>>> from benchmarkzoo.testing import check_env, check_vector_matches_single
>>> check_env("benchmarkzoo/Maze-v0", steps=200)
>>> check_vector_matches_single("benchmarkzoo/Maze-v0", num_envs=4, steps=300)["episodes_ended"] > 0
True

Every check raises ``AssertionError`` whose message names the env, the step and the key
that failed. None of these functions is named ``test_*``, so pytest never collects them.
"""

from benchmarkzoo.testing.env_checks import check_env
from benchmarkzoo.testing.generator_checks import check_generator
from benchmarkzoo.testing.parallel_checks import check_parallel_env
from benchmarkzoo.testing.parallel_vector_checks import check_parallel_vector_matches_single
from benchmarkzoo.testing.pickle_checks import check_pickle
from benchmarkzoo.testing.vector_checks import check_vector_matches_single

__all__ = [
    "check_env",
    "check_generator",
    "check_parallel_env",
    "check_parallel_vector_matches_single",
    "check_pickle",
    "check_vector_matches_single",
]
