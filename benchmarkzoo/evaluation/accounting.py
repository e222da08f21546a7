"""How the evaluation loop keeps the score of each kind of env: the one part of the loop that differs by kind.

The loop (:mod:`benchmarkzoo.evaluation.runner`) schedules, steps and replays episodes the same
way for every kind; an :class:`Accounting` says what it sums and what it records:

=========  =======================  ============================  ===============================================
kind       rewards per step         an episode ends when          its record
=========  =======================  ============================  ===============================================
single     ``(B,)``                 terminated or truncated       ``return`` a number
mo         ``(B, k)``               terminated or truncated       ``return`` one entry per objective
parallel   ``(B, N)``               no agent is active            ``return`` per agent, ``team_return`` their sum
moma       ``(B, N, k)``            no agent is active            ``return`` per agent, per objective
=========  =======================  ============================  ===============================================

Single-agent returns are summed in the rewards' own dtype and multi-agent ones in float64, as
every results file so far was written; ``success`` is ``info["is_success"]`` for single-agent
envs, and the first of ``cooperative_success`` (MAPF) or ``won`` (MicroCombat) a multi-agent env
reports.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from benchmarkzoo.core.errors import BenchmarkZooError


class KindError(BenchmarkZooError, ValueError):
    """An env kind the evaluation does not know, or an env whose rewards do not have its kind's shape."""


@dataclasses.dataclass(frozen=True)
class Accounting:
    """What the evaluation loop sums and records for one kind of env.

    Attributes:
        kind: the env kind (``single``, ``mo``, ``parallel``, ``moma``).
        reward_shape: the shape of a step's batched rewards, as an error message names it.
        multi_agent: episodes end when no agent is active, and metrics are the multi-agent envs' infos.
        dtype: the dtype returns are summed in; ``None``: the rewards' own.
        team: record ``team_return``, the sum of the agents' returns.
    """

    kind: str
    reward_shape: str
    multi_agent: bool = False
    dtype: Any = None
    team: bool = False

    def returns(self, env_id: str, rewards: Any) -> np.ndarray:
        """A zeroed buffer for the returns of every world, shaped like the first step's ``rewards``.

        Raises:
            KindError: the rewards do not have this kind's shape (the env breaks its kind).
        """
        rewards = np.asarray(rewards)
        if rewards.ndim != len([axis for axis in self.reward_shape.strip("()").split(",") if axis.strip()]):
            raise KindError(
                f"{env_id} is a {self.kind!r} env, whose vector form returns rewards of shape {self.reward_shape}; "
                f"its step returned shape {rewards.shape}. Fix the env's reward or its registered kind."
            )
        return np.zeros(rewards.shape, dtype=self.dtype or rewards.dtype)

    def ended(self, terminations: np.ndarray, truncations: np.ndarray, infos: dict[str, Any]) -> np.ndarray:
        """``(B,)`` bool: the worlds whose episode ended on this step."""
        if self.multi_agent:
            return ~infos["active"].any(axis=1)  # no agent left
        return np.logical_or(terminations, truncations)

    def end_of_episode(self, infos: dict[str, Any], world: int) -> tuple[bool | None, dict[str, float]]:
        """``(success, metrics)`` of ``world``'s episode, from the infos of its last step."""
        if self.multi_agent:
            metrics = _scalar_infos(infos, world, _NOT_METRICS)
            return next((bool(metrics[key]) for key in _SUCCESS_METRICS if key in metrics), None), metrics
        metrics = _scalar_infos(infos, world, ("is_success",), skip_final=True)
        mask = infos.get("_is_success")
        success = bool(infos["is_success"][world]) if mask is not None and mask[world] else None
        return success, metrics

    def episode_return(self, returns: np.ndarray) -> tuple[float | list, float | None]:
        """``(return, team_return)`` of one world's summed ``returns`` (``()``, ``(k,)``, ``(N,)`` or ``(N, k)``)."""
        team = float(returns.sum()) if self.team else None
        return (returns.tolist() if returns.ndim else float(returns)), team


#: Per-step infos of the multi-agent envs that are not episode metrics.
_NOT_METRICS = ("active", "present", "is_success")
#: The first of these a multi-agent env reports is its episode's success.
_SUCCESS_METRICS = ("cooperative_success", "won")


def _scalar_infos(
    infos: dict[str, Any], world: int, excluded: tuple[str, ...], skip_final: bool = False
) -> dict[str, float]:
    """The numeric scalar infos ``world`` reports (``(B,)`` arrays under their ``_key`` masks), as floats."""
    found = {}
    for key, value in infos.items():
        if key.startswith("_") or key in excluded or (skip_final and key.startswith("final_")):
            continue
        mask = infos.get(f"_{key}")
        if mask is None or not mask[world]:
            continue
        item = value[world]
        if np.ndim(item) == 0 and isinstance(item, int | float | np.number | np.bool_):
            found[key] = float(item)
    return found


#: The accounting of each kind of env.
ACCOUNTING = {
    "single": Accounting("single", "(num_envs,)"),
    "mo": Accounting("mo", "(num_envs, num_objectives)"),
    "parallel": Accounting("parallel", "(num_envs, num_agents)", multi_agent=True, dtype=np.float64, team=True),
    "moma": Accounting("moma", "(num_envs, num_agents, num_objectives)", multi_agent=True, dtype=np.float64),
}


def accounting_for(kind: str) -> Accounting:
    """The :class:`Accounting` of env kind ``kind``."""
    try:
        return ACCOUNTING[kind]
    except KeyError:
        raise KindError(
            f"no evaluation accounting for env kind {kind!r}; expected one of {sorted(ACCOUNTING)}."
        ) from None
