"""GoalEnvWrapper: SB3's check_env and HER reach a goal env's compute_reward through gym.make's wrappers."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("pybullet", reason="needs extra robotics: pip install 'benchmarkzoo[robotics]'")
pytest.importorskip("stable_baselines3", reason="needs extra sb3: pip install 'benchmarkzoo[sb3]'")

from stable_baselines3.common.env_checker import check_env  # noqa: E402

import benchmarkzoo  # noqa: E402, F401  (registers the ids)
from benchmarkzoo.envs.robotics.panda.env import PandaEnv  # noqa: E402
from benchmarkzoo.wrappers.goal import GoalEnvWrapper  # noqa: E402

GOAL_IDS = [s.id for s in benchmarkzoo.list_envs(family="robotics")]


def test_every_panda_id_is_made_with_the_wrapper_outermost_and_once():
    for env_id in GOAL_IDS:
        assert [w.entry_point for w in gym.spec(env_id).additional_wrappers] == [
            "benchmarkzoo.wrappers.goal:GoalEnvWrapper"
        ]
    env = gym.make("benchmarkzoo/PandaReach-v0")
    assert isinstance(env, GoalEnvWrapper) and isinstance(env.env, gym.wrappers.TimeLimit)
    again = gym.make(env.spec)  # the recorded spec re-creates the same stack, not a second wrapper
    assert str(again) == str(env) == (
        "<GoalEnvWrapper<TimeLimit<OrderEnforcing<PassiveEnvChecker<PandaEnv<benchmarkzoo/PandaReach-v0>>>>>>"
    )
    for made in (env, again):
        made.close()


def test_sb3_check_env_reaches_compute_reward(monkeypatch):
    calls = []
    original = PandaEnv.compute_reward

    def counted(self, achieved_goal, desired_goal, info=None):
        calls.append(np.shape(achieved_goal))
        return original(self, achieved_goal, desired_goal, info)

    monkeypatch.setattr(PandaEnv, "compute_reward", counted)
    env = gym.make("benchmarkzoo/PandaPush-Dense-v0")
    try:
        check_env(env, warn=False)
    finally:
        env.close()
    assert (3,) in calls and (2, 3) in calls  # one pair, then SB3's vectorized check of two


def test_compute_reward_through_the_wrapper_equals_the_env_s_own():
    env = gym.make("benchmarkzoo/PandaReach-Dense-v0")
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

    vec = DummyVecEnv([lambda: gym.make("benchmarkzoo/PandaReach-v0")])
    try:
        goals = np.zeros((4, 3), dtype=np.float32)
        # HerReplayBuffer._compute_reward's call: batched goals and infos, one list entry per env
        (rewards,) = vec.env_method("compute_reward", goals, goals + [0.2, 0.0, 0.0], [{}] * 4, indices=[0])
        np.testing.assert_array_equal(rewards, np.full(4, -1.0, dtype=np.float32))  # sparse: 0.2 m is a miss
    finally:
        vec.close()


def test_a_stack_without_compute_reward_is_refused():
    with pytest.raises(TypeError, match=r"GoalEnvWrapper wraps goal-conditioned envs, .* has none"):
        GoalEnvWrapper(gym.make("benchmarkzoo/Maze-v0"))
