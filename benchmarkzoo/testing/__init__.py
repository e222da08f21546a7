"""Conformance checks that ship with the package, so users run exactly what our tests run.

Two modes. The default holds an env to what Gymnasium and PettingZoo ask (their own checkers,
plus exact multi-step determinism, observations inside their space, vector rewards inside
``reward_space``, pickling), so any well-behaved env passes, stock ones included:

>>> import warnings
>>> from benchmarkzoo.testing import check_env, check_vector_matches_single
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")  # Gymnasium's checker warns about CartPole's infinite bounds
...     check_env("CartPole-v1", steps=200)

``strict=True`` (on :func:`check_env`, :func:`check_parallel_env` and :func:`check_pickle`) adds
benchmarkzoo's own contracts, which every env of this package meets and an env built on its view
bases gets for free: Gymnasium's and PettingZoo's warnings (infinite or asymmetric bounds among
them) are failures; invalid actions and agents raise ``InvalidActionError``/``InvalidAgentError``
naming the env; ``step`` before ``reset``, a negative seed, a misspelt ``reset`` option and use
after ``close`` are refused with ``ResetNeededError``, ``InvalidSeedError``,
``UnknownOptionError`` and ``ClosedEnvError``; ``reset(options={"scenario": s})`` plays ``s``;
and a pickled env carries its episode in progress.

>>> check_env("benchmarkzoo/Maze-v0", steps=200, strict=True)
>>> check_vector_matches_single("benchmarkzoo/Maze-v0", num_envs=4, steps=300)["episodes_ended"] > 0
True

:func:`check_vector_matches_single`, :func:`check_parallel_vector_matches_single` and
:func:`check_generator` compare native vector envs and scenario generators, which only
benchmarkzoo-style envs have, so they have one mode.

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
