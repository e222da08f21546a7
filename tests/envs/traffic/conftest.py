"""Shared setup of the traffic tests: skip without the ``traffic`` extra, a private cache, the env id.

Until ``benchmarkzoo/TrafficSignal-v0`` is in the package's registry, :func:`signal_env_id`
registers it with Gymnasium only (the ``gym.make``/``gym.make_vec`` path the checks use), so
benchmarkzoo's own registry and every other test are untouched.
"""

from __future__ import annotations

import gymnasium as gym
import pytest

from benchmarkzoo.core.extras import available

ENV_ID = "benchmarkzoo/TrafficSignal-v0"
_SIGNAL = "benchmarkzoo.envs.traffic.signal"

if not available("traffic"):
    pytest.skip("needs extra traffic: pip install 'benchmarkzoo[traffic]'", allow_module_level=True)


@pytest.fixture(scope="session", autouse=True)
def traffic_cache(tmp_path_factory):
    """Generated networks go to a per-session cache, never to the user's or the package's folders."""
    mp = pytest.MonkeyPatch()
    mp.setenv("BENCHMARKZOO_CACHE", str(tmp_path_factory.mktemp("cache")))
    yield
    mp.undo()


@pytest.fixture(scope="session")
def signal_env_id() -> str:
    if ENV_ID not in gym.registry:
        gym.register(
            id=ENV_ID,
            entry_point=f"{_SIGNAL}.env:TrafficSignalEnv",
            vector_entry_point=f"{_SIGNAL}.vector_env:TrafficSignalVectorEnv",
            max_episode_steps=360,
        )
    return ENV_ID
