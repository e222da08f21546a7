"""MO-TrafficSignal-v0 (objectives measured against SUMO itself), emission accounting, and external SUMO files."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from benchmarkzoo.core.errors import GeneratorArgumentError
from benchmarkzoo.envs.traffic.generators import SingleIntersectionGenerator
from benchmarkzoo.envs.traffic.signal.env import TrafficSignalEnv
from benchmarkzoo.envs.traffic.signal.mo_env import MOTrafficSignalEnv
from benchmarkzoo.testing import check_env, check_vector_matches_single

MO_SHORT_ID = "benchmarkzoo/MO-TrafficSignalShort-v0"
_SIGNAL = "benchmarkzoo.envs.traffic.signal"


@pytest.fixture(scope="module")
def mo_short_id():
    if MO_SHORT_ID not in gym.registry:
        gym.register(
            id=MO_SHORT_ID,
            entry_point=f"{_SIGNAL}.mo_env:MOTrafficSignalEnv",
            vector_entry_point=f"{_SIGNAL}.mo_vector_env:MOTrafficSignalVectorEnv",
            max_episode_steps=25,
            kwargs={"generator_kwargs": {"duration": 200, "rate": 600}},
        )
    return MO_SHORT_ID


class CountingSumo:
    """libsumo as the controller sees it, plus SUMO's own per-vehicle CO2 and halting counts after each second."""

    def __init__(self, conn):
        self._conn = conn
        self.co2_mg = 0.0
        self.halted = 0

    def __getattr__(self, name):
        return getattr(self._conn, name)

    def simulationStep(self, time=0.0):  # libsumo's name
        self._conn.simulationStep(time)
        vehicles = self._conn.vehicle
        for vid in vehicles.getIDList():
            self.co2_mg += vehicles.getCO2Emission(vid)  # mg/s over a 1 s step
            self.halted += vehicles.getSpeed(vid) < 0.1


def test_objectives_equal_sumo_per_vehicle_sums():
    env = MOTrafficSignalEnv(generator_kwargs={"rate": 600}, in_process=True)
    try:
        env.reset(seed=2)
        controller = env._runner.controller
        controller.conn = counting = CountingSumo(controller.conn)
        seen_co2 = seen_wait = 0.0
        for t in range(60):
            counting.co2_mg, counting.halted = 0.0, 0
            _, reward, _, _, info = env.step(t // 12 % 2)  # switch every minute: yellow inside some steps
            assert reward.dtype == np.float32 and reward.shape == (2,)
            assert reward[1] == np.float32(-counting.co2_mg / 1000.0), (t, reward, counting.co2_mg)
            assert reward[0] == np.float32(-counting.halted), (t, reward, counting.halted)
            seen_co2 += counting.co2_mg
            seen_wait += counting.halted
        assert seen_co2 > 1e5 and seen_wait > 100  # the comparison was not vacuous
        assert info["total_co2"] == pytest.approx(seen_co2 / 1000.0, rel=1e-9)
    finally:
        env.close()


def test_emission_accounting_does_not_change_the_trajectory():
    actions = np.random.default_rng(0).integers(0, 2, size=60)
    rollouts = []
    for emissions in (False, True):
        env = TrafficSignalEnv(emissions=emissions)
        try:
            env.reset(seed=4)
            rollouts.append([env.step(int(a))[:2] for a in actions])
        finally:
            env.close()
    for (oa, ra), (ob, rb) in zip(*rollouts):
        assert np.array_equal(oa, ob) and ra == rb


def test_mo_check_env(mo_short_id):
    # Not strict: the view base's refusals name the class's id, not this test's ad-hoc short id (issue 16
    # item 4, ids from the registry, fixes that); MO-TrafficSignal-v0 itself runs strict in test_conformance.
    check_env(lambda: gym.make(mo_short_id, disable_env_checker=True), seed=0, steps=60, strict_warnings=True)


def test_mo_native_vector_matches_mo_sync(mo_short_id):
    summary = check_vector_matches_single(
        mo_short_id, num_envs=2, steps=40, seed=0, autoreset_mode=AutoresetMode.NEXT_STEP
    )
    assert summary["episodes_ended"] > 0


# ---- external network and route files ----------------------------------------------------------------


@pytest.fixture(scope="module")
def sumo_rl_files() -> tuple[Path, Path]:
    spec = importlib.util.find_spec("sumo_rl")  # found, not imported: sumo_rl's import needs SUMO_HOME
    if spec is None:
        pytest.skip("needs sumo-rl (extra traffic)")
    folder = Path(spec.origin).parent / "nets" / "single-intersection"
    return folder / "single-intersection.net.xml", folder / "single-intersection.rou.xml"


def test_external_files_are_cited_by_content(sumo_rl_files, tmp_path):
    net, routes = sumo_rl_files
    first = SingleIntersectionGenerator(net_file=str(net), route_file=str(routes)).sample(3)
    shutil.copy(net, tmp_path / "n.xml")
    shutil.copy(routes, tmp_path / "r.xml")
    moved = SingleIntersectionGenerator(net_file=str(tmp_path / "n.xml"), route_file=str(tmp_path / "r.xml"))
    assert moved.sample(3).content_hash == first.content_hash  # the path is not part of the scenario
    assert moved.sample(4).content_hash != first.content_hash  # the seed still draws SUMO's --seed
    (tmp_path / "r.xml").write_bytes(routes.read_bytes().replace(b"</routes>", b"<!-- edited --></routes>"))
    assert moved.sample(3).content_hash != first.content_hash
    with pytest.raises(GeneratorArgumentError, match="net_file"):
        SingleIntersectionGenerator(route_file=str(routes))


def test_env_runs_sumo_rl_single_intersection(sumo_rl_files):
    net, routes = sumo_rl_files
    env = TrafficSignalEnv(generator_kwargs={"net_file": str(net), "route_file": str(routes)})
    try:
        obs, _ = env.reset(seed=0)
        assert obs.shape == (2 + 1 + 2 * 4,)  # sumo-rl's net: 2 greens, 4 incoming lanes
        for _ in range(60):
            *_, info = env.step(1)
        assert info["sim_time"] == 300.0 and info["arrived"] > 0
    finally:
        env.close()
