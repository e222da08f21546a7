"""``check_env``: Gymnasium's checker, multi-step determinism, vector rewards; in strict mode, refusals."""

from __future__ import annotations

import functools
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
from benchmarkzoo.testing._refusals import check_misuse, expect_refusal

#: The one passive-checker warning a multi-objective env must trigger: its reward is a vector.
_SCALAR_REWARD_WARNING = re.compile(r"The reward returned by `step\(\)` must be a float")


def _env_factory(env_or_id: str | gym.Env | Callable[[], gym.Env], **make_kwargs: Any) -> Callable[[], gym.Env]:
    """A function that makes fresh, identical envs from an id, a factory, or an env made by ``gym.make``."""
    if isinstance(env_or_id, str):
        return _id_factory(env_or_id, make_kwargs)
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


def _id_factory(env_id: str, make_kwargs: dict[str, Any]) -> Callable[[], gym.Env]:
    """The ``make`` of benchmarkzoo for its own ids (it names a missing extra), else ``gymnasium.make``."""
    from benchmarkzoo.core.errors import UnknownEnvError
    from benchmarkzoo.registration import make, spec

    try:
        spec(env_id)
    except UnknownEnvError:
        gym.spec(env_id)  # an id neither registry knows fails here, with Gymnasium's suggestions
        return lambda: gym.make(env_id, **make_kwargs)
    return lambda: make(env_id, **make_kwargs)


def _is_multi_objective(env: gym.Env) -> bool:
    return hasattr(env.unwrapped, "reward_space")


def _env_name(env: gym.Env) -> str | None:
    return env.spec.id if env.spec is not None else None


def check_env(
    env_or_id: str | gym.Env | Callable[[], gym.Env],
    seed: int = 0,
    steps: int = 1000,
    *,
    strict: bool = False,
    strict_warnings: bool | None = None,
    **make_kwargs: Any,
) -> None:
    """Check a single-agent or multi-objective env against the Gymnasium API and exact determinism.

    Always (any well-behaved Gymnasium env passes, e.g. ``CartPole-v1``):

    1. ``gymnasium.utils.env_checker.check_env`` on the unwrapped env (render checks only when
       a ``render_mode`` is given). Its warnings are passed on as warnings. For a
       multi-objective env the passive checker's "reward must be a scalar" warning is dropped.
    2. Determinism: two fresh envs, ``reset(seed=seed)``, the same pre-drawn actions for
       ``steps`` steps, with unseeded resets after each episode end; every output (observation,
       reward, terminated, truncated, info) is deep-copied and compared exactly, and every
       observation must lie in ``observation_space``.
    3. Multi-objective: every reward is a numpy array inside ``env.unwrapped.reward_space``.

    With ``strict=True``, benchmarkzoo's own contracts too:

    4. Gymnasium's warnings (infinite or asymmetric bounds among them) are failures.
    5. Invalid actions (out of range, wrong dtype or shape, NaN, ``None``) raise
       :class:`~benchmarkzoo.core.errors.InvalidActionError` naming the env id, and the env
       still steps normally afterwards.
    6. Misuse is refused with benchmarkzoo's errors naming the env id: ``step`` before ``reset``
       (``ResetNeededError``), a negative seed (``InvalidSeedError``), a misspelt option
       (``UnknownOptionError``), ``step``/``reset`` after ``close`` (``ClosedEnvError``); and
       ``reset(options={"scenario": s})`` plays ``s``, the :class:`~benchmarkzoo.core.scenario.Scenario`
       that ``env.unwrapped.scenario`` holds.

    Args:
        env_or_id: a registered id (benchmarkzoo's or Gymnasium's), an env made by ``gym.make``
            (fresh copies come from its spec), or a zero-argument function returning a new env.
        seed: the reset seed and the action-sampling seed.
        steps: steps of the determinism rollout (several episodes, for a short time limit).
        strict: also check benchmarkzoo's contracts (4 to 6 above).
        strict_warnings: turn Gymnasium's warnings into failures; ``None`` follows ``strict``.
        **make_kwargs: passed to ``make`` when ``env_or_id`` is an id or an env (e.g. ``render_mode``).

    Raises:
        AssertionError: naming the check, the step and the key that failed.
    """
    make_env = _env_factory(env_or_id, **make_kwargs)
    env = make_env()
    try:
        _check_gymnasium_api(env, strict if strict_warnings is None else strict_warnings)
    finally:
        env.close()
    _check_determinism(make_env, seed, steps)
    if strict:
        _check_invalid_actions(make_env, seed)
        _check_refusals(make_env, seed)


def _check_refusals(make_env: Callable[[], gym.Env], seed: int) -> None:
    env = make_env()
    name = _env_name(env)
    try:  # on the unwrapped env: Gymnasium's OrderEnforcing wrapper would refuse a step before reset itself
        check_misuse(env.unwrapped, name or str(env), draw_actions(env.action_space, seed, 1)[0], seed, env_id=name)
    except BaseException:
        env.close()
        raise


def _check_gymnasium_api(env: gym.Env, strict_warnings: bool) -> None:
    multi_objective = _is_multi_objective(env)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            gymnasium_check_env(env.unwrapped, skip_render_check=env.unwrapped.render_mode is None)
        except Exception as error:  # e.g. the ValueError of unpacking Gym's old 4-tuple step
            raise AssertionError(
                f"gymnasium's env checker failed on {_env_name(env) or env}: {type(error).__name__}: {error}"
            ) from error
    problems = [
        w
        for w in caught
        if not (multi_objective and _SCALAR_REWARD_WARNING.search(str(w.message)))
        and issubclass(w.category, UserWarning)
    ]
    if strict_warnings and problems:
        raise AssertionError(
            f"gymnasium's env checker warned about {_env_name(env) or env}: "
            + " | ".join(str(w.message) for w in problems)
        )
    for w in problems:  # outside strict mode they stay what Gymnasium made them: warnings
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


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
            expect_refusal(
                name or str(env),
                f"action {label} ({action!r:.80})",
                InvalidActionError,
                functools.partial(env.step, action),
                names=name,
            )
        env.step(valid)  # refusing an action must leave the env usable
    finally:
        env.close()
