"""MO-Quadrotor-v0: the two objectives on hand-made flights, MO-Gymnasium, the reference front, the baseline.

API conformance (multi-objective ``check_env``), pickling and native-vs-MOSyncVectorEnv equality
under every autoreset mode come from ``tests/test_conformance.py`` once the env is registered;
here native-vs-MOSyncVectorEnv is repeated over long controlled flights.
"""

from __future__ import annotations

import doctest
import math

import gymnasium as gym
import numpy as np
import pytest

from benchmarkzoo import registration, scenario_sets
from benchmarkzoo.core.errors import InvalidActionError
from benchmarkzoo.envs.control.quadrotor import front, mo_env, sim
from benchmarkzoo.envs.control.quadrotor.baseline import CascadedPIDPolicy, WeightedPIDPolicy
from benchmarkzoo.envs.control.quadrotor.env import QuadrotorEnv
from benchmarkzoo.envs.control.quadrotor.generator import GRAVITY, GoalGenerator, HoverGenerator, QuadrotorScenario
from benchmarkzoo.envs.control.quadrotor.mo_env import MOQuadrotorEnv
from benchmarkzoo.envs.control.quadrotor.mo_vector_env import MOQuadrotorVectorEnv

mo_gym = pytest.importorskip("mo_gymnasium", reason="needs the 'mo' extra")

ENV_ID = "benchmarkzoo/MO-Quadrotor-v0"
_Q = "benchmarkzoo.envs.control.quadrotor"
IDENTITY = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)
MASS = 0.03
MAX_THRUST = 2.0 * MASS * GRAVITY / 4.0  # thrust-to-weight 2: the hover command is exactly 0


@pytest.fixture(scope="module", autouse=True)
def _registered():
    """Register the env for this module unless registration.py already does, and remove it afterwards."""
    added = ENV_ID not in [s.id for s in registration.list_envs()]
    if added:
        registration.register(
            ENV_ID,
            kind="mo",
            family="control",
            entry_point=f"{_Q}.mo_env:MOQuadrotorEnv",
            vector_entry_point=f"{_Q}.mo_vector_env:MOQuadrotorVectorEnv",
            max_episode_steps=200,
            kwargs={"generator": "quadrotor/goal", "generator_kwargs": {}},
            extras=("mo",),
            description="Fly a quadrotor of randomized mass, inertia and motors towards a goal: progress vs energy.",
            baseline=f"{_Q}.baseline:WeightedPIDPolicy",
            scenario_sets=("control/mo-quadrotor",),
        )
    yield
    if added:
        del registration._ENVS[ENV_ID]
        del gym.registry[ENV_ID]


def scenario(**overrides) -> QuadrotorScenario:
    """A vehicle at rest, upright, 2 m above the floor, its goal 1 m ahead (+x), without linear drag."""
    fields = {
        "mass": MASS,
        "arm_length": 0.046,
        "inertia": (1.4e-5, 1.5e-5, 2.2e-5),
        "max_thrust": MAX_THRUST,
        "torque_coef": 0.006,
        "drag": 0.0,
        "start_pos": (0.0, 0.0, 2.0),
        "start_vel": (0.0, 0.0, 0.0),
        "start_rot": IDENTITY,
        "start_ang_vel": (0.0, 0.0, 0.0),
        "goal": (1.0, 0.0, 2.0),
    }
    return QuadrotorScenario(**{**fields, **overrides})


def make_env(**scenario_overrides) -> MOQuadrotorEnv:
    env = MOQuadrotorEnv(generator=GoalGenerator())
    env.reset(seed=0, options={"scenario": scenario(**scenario_overrides)})
    return env


def act(*commands: float) -> np.ndarray:
    return np.array(commands, dtype=np.float32)


HOVER = act(0.0, 0.0, 0.0, 0.0)


# ---- the objectives -----------------------------------------------------------------------------


def test_energy_is_minus_the_mean_squared_thrust_fraction():
    env = make_env()
    _, reward, *_ = env.step(act(0.25, -0.5, 0.75, -1.0))  # u = 0.625, 0.25, 0.875, 0 (all exact in binary)
    assert reward.dtype == np.float32 and reward.shape == (2,)
    assert reward[1] == np.float32(-(0.625**2 + 0.25**2 + 0.875**2 + 0.0**2) / 4)  # -0.3046875
    _, reward, *_ = make_env().step(act(1, 1, 1, 1))
    assert reward[1] == -1.0
    _, reward, *_ = make_env().step(act(-1, -1, -1, -1))
    assert reward[1] == 0.0


def test_progress_is_the_distance_closed_by_the_step():
    env = make_env(start_vel=(1.0, 0.0, 0.0))  # 1 m/s towards the goal, thrust balancing gravity
    _, reward, terminated, _, _ = env.step(HOVER)
    assert not terminated
    assert reward[0] > 0
    assert reward[0] == pytest.approx(1.0 * env.params.dt, rel=1e-6)  # 1 m/s for 0.01 s
    assert reward[1] == np.float32(-0.25)  # every motor at half thrust
    away = make_env(start_vel=(-1.0, 0.0, 0.0))
    _, reward, *_ = away.step(HOVER)
    assert reward[0] == pytest.approx(-0.01, rel=1e-6)
    _, reward, *_ = make_env().step(HOVER)  # at rest, at the hover: no progress at all
    assert abs(reward[0]) < 1e-12


def test_progress_return_telescopes_to_the_distance_closed():
    env = make_env(start_vel=(0.5, 0.3, 0.0))
    d0 = math.dist(env.scenario.start_pos, env.scenario.goal)
    total = 0.0
    for _ in range(150):
        _, reward, terminated, _, _ = env.step(HOVER)
        assert not terminated
        total += float(reward[0])
    d_end = float(sim.norm3(env.state.pos - env.state.goal)[0])
    assert total == pytest.approx(d0 - d_end, abs=1e-5)  # float32 rounding of 150 rewards


def test_a_crash_costs_progress_not_energy():
    env = make_env(start_pos=(0.0, 0.0, 1.0), goal=(0.0, 0.0, 0.5))
    for _ in range(100):
        _, reward, terminated, _, info = env.step(act(-1, -1, -1, -1))  # motors off: fall towards the goal
        if terminated:
            break
    assert terminated and info["crashed"]
    assert reward[0] < -9.5  # some progress, minus the crash penalty of 10
    assert reward[1] == 0.0
    assert reward in env.reward_space


def test_reward_space_and_dtype():
    env = MOQuadrotorEnv()
    space = env.reward_space
    assert space.dtype == np.float32 and space.shape == (2,) and env.reward_dim == 2
    np.testing.assert_array_equal(space.low, np.array([-10.2, -1.0], dtype=np.float32))
    np.testing.assert_array_equal(space.high, np.array([0.2, 0.0], dtype=np.float32))
    assert MOQuadrotorEnv(crash_penalty=5.0).reward_space.low[0] == np.float32(-5.2)


def test_same_simulator_as_the_scalar_env():
    """The MO env flies exactly as Quadrotor-Goal-v0 does: the same observations, terminations and infos."""
    scalar, vector = QuadrotorEnv(generator="quadrotor/goal"), MOQuadrotorEnv()
    np.testing.assert_array_equal(scalar.reset(seed=5)[0], vector.reset(seed=5)[0])
    rng = np.random.default_rng(0)
    for _ in range(200):
        action = rng.uniform(-0.3, 0.1, size=4).astype(np.float32)
        a, b = scalar.step(action), vector.step(action)
        np.testing.assert_array_equal(a[0], b[0])
        assert a[2:] == b[2:]
        if a[2]:
            break


# ---- MO-Gymnasium -------------------------------------------------------------------------------


def test_mo_gymnasium_make_and_linear_reward():
    from mo_gymnasium.wrappers import LinearReward

    weights = np.array([0.7, 0.3])
    scalar = LinearReward(mo_gym.make(ENV_ID), weight=weights)
    scalar.reset(seed=0)
    policy = CascadedPIDPolicy()
    for _ in range(20):
        _, reward, _, _, info = scalar.step(policy(scalar))
        vector = info["vector_reward"]
        assert vector.dtype == np.float32 and vector.shape == (2,)
        # LinearReward is documented as the dot product; a hand-written sum can differ by an ulp.
        assert reward == float(np.dot(vector, weights))
        assert reward == pytest.approx(0.7 * float(vector[0]) + 0.3 * float(vector[1]), rel=1e-12)
    assert LinearReward(mo_gym.make(ENV_ID)).w.tolist() == [1.0, 1.0]


def test_mo_gymnasium_make_has_the_registered_time_limit():
    env = mo_gym.make(ENV_ID)
    env.reset(seed=1)
    policy = CascadedPIDPolicy()
    for steps in range(1, 1000):  # noqa: B007 (read after the loop)
        *_, terminated, truncated, _ = env.step(policy(env))
        if terminated or truncated:
            break
    assert truncated and not terminated and steps == 200


def test_native_vector_matches_mo_sync_in_long_controlled_flights():
    """401 steps of 8 worlds flown by the PID plus noise: two 200-step episodes each, with the autoreset step."""
    from mo_gymnasium.wrappers.vector import MOSyncVectorEnv

    num_envs = 8
    native = gym.make_vec(ENV_ID, num_envs, vectorization_mode="vector_entry_point")
    reference = MOSyncVectorEnv([lambda: mo_gym.make(ENV_ID) for _ in range(num_envs)])
    policy, rng = CascadedPIDPolicy(), np.random.default_rng(0)
    np.testing.assert_array_equal(native.reset(seed=11)[0], reference.reset(seed=11)[0])
    truncations = 0
    for _ in range(401):
        noise = rng.uniform(-0.05, 0.05, size=(num_envs, 4)).astype(np.float32)
        actions = np.clip(policy(native) + noise, -1.0, 1.0)
        out_n, out_r = native.step(actions), reference.step(actions)
        assert out_n[1].dtype == np.float32 and out_n[1].shape == (num_envs, 2)
        for a, b in zip(out_n[:4], out_r[:4]):
            assert a.dtype == b.dtype
            np.testing.assert_array_equal(a, b)
        truncations += int(out_n[3].sum())
    assert truncations == 2 * num_envs
    native.close()
    reference.close()


# ---- the reference front ------------------------------------------------------------------------


def dominates(a: np.ndarray, b: np.ndarray) -> bool:
    return bool((a >= b).all() and (a > b).any())


def test_reference_front_points_are_mutually_non_dominated():
    points = MOQuadrotorEnv().reference_front()
    assert points.shape == (9, 2)
    for i, a in enumerate(points):
        for j, b in enumerate(points):
            assert i == j or not dominates(a, b), (a, b)
    assert (np.diff(points[:, 0]) > 0).all() and (np.diff(points[:, 1]) < 0).all()  # a trade-off curve


def test_reference_front_keeps_exactly_the_undominated_settings():
    table = np.array(front.RECORDED_SETTINGS)
    assert table.shape == (12, 3) and tuple(table[:, 0]) == front.MAX_SPEEDS
    points = front.reference_front()
    for row in table:
        dominated = any(dominates(other, row[1:]) for other in table[:, 1:])
        assert dominated != any((row[1:] == p).all() for p in points)
    assert sorted(table[~front.non_dominated(table[:, 1:]), 0]) == [2.0, 2.5, 3.0]


def test_reference_point_is_dominated_by_every_front_point():
    ref = front.reference_point()
    np.testing.assert_array_equal(ref, [0.0, -50.0])
    assert all((p > ref).all() for p in front.reference_front())


def test_recorded_settings_are_reproduced():
    """The recorded table is what compute_settings() gives (the command in front.py's docstring)."""
    np.testing.assert_allclose(np.array(front.compute_settings()), np.array(front.RECORDED_SETTINGS), rtol=1e-9)


def test_front_seeds_are_the_test_split():
    test = scenario_sets.load_set("control/mo-quadrotor").split("test")
    assert test.generator == "quadrotor/goal" and dict(test.kwargs) == {}
    assert list(test.seeds) == list(front.TEST_SEEDS)
    assert registration.spec(ENV_ID).max_episode_steps == front.MAX_EPISODE_STEPS


def test_non_dominated_helper():
    points = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5], [0.4, 0.4], [1.0, 0.0]])
    assert front.non_dominated(points).tolist() == [True, True, True, False, False]


def test_reference_front_refuses_other_configurations():
    with pytest.raises(ValueError, match="registered configuration"):
        MOQuadrotorEnv(generator_kwargs={"goal_distance": (2.0, 2.5)}).reference_front()
    with pytest.raises(ValueError, match="frame 'plus'"):
        MOQuadrotorEnv(frame="plus").reference_front()
    with pytest.raises(ValueError, match="500 steps"):
        MOQuadrotorVectorEnv(num_envs=2, max_episode_steps=500).reference_front()
    assert MOQuadrotorVectorEnv(num_envs=2).reference_front().shape == (9, 2)


# ---- the baseline -------------------------------------------------------------------------------


@pytest.mark.parametrize("weights, speed", [((0.5, 0.5), 0.6), ((1.0, 0.0), 1.5), ((0.0, 1.0), 0.2), ((0.9, 0.1), 1.0)])
def test_weighted_pid_picks_the_best_recorded_setting(weights, speed):
    assert WeightedPIDPolicy(weights).max_speed == speed


def test_weighted_pid_flies_its_recorded_return():
    policy = WeightedPIDPolicy((0.5, 0.5))
    env = MOQuadrotorVectorEnv(num_envs=len(front.TEST_SEEDS))
    env.reset(seed=front.TEST_SEEDS.start)
    returns = np.zeros((env.num_envs, 2))
    for _ in range(200):
        _, rewards, terminated, truncated, _ = env.step(policy(env))
        returns += rewards
        assert not terminated.any()
    assert truncated.all()
    row = next(r for r in front.RECORDED_SETTINGS if r[0] == 0.6)
    np.testing.assert_allclose(returns.mean(axis=0), row[1:], rtol=1e-12)


def test_weighted_pid_refuses_bad_weights():
    for bad in [(0.0, 0.0), (-1.0, 1.0), (1.0,), (np.nan, 1.0)]:
        with pytest.raises(ValueError, match="weights must be two non-negative numbers"):
            WeightedPIDPolicy(bad)


# ---- invalid input, conformance -----------------------------------------------------------------


def test_errors_name_the_mo_env():
    env = make_env()
    with pytest.raises(InvalidActionError, match="MO-Quadrotor-v0 expects actions in Box"):
        env.step(act(np.nan, 0, 0, 0))
    with pytest.raises(ValueError, match="MO-Quadrotor-v0: crash_penalty"):
        MOQuadrotorEnv(crash_penalty=-1.0)
    with pytest.raises(ValueError, match="MO-Quadrotor-v0: frame must be one of"):
        MOQuadrotorVectorEnv(num_envs=2, frame="h")
    bad = np.zeros((3, 4), dtype=np.float32)
    bad[1, 2] = 2.0
    vector = MOQuadrotorVectorEnv(num_envs=3)
    vector.reset(seed=0)
    with pytest.raises(InvalidActionError, match=r"MO-Quadrotor-v0.*world 1 sent"):
        vector.step(bad)


def test_hover_generator_works_too():
    env = MOQuadrotorEnv(generator=HoverGenerator())
    env.reset(seed=0)
    _, reward, *_ = env.step(np.full(4, env.scenario.hover_command, dtype=np.float32))
    assert reward in env.reward_space


def test_check_env_multi_objective_mode():
    from benchmarkzoo.testing import check_env

    check_env(ENV_ID, steps=500, strict=True)


def test_docstring_example():
    failures, tried = doctest.testmod(mo_env, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert tried > 0 and failures == 0
