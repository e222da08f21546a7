"""Platform-v0: moves on a hand-written course, the generator, the planner baseline, and the hybrid-action codec.

API conformance, pickling and native-vs-sync equality under every autoreset mode come from
``tests/test_conformance.py`` (it enrols every registered env); here the dynamics are checked
against distances computed by hand.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces

import benchmarkzoo
from benchmarkzoo.core.errors import GeneratorArgumentError, InvalidActionError, ScenarioError
from benchmarkzoo.core.extras import available
from benchmarkzoo.envs.control.platform.baseline import PlatformPlanner
from benchmarkzoo.envs.control.platform.generator import PlatformGenerator, PlatformScenario
from benchmarkzoo.scenario_sets import load_set
from benchmarkzoo.wrappers.hybrid import HybridActionCodec, HybridToBox, is_hybrid

ID = "benchmarkzoo/Platform-v0"
RUN, HOP, LEAP = 0, 1, 2
#: Platforms [0, 2], [3, 4] and the goal from 6: a 1-wide gap, then a 2-wide one.
COURSE = PlatformScenario(starts=(0.0, 3.0, 6.0), ends=(2.0, 4.0, 9.0))


def act(move: int, power: float) -> dict:
    return {"move": move, "power": np.array([power], dtype=np.float32)}


def on_course(*moves: tuple[int, float]) -> tuple[gym.Env, list[tuple]]:
    env = benchmarkzoo.make(ID, generator_kwargs={"num_platforms": 3})
    env.reset(seed=0, options={"scenario": COURSE})
    return env, [env.step(act(move, power)) for move, power in moves]


def test_a_run_covers_its_power_and_stays_on_the_ground():
    env, steps = on_course((RUN, 0.5), (RUN, 1.0), (RUN, 0.5), (RUN, 0.5))
    (obs, reward, terminated, _, info), _, edge, fall = steps
    assert env.unwrapped.state.x[0] == 2.5  # 0.5 + 1.0 + 0.5 (exactly on the edge: it lands), then 0.5 past it
    assert reward == pytest.approx(0.5 / 6) and not terminated and not info["is_success"]
    # to the edge 1.5, next platform 2.5..3.5, the goal from 5.5 (its end is infinite), progress 0.5/6; all / 8
    assert obs == pytest.approx(np.array([1.5, 2.5, 3.5, 5.5, 8.0, 0.5 * 8 / 6]) / 8)
    assert edge[1] == pytest.approx(0.5 / 6) and not edge[2]
    assert fall[1] == 0.0 and fall[2] and not fall[4]["is_success"]


def test_a_run_cannot_cross_a_gap_even_to_the_next_platform():
    # From the edge (x = 2), a full run reaches 3.0, the next platform's start: a hop of the same length lands.
    _, steps = on_course((RUN, 1.0), (RUN, 1.0), (RUN, 1.0))
    assert steps[-1][2] and steps[-1][1] == 0.0
    env, steps = on_course((RUN, 1.0), (RUN, 1.0), (HOP, 1 / 3))
    assert env.unwrapped.state.x[0] == pytest.approx(3.0) and not steps[-1][2]
    assert int(env.unwrapped.state.platform[0]) == 1


def test_a_hop_and_a_leap_land_at_their_computed_distance():
    # hop power 2/3: 0.5 + 1.5 * 2/3 = 1.5 (still on platform 0); hop power 1: 2.0 more, onto [3, 4];
    # leap power 0.5: 2 + 2 * 0.5 = 3.0 more, to 6.5, on the goal platform.
    env, steps = on_course((HOP, 2 / 3), (HOP, 1.0), (LEAP, 0.5))
    rewards = [step[1] for step in steps]
    assert rewards[0] == pytest.approx(1.5 / 6) and rewards[1] == pytest.approx(2.0 / 6)
    assert rewards[2] == pytest.approx((6.0 - 3.5) / 6 + 1.0)  # progress capped at the goal's start, plus the bonus
    assert steps[2][2] and steps[2][4]["is_success"]
    assert sum(rewards) == pytest.approx(2.0)
    assert env.unwrapped.state.x[0] == pytest.approx(6.5)


def test_a_jump_into_a_gap_falls():
    env, steps = on_course((LEAP, 0.25))  # 2.5: between the first platform's end (2) and the next start (3)
    _, reward, terminated, truncated, info = steps[0]
    assert env.unwrapped.state.x[0] == 2.5 and reward == 0.0 and terminated and not truncated
    assert not info["is_success"]


def test_the_vector_env_steps_each_world_as_the_single_env():
    moves = [(RUN, 0.5), (HOP, 1.0), (LEAP, 0.25), (LEAP, 1.0)]
    vec = benchmarkzoo.make_vec(ID, len(moves), generator_kwargs={"num_platforms": 3})
    vec.reset(seed=0, options={"scenario": COURSE})
    batch = {
        "move": np.array([m for m, _ in moves]),
        "power": np.array([[p] for _, p in moves], dtype=np.float32),
    }
    obs, rewards, terminated, _, info = vec.step(batch)
    for i, move in enumerate(moves):
        single_obs, reward, done, _, single_info = on_course(move)[1][0]
        assert np.array_equal(obs[i], single_obs) and rewards[i] == reward and terminated[i] == done
        assert info["is_success"][i] == single_info["is_success"]
    assert rewards[3] == pytest.approx(4.0 / 6)  # a full leap from 0 lands at 4.0, the end of [3, 4]


def test_the_vector_env_refuses_actions_that_are_not_the_dict_batch():
    vec = benchmarkzoo.make_vec(ID, 2)
    vec.reset(seed=0)
    with pytest.raises(InvalidActionError, match=r"dict with keys 'move' and 'power'.*got \['move'\]"):
        vec.step({"move": np.zeros(2, dtype=np.int64)})
    with pytest.raises(InvalidActionError, match=r"Discrete\(3\)"):
        vec.step({"move": np.array([0, 3]), "power": np.zeros((2, 1), dtype=np.float32)})
    with pytest.raises(InvalidActionError, match=r"float32 array of shape \(2, 1\)"):
        vec.step({"move": np.array([0, 1]), "power": np.zeros(2, dtype=np.float32)})


def test_a_scenario_of_another_size_is_refused():
    env = benchmarkzoo.make(ID)
    with pytest.raises(ScenarioError, match=r"courses of 5 platforms.*num_platforms"):
        env.reset(seed=0, options={"scenario": COURSE})
    with pytest.raises(ScenarioError, match=r"must start at 0\.0 and be ordered"):
        PlatformScenario(starts=(0.0, 1.0), ends=(1.5, 3.0))


def test_the_generator_draws_lengths_and_gaps_in_its_ranges():
    gen = PlatformGenerator(num_platforms=6, platform_length=(1.0, 2.0), gap=(0.5, 1.5))
    for seed in range(20):
        course = gen.sample(seed)
        starts, ends = np.array(course.starts), np.array(course.ends)
        assert course.num_platforms == 6 and starts[0] == 0.0
        assert np.all((ends[:-1] - starts[:-1] >= 1.0) & (ends[:-1] - starts[:-1] <= 2.0))
        assert np.all((starts[1:] - ends[:-1] >= 0.5) & (starts[1:] - ends[:-1] <= 1.5))
        assert ends[-1] - starts[-1] == 2.0  # the goal platform is the longest length
    assert gen.sample(3) == gen.sample(3) and gen.sample(3) != gen.sample(4)
    with pytest.raises(GeneratorArgumentError, match=r"gap must be a \(low, high\) pair with 0.1 <= low"):
        PlatformGenerator(gap=(0.5, 4.5))
    with pytest.raises(GeneratorArgumentError, match="num_platforms must be an integer in"):
        PlatformGenerator(num_platforms=1)


def _mean_return(env: gym.Env, policy, seeds) -> tuple[float, float]:
    returns, wins = [], []
    for seed in seeds:
        env.reset(seed=seed)
        env.action_space.seed(seed)
        total, done, info = 0.0, False, {}
        while not done:
            _, reward, terminated, truncated, info = env.step(policy(env))
            total += reward
            done = terminated or truncated
        returns.append(total)
        wins.append(info["is_success"])
    return float(np.mean(returns)), float(np.mean(wins))


@pytest.mark.parametrize("split", ["test", "ood"])
def test_the_planner_crosses_every_course_and_random_rarely_does(split):
    part = load_set("control/platform").split(split)
    env = benchmarkzoo.make(ID, **part.env_kwargs())
    seeds = list(part.seeds)[:20]
    planner, planner_success = _mean_return(env, PlatformPlanner(), seeds)
    random, random_success = _mean_return(env, lambda e: e.action_space.sample(), seeds)
    assert planner == pytest.approx(2.0) and planner_success == 1.0  # 1 (all progress) + goal_reward, every course
    assert random < 0.5 and random_success <= 0.1  # measured: 0.32 / 0.05 (test), 0.05 / 0 (ood)


def test_the_planner_acts_on_every_world_of_the_vector_env():
    vec = benchmarkzoo.make_vec(ID, 8)  # NEXT_STEP: a world's step after its end is its reset, not counted
    vec.reset(seed=0)
    planner, total, done = PlatformPlanner(), np.zeros(8), np.zeros(8, dtype=bool)
    while not done.all():
        action = planner(vec)
        assert action["move"].dtype == np.int64 and action["power"].shape == (8, 1)
        _, rewards, terminated, truncated, _ = vec.step(action)
        total += np.where(done, 0.0, rewards)
        done |= terminated | truncated
    assert total == pytest.approx(np.full(8, 2.0))


# ---- the hybrid-action codec (SB3's view of the Dict space) -------------------------------------


def test_the_codec_round_trips_dict_actions():
    codec = HybridActionCodec(benchmarkzoo.make(ID).action_space)
    assert codec.space == spaces.Box(-1.0, 1.0, (4,), np.float32)  # three scores, one power
    for move, power in ((0, 0.0), (1, 0.25), (2, 1.0), (1, 0.5)):
        flat = codec.encode(act(move, power))
        assert flat.tolist() == [1.0 if i == move else -1.0 for i in range(3)] + [2 * power - 1]
        decoded = codec.decode(flat)
        assert decoded["move"] == move and decoded["power"].tolist() == [power]
        assert decoded["power"].dtype == np.float32


def test_the_codec_takes_the_argmax_and_clips_out_of_range_outputs():
    codec = HybridActionCodec(benchmarkzoo.make(ID).action_space)
    batch = codec.decode_batch(np.array([[0.1, 0.3, -2.0, 0.0], [0.2, 0.2, 0.1, 7.0], [-1, -1, 0.9, -1.5]]))
    assert batch["move"].tolist() == [1, 0, 2]  # a tie goes to the first score
    assert batch["power"].tolist() == [[0.5], [1.0], [0.0]]
    assert benchmarkzoo.make(ID).action_space.contains(codec.decode(np.array([9.0, 0, 0, -9.0])))


def test_the_codec_handles_tuple_spaces_with_offsets_and_several_boxes():
    space = spaces.Tuple(
        (
            spaces.Box(-2.0, 2.0, (2,), np.float32),
            spaces.Discrete(2, start=5),
            spaces.Box(0.0, 10.0, (1,), np.float32),
        )
    )
    codec = HybridActionCodec(space)
    assert codec.space.shape == (5,)  # 2 scores, then 2 + 1 parameters in the space's order
    action = (np.array([-1.0, 2.0], np.float32), 6, np.array([2.5], np.float32))
    flat = codec.encode(action)
    assert flat.tolist() == [-1.0, 1.0, -0.5, 1.0, -0.5]
    back = codec.decode(flat)
    assert back[1] == 6 and back[0].tolist() == [-1.0, 2.0] and back[2].tolist() == [2.5]
    batch = codec.decode_batch(
        np.stack([flat, codec.encode((np.zeros(2, np.float32), 5, np.full(1, 5.0, np.float32)))])
    )
    assert isinstance(batch, tuple) and batch[1].tolist() == [6, 5] and batch[2].tolist() == [[2.5], [5.0]]


def test_only_hybrid_spaces_have_a_codec():
    assert not is_hybrid(spaces.Box(0, 1, (2,)))
    assert not is_hybrid(spaces.Dict({"a": spaces.Discrete(2), "b": spaces.Discrete(3)}))
    assert not is_hybrid(spaces.Dict({"a": spaces.Discrete(2), "b": spaces.Box(0, np.inf, (1,))}))
    with pytest.raises(TypeError, match="one Discrete and finite float Boxes; got Box"):
        HybridActionCodec(spaces.Box(0, 1, (2,)))


def test_the_box_wrapper_plays_the_env_through_the_codec():
    env = HybridToBox(benchmarkzoo.make(ID, generator_kwargs={"num_platforms": 3}))
    assert env.action_space.shape == (4,)
    env.reset(seed=0, options={"scenario": COURSE})
    _, reward, terminated, _, _ = env.step(np.array([-1, 1, -1, 2 * (2 / 3) - 1], dtype=np.float32))  # hop at 2/3
    assert reward == pytest.approx(1.5 / 6) and not terminated


def test_the_baseline_policy_plays_the_same_episodes_on_the_native_and_sync_backends():
    """On ``sync`` the baseline acts world by world; its Dict actions are batched part by part."""
    from benchmarkzoo.evaluation.policies import BaselinePolicy
    from benchmarkzoo.evaluation.runner import plan_episodes, run_episodes
    from benchmarkzoo.evaluation.suites import Task

    split = load_set("control/platform").split("test")
    task = Task(id="platform-test", env=ID, scenario_set="control/platform", split="test", episodes=12)
    plans = plan_episodes(task, 0, list(split.seeds))
    native = run_episodes(task, split, plans, BaselinePolicy(), num_envs=4)
    sync = run_episodes(task, split, plans, BaselinePolicy(), num_envs=4, backend="sync")
    assert [(o.episode_return, o.length, o.success) for o in sync] == [
        (o.episode_return, o.length, o.success) for o in native
    ]
    assert all(o.success for o in native) and len(native) == 12


# ---- rendering ----------------------------------------------------------------------------------


def _agent_columns(frame: np.ndarray) -> np.ndarray:
    """The pixel columns the agent's disc covers (its colour, above the platforms)."""
    from benchmarkzoo.envs.control.platform.render import AGENT, GROUND

    return np.flatnonzero(np.all(frame[:GROUND] == AGENT, axis=2).any(axis=0))


@pytest.mark.skipif(not available("render"), reason="needs extra render: pip install 'benchmarkzoo[render]'")
def test_frames_follow_the_agent_and_draw_the_last_move():
    """A run moves the agent's disc right by its distance at the course's scale; the vector env draws the same."""
    from benchmarkzoo.envs.control.platform.render import MARGIN, MOVE_HIGH, MOVES, WIDTH
    from benchmarkzoo.envs.control.platform.vector_env import PlatformVectorEnv

    env = gym.make(ID, generator_kwargs={"num_platforms": 3}, render_mode="rgb_array")
    env.reset(seed=0, options={"scenario": COURSE})
    before = env.render()
    assert before.shape == (200, 720, 3) and before.dtype == np.uint8
    assert not np.all(before == MOVES[0], axis=2).any()  # no move yet, so no arc
    env.step({"move": 0, "power": np.array([0.75], np.float32)})  # a run of 0.75
    after = env.render()
    scale = (WIDTH - 2 * MARGIN) / (COURSE.goal + MOVE_HIGH.max())
    shift = _agent_columns(after).mean() - _agent_columns(before).mean()
    assert shift == pytest.approx(0.75 * scale, abs=1.0)
    assert np.all(after == MOVES[0], axis=2).any()  # the run's line, in the run's colour
    vector = PlatformVectorEnv(num_envs=2, generator_kwargs={"num_platforms": 3}, render_mode="rgb_array")
    vector.reset(seed=0, options={"scenario": COURSE})
    vector.step({"move": np.array([0, 2]), "power": np.array([[0.75], [0.0]], np.float32)})
    frames = vector.render()
    assert np.array_equal(frames[0], after)
    assert np.all(frames[1] == MOVES[2], axis=2).any() and not np.array_equal(frames[1], after)
    env.close()
    vector.close()
