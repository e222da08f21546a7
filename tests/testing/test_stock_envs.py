"""The default mode passes stock Gymnasium and PettingZoo envs; strict mode holds them to benchmarkzoo's contracts."""

from __future__ import annotations

import gymnasium as gym
import pytest

from benchmarkzoo.testing import check_env, check_parallel_env, check_pickle

STOCK_IDS = ["CartPole-v1", "Pendulum-v1"]


@pytest.mark.parametrize("env_id", STOCK_IDS)
def test_default_mode_passes_stock_gymnasium_envs(env_id: str):
    with pytest.warns(UserWarning):  # Gymnasium's own checker warns about both; the warnings reach the caller
        check_env(env_id, steps=300)
    with pytest.warns(UserWarning):
        check_env(gym.make(env_id), steps=300)
    check_pickle(gym.make(env_id), steps_after=100)


def test_default_mode_passes_gymnasium_warnings_on_unchanged():
    with pytest.warns(UserWarning, match="A Box observation space maximum value is infinity"):
        check_env("CartPole-v1", steps=50)


def test_strict_mode_holds_stock_envs_to_benchmarkzoo_contracts():
    with pytest.raises(AssertionError, match=r"warned about CartPole-v1: .*minimum value is -infinity"):
        check_env("CartPole-v1", steps=50, strict=True)
    with pytest.raises(
        AssertionError, match=r"CartPole-v1: action None \(None\) raised AssertionError .*InvalidActionE"
    ):
        check_env("CartPole-v1", steps=50, strict=True, strict_warnings=False)
    with pytest.raises(AssertionError, match=r"warned about Pendulum-v1: .*symmetric and normalized space"):
        check_env("Pendulum-v1", steps=50, strict=True)


def test_an_id_no_registry_knows_fails_with_gymnasiums_suggestions():
    with pytest.raises(gym.error.NameNotFound, match="CartPol"):
        check_env("CartPol-v1")


def test_default_mode_passes_an_mpe2_env():
    simple_spread_v3 = pytest.importorskip("mpe2.simple_spread_v3", reason="needs mpe2 (in the test extra)")
    check_parallel_env(lambda: simple_spread_v3.parallel_env(), steps=100)
    check_pickle(simple_spread_v3.parallel_env(), steps_after=60)  # an EzPickle env: a copy is the same env
    with pytest.raises(AssertionError, match=r"unknown agent 'no_such_agent' was accepted; expected InvalidAgentError"):
        check_parallel_env(lambda: simple_spread_v3.parallel_env(), steps=100, strict=True)
    with pytest.raises(AssertionError, match=r"after a pickle round trip, step 0: the copy raised AttributeError"):
        check_pickle(simple_spread_v3.parallel_env(), strict=True)  # but without the episode it was in
