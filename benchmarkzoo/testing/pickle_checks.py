"""``check_pickle``: an env survives pickle and cloudpickle mid-episode and its copies step identically.

Async vector envs and Ray workers ship envs between processes this way.
"""

from __future__ import annotations

import pickle
from typing import Any

from benchmarkzoo.testing._actions import draw_actions
from benchmarkzoo.testing._compare import assert_same, snapshot


def _is_parallel(env: Any) -> bool:
    return hasattr(env, "possible_agents")


def check_pickle(
    env: Any, seed: int = 0, steps_before: int = 25, steps_after: int = 300, *, strict: bool = False
) -> None:
    """Pickle ``env`` after ``reset(seed)`` and ``steps_before`` steps; every copy must then match it.

    The original and its ``pickle`` and ``cloudpickle`` copies take the same ``steps_after``
    actions, with unseeded resets at episode ends, and every output is compared exactly. Works
    for Gymnasium envs and PettingZoo ``ParallelEnv`` envs.

    By default all three are first reset with ``seed + 1``: a copy must be the same env, as
    Gymnasium's ``EzPickle`` envs (mpe2's among them), which rebuild from their constructor
    arguments, are. With ``strict=True`` there is no such reset: the episode in progress and
    the random generator's state must travel too, which benchmarkzoo's envs promise (a
    replayed or migrated episode continues where it was).

    Raises:
        AssertionError: naming the copy, the step and the output that differed.
    """
    import cloudpickle

    parallel = _is_parallel(env)
    name = getattr(getattr(env, "spec", None), "id", None) or type(getattr(env, "unwrapped", env)).__name__
    env.reset(seed=seed)
    for t in range(steps_before):
        if _step(env, parallel, seed + t):
            env.reset()
    copies = {"pickle": pickle.loads(pickle.dumps(env)), "cloudpickle": cloudpickle.loads(cloudpickle.dumps(env))}
    if not strict:
        where = f"round trip, reset(seed={seed + 1})"
        expected = snapshot(env.reset(seed=seed + 1))
        for how, copy in copies.items():
            assert_same(expected, snapshot(copy.reset(seed=seed + 1)), f"{name} after a {how} {where}")
    for t in range(steps_after):
        action_seed = seed + steps_before + t
        expected = snapshot(_step_outputs(env, parallel, action_seed))
        for how, copy in copies.items():
            where = f"{name} after a {how} round trip, step {t}"
            try:
                actual = snapshot(_step_outputs(copy, parallel, action_seed))
            except Exception as error:  # e.g. an EzPickle env rebuilt without its episode, in strict mode
                raise AssertionError(f"{where}: the copy raised {type(error).__name__}: {error}") from error
            assert_same(expected, actual, where)
        if _ended(expected, parallel):
            expected = snapshot(env.reset())
            for how, copy in copies.items():
                assert_same(expected, snapshot(copy.reset()), f"{name} after a {how} round trip, reset after step {t}")


def _actions(env: Any, parallel: bool, action_seed: int) -> Any:
    if parallel:
        return {agent: draw_actions(env.action_space(agent), action_seed, 1)[0] for agent in env.agents}
    return draw_actions(env.action_space, action_seed, 1)[0]


def _step_outputs(env: Any, parallel: bool, action_seed: int) -> tuple:
    return env.step(_actions(env, parallel, action_seed))


def _ended(outputs: tuple, parallel: bool) -> bool:
    _, _, terminated, truncated, _ = outputs
    if parallel:
        return all(terminated[a] or truncated[a] for a in terminated)
    return bool(terminated or truncated)


def _step(env: Any, parallel: bool, action_seed: int) -> bool:
    return _ended(_step_outputs(env, parallel, action_seed), parallel)
