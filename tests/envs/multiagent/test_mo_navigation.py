"""MO-Navigation-v0: the three objectives on hand-built situations (a head-on collision, a zero action,
progress as the decrease of the goal distance), the reward space, the same world as Navigation-v0,
the native vector form, the scenario set and the baseline."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import benchmarkzoo
from benchmarkzoo import registration, scenario_sets
from benchmarkzoo.core.errors import InvalidActionError, ScenarioError
from benchmarkzoo.envs.multiagent.navigation import sim
from benchmarkzoo.envs.multiagent.navigation.baseline import PotentialFieldPolicy
from benchmarkzoo.envs.multiagent.navigation.env import MONavigationEnv, NavigationEnv
from benchmarkzoo.envs.multiagent.navigation.generator import NavigationScenario, UniformGenerator
from benchmarkzoo.envs.multiagent.navigation.vector_env import MONavigationVectorEnv
from benchmarkzoo.testing import check_parallel_env, check_parallel_vector_matches_single

ENV_ID = "benchmarkzoo/MO-Navigation-v0"
PROGRESS, ENERGY, COLLISION = range(3)

registered = pytest.mark.skipif(
    ENV_ID not in {s.id for s in registration.list_envs()}, reason="MO-Navigation-v0 is not registered"
)


def scenario(starts, goals, obstacles=()) -> NavigationScenario:
    starts = np.asarray(starts, dtype=np.float64)
    return NavigationScenario(
        arena_size=2.0,
        agent_radius=0.1,
        starts=starts,
        goals=np.asarray(goals, dtype=np.float64),
        headings=np.tile([1.0, 0.0], (len(starts), 1)),
        obstacles=np.asarray(obstacles, dtype=np.float64).reshape(-1, 3),
    )


def env_for(s: NavigationScenario, cls=MONavigationEnv, **kwargs):
    generator = UniformGenerator(
        num_agents=s.num_agents,
        num_obstacles=s.num_obstacles,
        obstacle_min_radius=0.01,
        obstacle_max_radius=0.01,
        min_separation=0.0,
    )
    env = cls(generator=generator, **kwargs)
    env.reset(seed=0, options={"scenario": s})
    return env


def act(*pairs) -> np.ndarray:
    return np.array(pairs, dtype=np.float32)


def goal_distance(env, k: int) -> float:
    state = env.sim_state
    return float(np.hypot(state.gx[0, k] - state.px[0, k], state.gy[0, k] - state.py[0, k]))


# ---- the objectives -----------------------------------------------------------------------------


def test_a_head_on_collision_costs_both_robots_one_collision():
    env = env_for(scenario([[-0.6, 0.0], [0.6, 0.0]], [[1.8, 0.0], [-1.8, 0.0]]))
    collision_steps = 0
    for _ in range(40):
        before = [goal_distance(env, 0), goal_distance(env, 1)]
        _, rewards, _, _, infos = env.step({"robot_0": act(1.0, 0.0), "robot_1": act(-1.0, 0.0)})
        for k, agent in enumerate(("robot_0", "robot_1")):
            assert rewards[agent][ENERGY] == -0.5  # full effort on one axis, charged even when the move is cancelled
            assert rewards[agent][PROGRESS] == np.float32(before[k] - goal_distance(env, k))
        if infos["robot_0"]["collision"]:
            collision_steps += 1
            assert infos["robot_1"]["collision"]
            # both moves cancelled: no progress, the whole collision objective to each robot
            np.testing.assert_array_equal(rewards["robot_0"], [0.0, -0.5, -1.0])
            np.testing.assert_array_equal(rewards["robot_1"], [0.0, -0.5, -1.0])
        else:
            assert rewards["robot_0"][COLLISION] == 0.0 and rewards["robot_1"][COLLISION] == 0.0
    assert collision_steps > 0


def test_an_obstacle_collision_costs_only_the_robot():
    env = env_for(scenario([[-0.6, 0.0], [1.5, 1.5]], [[1.0, 0.0], [1.5, -1.5]], obstacles=[[0.0, 0.0, 0.3]]))
    hits = 0
    for _ in range(30):
        _, rewards, _, _, infos = env.step({"robot_0": act(1.0, 0.0), "robot_1": act(0.0, 0.0)})
        assert rewards["robot_0"][COLLISION] == (-1.0 if infos["robot_0"]["collision"] else 0.0)
        hits += infos["robot_0"]["collision"]
        np.testing.assert_array_equal(rewards["robot_1"], [0.0, 0.0, 0.0])
    assert hits > 0


def test_a_zero_action_costs_no_energy():
    env = env_for(scenario([[0.0, 0.0], [1.0, 1.0]], [[1.5, 0.0], [-1.0, 1.0]]))
    _, rewards, _, _, _ = env.step({"robot_0": act(0.0, 0.0), "robot_1": act(0.0, 0.0)})
    for agent in ("robot_0", "robot_1"):  # at rest: nothing moves, nothing is spent
        assert rewards[agent].tolist() == [0.0, 0.0, 0.0]
        assert not np.signbit(rewards[agent]).any()  # +0.0, not -0.0
    env.step({"robot_0": act(1.0, 0.0), "robot_1": act(0.0, 0.0)})  # robot_0 now moves at 0.2 m/s
    before = goal_distance(env, 0)
    _, rewards, _, _, _ = env.step({"robot_0": act(0.0, 0.0), "robot_1": act(0.0, 0.0)})  # coasting is free
    assert rewards["robot_0"][ENERGY] == 0.0
    assert rewards["robot_0"][PROGRESS] == np.float32(before - goal_distance(env, 0)) == np.float32(0.02)


@pytest.mark.parametrize("a,energy", [((1.0, 1.0), -1.0), ((0.5, 0.0), -0.125), ((-0.5, 0.5), -0.25)])
def test_energy_is_half_the_squared_action(a, energy):
    env = env_for(scenario([[0.0, 0.0]], [[1.5, 1.5]]))
    _, rewards, _, _, _ = env.step({"robot_0": act(*a)})
    assert rewards["robot_0"][ENERGY] == energy


def test_progress_is_the_decrease_of_the_goal_distance_and_sums_over_the_episode():
    env = env_for(scenario([[-1.0, -1.0]], [[1.0, 0.5]]))
    start = goal_distance(env, 0)
    total = 0.0
    rng = np.random.default_rng(0)
    for _ in range(25):
        before = goal_distance(env, 0)
        _, rewards, _, _, _ = env.step({"robot_0": rng.uniform(-1, 1, 2).astype(np.float32)})
        after = goal_distance(env, 0)
        assert rewards["robot_0"][PROGRESS] == np.float32(before - after)
        total += float(rewards["robot_0"][PROGRESS])
    assert total == pytest.approx(start - goal_distance(env, 0), abs=1e-6)


def test_arrival_earns_no_bonus_and_an_arrived_robot_is_absent():
    env = env_for(scenario([[0.0, 0.0], [0.5, 0.0]], [[0.0, 0.06], [1.5, 1.5]]))
    still = act(0.0, 0.0)
    _, rewards, terminations, _, _ = env.step({"robot_0": still, "robot_1": still})
    assert terminations["robot_0"] and rewards["robot_0"].tolist() == [0.0, 0.0, 0.0]
    _, rewards, _, _, _ = env.step({"robot_1": act(0.0, 1.0)})
    assert set(rewards) == {"robot_1"} and rewards["robot_1"][ENERGY] == -0.5


def test_reward_space_bounds_dtype_and_momaland_attributes():
    env = env_for(scenario([[-1.8, -1.8]], [[1.8, 1.8]]), max_speed=2.0, dt=0.05)
    space = env.reward_space("robot_0")
    assert space.dtype == np.float32 and space.shape == (3,)
    np.testing.assert_array_equal(space.low, np.float32([-0.1, -1.0, -1.0]))
    np.testing.assert_array_equal(space.high, np.float32([0.1, 0.0, 0.0]))
    assert env.reward_spaces == {"robot_0": space}
    for _ in range(30):  # full speed along a diagonal: progress reaches the bound
        _, rewards, _, _, _ = env.step({"robot_0": act(1.0, 1.0)})
        assert rewards["robot_0"].dtype == np.float32 and space.contains(rewards["robot_0"])
    assert rewards["robot_0"][PROGRESS] == pytest.approx(0.1, abs=1e-9)
    assert not hasattr(NavigationEnv, "reward_space")


def test_same_world_as_navigation_v0():
    """Same seed and actions: MO-Navigation-v0 plays Navigation-v0's episode; the scalar reward is the weighted sum."""
    generator = UniformGenerator(num_agents=5, num_obstacles=3)
    mo, scalar = MONavigationEnv(generator=generator, max_cycles=40), NavigationEnv(generator=generator, max_cycles=40)
    rng = np.random.default_rng(1)
    for seed in (0, 1):
        obs_mo, _ = mo.reset(seed=seed)
        obs, _ = scalar.reset(seed=seed)
        while scalar.agents:
            assert mo.agents == scalar.agents
            actions = {a: rng.uniform(-1, 1, 2).astype(np.float32) for a in scalar.agents}
            obs_mo, r_mo, term_mo, trunc_mo, _ = mo.step(actions)
            obs, r, term, trunc, infos = scalar.step(actions)
            assert (term_mo, trunc_mo) == (term, trunc)
            for agent in obs:
                np.testing.assert_array_equal(obs_mo[agent], obs[agent])
                expected = r_mo[agent][PROGRESS] + 0.5 * r_mo[agent][COLLISION] + 1.0 * term[agent]
                assert r[agent] == pytest.approx(expected, abs=1e-6)
                assert (r_mo[agent][COLLISION] == -1.0) == infos[agent]["collision"]


# ---- vector form, refusals ----------------------------------------------------------------------


def test_vector_rewards_are_float32_per_objective_and_match_the_parallel_env():
    generator = UniformGenerator(num_agents=3, num_obstacles=2)
    vec = MONavigationVectorEnv(num_envs=4, generator=generator)
    par = MONavigationEnv(generator=generator)
    vec.reset(seed=7)
    par.reset(seed=9)
    assert vec.single_reward_space == par.reward_space("robot_0")
    policy = PotentialFieldPolicy()
    for _ in range(20):
        actions = policy(vec)
        _, rewards, _, _, _ = vec.step(actions)
        _, p_rewards, _, _, _ = par.step({a: actions[2, int(a[-1])] for a in par.agents})
        assert rewards.shape == (4, 3, 3) and rewards.dtype == np.float32
        for agent, value in p_rewards.items():
            np.testing.assert_array_equal(rewards[2, int(agent[-1])], value)
        assert (rewards[..., ENERGY] <= 0).all() and (rewards[..., PROGRESS] != 0).any()


def test_errors_name_the_mo_env():
    env = env_for(scenario([[0.0, 0.0]], [[1.5, 1.5]]))
    with pytest.raises(InvalidActionError, match=r"benchmarkzoo/MO-Navigation-v0 expects actions in Box"):
        env.step({"robot_0": act(2.0, 0.0)})
    with pytest.raises(ScenarioError, match=r"MO-Navigation-v0 was made for 1 robots"):
        env.reset(options={"scenario": scenario([[0.0, 0.0], [1.0, 0.0]], [[1, 1], [-1, 1]])})
    with pytest.raises(ValueError, match=r"MO-Navigation-v0: dt must be a number"):
        MONavigationEnv(dt=0.0)
    with pytest.raises(TypeError):
        MONavigationEnv(collision_penalty=1.0)  # the objectives are not weighted
    vec = MONavigationVectorEnv(num_envs=2, generator=UniformGenerator(num_agents=2, num_obstacles=0))
    vec.reset(seed=0)
    with pytest.raises(InvalidActionError, match=r"MO-Navigation-v0 .*world 1, agent 'robot_0'"):
        vec.step(np.array([[[0, 0], [0, 0]], [[np.nan, 0], [0, 0]]], dtype=np.float32))


# ---- registered form: conformance, scenario set, baseline ---------------------------------------


@registered
def test_unicycle_passes_the_parallel_checks_and_matches_its_vector_form():
    check_parallel_env(lambda: benchmarkzoo.make_parallel(ENV_ID, dynamics="unicycle"), seed=2, steps=200, strict=True)
    summary = check_parallel_vector_matches_single(
        ENV_ID,
        num_envs=4,
        steps=150,
        seed=0,
        autoreset_mode=AutoresetMode.NEXT_STEP,
        dynamics="unicycle",
        max_cycles=30,
    )
    assert summary["episodes_ended"] > 0


@registered
def test_scenario_set_verifies_and_matches_navigation_v0s():
    loaded = scenario_sets.load_set("multiagent/mo-navigation")
    assert loaded.env == ENV_ID and set(loaded.splits) >= {"train", "test", "ood"}
    assert scenario_sets.verify(loaded, ["test"]) == []
    reference = scenario_sets.load_set("multiagent/navigation")
    for name, split in loaded.splits.items():
        assert split.hashes == reference.split(name).hashes  # the same scenarios, scored by objectives


@registered
def test_baseline_on_the_test_split_per_objective():
    """Per-robot episode returns of the potential-field planner (measured: progress 1.871, energy -9.11,
    collision -0.195 per robot; a zero-action policy scores 0 on all three, so the objectives conflict)."""
    split = scenario_sets.load_set("multiagent/mo-navigation").split("test")
    env = benchmarkzoo.make_vec(ENV_ID, num_envs=len(split.seeds), **split.env_kwargs())
    env.reset(seed=split.seeds.start)
    policy = PotentialFieldPolicy()
    returns = np.zeros((env.num_envs, env.num_agents, 3))
    done = np.zeros(env.num_envs, dtype=bool)
    while not done.all():
        _, rewards, _, _, infos = env.step(policy(env))
        returns[~done] += rewards[~done]
        done |= ~infos["active"].any(axis=1)
    progress, energy, collision = returns.mean(axis=(0, 1))
    assert progress > 1.7 and -12.0 < energy < -6.0 and -0.4 < collision < 0.0, (progress, energy, collision)


def test_mo_rewards_masks_robots_that_did_not_act():
    params = sim.Params(num_agents=2, num_obstacles=0)
    state = sim.init_state(params, 1)
    sim.load(state, 0, scenario([[0.0, 0.0], [1.0, 0.0]], [[1.5, 1.5], [-1.5, 1.5]]))
    state.active[0, 1] = False
    actions = act([1.0, 1.0], [1.0, 1.0])[None]
    result = sim.step(state, actions, params)
    rewards = sim.mo_rewards(result)
    assert rewards[0, 1].tolist() == [0.0, 0.0, 0.0] and rewards[0, 0, ENERGY] == -1.0
