"""MOMAland 0.2.0's own checks on every ``moma`` env of the registry (the real package; see momaland_compat).

* ``momaland.test.api_test`` on ``benchmarkzoo.make_aec(id)`` (our MO AEC form) and on MOMAland's
  ``mo_parallel_to_aec(make_parallel(id))`` (which reads the ``reward_spaces`` dict), and
  PettingZoo's ``parallel_api_test`` on the ParallelEnv, as MOMAland's ``tests/test_envs.py`` does.
* ``momaland.test.wrapper_test``'s AEC and parallel tests (``NormalizeReward``, ``LinearizeReward``).
  Its parallel tests assume agents never leave: they read ``rewards[possible_agents[0]]`` and
  ``terminations[agent]`` on every step, a ``KeyError`` once that agent has finished (PettingZoo
  drops a finished agent from the dicts). They pass on every env whose seeded random episode (the
  one they play) keeps every agent to the end; where an agent leaves early (a unit destroyed in
  MO-MicroCombat) the test asserts their ``KeyError``, so a MOMAland that fixes it shows here.

The ids are the registry's current ``moma`` ids (an id with a later version registered is frozen:
MO-Foraging-v0 keeps its float64 rewards, and the test below shows the check they fail).
"""

from __future__ import annotations

import types
import warnings
from typing import Any

import numpy as np
import pytest
from moma_ids import FAST, current_moma_ids
from momaland_compat import import_momaland

import benchmarkzoo

momaland = import_momaland()
from momaland.test import wrapper_test  # noqa: E402  (after the shim)
from momaland.test.api_test import api_test  # noqa: E402
from momaland.utils.conversions import mo_parallel_to_aec  # noqa: E402
from pettingzoo.test import parallel_api_test  # noqa: E402

CYCLES = 150


def _skip_missing_extras(env_id: str) -> None:
    missing = benchmarkzoo.spec(env_id).missing_extras
    if missing:
        pytest.skip(f"{env_id} needs the extras {missing}")


def _quiet(check: Any, *args: Any, **kwargs: Any) -> None:
    """Run a MOMAland/PettingZoo check; its advisory warnings (observation all zeros, ...) are not failures."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(*args, **kwargs)


@pytest.mark.parametrize("env_id", current_moma_ids())
def test_momaland_api_test_on_make_aec(env_id):
    _skip_missing_extras(env_id)
    env = benchmarkzoo.make_aec(env_id, **FAST.get(env_id, {}))
    _quiet(api_test, env, num_cycles=CYCLES)
    env.close()


@pytest.mark.parametrize("env_id", current_moma_ids())
def test_momaland_api_test_on_its_own_parallel_to_aec(env_id):
    _skip_missing_extras(env_id)
    parallel = benchmarkzoo.make_parallel(env_id, **FAST.get(env_id, {}))
    _quiet(api_test, mo_parallel_to_aec(parallel), num_cycles=CYCLES)
    _quiet(parallel_api_test, benchmarkzoo.make_parallel(env_id, **FAST.get(env_id, {})), num_cycles=CYCLES)
    parallel.close()


def test_float64_rewards_fail_momaland_api_test_which_is_why_mo_foraging_v1_exists():
    env = _seeded(benchmarkzoo.make_aec("benchmarkzoo/MO-Foraging-v0"))
    assert env.reward_space("agent_0").dtype == np.float64
    # Seeded scenarios and actions: whether float64 sums differ from float32 ones depends on the rewards drawn.
    env.reset(seed=0)
    with pytest.raises(AssertionError, match="reward returned by last is not the accumulated rewards"):
        _quiet(api_test, env, num_cycles=CYCLES)


def _seeded(env: Any) -> Any:
    for agent in env.possible_agents:
        env.action_space(agent).seed(0)
    return env


def _env_module(env_id: str) -> types.SimpleNamespace:
    """What MOMAland's wrapper tests take: a module with ``env()`` and ``parallel_env()``, seeded actions."""
    kwargs = FAST.get(env_id, {})
    return types.SimpleNamespace(
        env=lambda: _seeded(benchmarkzoo.make_aec(env_id, **kwargs)),
        parallel_env=lambda: _seeded(benchmarkzoo.make_parallel(env_id, **kwargs)),
    )


def _an_agent_leaves_early(module: types.SimpleNamespace) -> bool:
    """Whether the seeded random episode the parallel wrapper tests play loses an agent before its end."""
    env = module.parallel_env()
    env.reset(seed=42)
    while env.agents:
        before = len(env.agents)
        env.step({agent: env.action_space(agent).sample() for agent in env.agents})
        if 0 < len(env.agents) < before:
            return True
    return False


@pytest.mark.parametrize("env_id", current_moma_ids())
def test_momaland_wrapper_tests(env_id):
    _skip_missing_extras(env_id)
    module = _env_module(env_id)
    np.random.seed(0)  # the tests draw their weights from numpy's global generator
    _quiet(wrapper_test.aec_test, module)
    if _an_agent_leaves_early(module):  # the documented assumption: their KeyError, not ours
        with pytest.raises(KeyError):
            _quiet(wrapper_test.parallel_test, module)
    else:
        _quiet(wrapper_test.parallel_test, module)
