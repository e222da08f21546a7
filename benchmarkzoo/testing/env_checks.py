"""``check_env``: Gymnasium's checker, multi-step determinism, vector rewards and invalid actions."""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.utils.env_checker import check_env as gymnasium_check_env

from benchmarkzoo.core.errors import InvalidActionError
from benchmarkzoo.testing._actions import draw_actions, invalid_actions
from benchmarkzoo.testing._compare import assert_same, snapshot

#: The one passive-checker warning a multi-objective env must trigger: its reward is a vector.
_SCALAR_REWARD_WARNING = re.compile(r"The reward returned by `step\(\)` must be a float")


def _env_factory(env_or_id: str | gym.Env | Callable[[], gym.Env], **make_kwargs: Any) -> Callable[[], gym.Env]:
    """A function that makes fresh, identical envs from an id, a factory, or an env made by ``gym.make``."""
    if isinstance(env_or_id, str):
        from benchmarkzoo.registration import make

        return lambda: make(env_or_id, **make_kwargs)
    if isinstance(env_or_id, gym.Env):
        env_spec = env_or_id.spec
        if env_spec is None:
            raise TypeError(
                f"check_env needs fresh copies of {env_or_id!r} but it has no spec; pass an env id or a "
                "zero-argument function that makes the env instead."
            )
        return lambda: gym.make(env_spec, **make_kwargs)
    if callable(env_or_id):
        return env_or_id
    raise TypeError(f"check_env takes an env id, a gymnasium.Env or an env factory; got {env_or_id!r}.")


def _is_multi_objective(env: gym.Env) -> bool:
    return hasattr(env.unwrapped, "reward_space")


def _env_name(env: gym.Env) -> str | None:
    return env.spec.id if env.spec is not None else None


def check_env(
    env_or_id: str | gym.Env | Callable[[], gym.Env],
    seed: int = 0,
    steps: int = 1000,
    *,
    strict_warnings: bool = True,
    **make_kwargs: Any,
) -> None:
    """Check a single-agent or multi-objective env against the Gymnasium API and benchmarkzoo's contracts.

    1. ``gymnasium.utils.env_checker.check_env`` on the unwrapped env (render checks only when
       a ``render_mode`` is given). For a multi-objective env only the passive checker's
       "reward must be a scalar" warning is silenced; every other check still runs.
    2. Determinism: two fresh envs, ``reset(seed=seed)``, the same pre-drawn actions for
       ``steps`` steps, with unseeded resets after each episode end; every output (observation,
       reward, terminated, truncated, info) is deep-copied and compared exactly.
    3. Multi-objective: every reward is a numpy array inside ``env.unwrapped.reward_space``.
    4. Invalid actions (out of range, wrong dtype or shape, NaN, ``None``) raise
       :class:`~benchmarkzoo.core.errors.InvalidActionError` naming the env id, and the env
       still steps normally afterwards.

    Args:
        env_or_id: a registered id, an env made by ``gym.make`` (fresh copies come from its
            spec), or a zero-argument function returning a new env.
        seed: the reset seed and the action-sampling seed.
        steps: steps of the determinism rollout (several episodes, for a short time limit).
        strict_warnings: turn warnings raised by Gymnasium's checker into failures.
        **make_kwargs: passed to ``make`` when ``env_or_id`` is an id or an env (e.g. ``render_mode``).

    Raises:
        AssertionError: naming the check, the step and the key that failed.
    """
    make_env = _env_factory(env_or_id, **make_kwargs)
    env = make_env()
    try:
        _check_gymnasium_api(env, strict_warnings)
    finally:
        env.close()
    _check_determinism(make_env, seed, steps)
    _check_invalid_actions(make_env, seed)


def _check_gymnasium_api(env: gym.Env, strict_warnings: bool) -> None:
    multi_objective = _is_multi_objective(env)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gymnasium_check_env(env.unwrapped, skip_render_check=env.unwrapped.render_mode is None)
    problems = [
        str(w.message)
        for w in caught
        if not (multi_objective and _SCALAR_REWARD_WARNING.search(str(w.message)))
        and issubclass(w.category, UserWarning)
    ]
    if strict_warnings and problems:
        raise AssertionError(f"gymnasium's env checker warned about {_env_name(env) or env}: " + " | ".join(problems))


def _check_determinism(make_env: Callable[[], gym.Env], seed: int, steps: int) -> None:
    first, second = make_env(), make_env()
    try:
        name = _env_name(first) or repr(first)
        reward_space = getattr(first.unwrapped, "reward_space", None)
        actions = draw_actions(first.action_space, seed, steps)
        outputs = [snapshot(env.reset(seed=seed)) for env in (first, second)]
        assert_same(outputs[0], outputs[1], f"{name} reset(seed={seed})")
        episode = 0
        for t, action in enumerate(actions):
            results = [snapshot(env.step(snapshot(action))) for env in (first, second)]
            for label, index in (("observation", 0), ("reward", 1), ("terminated", 2), ("truncated", 3), ("info", 4)):
                assert_same(results[0][index], results[1][index], f"{name} step {t} (episode {episode}): {label}")
            obs, reward, terminated, truncated, _ = results[0]
            if not first.observation_space.contains(obs):
                raise AssertionError(f"{name} step {t}: observation outside observation_space: {obs!r:.200}")
            if reward_space is not None:
                _check_vector_reward(name, reward_space, reward, t)
            if terminated or truncated:
                episode += 1
                outputs = [snapshot(env.reset()) for env in (first, second)]
                assert_same(outputs[0], outputs[1], f"{name} reset after step {t} (episode {episode})")
    finally:
        first.close()
        second.close()


def _check_vector_reward(name: str, reward_space: gym.Space, reward: Any, t: int) -> None:
    if not isinstance(reward, np.ndarray):
        raise AssertionError(f"{name} step {t}: a multi-objective reward must be a numpy array; got {reward!r}")
    if not reward_space.contains(reward):
        raise AssertionError(
            f"{name} step {t}: reward {reward!r} (dtype {reward.dtype}) is outside reward_space {reward_space}"
        )


def _check_invalid_actions(make_env: Callable[[], gym.Env], seed: int) -> None:
    env = make_env()
    try:
        name = _env_name(env)
        valid = draw_actions(env.action_space, seed, 1)[0]
        env.reset(seed=seed)
        for label, action in invalid_actions(env.action_space):
            try:
                env.step(action)
            except InvalidActionError as error:
                if name is not None and name not in str(error):
                    raise AssertionError(
                        f"{name}: the InvalidActionError for action {label} does not name the env: {error}"
                    ) from error
            except Exception as error:
                raise AssertionError(
                    f"{name or env}: action {label} raised {type(error).__name__} ({error}) "
                    "instead of InvalidActionError"
                ) from error
            else:
                raise AssertionError(
                    f"{name or env}: action {label} ({action!r:.80}) was accepted; expected InvalidActionError"
                )
        env.step(valid)  # refusing an action must leave the env usable
    finally:
        env.close()
