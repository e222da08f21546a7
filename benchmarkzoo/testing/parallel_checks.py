"""``check_parallel_env``: PettingZoo's parallel API and seed tests, exact determinism; in strict mode, refusals."""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarkzoo.core.errors import InvalidActionError, InvalidAgentError
from benchmarkzoo.testing._actions import invalid_actions
from benchmarkzoo.testing._compare import assert_same, snapshot
from benchmarkzoo.testing._refusals import check_misuse, expect_refusal

_OUTPUTS = ("observations", "rewards", "terminations", "truncations", "infos")


def check_parallel_env(
    env_fn: Callable[[], Any] | str,
    seed: int = 0,
    steps: int = 500,
    *,
    strict: bool = False,
    strict_warnings: bool | None = None,
    **make_kwargs: Any,
) -> None:
    """Check a PettingZoo ``ParallelEnv`` (kinds ``parallel`` and ``moma``).

    Always (any well-behaved PettingZoo env passes, e.g. mpe2's ``simple_spread_v3``):

    1. ``pettingzoo.test.parallel_api_test`` and ``parallel_seed_test``; their warnings are
       passed on as warnings.
    2. Determinism: two fresh envs, ``reset(seed=seed)``, the same pre-drawn per-agent actions
       for ``steps`` steps across episodes (unseeded resets; the second env gets each action
       dict in another order), every output compared exactly. For ``moma`` envs (with
       ``reward_space(agent)``) every reward must lie in its space.

    With ``strict=True``, benchmarkzoo's own contracts too:

    3. PettingZoo's warnings are failures.
    4. An action dict naming an unknown agent, or missing a live agent, raises
       :class:`~benchmarkzoo.core.errors.InvalidAgentError`; an invalid action for one agent
       raises :class:`~benchmarkzoo.core.errors.InvalidActionError`; each names the env's
       ``env_id``, and the env steps on afterwards.
    5. The refusals of :func:`~benchmarkzoo.testing.check_env`'s strict mode (``step`` before
       ``reset``, a negative seed, a misspelt option, ``step``/``reset`` after ``close``) and
       its scenario option, with the env's ``env_id`` in every message.

    Args:
        env_fn: zero-argument function returning a new env (e.g. ``lambda: mpe2.simple_spread_v3.parallel_env()``),
            or a registered benchmarkzoo id (``benchmarkzoo.make_parallel(env_fn, **make_kwargs)``).
        seed: reset and action-sampling seed.
        steps: steps of the determinism rollout and cycles of the PettingZoo tests.
        strict: also check benchmarkzoo's contracts (3 to 5 above).
        strict_warnings: turn PettingZoo's warnings into failures; ``None`` follows ``strict``.
        **make_kwargs: constructor arguments when ``env_fn`` is an id.

    Raises:
        AssertionError: naming the check, the step and the output that failed.
    """
    from pettingzoo.test import parallel_api_test, parallel_seed_test

    env_fn = _parallel_factory(env_fn, make_kwargs)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        env = env_fn()
        try:
            parallel_api_test(env, num_cycles=steps)
            parallel_seed_test(env_fn, num_cycles=steps)
        except Exception as error:  # name the env: PettingZoo's asserts often carry no message
            raise AssertionError(
                f"PettingZoo's parallel tests failed on {_name(env)}: {type(error).__name__}: {error}"
            ) from error
    problems = [w for w in caught if issubclass(w.category, UserWarning)]
    if (strict if strict_warnings is None else strict_warnings) and problems:
        raise AssertionError("PettingZoo's parallel tests warned: " + " | ".join(str(w.message) for w in problems))
    for w in problems:  # outside strict mode they stay what PettingZoo made them: warnings
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    _check_determinism(env_fn, seed, steps)
    if strict:
        _check_refusals(env_fn, seed)
        env = env_fn()
        actions = {agent: env.action_space(agent).sample() for agent in env.possible_agents}
        check_misuse(env, _name(env), actions, seed, env_id=getattr(env, "env_id", None))


def _name(env: Any) -> str:
    """The env in messages: its ``env_id`` (benchmarkzoo's views have one), else its type."""
    return getattr(env, "env_id", None) or type(env).__name__


def _parallel_factory(env_fn: Callable[[], Any] | str, make_kwargs: dict[str, Any]) -> Callable[[], Any]:
    if isinstance(env_fn, str):
        from benchmarkzoo.registration import make_parallel

        env_id = env_fn
        return lambda: make_parallel(env_id, **make_kwargs)
    if make_kwargs:
        raise TypeError(
            f"check_parallel_env passes keyword arguments {sorted(make_kwargs)} only to an env id's constructor; "
            "with an env factory, bind them in the factory instead."
        )
    return env_fn


def _check_determinism(env_fn: Callable[[], Any], seed: int, steps: int) -> None:
    first, second = env_fn(), env_fn()
    name = _name(first)
    rng = np.random.default_rng(seed)
    spaces = {agent: first.action_space(agent) for agent in first.possible_agents}
    for i, agent in enumerate(first.possible_agents):
        spaces[agent].seed(seed + i)
    outputs = [snapshot(env.reset(seed=seed)) for env in (first, second)]
    assert_same(outputs[0], outputs[1], f"{name} reset(seed={seed})")
    episode = 0
    for t in range(steps):
        agents = list(first.agents)
        assert_same(agents, list(second.agents), f"{name} step {t}: agents")
        actions = {agent: spaces[agent].sample() for agent in agents}
        rng.shuffle(agents)  # the env must not depend on the order of the action dict
        results = [
            snapshot(first.step(snapshot(actions))),
            snapshot(second.step({agent: snapshot(actions[agent]) for agent in agents})),
        ]
        for index, label in enumerate(_OUTPUTS):
            assert_same(results[0][index], results[1][index], f"{name} step {t} (episode {episode}): {label}")
        _check_in_spaces(first, f"{name} step {t}", results[0][0], results[0][1])
        if not first.agents:
            episode += 1
            outputs = [snapshot(env.reset()) for env in (first, second)]
            assert_same(outputs[0], outputs[1], f"{name} reset after step {t} (episode {episode})")
    first.close()
    second.close()


def _check_in_spaces(env: Any, where: str, observations: dict[str, Any], rewards: dict[str, Any]) -> None:
    """Every agent's observation in its ``observation_space`` and, for ``moma`` envs, reward in its ``reward_space``."""
    for agent, observation in observations.items():
        if agent in env.possible_agents and not env.observation_space(agent).contains(observation):
            raise AssertionError(
                f"{where}: {agent}'s observation is outside its observation_space: {observation!r:.200}"
            )
    if hasattr(env, "reward_space"):
        for agent, reward in rewards.items():
            if not env.reward_space(agent).contains(reward):
                raise AssertionError(f"{where}: {agent}'s reward {reward!r} is outside its reward_space")


def _check_refusals(env_fn: Callable[[], Any], seed: int) -> None:
    env = env_fn()
    name = _name(env)
    env.reset(seed=seed)
    valid = {agent: env.action_space(agent).sample() for agent in env.agents}
    first_agent = env.agents[0]
    refusals: list[tuple[type[Exception], str, dict[str, Any]]] = [
        (
            InvalidAgentError,
            "an action for an unknown agent 'no_such_agent'",
            {**valid, "no_such_agent": valid[first_agent]},
        ),
        (
            InvalidAgentError,
            f"an action dict without live agent {first_agent!r}",
            {a: v for a, v in valid.items() if a != first_agent},
        ),
    ]
    refusals += [
        (InvalidActionError, f"agent {first_agent!r} sending {label}", {**valid, first_agent: bad})
        for label, bad in invalid_actions(env.action_space(first_agent))
    ]
    for error_type, what, actions in refusals:
        expect_refusal(name, what, error_type, functools.partial(env.step, actions), names=getattr(env, "env_id", None))
    env.step(valid)  # refusals must leave the env usable
    env.close()
