"""``check_parallel_env``: PettingZoo's parallel API and seed tests, exact determinism, and refusals."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarkzoo.core.errors import InvalidActionError, InvalidAgentError
from benchmarkzoo.testing._actions import invalid_actions
from benchmarkzoo.testing._compare import assert_same, snapshot

_OUTPUTS = ("observations", "rewards", "terminations", "truncations", "infos")


def check_parallel_env(
    env_fn: Callable[[], Any], seed: int = 0, steps: int = 500, *, strict_warnings: bool = True
) -> None:
    """Check a PettingZoo ``ParallelEnv`` (kinds ``parallel`` and ``moma``).

    1. ``pettingzoo.test.parallel_api_test`` and ``parallel_seed_test`` (their warnings are
       failures unless ``strict_warnings=False``).
    2. Determinism: two fresh envs, ``reset(seed=seed)``, the same pre-drawn per-agent actions
       for ``steps`` steps across episodes (unseeded resets), every output compared exactly.
       For ``moma`` envs (with ``reward_space(agent)``) every reward must lie in its space.
    3. An action dict naming an unknown agent, or missing a live agent, raises
       :class:`~benchmarkzoo.core.errors.InvalidAgentError`; an invalid action for one agent
       raises :class:`~benchmarkzoo.core.errors.InvalidActionError`.

    Args:
        env_fn: zero-argument function returning a new env (e.g. ``lambda: make_parallel(id)``).
        seed: reset and action-sampling seed.
        steps: steps of the determinism rollout and cycles of the PettingZoo tests.
    """
    from pettingzoo.test import parallel_api_test, parallel_seed_test

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parallel_api_test(env_fn(), num_cycles=steps)
        parallel_seed_test(env_fn, num_cycles=steps)
    problems = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
    if strict_warnings and problems:
        raise AssertionError("PettingZoo's parallel tests warned: " + " | ".join(problems))
    _check_determinism(env_fn, seed, steps)
    _check_refusals(env_fn, seed)


def _check_determinism(env_fn: Callable[[], Any], seed: int, steps: int) -> None:
    first, second = env_fn(), env_fn()
    name = type(first).__name__
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
        if hasattr(first, "reward_space"):
            for agent, reward in results[0][1].items():
                if not first.reward_space(agent).contains(reward):
                    raise AssertionError(f"{name} step {t}: {agent}'s reward {reward!r} is outside its reward_space")
        if not first.agents:
            episode += 1
            outputs = [snapshot(env.reset()) for env in (first, second)]
            assert_same(outputs[0], outputs[1], f"{name} reset after step {t} (episode {episode})")
    first.close()
    second.close()


def _expect(error_type: type[Exception], name: str, what: str, env: Any, actions: dict[str, Any]) -> None:
    try:
        env.step(actions)
    except error_type:
        return
    except Exception as error:
        raise AssertionError(
            f"{name}: {what} raised {type(error).__name__} ({error}); expected {error_type.__name__}"
        ) from error
    raise AssertionError(f"{name}: {what} was accepted; expected {error_type.__name__}")


def _check_refusals(env_fn: Callable[[], Any], seed: int) -> None:
    env = env_fn()
    name = type(env).__name__
    env.reset(seed=seed)
    valid = {agent: env.action_space(agent).sample() for agent in env.agents}
    first_agent = env.agents[0]
    _expect(
        InvalidAgentError,
        name,
        "an action for an unknown agent 'no_such_agent'",
        env,
        {**valid, "no_such_agent": valid[first_agent]},
    )
    _expect(
        InvalidAgentError,
        name,
        f"an action dict without live agent {first_agent!r}",
        env,
        {a: v for a, v in valid.items() if a != first_agent},
    )
    for label, bad in invalid_actions(env.action_space(first_agent)):
        _expect(InvalidActionError, name, f"agent {first_agent!r} sending {label}", env, {**valid, first_agent: bad})
    env.step(valid)  # refusals must leave the env usable
    env.close()
