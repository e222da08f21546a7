"""Strict mode's refusals: misuse must raise benchmarkzoo's error types, with the env named.

Gymnasium and PettingZoo leave misuse undefined (a stock env may assert, clip, or carry on), so
these checks run only with ``strict=True``. They hold for every env built on benchmarkzoo's view
bases (``envs/view.py``, ``envs/multiagent/view.py``), which make each refusal once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from benchmarkzoo.core.errors import ClosedEnvError, InvalidSeedError, ResetNeededError, UnknownOptionError
from benchmarkzoo.core.scenario import Scenario


def expect_refusal(
    name: str, what: str, error_type: type[Exception], call: Callable[[], Any], *, names: str | None = None
) -> Exception:
    """Run ``call`` and insist it raises ``error_type`` (whose message contains ``names``, if given).

    Args:
        name: the env, for the failure message.
        what: the misuse, e.g. ``"step() after close()"``.
        error_type: the exception the env must raise.
        call: performs the misuse.
        names: text the error message must contain (the env id), or ``None``.

    Returns:
        The error the env raised.
    """
    try:
        call()
    except error_type as error:
        if names is not None and names not in str(error):
            raise AssertionError(
                f"{name}: the {error_type.__name__} for {what} does not name the env: {error}"
            ) from error
        return error
    except Exception as error:
        raise AssertionError(
            f"{name}: {what} raised {type(error).__name__} ({error}); expected {error_type.__name__}"
        ) from error
    raise AssertionError(f"{name}: {what} was accepted; expected {error_type.__name__}")


def check_misuse(env: Any, name: str, action: Any, seed: int, *, env_id: str | None) -> None:
    """The refusals of a fresh env: before ``reset``, bad seeds and options, the scenario option, after ``close``.

    Closes ``env``.

    Args:
        env: a fresh, never reset env: an unwrapped ``gymnasium.Env`` or a PettingZoo ``ParallelEnv``.
        name: the env, for failure messages.
        action: a valid action (a dict of every possible agent's action for a ``ParallelEnv``).
        seed: the reset seed.
        env_id: the id every error message must name, or ``None`` when the env has none.
    """
    expect_refusal(name, "step() before reset()", ResetNeededError, lambda: env.step(action), names=env_id)
    expect_refusal(name, "reset(seed=-1)", InvalidSeedError, lambda: env.reset(seed=-1), names=env_id)
    expect_refusal(
        name,
        "reset(options={'senario': None}), a misspelt 'scenario'",
        UnknownOptionError,
        lambda: env.reset(seed=seed, options={"senario": None}),
        names=env_id,
    )
    _check_scenario_option(env, name, seed)
    env.close()
    expect_refusal(name, "step() after close()", ClosedEnvError, lambda: env.step(action), names=env_id)
    expect_refusal(name, "reset() after close()", ClosedEnvError, lambda: env.reset(seed=seed), names=env_id)
    env.close()  # closing twice must be harmless


def _check_scenario_option(env: Any, name: str, seed: int) -> None:
    """``env.scenario`` is the Scenario being played, and ``reset(options={"scenario": s})`` plays ``s``."""
    env.reset(seed=seed)
    drawn = getattr(env, "scenario", None)
    if not isinstance(drawn, Scenario):
        raise AssertionError(
            f"{name}: after reset(), env.scenario is a {type(drawn).__name__}; strict mode expects the "
            "benchmarkzoo Scenario being played (benchmarkzoo.core.scenario.Scenario)"
        )
    env.reset(seed=seed + 1, options={"scenario": drawn})
    played = getattr(env, "scenario", None)
    if not isinstance(played, Scenario) or played.content_hash != drawn.content_hash:
        got = played.content_hash[:12] if isinstance(played, Scenario) else repr(played)
        raise AssertionError(
            f"{name}: reset(options={{'scenario': s}}) played scenario {got}, not s ({drawn.content_hash[:12]})"
        )
