"""GoalEnvWrapper: SB3's check_env and HER reach a goal env's compute_reward through make's wrappers."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("pybullet", reason="needs extra robotics: pip install 'benchmarkzoo[robotics]'")
pytest.importorskip("stable_baselines3", reason="needs extra sb3: pip install 'benchmarkzoo[sb3]'")

from stable_baselines3.common.env_checker import check_env

import benchmarkzoo
from benchmarkzoo.envs.robotics.panda.env import PandaEnv
from benchmarkzoo.wrappers.goal import GoalEnvWrapper

STACK = "<GoalEnvWrapper<TimeLimit<OrderEnforcing<PassiveEnvChecker<PandaEnv<benchmarkzoo/PandaReach-v0>>>>>>"


def test_make_puts_the_wrapper_outermost_once_and_only_on_goal_envs():
    env = benchmarkzoo.make("benchmarkzoo/PandaReach-v0")
    again = gym.make(env.spec)  # the recorded spec re-creates the same stack, not a second wrapper
    assert str(env) == str(again) == STACK
    assert not isinstance(benchmarkzoo.make("benchmarkzoo/Maze-v0"), GoalEnvWrapper)
    # Gymnasium's own registration is untouched: gym.make's stack and the native vector env stay as they were
    # (Gymnasium refuses vector_entry_point for a spec with additional wrappers, so none is registered)
    assert gym.spec("benchmarkzoo/PandaReach-v0").additional_wrappers == ()
    vector = gym.make_vec("benchmarkzoo/PandaReach-v0", num_envs=2, vectorization_mode="vector_entry_point")
    assert type(vector).__name__ == "PandaVectorEnv"
    for made in (env, again, vector):
        made.close()


def test_sb3_check_env_reaches_compute_reward(monkeypatch):
    calls = []
    original = PandaEnv.compute_reward

    def counted(self, achieved_goal, desired_goal, info=None):
        calls.append(np.shape(achieved_goal))
        return original(self, achieved_goal, desired_goal, info)

    monkeypatch.setattr(PandaEnv, "compute_reward", counted)
    env = benchmarkzoo.make("benchmarkzoo/PandaPush-Dense-v0")
    try:
        check_env(env, warn=False)
    finally:
        env.close()
    assert (3,) in calls and (2, 3) in calls  # one pair, then SB3's vectorized check of two


def test_compute_reward_through_the_wrapper_equals_the_env_s_own():
    env = benchmarkzoo.make("benchmarkzoo/PandaReach-Dense-v0")
    try:
        obs, _ = env.reset(seed=3)
        obs, reward, *_ = env.step(env.action_space.sample())
        achieved, desired = obs["achieved_goal"], obs["desired_goal"]
        assert env.compute_reward(achieved, desired, {}) == pytest.approx(reward)
        batch = env.compute_reward(np.stack([achieved, desired]), np.stack([desired, desired]), {})
        assert batch.shape == (2,) and batch[1] == 0.0 and batch[0] == pytest.approx(reward)
        pairs = (np.stack([achieved, desired]), np.stack([desired, desired]), {})
        np.testing.assert_array_equal(batch, env.unwrapped.compute_reward(*pairs))
    finally:
        env.close()


def test_her_s_path_env_method_still_reaches_it():
    from stable_baselines3.common.vec_env import DummyVecEnv

    vec = DummyVecEnv([lambda: benchmarkzoo.make("benchmarkzoo/PandaReach-v0")])
    try:
        goals = np.zeros((4, 3), dtype=np.float32)
        # HerReplayBuffer._compute_reward's call: batched goals and infos, one list entry per env
        missed = goals + np.array([0.2, 0.0, 0.0], dtype=np.float32)
        (rewards,) = vec.env_method("compute_reward", goals, missed, [{}] * 4, indices=[0])
        np.testing.assert_array_equal(rewards, np.full(4, -1.0, dtype=np.float32))  # sparse: 0.2 m is a miss
    finally:
        vec.close()


def test_a_stack_without_compute_reward_is_refused():
    with pytest.raises(TypeError, match=r"GoalEnvWrapper wraps goal-conditioned envs, .* has none"):
        GoalEnvWrapper(gym.make("benchmarkzoo/Maze-v0"))
