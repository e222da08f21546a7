"""MO-Treasure-v0: dynamics, exact Pareto fronts, generators, the baseline, and the vector env."""

from __future__ import annotations

import doctest
import itertools
import os
import pickle

import gymnasium as gym
import numpy as np
import pytest

import benchmarkzoo
from benchmarkzoo import registration
from benchmarkzoo.core.errors import GeneratorArgumentError, InvalidActionError, ResetNeededError, ScenarioError
from benchmarkzoo.envs.gridworld.treasure import env as env_module
from benchmarkzoo.envs.gridworld.treasure import pareto, sim
from benchmarkzoo.envs.gridworld.treasure.baseline import LinearWeightPlanner
from benchmarkzoo.envs.gridworld.treasure.generator import ClassicGenerator, SeabedGenerator, TreasureScenario

mo_gym = pytest.importorskip("mo_gymnasium", reason="needs the 'mo' extra")

ENV_ID = "benchmarkzoo/MO-Treasure-v0"
_T = "benchmarkzoo.envs.gridworld.treasure"
UP, RIGHT, DOWN, LEFT = range(4)


@pytest.fixture(scope="module", autouse=True)
def _registered():
    """Register the env and its generators for this module unless registration.py already does.

    Whatever this fixture adds it removes again, so the rest of the session sees the real registry.
    """
    known = registration.list_generators()
    added_generators = [name for name in ("treasure/seabed", "treasure/classic") if name not in known]
    for name in added_generators:
        cls = "SeabedGenerator" if name.endswith("seabed") else "ClassicGenerator"
        registration.register_generator(name, f"{_T}.generator:{cls}")
    added_env = ENV_ID not in [s.id for s in registration.list_envs()]
    if added_env:
        registration.register(
            ENV_ID,
            kind="mo",
            family="gridworld",
            entry_point=f"{_T}.env:TreasureEnv",
            vector_entry_point=f"{_T}.vector_env:TreasureVectorEnv",
            max_episode_steps=100,
            kwargs={"generator": "treasure/seabed", "generator_kwargs": {"height": 11, "width": 11}},
            extras=("mo",),
            description="Deep-sea treasure on generated seabeds: treasure value vs time, with an exact Pareto front.",
            baseline=f"{_T}.baseline:LinearWeightPlanner",
            scenario_sets=("gridworld/treasure",),
        )
    yield
    if added_env:
        del registration._ENVS[ENV_ID]
        del gym.registry[ENV_ID]
    for name in added_generators:
        del registration._GENERATORS[name]


CLASSIC = {"generator": "treasure/classic", "generator_kwargs": {}}


def hand_scenario() -> TreasureScenario:
    """A 4x5 sea with a ledge, two treasures and a start at the top-left::

        row 0   S  .  .  .  .
        row 1   .  #  .  .  .
        row 2   A  #  .  #  B       A = 5.0, B = 20.0
        row 3   #  #  .  #  #

    A (2, 0) is 2 steps away; B (2, 4) is 6 steps away (right along row 0, down column 4).
    """
    rock = np.zeros((4, 5), dtype=bool)
    rock[1, 1] = rock[2, 1] = rock[2, 3] = True
    rock[3, [0, 1, 3, 4]] = True
    return TreasureScenario(
        rock=rock, treasure_pos=np.array([[2, 0], [2, 4]]), treasure_value=np.array([5.0, 20.0]), start=(0, 0)
    )


def make_hand_env(**kwargs):
    env = gym.make(ENV_ID, generator="treasure/seabed", generator_kwargs={"height": 4, "width": 5}, **kwargs)
    env.reset(seed=0, options={"scenario": hand_scenario()})
    return env


# ---- dynamics -----------------------------------------------------------------------------------


def test_moves_blocked_by_edges_and_seabed_and_rewards_are_vectors():
    env = make_hand_env()
    obs, reward, terminated, truncated, info = env.step(UP)  # off the map: stays
    assert obs.tolist() == [0, 0] and obs.dtype == np.int32
    assert reward.dtype == np.float32 and reward.tolist() == [0.0, -1.0]
    assert (terminated, truncated, info) == (False, False, {})
    assert env.step(LEFT)[0].tolist() == [0, 0]
    assert env.step(RIGHT)[0].tolist() == [0, 1]
    assert env.step(DOWN)[0].tolist() == [0, 1]  # (1, 1) is seabed
    assert env.step(RIGHT)[0].tolist() == [0, 2]
    assert env.step(DOWN)[0].tolist() == [1, 2]
    assert env.step(DOWN)[0].tolist() == [2, 2]
    assert env.step(RIGHT)[0].tolist() == [2, 2]  # (2, 3) is seabed
    obs, reward, terminated, *_ = env.step(DOWN)
    assert obs.tolist() == [3, 2] and reward.tolist() == [0.0, -1.0] and not terminated


def test_reaching_a_treasure_pays_its_value_and_terminates():
    env = make_hand_env()
    env.step(DOWN)
    obs, reward, terminated, truncated, _ = env.step(DOWN)
    assert obs.tolist() == [2, 0]
    assert reward.tolist() == [5.0, -1.0] and terminated and not truncated
    env.reset(options={"scenario": hand_scenario()})
    for action in (RIGHT, RIGHT, RIGHT, RIGHT, DOWN):
        _, reward, terminated, *_ = env.step(action)
        assert reward.tolist() == [0.0, -1.0] and not terminated
    _, reward, terminated, *_ = env.step(DOWN)
    assert reward.tolist() == [20.0, -1.0] and terminated


def test_time_limit_truncates():
    env = make_hand_env(max_episode_steps=3)
    results = [env.step(UP) for _ in range(3)]
    assert [r[3] for r in results] == [False, False, True]


def test_reward_space_and_reward_range():
    env = gym.make(ENV_ID)
    space = env.unwrapped.reward_space
    assert space.shape == (2,) and space.dtype == np.float32
    assert space.low.tolist() == [0.0, -1.0] and space.high.tolist() == [124.0, -1.0]
    assert env.unwrapped.reward_range == (-1.0, 124.0)
    env.reset(seed=3)
    for t in range(300):
        _, reward, terminated, truncated, _ = env.step(t % 4)
        assert space.contains(reward)
        if terminated or truncated:
            env.reset()


@pytest.mark.parametrize("action", [4, -1, 1.0, None, np.array([1, 2]), np.float32(2.0), "up"])
def test_invalid_actions_raise(action):
    env = gym.make(ENV_ID)
    env.reset(seed=0)
    with pytest.raises(InvalidActionError, match="MO-Treasure-v0 expects actions in Discrete"):
        env.step(action)


def test_numpy_integer_actions_are_accepted():
    env = make_hand_env()
    assert env.step(np.int64(RIGHT))[0].tolist() == [0, 1]
    assert env.step(np.array(RIGHT))[0].tolist() == [0, 2]


def test_step_and_front_before_reset_raise():
    env = gym.make(ENV_ID)
    with pytest.raises(ResetNeededError, match="call reset"):
        env.unwrapped.step(0)  # (gym.make's OrderEnforcing wrapper would refuse first)
    with pytest.raises(ResetNeededError):
        env.unwrapped.pareto_front()
    fixed = gym.make(ENV_ID, scenario_seed=4)  # a fixed sea has a front before any reset
    assert len(fixed.unwrapped.pareto_front()) > 0


def test_wrong_scenarios_are_refused():
    env = gym.make(ENV_ID)
    with pytest.raises(ScenarioError, match="11x11"):
        env.reset(options={"scenario": hand_scenario()})
    small = gym.make(ENV_ID, generator="treasure/seabed", generator_kwargs={"height": 4, "width": 5, "max_value": 10.0})
    with pytest.raises(ScenarioError, match="max_value"):
        small.reset(options={"scenario": hand_scenario()})  # B is worth 20 > 10


def test_scenario_validation():
    good = hand_scenario()
    fields = {"rock": good.rock, "treasure_pos": good.treasure_pos, "treasure_value": good.treasure_value}
    with pytest.raises(ScenarioError, match="free cells"):
        TreasureScenario(**{**fields, "treasure_pos": np.array([[3, 0], [2, 4]])}, start=(0, 0))
    with pytest.raises(ScenarioError, match="finite numbers"):
        TreasureScenario(**{**fields, "treasure_value": np.array([0.0, 1.0])}, start=(0, 0))
    with pytest.raises(ScenarioError, match="start"):
        TreasureScenario(**fields, start=(2, 0))  # on a treasure
    with pytest.raises(ScenarioError, match="repeated"):
        TreasureScenario(**{**fields, "treasure_pos": np.array([[2, 0], [2, 0]])}, start=(0, 0))


def test_scenario_seed_fixes_the_sea():
    env = gym.make(ENV_ID, scenario_seed=7)
    env.reset(seed=1)
    first = env.unwrapped.scenario
    env.reset()
    env.reset(seed=99)
    assert env.unwrapped.scenario is first
    assert first == SeabedGenerator(height=11, width=11).sample(7)
    with pytest.raises(ValueError, match="scenario_seed"):
        gym.make(ENV_ID, scenario_seed=-1)


def test_reset_seed_draws_the_generator_sample():
    env = gym.make(ENV_ID)
    env.reset(seed=12)
    assert env.unwrapped.scenario == SeabedGenerator(height=11, width=11).sample(12)


def test_same_as_mo_gymnasium_deep_sea_treasure():
    """On the classic map our dynamics equal deep-sea-treasure-v0's (after mapping the action order)."""
    ours = gym.make(ENV_ID, **CLASSIC)
    dst = mo_gym.make("deep-sea-treasure-v0")
    to_dst = {UP: 0, DOWN: 1, LEFT: 2, RIGHT: 3}
    rng = np.random.default_rng(0)
    o1, _ = ours.reset(seed=0)
    o2, _ = dst.reset(seed=0)
    episodes = 0
    for action in rng.integers(0, 4, size=3000).tolist():
        assert np.array_equal(o1, o2)
        o1, r1, te1, tr1, _ = ours.step(action)
        o2, r2, te2, tr2, _ = dst.step(to_dst[action])
        assert np.array_equal(r1, r2) and r1.dtype == r2.dtype
        assert (te1, tr1) == (te2, tr2)
        if te1 or tr1:
            episodes += 1
            o1, _ = ours.reset()
            o2, _ = dst.reset()
    assert episodes > 50


# ---- Pareto fronts ------------------------------------------------------------------------------


def brute_force_returns(scenario: TreasureScenario, horizon: int, gamma: float) -> np.ndarray:
    """Discounted returns of every action sequence of length ``horizon``, by a separate simulator.

    Returns:
        ``(S, 2)`` float64, one row per distinct outcome (sequences that end at the same
        treasure on the same step share a row).
    """
    height, width = scenario.shape
    values = {tuple(p): float(np.float32(v)) for p, v in zip(scenario.treasure_pos.tolist(), scenario.treasure_value)}
    moves = ((-1, 0), (0, 1), (1, 0), (0, -1))
    outcomes = set()
    for seq in itertools.product(range(4), repeat=horizon):
        r, c = scenario.start
        ret = [0.0, 0.0]
        for t, a in enumerate(seq):
            nr, nc = r + moves[a][0], c + moves[a][1]
            if 0 <= nr < height and 0 <= nc < width and not scenario.rock[nr, nc]:
                r, c = nr, nc
            ret[1] -= gamma**t
            if (r, c) in values:
                ret[0] += values[(r, c)] * gamma**t
                break
        outcomes.add((ret[0], ret[1]))
    return np.array(sorted(outcomes))


def dominated_by(point: np.ndarray, others: np.ndarray, tol: float = 1e-9) -> bool:
    return bool((((others >= point - tol).all(axis=1)) & ((others > point + tol).any(axis=1))).any())


SMALL = [
    (profile, front, seed)
    for profile, front in (("monotone", "convex"), ("rugged", "concave"), ("rugged", "mixed"))
    for seed in range(3)
]


@pytest.mark.parametrize(("profile", "front", "seed"), SMALL)
@pytest.mark.parametrize("gamma", [1.0, 0.9, 0.5])
def test_front_equals_brute_force(profile, front, seed, gamma):
    gen = SeabedGenerator(
        height=4,
        width=4,
        num_treasures=3,
        profile=profile,
        front=front,
        value_noise=0.3,
        random_start=True,
        max_value=50.0,
    )
    scenario = gen.sample(seed)
    horizon = 6  # 4096 sequences; some treasures lie beyond it on some seeds
    brute = brute_force_returns(scenario, horizon, gamma)
    exact = pareto.pareto_front(scenario, gamma, max_steps=horizon)
    brute_front = brute[pareto.non_dominated(brute)]
    brute_front = brute_front[np.lexsort((brute_front[:, 1], brute_front[:, 0]))]
    np.testing.assert_allclose(exact, brute_front, rtol=1e-12, atol=1e-12)
    for i, point in enumerate(exact):
        assert not dominated_by(point, np.delete(exact, i, axis=0))
        assert not dominated_by(point, brute)


def test_front_respects_paths_blocked_by_treasures_and_the_time_limit():
    """In a corridor the far treasure can only be reached through the near one: it is not on the front."""
    rock = np.ones((2, 4), dtype=bool)
    rock[0, :] = False
    rock[1, 3] = False
    scenario = TreasureScenario(
        rock=rock, treasure_pos=np.array([[0, 2], [1, 3]]), treasure_value=np.array([1.0, 100.0]), start=(0, 0)
    )
    assert pareto.treasure_distances(scenario).tolist() == [2, -1]
    assert pareto.pareto_front(scenario).tolist() == [[1.0, -2.0]]
    assert pareto.pareto_front(scenario, max_steps=1).tolist() == [[0.0, -1.0]]  # nothing reachable in time
    np.testing.assert_allclose(brute_force_returns(scenario, 4, 1.0).max(axis=0), [1.0, -2.0])


def test_hand_scenario_front_and_discounting():
    scenario = hand_scenario()
    assert pareto.pareto_front(scenario).tolist() == [[5.0, -2.0], [20.0, -6.0]]
    g = 0.9
    expected = [[5.0 * g, -(1 + g)], [20.0 * g**5, -(1 - g**6) / (1 - g)]]
    np.testing.assert_allclose(pareto.pareto_front(scenario, g), expected, rtol=1e-15)
    assert pareto.pareto_front(scenario, max_steps=5).tolist() == [[5.0, -2.0]]
    with pytest.raises(ValueError, match="gamma"):
        pareto.pareto_front(scenario, 0.0)


@pytest.mark.parametrize("variant", ["convex", "concave"])
def test_classic_front_matches_the_published_one(variant):
    from mo_gymnasium.envs.deep_sea_treasure import deep_sea_treasure as dst

    published = np.array(dst.CONVEX_FRONT if variant == "convex" else dst.CONCAVE_FRONT, dtype=np.float64)
    env = gym.make(ENV_ID, generator="treasure/classic", generator_kwargs={"variant": variant})
    env.reset(seed=0)
    front = env.unwrapped.pareto_front(gamma=1.0)
    np.testing.assert_array_equal(front[:, 1], published[:, 1])
    np.testing.assert_array_equal(front[:, 0], published[:, 0].astype(np.float32))  # the values the env pays
    # Discounted, MO-Gymnasium lists every treasure; the exact front drops the dominated ones.
    theirs = np.array(
        dst.DeepSeaTreasure(dst_map=dst.DEFAULT_MAP if variant == "convex" else dst.CONCAVE_MAP).pareto_front(0.9)
    )
    ours = env.unwrapped.pareto_front(gamma=0.9)
    kept = pareto.non_dominated(theirs)
    np.testing.assert_allclose(ours, theirs[kept], rtol=1e-6)  # theirs uses float64 values
    if variant == "convex":
        assert kept.sum() < len(theirs)


def test_convex_coverage_set():
    concave = ClassicGenerator("concave").sample(0)
    front, ccs = pareto.pareto_front(concave), pareto.convex_coverage_set(concave)
    weights = np.stack([np.linspace(0, 1, 2001), 1 - np.linspace(0, 1, 2001)], axis=1)
    winners = {tuple(front[i]) for i in np.argmax(front @ weights.T, axis=0)}
    assert {tuple(p) for p in ccs} == winners
    assert len(ccs) < len(front)
    convex = ClassicGenerator("convex").sample(0)
    # 20.3 at 14 steps lies on the hull edge from 19.6 to 22.4 exactly; paid as float32 it falls just inside.
    assert len(pareto.convex_coverage_set(convex)) == len(pareto.pareto_front(convex)) - 1


# ---- generators ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"profile": "rugged", "front": "concave", "value_noise": 0.3, "random_start": True},
        {"height": 2, "width": 1, "num_treasures": 1},
        {"height": 30, "width": 40, "num_treasures": 25, "profile": "rugged"},
    ],
)
def test_generator_contracts(kwargs):
    from benchmarkzoo.testing import check_generator

    gen = SeabedGenerator(**kwargs)
    max_equal = 19 if gen.height * gen.width < 4 else 0
    check_generator(gen, seeds=range(20), max_equal=max_equal)
    for seed in range(20):
        scenario = gen.sample(seed)
        checked = TreasureScenario(
            rock=scenario.rock,
            treasure_pos=scenario.treasure_pos,
            treasure_value=scenario.treasure_value,
            start=scenario.start,
        )
        assert checked == scenario  # the unchecked fast path builds valid scenarios
        assert scenario.shape == gen.shape and scenario.num_treasures == gen.num_treasures
        assert (pareto.treasure_distances(scenario) > 0).all()  # every treasure is reachable
        assert scenario.treasure_value.min() >= 0.1 and scenario.treasure_value.max() <= gen.max_value


def test_generator_determinism_and_pinned_hash():
    a, b = SeabedGenerator().sample(0), SeabedGenerator().sample(0)
    assert a == b and a.content_hash == b.content_hash
    assert SeabedGenerator().sample(1) != a
    assert a.content_hash == SeabedGenerator().sample(0).content_hash
    assert ClassicGenerator().sample(0) == ClassicGenerator().sample(1)


def test_monotone_profile_and_value_order():
    gen = SeabedGenerator(profile="monotone", value_noise=0.0)
    for seed in range(10):
        s = gen.sample(seed)
        depth = (~s.rock).sum(axis=0) - 1
        assert (np.diff(depth) >= 0).all()
        dist = pareto.treasure_distances(s)
        order = np.argsort(dist, kind="stable")
        assert (np.diff(s.treasure_value[order]) >= 0).all()  # farther is worth at least as much


def test_front_shapes():
    def ccs_fraction(front: str) -> float:
        gen = SeabedGenerator(front=front)
        scenarios = [gen.sample(s) for s in range(20)]
        return np.mean([len(pareto.convex_coverage_set(s)) / len(pareto.pareto_front(s)) for s in scenarios])

    assert ccs_fraction("convex") > 0.9
    assert ccs_fraction("concave") < 0.5


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"height": 1}, r"height must be an integer in \[2, 64\]; got 1"),
        ({"width": 0}, r"width must be an integer in \[1, 64\]; got 0"),
        ({"width": 3, "num_treasures": 4}, r"num_treasures must be an integer in \[1, 3\]; got 4"),
        ({"profile": "flat"}, r"profile must be one of 'monotone', 'rugged'; got 'flat'"),
        ({"front": "round"}, r"front must be one of"),
        ({"min_value": 200.0}, r"min_value must be a number in \[0.1, 124.0\]; got 200.0"),
        ({"max_value": 0.0}, r"max_value must be a number in \[0.1, 1000000.0\]"),
        ({"value_noise": 0.9}, r"value_noise must be a number in \[0.0, 0.5\]"),
        ({"random_start": 1}, r"random_start must be True or False"),
    ],
)
def test_generator_arguments_are_checked(kwargs, message):
    with pytest.raises(GeneratorArgumentError, match=message):
        SeabedGenerator(**kwargs)


def test_classic_generator_arguments():
    with pytest.raises(GeneratorArgumentError, match="variant"):
        ClassicGenerator("mirrored")


def test_generator_names_resolve():
    assert isinstance(benchmarkzoo.make_generator("treasure/seabed", {"width": 5, "num_treasures": 5}), SeabedGenerator)
    with pytest.raises(ScenarioError, match="treasure generator"):
        gym.make(ENV_ID, generator="maze/dfs", generator_kwargs={})


# ---- baseline -----------------------------------------------------------------------------------


def run_episode(env, policy, seed):
    env.reset(seed=seed)
    rewards = []
    while True:
        _, reward, terminated, truncated, _ = env.step(policy(env))
        rewards.append(reward)
        if terminated or truncated:
            return np.array(rewards, dtype=np.float64)  # (T, 2)


@pytest.mark.parametrize("weights", [(0.5, 0.5), (1.0, 0.0), (0.0, 1.0), (0.1, 0.9), (0.9, 0.1)])
def test_planner_return_is_the_pareto_point(weights):
    env = gym.make(ENV_ID, generator_kwargs={"height": 11, "width": 11, "profile": "rugged", "random_start": True})
    policy = LinearWeightPlanner(weights)
    for seed in range(8):
        rewards = run_episode(env, policy, seed)
        ret = rewards.sum(axis=0)
        front = env.unwrapped.pareto_front(gamma=1.0)
        scores = front @ np.array(weights)
        hits = np.flatnonzero((front == ret).all(axis=1))
        assert len(hits) == 1  # exactly a Pareto point
        assert scores[hits[0]] == scores.max()  # and one that the weighting prefers


def test_planner_discounted_and_classic_default():
    env = gym.make(ENV_ID, **CLASSIC)
    rewards = run_episode(env, LinearWeightPlanner(), 0)
    assert rewards.sum(axis=0).tolist() == [np.float32(16.1), -9.0]  # the documented default choice
    gamma = 0.95
    policy = LinearWeightPlanner((0.3, 0.7), gamma=gamma)
    for seed in range(5):
        env = gym.make(ENV_ID, generator_kwargs={"front": "concave"})
        rewards = run_episode(env, policy, seed)
        ret = (rewards * gamma ** np.arange(len(rewards))[:, None]).sum(axis=0)
        front = env.unwrapped.pareto_front(gamma)
        assert np.isclose(front, ret, rtol=1e-12, atol=1e-12).all(axis=1).any()


def test_planner_on_the_vector_env():
    venv = gym.make_vec(ENV_ID, 4, vectorization_mode="vector_entry_point")
    policy = LinearWeightPlanner()
    venv.reset(seed=0)
    fronts = [venv.unwrapped.pareto_front(i) for i in range(4)]
    returns, done = np.zeros((4, 2)), np.zeros(4, dtype=bool)
    while not done.all():
        _, rewards, terminated, truncated, _ = venv.step(policy(venv))
        returns[~done] += rewards[~done]
        done |= terminated | truncated
    for ret, front in zip(returns, fronts):
        assert (ret == front[np.argmax(front @ np.array([0.5, 0.5]))]).all()


# ---- vector env ---------------------------------------------------------------------------------


def test_gymnasium_sync_vector_cannot_hold_vector_rewards():
    """The finding that makes MOSyncVectorEnv the reference: SyncVectorEnv has a (n,) float64 reward buffer."""
    venv = gym.make_vec(ENV_ID, 2, vectorization_mode="sync")
    venv.reset(seed=0)
    with pytest.raises(ValueError, match="sequence"):
        venv.step(np.array([0, 0]))


@pytest.mark.parametrize("make_kwargs", [{}, {"scenario_seed": 3}, {"generator_kwargs": {"height": 3, "width": 3}}])
def test_native_vector_matches_mo_sync_vector_bit_for_bit(make_kwargs):
    from mo_gymnasium.wrappers.vector import MOSyncVectorEnv

    n, steps = 8, 1000
    native = gym.make_vec(ENV_ID, n, vectorization_mode="vector_entry_point", **make_kwargs)
    reference = MOSyncVectorEnv([lambda: mo_gym.make(ENV_ID, **make_kwargs) for _ in range(n)])
    assert native.reward_space == reference.reward_space
    assert native.single_observation_space == reference.single_observation_space
    o1, i1 = native.reset(seed=5)
    o2, i2 = reference.reset(seed=5)
    assert np.array_equal(o1, o2) and o1.dtype == o2.dtype and i1 == i2 == {}
    actions = np.random.default_rng(5).integers(0, 4, size=(steps, n))
    ended = 0
    for t in range(steps):
        out1 = native.step(actions[t].copy())
        out2 = reference.step(actions[t].copy())
        for a, b in zip(out1[:4], out2[:4]):
            assert a.dtype == b.dtype and a.shape == b.shape, f"step {t}"
            assert np.array_equal(a, b), f"step {t}"
        assert out1[4] == out2[4] == {}
        ended += int((out1[2] | out1[3]).sum())
    assert out1[1].shape == (n, 2) and out1[1].dtype == np.float32
    assert ended > 100


def test_vector_invalid_actions_raise():
    venv = gym.make_vec(ENV_ID, 3, vectorization_mode="vector_entry_point")
    venv.reset(seed=0)
    for bad in (np.array([0, 1, 4]), np.array([0.0, 1.0, 2.0]), np.array([0, 1])):
        with pytest.raises(InvalidActionError):
            venv.step(bad)


# ---- API conformance, mo-gymnasium integration, rendering ---------------------------------------


def test_check_env():
    from benchmarkzoo.testing import check_env

    check_env(ENV_ID, steps=500, strict=True)


def test_pickle():
    from benchmarkzoo.testing import check_pickle

    pytest.importorskip("cloudpickle")
    check_pickle(gym.make(ENV_ID), strict=True)
    env = gym.make(ENV_ID, **CLASSIC)
    env.reset(seed=0)
    copy = pickle.loads(pickle.dumps(env))
    assert np.array_equal(copy.unwrapped.pareto_front(), env.unwrapped.pareto_front())


def test_mo_gymnasium_make_and_linear_reward():
    from mo_gymnasium.wrappers import LinearReward

    env = mo_gym.make(ENV_ID, **CLASSIC)
    weights = np.array([0.7, 0.3])
    scalar = LinearReward(env, weight=weights)
    scalar.reset(seed=0)
    _, reward, terminated, _, info = scalar.step(RIGHT)
    assert np.isclose(reward, -0.3) and not terminated
    assert info["vector_reward"].tolist() == [0.0, -1.0]
    scalar.step(LEFT)
    _, reward, terminated, _, info = scalar.step(DOWN)
    assert terminated and reward == pytest.approx(0.7 * np.float32(0.7) - 0.3)
    assert LinearReward(mo_gym.make(ENV_ID)).w.tolist() == [1.0, 1.0]


def test_render_rgb_array():
    pytest.importorskip("pygame")
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    env = gym.make(ENV_ID, render_mode="rgb_array", **CLASSIC)
    env.reset(seed=0)
    frame = env.render()
    assert frame.shape == (11 * 40, 11 * 40, 3) and frame.dtype == np.uint8
    assert tuple(frame[11 * 40 - 5, 5]) == (92, 72, 52)  # bottom-left cell is seabed
    env.step(RIGHT)
    assert not np.array_equal(frame, env.render())
    env.close()
    venv = gym.make_vec(ENV_ID, 2, vectorization_mode="vector_entry_point", render_mode="rgb_array")
    venv.reset(seed=0)
    assert [f.shape for f in venv.render()] == [(440, 440, 3)] * 2


def test_env_docstring_example():
    failures, tried = doctest.testmod(env_module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert tried > 0 and failures == 0


def test_sim_batch_and_single_paths_agree():
    """step (fancy indexing over a batch) and step_one (scalar lookups) read the same tables."""
    scenario = SeabedGenerator(profile="rugged").sample(2)
    params = sim.Params(11, 11)
    batch, single = sim.init_state(params, 3), sim.init_state(params, 1)
    for i in range(3):
        sim.load(batch, i, scenario, params)
    sim.load(single, 0, scenario, params)
    rng = np.random.default_rng(0)
    for _ in range(200):
        a = int(rng.integers(4))
        rewards, terminated = sim.step(batch, np.array([a, a, a]))
        reward, term = sim.step_one(single, 0, a)
        assert np.array_equal(rewards[1], reward) and terminated[1] == term
        assert np.array_equal(sim.observe(batch)[2], sim.observe_one(single, 0))
        if term:
            for i in range(3):
                sim.restart(batch, i, scenario, params)
            sim.restart(single, 0, scenario, params)
