"""MOMAland's conventions for every ``moma`` view, written once: reward spaces and float32 vector rewards.

A ``moma`` env is a PettingZoo ``ParallelEnv`` whose rewards are ``(k,)`` arrays. MOMAland 0.2.0
reads its reward space two ways: ``reward_space(agent)`` (``api_test``, its wrappers) and the
``reward_spaces`` dict (``mo_parallel_to_aec``); its AEC conversion accumulates rewards in float32
buffers, so a float64 reward whose value float32 cannot hold (1/3) fails ``api_test``'s
"reward returned by last is the accumulated reward" check. The mixins below give every view both
attributes from one ``_objective_space()`` the variant writes, and the native multi-world form its
``single_reward_space``; :data:`REWARD_DTYPE` is the one reward dtype of the kind.

List the mixin first: ``class MOMapfEnv(MultiObjectiveAgents, MapfEnv)`` and ``class
MOMapfVectorEnv(MultiObjectiveWorlds, MapfVectorEnv)``. The spaces are built on first use
(``functools.cached_property``), so a view whose agents are known only after its network is read
(MO-TrafficGrid) uses the same mixin.
"""

from __future__ import annotations

import functools
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces

#: Every ``moma`` env's reward dtype (MOMAland's: its AEC conversion and ``api_test`` keep float32 sums).
REWARD_DTYPE = np.dtype(np.float32)


def check_objective_space(owner: Any, space: Any) -> spaces.Box:
    """``space`` if it is a ``(k,)`` ``Box`` of ``owner.reward_dtype``; else a ``TypeError`` naming the view."""
    dtype = owner.reward_dtype
    if not (isinstance(space, spaces.Box) and len(space.shape) == 1 and space.dtype == dtype):
        raise TypeError(
            f"{type(owner).__name__}._objective_space() must return a 1-D {dtype} Box (MOMAland's reward space); "
            f"got {space!r}. Build it with dtype=np.{dtype}."
        )
    return space


class MultiObjectiveAgents:
    """Mixin of a ``moma`` ParallelEnv view: ``reward_spaces`` and ``reward_space(agent)``, one Box for all.

    The view implements :meth:`_objective_space` (one agent's ``(k,)`` float32 Box, from its
    ``params``) and returns ``(k,)`` float32 arrays as rewards.
    """

    possible_agents: list[str]
    #: The rewards' dtype: :data:`REWARD_DTYPE`; only a frozen older version keeps another (MO-Foraging-v0).
    reward_dtype: ClassVar[np.dtype] = REWARD_DTYPE

    def _objective_space(self) -> spaces.Box:
        """One agent's reward space: a ``(k,)`` float32 ``Box``, the same for every agent."""
        raise NotImplementedError

    @functools.cached_property
    def reward_spaces(self) -> dict[str, spaces.Box]:
        """Every agent's reward space (MOMAland's attribute, read by ``mo_parallel_to_aec``): one object."""
        space = check_objective_space(self, self._objective_space())
        return dict.fromkeys(self.possible_agents, space)

    def reward_space(self, agent: str) -> spaces.Box:
        """``agent``'s reward space (MOMAland's API): the same object on every call, as PettingZoo's spaces."""
        return self.reward_spaces[agent]


class MultiObjectiveWorlds:
    """Mixin of a ``moma`` native multi-world view: ``single_reward_space``, rewards ``(B, N, k)`` float32.

    The view implements :meth:`_objective_space` as its ParallelEnv view does (usually the same
    module-level function of ``params``).
    """

    #: As :attr:`MultiObjectiveAgents.reward_dtype`.
    reward_dtype: ClassVar[np.dtype] = REWARD_DTYPE

    def _objective_space(self) -> spaces.Box:
        """Every agent's reward space: a ``(k,)`` float32 ``Box``."""
        raise NotImplementedError

    @functools.cached_property
    def single_reward_space(self) -> spaces.Box:
        """Every agent's reward space in every world (the ``(k,)`` of the ``(B, N, k)`` rewards)."""
        return check_objective_space(self, self._objective_space())
