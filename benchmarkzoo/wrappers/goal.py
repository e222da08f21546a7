"""``compute_reward`` on the outside of a goal-conditioned env's wrapper stack.

Gymnasium 1.x wrappers no longer forward unknown attributes, so on ``gym.make("benchmarkzoo/PandaReach-v0")``
(``TimeLimit(OrderEnforcing(PassiveEnvChecker(PandaEnv)))``) ``env.compute_reward`` is an
``AttributeError``. Stable-Baselines3's ``check_env`` calls exactly that on the env it is given
(``_check_goal_env_compute_reward``), while its ``HerReplayBuffer`` goes through
``VecEnv.env_method``, which uses ``get_wrapper_attr`` and so already worked.

:func:`benchmarkzoo.make` therefore wraps every goal env (an unwrapped env with
``compute_reward``) in :class:`GoalEnvWrapper`, outermost. ``gym.make`` itself cannot: Gymnasium
applies a spec's ``additional_wrappers`` at ``gym.make``, but then refuses
``gym.make_vec(..., vectorization_mode="vector_entry_point")`` for that spec, the native vector
env every benchmarkzoo env promises. With ``gym.make``, or any wrapper added on top, call
``env.get_wrapper_attr("compute_reward")`` (Gymnasium 1.x's way through any stack) or wrap the
result in :class:`GoalEnvWrapper`.
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
