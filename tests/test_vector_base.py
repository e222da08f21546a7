"""NativeVectorEnv's contract (seeding, autoreset modes, reset masks, batch checks), exercised through Maze."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from benchmarkzoo.core.errors import InvalidActionError, ResetNeededError
from benchmarkzoo.envs.gridworld.maze.vector_env import MazeVectorEnv

ENV_ID = "benchmarkzoo/Maze-v0"


def test_world_i_is_the_single_env_seeded_s_plus_i():
    vec = MazeVectorEnv(num_envs=5)
    obs, info = vec.reset(seed=100)
    single = gym.make(ENV_ID)
    for i in range(5):
        expected, _ = single.reset(seed=100 + i)
        np.testing.assert_array_equal(obs["view"][i], expected["view"])
        np.testing.assert_array_equal(obs["goal_direction"][i], expected["goal_direction"])
        assert vec.scenarios[i] == single.unwrapped.scenario
    assert len({s.content_hash for s in vec.scenarios}) == 5
    np.testing.assert_array_equal(info["is_success"], np.zeros(5, dtype=bool))
    np.testing.assert_array_equal(info["_is_success"], np.ones(5, dtype=bool))


def test_list_seeds_and_wrong_length():
    vec = MazeVectorEnv(num_envs=3)
    vec.reset(seed=[7, 3, 9])
    assert [s.content_hash for s in vec.scenarios] == [vec.generator.sample(x).content_hash for x in (7, 3, 9)]
    with pytest.raises(ValueError, match=r"one seed per world \(3\); got a list of 2"):
        vec.reset(seed=[1, 2])


def test_step_before_reset_raises():
    vec = MazeVectorEnv(num_envs=2)
    with pytest.raises(ResetNeededError, match=r"benchmarkzoo/Maze-v0: call reset\(\) before step\(\)"):
        vec.step(np.zeros(2, dtype=np.int64))


def test_disabled_mode_refuses_to_step_ended_worlds():
    vec = MazeVectorEnv(num_envs=3, max_episode_steps=2, autoreset_mode=AutoresetMode.DISABLED)
    vec.reset(seed=0)
    actions = np.zeros(3, dtype=np.int64)
    _, _, _, truncated, _ = vec.step(actions)
    assert not truncated.any()
    _, _, terminated, truncated, _ = vec.step(actions)
    ended = terminated | truncated
    assert ended.all()
    with pytest.raises(ResetNeededError, match=r"worlds \[0, 1, 2\] have ended and autoreset is DISABLED"):
        vec.step(actions)
    mask = np.array([True, False, True])
    _, info = vec.reset(options={"reset_mask": mask})
    np.testing.assert_array_equal(info["_is_success"], mask)
    with pytest.raises(ResetNeededError, match=r"worlds \[1\] have ended"):
        vec.step(actions)
    vec.reset(options={"reset_mask": ~mask})
    _, rewards, _, truncated, _ = vec.step(actions)
    assert not truncated.any() and rewards.dtype == np.float64


def test_next_step_autoreset_returns_a_zero_reward_reset_step():
    vec = MazeVectorEnv(num_envs=2, max_episode_steps=1)
    vec.reset(seed=5)
    first = list(vec.scenarios)
    _, rewards, terminated, truncated, _ = vec.step(np.zeros(2, dtype=np.int64))
    assert truncated.all() and not terminated.any()
    _, rewards, terminated, truncated, _ = vec.step(np.zeros(2, dtype=np.int64))
    np.testing.assert_array_equal(rewards, [0.0, 0.0])
    assert not (terminated | truncated).any()
    assert [s.content_hash for s in vec.scenarios] != [s.content_hash for s in first]  # fresh mazes drawn


@pytest.mark.parametrize(
    "mask,message",
    [
        ([True, False, True], "must be a bool numpy array of shape"),
        (np.array([1, 0, 1]), "must be a bool numpy array of shape"),
        (np.array([True, False]), r"of shape \(3,\)"),
    ],
    ids=["list", "int-dtype", "wrong-shape"],
)
def test_reset_mask_validation(mask, message):
    vec = MazeVectorEnv(num_envs=3)
    vec.reset(seed=0)
    with pytest.raises(ValueError, match=message):
        vec.reset(options={"reset_mask": mask})


def test_first_reset_must_reset_every_world():
    vec = MazeVectorEnv(num_envs=3)
    with pytest.raises(ResetNeededError, match="the first reset must reset every world"):
        vec.reset(seed=0, options={"reset_mask": np.array([True, False, True])})


def test_reset_mask_only_touches_masked_worlds():
    vec = MazeVectorEnv(num_envs=3)
    vec.reset(seed=0)
    before = list(vec.scenarios)
    vec.reset(seed=50, options={"reset_mask": np.array([False, True, False])})
    assert vec.scenarios[0] is before[0] and vec.scenarios[2] is before[2]
    assert vec.scenarios[1] == vec.generator.sample(51)  # world 1 gets seed + 1 even when reset alone


@pytest.mark.parametrize("mode", list(AutoresetMode), ids=[m.value for m in AutoresetMode])
@pytest.mark.parametrize("as_string", [False, True], ids=["enum", "str"])
def test_metadata_autoreset_mode(mode, as_string):
    vec = gym.make_vec(
        ENV_ID, num_envs=2, vectorization_mode="vector_entry_point", autoreset_mode=mode.value if as_string else mode
    )
    assert vec.metadata["autoreset_mode"] is mode
    assert MazeVectorEnv.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP  # the class default is untouched
    assert vec.metadata["render_modes"] == ["rgb_array"]


def test_unknown_autoreset_mode_is_refused():
    with pytest.raises(ValueError, match="is not a valid AutoresetMode"):
        MazeVectorEnv(num_envs=2, autoreset_mode="sometimes")


@pytest.mark.parametrize(
    "actions,message",
    [
        (np.zeros(4, dtype=np.float32), "an integer array of shape \\(4,\\); got .*dtype float32"),
        (np.zeros(5, dtype=np.int64), "an integer array of shape \\(4,\\); got .*shape \\(5,\\)"),
        (np.zeros((4, 1), dtype=np.int64), "shape \\(4, 1\\)"),
        (np.array([0, 1, 4, 2]), "world 2 sent 4"),
        (np.array([0, -1, 3, 2]), "world 1 sent -1"),
        (0, "shape \\(\\)"),
    ],
    ids=["float", "too-long", "2d", "above", "below", "scalar"],
)
def test_bad_batched_actions_raise(actions, message):
    vec = MazeVectorEnv(num_envs=4)
    vec.reset(seed=0)
    pos = vec.state.pos.copy()
    with pytest.raises(InvalidActionError, match=rf"(?s)benchmarkzoo/Maze-v0 expects .*{message}"):
        vec.step(actions)
    np.testing.assert_array_equal(vec.state.pos, pos)  # a refused batch moves nobody


def test_num_envs_and_time_limit_validation():
    with pytest.raises(ValueError, match="num_envs must be a positive integer; got 0"):
        MazeVectorEnv(num_envs=0)
    with pytest.raises(ValueError, match="max_episode_steps must be a positive integer or None; got 0"):
        MazeVectorEnv(num_envs=1, max_episode_steps=0)


def test_same_step_final_obs_is_the_last_observation_before_reset():
    same = MazeVectorEnv(num_envs=2, max_episode_steps=3, autoreset_mode=AutoresetMode.SAME_STEP)
    disabled = MazeVectorEnv(num_envs=2, max_episode_steps=3, autoreset_mode=AutoresetMode.DISABLED)
    same.reset(seed=1)
    disabled.reset(seed=1)
    actions = np.array([1, 2], dtype=np.int64)
    for _ in range(3):
        obs, _, _, truncated, info = same.step(actions)
        final, *_ = disabled.step(actions)
    assert truncated.all()
    np.testing.assert_array_equal(info["_final_obs"], [True, True])
    np.testing.assert_array_equal(info["_final_info"], [True, True])
    np.testing.assert_array_equal(info["final_info"]["_is_success"], [True, True])
    for i in range(2):
        np.testing.assert_array_equal(info["final_obs"][i]["view"], final["view"][i])
        np.testing.assert_array_equal(info["final_obs"][i]["goal_direction"], final["goal_direction"][i])
    # the returned observation already starts world 0's next episode: the single env's second maze
    single = gym.make(ENV_ID)
    single.reset(seed=1)
    second, _ = single.reset()
    np.testing.assert_array_equal(obs["view"][0], second["view"])
    assert same.scenarios[0] == single.unwrapped.scenario != disabled.scenarios[0]


def test_merge_info_full_mask_copies_and_partial_mask_zero_fills():
    from benchmarkzoo.vector.base import merge_info

    part = {"x": np.array([[1.5, -2.0], [3.0, 4.0], [-0.0, 6.0]]), "nested": {"flag": np.array([True, False, True])}}
    full = merge_info({}, part, np.ones(3, dtype=bool))
    assert full["x"] is not part["x"] and np.array_equal(full["x"], part["x"])
    assert np.signbit(full["x"][2, 0])  # a copy, bit for bit
    assert full["_x"].tolist() == [True, True, True] and full["nested"]["_flag"].tolist() == [True, True, True]
    part["x"][0, 0] = 99.0
    assert full["x"][0, 0] == 1.5  # not aliased
    partial = merge_info({}, part, np.array([False, True, False]))
    assert partial["x"].tolist() == [[0.0, 0.0], [3.0, 4.0], [0.0, 0.0]]
    assert partial["_x"].tolist() == [False, True, False]
    merge_info(partial, part, np.ones(3, dtype=bool))  # an existing key under a full mask: written in place
    assert partial["x"].tolist() == part["x"].tolist() and partial["_x"].all()
    assert merge_info({}, part, np.zeros(3, dtype=bool)) == {}


def test_merge_info_leaves_none_in_the_unreported_worlds_of_an_object_info():
    from benchmarkzoo.vector.base import merge_info

    names = np.array(["passive", "masher", "zoner"], dtype=object)
    partial = merge_info({}, {"opponent": names}, np.array([False, True, False]))
    assert partial["opponent"].tolist() == [None, "masher", None]  # SyncVectorEnv's blanks (not 0)
    assert partial["opponent"].dtype == object and partial["_opponent"].tolist() == [False, True, False]
