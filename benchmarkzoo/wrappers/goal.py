"""``compute_reward`` on the outside of a goal-conditioned env's wrapper stack.

Gymnasium 1.x wrappers no longer forward unknown attributes, so on ``gym.make("benchmarkzoo/PandaReach-v0")``
(``TimeLimit(OrderEnforcing(PassiveEnvChecker(PandaEnv)))``) ``env.compute_reward`` is an
``AttributeError``. Stable-Baselines3's ``check_env`` calls exactly that on the env it is given
(``_check_goal_env_compute_reward``), while its ``HerReplayBuffer`` goes through
``VecEnv.env_method``, which uses ``get_wrapper_attr``. Goal envs are therefore registered with
Gymnasium with :class:`GoalEnvWrapper` as an additional wrapper, so ``gym.make`` puts it outermost
and both paths reach the env's own method. A wrapper a user adds on top hides it again (as any
Gymnasium wrapper does); ``env.get_wrapper_attr("compute_reward")`` works through any stack.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np


class GoalEnvWrapper(gym.Wrapper[Any, Any, Any, Any], gym.utils.RecordConstructorArgs):
    """Exposes the wrapped stack's ``compute_reward`` (the goal-env convention); changes nothing else."""

    def __init__(self, env: gym.Env[Any, Any]):
        """Wrap ``env``, whose stack must have a ``compute_reward`` (checked now, not at the first call)."""
        gym.utils.RecordConstructorArgs.__init__(self)
        gym.Wrapper.__init__(self, env)
        try:
            env.get_wrapper_attr("compute_reward")
        except AttributeError:
            raise TypeError(
                f"GoalEnvWrapper wraps goal-conditioned envs, which define compute_reward(achieved_goal, "
                f"desired_goal, info); {env} has none. Register the env without it."
            ) from None

    def compute_reward(self, achieved_goal: Any, desired_goal: Any, info: Any = None) -> np.ndarray:
        """The reward of goal pairs, as the wrapped stack's ``compute_reward`` gives it (batched or not)."""
        return self.env.get_wrapper_attr("compute_reward")(achieved_goal, desired_goal, info)
