"""Every check of the kit catches an env with one planted bug, in the mode it belongs to, with its message.

A bug of a default-mode check fails both modes; a bug of a strict-mode check (benchmarkzoo's own
contracts) fails only ``strict=True``, and the default mode must let it through.
"""

from __future__ import annotations

import warnings

import gymnasium as gym
import pytest
from toy_envs import PARALLEL_BUGS, SINGLE_BUGS, CounterEnv, LineParallelEnv, MOLineParallelEnv

from benchmarkzoo.testing import check_env, check_parallel_env

COUNTER_ID = "benchmarkzoo-test/Counter-v0"

#: bug -> (caught in default mode too, the message the kit must give)
SINGLE_CAUGHT = {
    "step_before_reset": (False, r"Counter-v0: step\(\) before reset\(\) was accepted; expected ResetNeededError"),
    "negative_seed": (
        False,
        r"reset\(seed=-1\) raised Error \(Seed must be greater or equal to zero.*InvalidSeedError",
    ),
    "misspelt_option": (False, r"reset\(options=\{'senario': None\}\).*was accepted; expected UnknownOptionError"),
    "no_scenario": (False, r"after reset\(\), env.scenario is a NoneType; strict mode expects the benchmarkzoo Scen"),
    "ignores_scenario": (False, r"reset\(options=\{'scenario': s\}\) played scenario [0-9a-f]{12}, not s \([0-9a-f]"),
    "step_after_close": (False, r"step\(\) after close\(\) was accepted; expected ClosedEnvError"),
    "reset_after_close": (False, r"reset\(\) after close\(\) was accepted; expected ClosedEnvError"),
    "anonymous_errors": (
        False,
        r"Counter-v0: the InvalidActionError for action None \(None\) does not name the env: this env expects",
    ),
    "unseeded_reset": (True, r"Counter-v0: AssertionError: Using `env.reset\(seed=123\)` is non-deterministic"),
    "old_step_api": (
        True,
        r"checker failed on .*Counter-v0: ValueError: not enough values to unpack \(expected 5, got 4",
    ),
    "obs_outside": (True, r"Counter-v0 step 2: observation outside observation_space: array\(\[2\.\d+"),
    "list_reward": (True, r"Counter-v0 step 0: a multi-objective reward must be a numpy array; got \[0\.\d+"),
    "assert_actions": (
        False,
        r"action None \(None\) raised AssertionError \(None .* invalid\); expected InvalidActionE",
    ),
}
PARALLEL_CAUGHT = {
    "step_before_reset": (
        False,
        r"test/Line-v0: step\(\) before reset\(\) raised InvalidAgentError .*ResetNeededError",
    ),
    "negative_seed": (False, r"reset\(seed=-1\) raised ValueError \(expected non-negative integer\); expected Invalid"),
    "misspelt_option": (False, r"reset\(options=\{'senario': None\}\).*was accepted; expected UnknownOptionError"),
    "no_scenario": (False, r"test/Line-v0: after reset\(\), env.scenario is a NoneType"),
    "ignores_scenario": (
        False,
        r"test/Line-v0: reset\(options=\{'scenario': s\}\) played scenario [0-9a-f]{12}, not s",
    ),
    "step_after_close": (False, r"test/Line-v0: step\(\) after close\(\) was accepted; expected ClosedEnvError"),
    "reset_after_close": (False, r"test/Line-v0: reset\(\) after close\(\) was accepted; expected ClosedEnvError"),
    "anonymous_errors": (
        False,
        r"test/Line-v0: the InvalidAgentError for an action for an unknown agent 'no_such_agent",
    ),
    "order_dependent": (True, r"test/Line-v0 step 0 \(episode 0\): observations\['walker_\d'\]: arrays differ"),
    "obs_outside": (True, r"test/Line-v0 step 2: walker_0's observation is outside its observation_space"),
    "forgets_info": (False, r"PettingZoo's parallel tests warned: Live agent was not given info"),
    "unknown_agent": (
        False,
        r"an action for an unknown agent 'no_such_agent' was accepted; expected InvalidAgentError",
    ),
    "missing_agent": (False, r"an action dict without live agent 'walker_0' was accepted; expected InvalidAgentError"),
}


@pytest.fixture(scope="module")
def counter_id():
    gym.register(COUNTER_ID, entry_point=CounterEnv, max_episode_steps=100)
    yield COUNTER_ID
    del gym.registry[COUNTER_ID]


def test_every_planted_bug_has_a_caught_case():
    assert set(SINGLE_CAUGHT) == set(SINGLE_BUGS)
    assert set(PARALLEL_CAUGHT) == set(PARALLEL_BUGS)


def test_the_toy_envs_pass_both_modes(counter_id):
    for strict in (False, True):
        check_env(counter_id, steps=60, strict=strict)
        check_env(counter_id, steps=60, strict=strict, objectives=2)
        check_parallel_env(lambda: LineParallelEnv(), steps=60, strict=strict)
        check_parallel_env(lambda: MOLineParallelEnv(), steps=60, strict=strict)


@pytest.mark.parametrize("bug", sorted(SINGLE_CAUGHT))
def test_check_env_catches(bug: str, counter_id: str):
    default_too, message = SINGLE_CAUGHT[bug]
    kwargs = {"bugs": [bug], "objectives": 2 if bug == "list_reward" else None}
    if not default_too:
        check_env(counter_id, steps=60, **kwargs)
    with pytest.raises(AssertionError, match=message):
        check_env(counter_id, steps=60, strict=True, **kwargs)
    if default_too:
        with pytest.raises(AssertionError, match=message):
            check_env(counter_id, steps=60, **kwargs)


@pytest.mark.parametrize("bug", sorted(PARALLEL_CAUGHT))
def test_check_parallel_env_catches(bug: str):
    default_too, message = PARALLEL_CAUGHT[bug]
    make = lambda: LineParallelEnv(bugs=[bug])  # noqa: E731
    if not default_too:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # forgets_info: warned, and passed on as a warning (below)
            check_parallel_env(make, steps=60)
    with pytest.raises(AssertionError, match=message):
        check_parallel_env(make, steps=60, strict=True)
    if default_too:
        with pytest.raises(AssertionError, match=message):
            check_parallel_env(make, steps=60)


def test_default_mode_passes_pettingzoo_warnings_on():
    with pytest.warns(UserWarning, match="Live agent was not given info"):
        check_parallel_env(lambda: LineParallelEnv(bugs=["forgets_info"]), steps=20)
    with pytest.raises(AssertionError, match="PettingZoo's parallel tests warned"):
        check_parallel_env(lambda: LineParallelEnv(bugs=["forgets_info"]), steps=20, strict_warnings=True)


def test_vector_rewards_outside_the_reward_space_are_caught():
    with pytest.raises(AssertionError, match=r"step 0: reward .* outside reward_space"):
        check_env(lambda: CounterEnv(objectives=2, reward_outside=True), steps=50)
    with pytest.raises(AssertionError, match=r"test/Line-v0 step 0: walker_0's reward array\(\[2\., 2\.\]"):
        check_parallel_env(lambda: MOLineParallelEnv(reward_outside=True), steps=50)


def test_check_parallel_env_takes_a_benchmarkzoo_id():
    check_parallel_env("benchmarkzoo/RPSSelfPlay-v0", steps=40, strict=True)
    with pytest.raises(TypeError, match="only to an env id's constructor"):
        check_parallel_env(lambda: LineParallelEnv(), steps=10, size=5)
