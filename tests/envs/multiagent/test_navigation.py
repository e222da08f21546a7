"""Navigation-v0: physics on hand-written scenarios (kinematics, collisions, obstacles, walls, the
safety filter), arrival, observations, refusals, the generator, the scenario set, the baseline,
and conformance (PettingZoo tests, native vector equals ParallelEnvs bit for bit)."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import benchmarkzoo
from benchmarkzoo import registration, scenario_sets
from benchmarkzoo.core.errors import (
    GeneratorArgumentError,
    InvalidActionError,
    InvalidAgentError,
    ResetNeededError,
    ScenarioError,
)
from benchmarkzoo.core.extras import available
from benchmarkzoo.envs.multiagent.navigation import sim
from benchmarkzoo.envs.multiagent.navigation.baseline import PotentialFieldPolicy
from benchmarkzoo.envs.multiagent.navigation.env import NavigationEnv
from benchmarkzoo.envs.multiagent.navigation.generator import NavigationScenario, UniformGenerator
from benchmarkzoo.envs.multiagent.navigation.vector_env import NavigationVectorEnv
from benchmarkzoo.testing import check_generator, check_parallel_env, check_parallel_vector_matches_single

ENV_ID = "benchmarkzoo/Navigation-v0"
NAV = "benchmarkzoo.envs.multiagent.navigation"
GENERATOR = "navigation/uniform"


@pytest.fixture(scope="module")
def registered():
    """Navigation-v0 and its generator in the registry for this module (unless the catalogue has them)."""
    added_env = ENV_ID not in registration._ENVS
    added_generator = GENERATOR not in registration._GENERATORS
    if added_generator:
        registration.register_generator(GENERATOR, f"{NAV}.generator:UniformGenerator")
    if added_env:
        registration.register(
            ENV_ID,
            kind="parallel",
            family="multiagent",
            entry_point=f"{NAV}.env:NavigationEnv",
            vector_entry_point=f"{NAV}.vector_env:NavigationVectorEnv",
            max_episode_steps=100,
            kwargs={"generator": GENERATOR, "generator_kwargs": {"num_agents": 4, "num_obstacles": 4}},
            description="Continuous multi-robot navigation among circular obstacles, holonomic or unicycle robots.",
            baseline=f"{NAV}.baseline:PotentialFieldPolicy",
            scenario_sets=("multiagent/navigation",),
        )
    yield
    if added_env:
        from pettingzoo.env_registry import registration as pz

        del registration._ENVS[ENV_ID]
        pz.parallel_registry.pop(ENV_ID, None)
        pz.aec_registry.pop(ENV_ID, None)
    if added_generator:
        del registration._GENERATORS[GENERATOR]


def scenario(starts, goals, obstacles=(), headings=None, arena_size=2.0, agent_radius=0.1) -> NavigationScenario:
    starts = np.asarray(starts, dtype=np.float64)
    if headings is None:
        headings = np.tile([1.0, 0.0], (len(starts), 1))
    return NavigationScenario(
        arena_size=arena_size,
        agent_radius=agent_radius,
        starts=starts,
        goals=np.asarray(goals, dtype=np.float64),
        headings=np.asarray(headings, dtype=np.float64),
        obstacles=np.asarray(obstacles, dtype=np.float64).reshape(-1, 3),
    )


def env_for(s: NavigationScenario, **kwargs) -> NavigationEnv:
    """An env sized for scenario ``s`` (same robots, obstacles, arena), reset onto it."""
    generator = UniformGenerator(
        num_agents=s.num_agents,
        num_obstacles=s.num_obstacles,
        arena_size=s.arena_size,
        agent_radius=s.agent_radius,
        obstacle_min_radius=0.01,
        obstacle_max_radius=0.01,
        min_separation=0.0,
    )
    env = NavigationEnv(generator=generator, **kwargs)
    env.reset(seed=0, options={"scenario": s})
    return env


def act(*pairs) -> np.ndarray:
    return np.array(pairs, dtype=np.float32)


def positions(env: NavigationEnv) -> np.ndarray:
    state = env.sim_state
    return np.stack([state.px[0], state.py[0]], axis=1)


# ---- dynamics -----------------------------------------------------------------------------------


def test_constant_acceleration_gives_the_kinematic_positions():
    env = env_for(scenario([[-1.5, -1.5]], [[1.5, 1.5]]))
    a = 0.25  # action; 0.5 m/s^2, so the speed stays under 1 m/s for the 8 steps (0.4 m/s)
    for n in range(1, 9):
        observations, _, _, _, _ = env.step({"robot_0": act(a, -a / 2)})
        t = 0.1 * n
        accel = a * env.params.max_accel
        np.testing.assert_allclose(
            positions(env)[0], [-1.5 + 0.5 * accel * t * t, -1.5 - 0.25 * accel * t * t], rtol=0, atol=1e-12
        )
        np.testing.assert_allclose(observations["robot_0"][2:4], [accel * t, -accel * t / 2], rtol=0, atol=1e-6)


def test_speed_is_limited_and_the_move_uses_the_mean_velocity():
    env = env_for(scenario([[-1.5, 0.0]], [[1.5, 1.5]]))
    for _ in range(10):  # 2 m/s^2 for 1 s would reach 2 m/s; the limit is 1 m/s
        env.step({"robot_0": act(1.0, 0.0)})
    assert env.sim_state.vx[0, 0] == pytest.approx(1.0) and env.sim_state.vy[0, 0] == 0.0
    x = env.sim_state.px[0, 0]
    env.step({"robot_0": act(1.0, 0.0)})
    assert env.sim_state.px[0, 0] - x == pytest.approx(0.1)


def test_unicycle_drives_along_its_heading_and_turns():
    s = scenario([[0.0, 0.0]], [[1.5, 1.5]], headings=[[0.0, 1.0]])
    env = env_for(s, dynamics="unicycle")
    env.step({"robot_0": act(0.5, 0.0)})  # 0.5 m/s north for 0.1 s
    np.testing.assert_allclose(positions(env)[0], [0.0, 0.05], atol=1e-15)
    env.step({"robot_0": act(0.0, 1.0)})  # turn left in place by 2 atan(0.1)
    turn = 2 * np.arctan(0.1)
    np.testing.assert_allclose(
        [env.sim_state.hx[0, 0], env.sim_state.hy[0, 0]], [-np.sin(turn), np.cos(turn)], atol=1e-12
    )
    np.testing.assert_allclose(positions(env)[0], [0.0, 0.05], atol=1e-15)


# ---- collisions ---------------------------------------------------------------------------------


def test_head_on_robots_stop_without_passing_and_are_penalized():
    env = env_for(scenario([[-0.6, 0.0], [0.6, 0.0]], [[1.8, 0.0], [-1.8, 0.0]]))
    collided_any = False
    for _ in range(40):
        _, rewards, _, _, infos = env.step({"robot_0": act(1.0, 0.0), "robot_1": act(-1.0, 0.0)})
        pos = positions(env)
        assert pos[1, 0] - pos[0, 0] >= 2 * 0.1, "the discs overlap"
        assert pos[0, 0] < pos[1, 0], "the robots passed through each other"
        if infos["robot_0"]["collision"]:
            collided_any = True
            assert infos["robot_1"]["collision"]
            assert rewards["robot_0"] == pytest.approx(-0.5) and rewards["robot_1"] == pytest.approx(-0.5)
            assert env.sim_state.vx[0].tolist() == [0.0, 0.0]  # both stopped
    assert collided_any
    assert pos[1, 0] - pos[0, 0] < 0.3  # they did close in before stopping
    assert env.sim_state.collisions[0] > 0


def test_an_obstacle_blocks_a_robot():
    env = env_for(scenario([[-1.0, 0.0]], [[1.0, 0.0]], obstacles=[[0.0, 0.0, 0.3]]))
    hits = 0
    for _ in range(40):
        _, _, _, _, infos = env.step({"robot_0": act(1.0, 0.0)})
        assert positions(env)[0, 0] <= -0.4, "the robot entered the obstacle"
        hits += infos["robot_0"]["collision"]
    assert hits > 0 and positions(env)[0, 0] > -0.6
    assert env.sim_state.vy[0, 0] == 0.0 and positions(env)[0, 1] == 0.0


def test_walls_stop_robots_without_a_penalty():
    env = env_for(scenario([[1.5, 0.0]], [[-1.5, 0.0]]))
    for _ in range(15):
        _, _, _, _, infos = env.step({"robot_0": act(1.0, 0.0)})
        assert not infos["robot_0"]["collision"]
    assert positions(env)[0, 0] == pytest.approx(1.9) and env.sim_state.vx[0, 0] == 0.0


def test_the_unicycle_safety_filter_stops_head_on_robots_before_contact():
    s = scenario([[-0.6, 0.0], [0.6, 0.0]], [[1.8, 0.0], [-1.8, 0.0]], headings=[[1.0, 0.0], [-1.0, 0.0]])
    env = env_for(s, dynamics="unicycle")
    assert env.params.safety_filter
    for _ in range(40):
        _, _, _, _, infos = env.step({"robot_0": act(1.0, 0.0), "robot_1": act(1.0, 0.0)})
        assert not infos["robot_0"]["collision"] and not infos["robot_1"]["collision"]
    gap = positions(env)[1, 0] - positions(env)[0, 0] - 0.2
    assert 0 < gap < 0.01  # closed in, never touched
    unfiltered = env_for(s, dynamics="unicycle", safety_filter=False)
    hits = [
        unfiltered.step({"robot_0": act(1.0, 0.0), "robot_1": act(1.0, 0.0)})[4]["robot_0"]["collision"]
        for _ in range(10)
    ]
    assert any(hits)


# ---- goals, observations ------------------------------------------------------------------------


def test_an_arrived_robot_is_terminated_rewarded_and_leaves():
    env = env_for(scenario([[0.0, 0.0], [0.5, 0.0]], [[0.0, 0.06], [1.5, 1.5]]))
    still = act(0.0, 0.0)
    observations, rewards, terminations, _, infos = env.step({"robot_0": still, "robot_1": still})
    assert terminations == {"robot_0": True, "robot_1": False}  # within goal_radius 0.1 already
    assert rewards["robot_0"] == pytest.approx(1.0) and rewards["robot_1"] == 0.0
    assert infos["robot_0"]["is_success"] and set(observations) == {"robot_0", "robot_1"}
    assert env.agents == ["robot_1"]
    assert observations["robot_1"][6 + 4] == 0.0  # robot_0 has left: no neighbour row
    with pytest.raises(InvalidAgentError, match="Navigation-v0: agent 'robot_0' has already finished"):
        env.step({"robot_0": still, "robot_1": still})


def test_truncation_ends_the_episode_with_metrics():
    env = env_for(scenario([[0.0, 0.0], [0.5, 0.0]], [[0.0, 0.06], [1.5, 1.5]]), max_cycles=2)
    still = act(0.0, 0.0)
    env.step({"robot_0": still, "robot_1": still})
    _, _, terminations, truncations, infos = env.step({"robot_1": still})
    assert terminations == {"robot_1": False} and truncations == {"robot_1": True} and env.agents == []
    assert infos["robot_1"] == {
        "is_success": False,
        "collision": False,
        "success_rate": 0.5,
        "cooperative_success": False,
        "collisions": 0,
    }
    with pytest.raises(ResetNeededError, match="every robot has finished"):
        env.step({})


def test_observation_layout_nearest_first_with_masks():
    s = scenario(
        [[0.0, 0.0], [1.0, 0.0], [0.0, -0.5]],
        [[1.5, 1.5], [-1.5, 1.5], [-1.5, -1.5]],
        obstacles=[[-1.0, 0.0, 0.2], [0.0, 1.0, 0.5]],
    )
    env = env_for(s, num_neighbours=3, num_obstacles_seen=3)
    observations, _ = env.reset(options={"scenario": s})
    obs = observations["robot_0"]
    assert obs.shape == (6 + 5 * 3 + 4 * 3,)
    np.testing.assert_array_equal(obs[:6], [0, 0, 0, 0, 1.5, 1.5])
    np.testing.assert_array_equal(obs[6:21], [0, -0.5, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0])  # nearest first, padded
    # obstacle edges: (0, 1, 0.5) is 0.5 away, (-1, 0, 0.2) is 0.8 away
    np.testing.assert_allclose(obs[21:], [0, 1, 0.5, 1, -1, 0, 0.2, 1, 0, 0, 0, 0])
    assert env.observation_space("robot_0").contains(obs)


# ---- refusals -----------------------------------------------------------------------------------


@pytest.fixture
def two_robots():
    return env_for(scenario([[0.0, 0.0], [0.5, 0.0]], [[1.5, 1.5], [-1.5, 1.5]]))


@pytest.mark.parametrize(
    "bad",
    [act(1.5, 0.0), act(np.nan, 0.3), np.zeros(2), np.zeros(3, np.float32), None, [0.0, 2.0]],
    ids=["out-of-range", "nan", "float64", "shape", "none", "list-out-of-range"],
)
def test_invalid_actions_name_the_env_and_robot(two_robots, bad):
    with pytest.raises(InvalidActionError, match=r"benchmarkzoo/Navigation-v0 expects actions in Box.*agent 'robot_1'"):
        two_robots.step({"robot_0": act(0, 0), "robot_1": bad})
    np.testing.assert_array_equal(positions(two_robots), [[0.0, 0.0], [0.5, 0.0]])  # refusals change nothing


def test_unknown_and_missing_robots_are_named(two_robots):
    still = act(0, 0)
    with pytest.raises(InvalidAgentError, match=r"Navigation-v0: unknown agent 'robot_7'"):
        two_robots.step({"robot_0": still, "robot_1": still, "robot_7": still})
    with pytest.raises(InvalidAgentError, match=r"no action for live agent\(s\) 'robot_1'"):
        two_robots.step({"robot_0": still})
    with pytest.raises(InvalidAgentError, match="expects a dict of actions"):
        two_robots.step([still, still])


def test_vector_form_refuses_bad_batches_naming_world_and_robot():
    env = NavigationVectorEnv(num_envs=3, generator=UniformGenerator(num_agents=2, num_obstacles=1))
    env.reset(seed=0)
    actions = np.zeros((3, 2, 2), dtype=np.float32)
    actions[1, 1, 0] = 2.0
    with pytest.raises(InvalidActionError, match=r"world 1, agent 'robot_1' sent \[2.0, 0.0\]"):
        env.step(actions)
    with pytest.raises(InvalidActionError, match=r"float32 array of shape \(3, 2, 2\)"):
        env.step(np.zeros((3, 2)))
    with pytest.raises(InvalidActionError, match="float32"):
        env.step(np.zeros((3, 2, 2)))  # float64


def test_step_before_reset_bad_arguments_and_foreign_scenarios_are_refused():
    env = NavigationEnv(generator=UniformGenerator(num_agents=2, num_obstacles=1))
    with pytest.raises(ResetNeededError, match=r"call reset\(\) before step\(\)"):
        env.step({"robot_0": act(0, 0)})
    with pytest.raises(ScenarioError, match=r"2 robots of radius 0\.1 and 1 obstacles"):
        env.reset(options={"scenario": UniformGenerator(num_agents=3, num_obstacles=1).sample(0)})
    with pytest.raises(ValueError, match="dynamics must be one of"):
        NavigationEnv(generator=UniformGenerator(), dynamics="tank")
    with pytest.raises(ValueError, match=r"dt must be a number in \(0.0, 1.0\]"):
        NavigationEnv(generator=UniformGenerator(), dt=0.0)
    with pytest.raises(ScenarioError, match="robots 0 and 1 overlap"):
        scenario([[0.0, 0.0], [0.1, 0.0]], [[1, 1], [-1, 1]])


# ---- generator, scenario set --------------------------------------------------------------------


def test_generator_keeps_its_separations_and_is_seeded():
    generator = UniformGenerator(num_agents=8, num_obstacles=6, arena_size=2.0, agent_radius=0.1, min_separation=0.1)
    hashes = check_generator(generator, seeds=range(20))
    assert len(set(hashes.values())) == 20
    for seed in range(20):
        s = generator.sample(seed)
        points = np.concatenate([s.starts, s.goals])
        gaps = np.hypot(*(points[:, None] - points[None]).transpose(2, 0, 1)) + np.eye(16) * 9
        assert gaps.min() >= 0.3 - 1e-12
        for x, y, radius in s.obstacles:
            assert np.hypot(points[:, 0] - x, points[:, 1] - y).min() - radius >= 0.2 - 1e-12
            assert 2.0 - max(abs(x), abs(y)) - radius >= 0.3 - 1e-12  # a robot fits past the wall
        o = s.obstacles
        between = np.hypot(*(o[:, None, :2] - o[None, :, :2]).transpose(2, 0, 1)) - o[:, None, 2] - o[None, :, 2]
        assert (between + np.eye(6) * 9).min() >= 0.3 - 1e-12  # a robot fits between any two obstacles


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"num_agents": 0}, r"num_agents must be an integer in \[1, 256\]; got 0"),
        ({"num_obstacles": -1}, r"num_obstacles must be an integer in \[0, 256\]; got -1"),
        ({"agent_radius": 2.0}, r"agent_radius must be a number in \[0.01, 1.0\]; got 2.0"),
        ({"obstacle_min_radius": 0.5, "obstacle_max_radius": 0.2}, r"obstacle_max_radius must be a number in \[0.5"),
        ({"num_agents": 200, "arena_size": 1.0}, "more than 50% of the 2 x 2 m arena"),
    ],
)
def test_generator_arguments_are_checked(kwargs, message):
    with pytest.raises(GeneratorArgumentError, match=message):
        UniformGenerator(**kwargs)


def test_scenario_set_verifies_and_the_env_plays_its_scenarios(registered):
    loaded = scenario_sets.load_set("multiagent/navigation")
    assert list(loaded.splits)[:3] == ["train", "test", "ood"]
    assert scenario_sets.verify(loaded, ["test", "ood"]) == []
    for tier in ("ood", "ood-large"):
        for key in ("num_agents", "num_obstacles"):
            assert loaded.split(tier).kwargs[key] > loaded.split("train").kwargs[key]
    for split in loaded.splits.values():
        env = benchmarkzoo.make_parallel(loaded.env, **split.env_kwargs())
        for seed in list(split.seeds)[:3]:
            env.reset(seed=seed)
            assert env.scenario.content_hash == split.hashes[seed], (split.name, seed)


# ---- baseline -----------------------------------------------------------------------------------


def first_episode_metrics(env: NavigationVectorEnv, policy) -> dict[str, np.ndarray]:
    """Each world's metrics of its first episode, ``(B,)`` per key."""
    keys = ("success_rate", "cooperative_success", "collisions")
    found = {key: np.zeros(env.num_envs) for key in keys}
    done = np.zeros(env.num_envs, dtype=bool)
    while not done.all():
        _, _, _, _, infos = env.step(policy(env))
        if "_success_rate" in infos:
            new = infos["_success_rate"] & ~done
            for key in keys:
                found[key][new] = infos[key][new]
            done |= new
    return found


@pytest.mark.parametrize("dynamics", ["holonomic", "unicycle"])
def test_baseline_success_on_the_test_split(registered, dynamics):
    split = scenario_sets.load_set("multiagent/navigation").split("test")
    env = benchmarkzoo.make_vec(ENV_ID, num_envs=len(split.seeds), dynamics=dynamics, **split.env_kwargs())
    env.reset(seed=split.seeds.start)  # world i plays seed start + i: the split's seeds
    metrics = first_episode_metrics(env, PotentialFieldPolicy())
    assert metrics["success_rate"].mean() >= 0.95, metrics["success_rate"].mean()  # measured 0.998 / 0.993
    assert metrics["cooperative_success"].mean() >= 0.9, metrics["cooperative_success"].mean()  # 0.99 / 0.98
    if dynamics == "unicycle":
        assert metrics["collisions"].sum() == 0  # the safety filter prevents every collision


def test_baseline_acts_the_same_in_a_parallel_env_and_a_vector_world():
    generator = UniformGenerator(num_agents=4, num_obstacles=4)
    vec = NavigationVectorEnv(num_envs=3, generator=generator)
    vec.reset(seed=10)
    single = NavigationEnv(generator=generator)
    single.reset(seed=12)
    policy = PotentialFieldPolicy()
    for _ in range(30):
        batch = policy(vec)
        actions = policy(single)
        for agent, action in actions.items():
            np.testing.assert_array_equal(action, batch[2, int(agent[-1])])
        vec.step(batch)
        single.step(actions)
        if not single.agents:
            break


# ---- conformance, AEC, rendering ----------------------------------------------------------------


@pytest.mark.parametrize("dynamics", ["holonomic", "unicycle"])
def test_check_parallel_env_passes(registered, dynamics):
    check_parallel_env(lambda: benchmarkzoo.make_parallel(ENV_ID, dynamics=dynamics), seed=0, steps=300, strict=True)


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.DISABLED], ids=["next-step", "disabled"])
@pytest.mark.parametrize("dynamics", ["holonomic", "unicycle"])
def test_native_vector_matches_parallel_envs_bit_for_bit(registered, mode, dynamics):
    summary = check_parallel_vector_matches_single(
        ENV_ID,
        num_envs=6,
        steps=300,
        seed=0,
        autoreset_mode=mode,
        dynamics=dynamics,
        max_cycles=40,
    )
    assert summary["episodes_ended"] > 0


def test_native_vector_with_crowds_and_the_baseline_matches_parallel_envs(registered):
    """Many robots, arrivals and collisions: the rules that reduce over robots must stay batch-independent."""
    kwargs = {"generator_kwargs": {"num_agents": 10, "num_obstacles": 6, "arena_size": 2.0}, "max_cycles": 60}
    vec = benchmarkzoo.make_vec(ENV_ID, num_envs=5, **kwargs)
    pars = [benchmarkzoo.make_parallel(ENV_ID, **kwargs) for _ in range(5)]
    vec.reset(seed=3)
    for i, par in enumerate(pars):
        par.reset(seed=3 + i)
    policy, rng = PotentialFieldPolicy(), np.random.default_rng(0)
    collisions = arrivals = 0
    for _ in range(59):
        actions = np.clip(policy(vec) + rng.normal(0, 0.5, (5, 10, 2)).astype(np.float32), -1, 1)
        obs, rewards, terminations, _, infos = vec.step(actions)
        collisions += int(infos["collision"].sum())
        arrivals += int(terminations.sum())
        for i, par in enumerate(pars):
            p_obs, p_rewards, _, _, _ = par.step({a: actions[i, int(a.rsplit("_", 1)[1])] for a in par.agents})
            for agent, value in p_obs.items():
                k = int(agent.rsplit("_", 1)[1])
                np.testing.assert_array_equal(value, obs[i, k])
                assert p_rewards[agent] == rewards[i, k]
    assert collisions > 0 and arrivals > 0


def test_aec_form_passes_pettingzoo_api_test(registered):
    from pettingzoo.test import api_test

    api_test(benchmarkzoo.make_aec(ENV_ID, generator_kwargs={"num_agents": 3, "num_obstacles": 2}), num_cycles=100)


def test_any_number_of_robots_and_no_obstacles():
    for n, m in ((1, 0), (16, 16)):
        env = NavigationEnv(generator=UniformGenerator(num_agents=n, num_obstacles=m, arena_size=3.0), max_cycles=5)
        observations, _ = env.reset(seed=1)
        assert len(observations) == n
        while env.agents:
            env.step({a: env.action_space(a).sample() for a in env.agents})


@pytest.mark.skipif(not available("render"), reason="needs extra render: pip install 'benchmarkzoo[render]'")
def test_rgb_array_frame():
    env = NavigationEnv(generator=UniformGenerator(num_agents=3, num_obstacles=3), render_mode="rgb_array")
    env.reset(seed=0)
    frame = env.render()
    assert frame.shape == (480, 480, 3) and frame.dtype == np.uint8
    assert len(np.unique(frame.reshape(-1, 3), axis=0)) > 4  # floor, obstacles, robot colours


def test_sim_state_after_load_matches_the_scenario():
    s = UniformGenerator(num_agents=3, num_obstacles=2).sample(4)
    state = sim.init_state(sim.Params(num_agents=3, num_obstacles=2), 2)
    sim.load(state, 1, s)
    np.testing.assert_array_equal(np.stack([state.px[1], state.py[1]], axis=1), s.starts)
    np.testing.assert_array_equal(np.stack([state.ox[1], state.oy[1], state.orad[1]], axis=1), s.obstacles)


# ---- the batched fast paths (issue 4): same numbers as the straightforward forms -----------------


@pytest.mark.parametrize("k,count", [(2, 1), (3, 2), (4, 3), (4, 4), (8, 4)])
def test_nearest_by_comparison_equals_a_stable_argsort(k, count):
    rng = np.random.default_rng(k)
    key = rng.integers(0, 4, size=(5, k, 64)).astype(np.float64)  # many ties
    key[rng.random(key.shape) < 0.2] = np.inf
    assert key.shape[2] >= sim.RANK_MIN_WORLDS and k <= sim.RANK_BY_COMPARISON  # the comparison path
    expected = np.argsort(key, axis=1, kind="stable")[:, :count]
    np.testing.assert_array_equal(sim._nearest(key, count), expected)


@pytest.mark.parametrize("dynamics", ["holonomic", "unicycle"])
def test_many_worlds_match_parallel_envs_bit_for_bit(registered, dynamics):
    """Enough worlds for the vector-only paths (ranking by comparison needs RANK_MIN_WORLDS worlds)."""
    summary = check_parallel_vector_matches_single(
        ENV_ID,
        num_envs=sim.RANK_MIN_WORLDS + 3,
        steps=70,
        seed=5,
        dynamics=dynamics,
        max_cycles=30,
        generator_kwargs={"num_agents": 4, "num_obstacles": 3},
    )
    assert summary["episodes_ended"] > 0


def test_generated_scenarios_pass_the_scenario_checks():
    """The generator builds scenarios without re-running the checks: they would all pass."""
    generator = UniformGenerator(num_agents=6, num_obstacles=5)
    for seed in range(30):
        s = generator.sample(seed)
        checked = NavigationScenario(
            arena_size=s.arena_size,
            agent_radius=s.agent_radius,
            starts=s.starts,
            goals=s.goals,
            headings=s.headings,
            obstacles=s.obstacles,
        )
        assert checked.content_hash == s.content_hash
        assert not any(a.flags.writeable for a in (s.starts, s.goals, s.headings, s.obstacles))


def test_observe_clips_only_what_can_leave_its_bounds():
    """Full clipping (the fallback for sub-rounding radii) and the selective one give the same observations."""
    generator = UniformGenerator(num_agents=5, num_obstacles=4)
    env = NavigationVectorEnv(num_envs=8, generator=generator, dynamics="unicycle", max_speed=0.7)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(20):
        env.step(rng.uniform(-1, 1, (8, 5, 2)).astype(np.float32))
    state, params = env.sim_state, env.params
    low, high = params.obs_bounds
    np.testing.assert_array_equal(sim.observe(state, params), np.clip(sim.observe(state, params), low, high))
