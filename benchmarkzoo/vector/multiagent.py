"""The native multi-agent vector base: ``B`` worlds of ``N`` agents in one batched simulator.

The sibling of :class:`benchmarkzoo.vector.base.NativeVectorEnv` for PettingZoo ``ParallelEnv``
kinds (``parallel`` and ``moma``). It keeps the same contracts, and shares their helpers:

* **seeding**: world ``i`` has its own ``numpy.random.Generator``, seeded like the ParallelEnv's
  ``reset(seed=s + i)``; an autoreset redraws world ``i`` from it, as the ParallelEnv's next
  unseeded ``reset()`` would. So world ``i`` of a native vector rollout equals a ParallelEnv
  seeded ``s + i`` stepped with the same actions, bit for bit (tests prove it per env).
* **time limit**: ``max_cycles`` steps per world, counted as the ParallelEnv counts them: on the
  ``max_cycles``-th step every agent that acted is truncated, including one that terminates on
  that step (both flags set, as Gymnasium's ``TimeLimit`` does), so a client that ends an
  episode on ``all(truncations)`` (RLlib's ``ParallelPettingZooEnv``) sees every end.
* **infos**: dicts of arrays with ``_key`` masks of shape ``(B,)``, written with
  :func:`benchmarkzoo.vector.base.merge_info`.

The batched API, with agents in ``possible_agents`` order on axis 1:

* ``actions``: ``(B, N, ...)``, one entry per agent slot; entries of agents that are not
  :attr:`active` are ignored (they need not even be valid).
* ``observations``: ``(B, N, ...)`` (a dict of such arrays for ``Dict`` spaces); entries of agents
  outside ``infos["present"]`` are zeros.
* ``rewards``: ``(B, N)`` float64 (``(B, N, k)`` in the env's reward dtype for ``moma``);
  ``terminations``, ``truncations``: ``(B, N)`` bool. An agent's entries are meaningful where
  ``infos["present"]`` is set, exactly the agents the ParallelEnv would put in its output dicts;
  elsewhere they are ``0`` / ``False``.
* ``infos["active"]``: ``(B, N)`` bool, the agents alive after this step, the ParallelEnv's
  ``env.agents``: they are the ones whose actions the next step reads. Also :attr:`active`.
* ``infos["present"]``: ``(B, N)`` bool, the agents in this step's outputs: those that acted
  (including any that terminated or were truncated on it), or every agent of a world just reset.

A world's episode ends when it has no active agent left (every agent terminated or truncated).

Autoreset: ``NEXT_STEP`` (the default) and ``DISABLED``. ``NEXT_STEP`` is the natural loop of a
PettingZoo user (the last observation of each agent arrives with its termination; the step after
a world ends is that world's reset step, with zero rewards, its actions ignored). ``DISABLED``
refuses to step while a world has ended; reset those worlds with
``reset(options={"reset_mask": ended})``. ``SAME_STEP`` is not offered: it would need a per-world,
per-agent ``final_obs`` in infos for no gain over ``NEXT_STEP`` in a multi-agent loop.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from benchmarkzoo.vector.base import merge_info
from benchmarkzoo.vector.core import VectorCore, check_reset_mask

__all__ = ["NativeMultiAgentVectorEnv", "any_agent", "check_reset_mask"]

SUPPORTED_AUTORESET_MODES = (AutoresetMode.NEXT_STEP, AutoresetMode.DISABLED)
#: :func:`any_agent` ORs the agent columns up to this many agents, from :data:`COLUMN_OR_MIN_WORLDS` worlds on.
COLUMN_OR_MAX_AGENTS = 16
COLUMN_OR_MIN_WORLDS = 64


def any_agent(flags: np.ndarray) -> np.ndarray:
    """``flags.any(axis=1)`` for a ``(B, N)`` bool array, the same values, faster for a few agents.

    numpy reduces over the short trailing agent axis with an inner loop of ``N`` per world (about
    12 us at 1024 worlds of 3 agents); ``N - 1`` column ORs, each running over every world, cost
    a fifth of that. Many agents or a few worlds keep numpy's reduction.
    """
    worlds, agents = flags.shape
    if not 0 < agents <= COLUMN_OR_MAX_AGENTS or worlds < COLUMN_OR_MIN_WORLDS:
        return flags.any(axis=1)  # type: ignore[return-value]  # with an axis it is an array; numpy's stubs say bool too
    out = flags[:, 0].copy()
    for j in range(1, agents):
        np.logical_or(out, flags[:, j], out=out)
    return out


class NativeMultiAgentVectorEnv(VectorCore):
    """Base class of benchmarkzoo's native multi-agent vector envs (``num_envs`` worlds of ``N`` agents).

    A subclass with a ``config_type`` is constructed as ``(num_envs, <config fields>, max_cycles,
    autoreset_mode, render_mode)`` (:class:`~benchmarkzoo.vector.core.VectorCore`; its agents are
    the config's :meth:`~benchmarkzoo.core.config.EnvConfig.possible_agents`) and sets its spaces
    in :meth:`_setup`; one without calls this constructor and sets them after it. Spaces:
    ``single_observation_space`` and ``single_action_space`` per agent; ``observation_space`` and
    ``action_space`` batched to ``(B, N, ...)``. Both implement :meth:`_step_worlds`,
    :meth:`_observe` and :meth:`_end_info`, and :meth:`_load_worlds` unless ``sim.load`` does.

    Args:
        num_envs: ``B``, number of worlds.
        possible_agents: the ParallelEnv's ``possible_agents``; their order is the agent axis.
        max_cycles: truncate every alive agent after this many steps (``None``: never).
        autoreset_mode: ``NEXT_STEP`` (default) or ``DISABLED``.
        render_mode: as in the ParallelEnv.
    """

    autoreset_modes = SUPPORTED_AUTORESET_MODES
    time_limit_name = "max_cycles"
    state_attribute = "sim_state"

    def __init__(
        self,
        num_envs: int,
        possible_agents: list[str],
        max_cycles: int | None = None,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        render_mode: str | None = None,
    ):
        self.closed = False
        self._init_worlds(num_envs, max_cycles, autoreset_mode, render_mode)
        self.possible_agents = list(possible_agents)
        self.num_agents = len(self.possible_agents)
        self.max_cycles = None if max_cycles is None else int(max_cycles)
        self._active = np.zeros((self.num_envs, self.num_agents), dtype=bool)

    @classmethod
    def _base_init(cls, env: Any, num_envs: int, limit: int | None, autoreset_mode: Any, render_mode: Any) -> None:
        agents = env.config.possible_agents(env.params)
        NativeMultiAgentVectorEnv.__init__(env, num_envs, agents, limit, autoreset_mode, render_mode)

    def _set_spaces(self, single_observation_space: Any, single_action_space: Any) -> None:
        """Set one agent's spaces and their ``(B, N, ...)`` batches."""
        self.single_observation_space, self.single_action_space = single_observation_space, single_action_space
        self.observation_space = batch_space(batch_space(single_observation_space, self.num_agents), self.num_envs)
        self.action_space = batch_space(batch_space(single_action_space, self.num_agents), self.num_envs)

    # ---- hooks --------------------------------------------------------------------------------

    def _step_worlds(self, actions: Any, acting: np.ndarray) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        """Validate the actions of the ``acting`` ``(B, N)`` agents and advance every world one step.

        Entries of agents outside ``acting`` must be ignored (neither validated nor applied).

        Returns:
            rewards ``(B, N)`` (or ``(B, N, k)``) float64, zero outside ``acting``; terminated
            ``(B, N)`` bool, ``False`` outside ``acting``; the step info as a dict of ``(B, ...)`` arrays.
        """
        raise NotImplementedError

    def _observe(self, present: np.ndarray) -> Any:
        """Observations of every agent slot, fresh, laid out like ``observation_space``; zero outside ``present``."""
        raise NotImplementedError

    def _end_info(self) -> dict[str, np.ndarray]:
        """Episode-end info (metrics) as a dict of ``(B, ...)`` arrays; read for the worlds whose episode just ended."""
        return {}

    # ---- the batched contract ----------------------------------------------------------------

    @property
    def active(self) -> np.ndarray:
        """``(B, N)`` bool, the agents alive now (each world's ``env.agents``); read-only view."""
        view = self._active.view()
        view.setflags(write=False)
        return view

    @property
    def elapsed(self) -> np.ndarray:
        """``(B,)`` int64, steps since each world's reset; read-only view."""
        view = self._elapsed.view()
        view.setflags(write=False)
        return view

    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset every world, or only ``options["reset_mask"]``'s (needed with ``DISABLED`` autoreset)."""
        mask, worlds, info = self._reset_worlds(seed, options)
        self._active[worlds] = True
        present = self._active.copy()
        infos = merge_info({}, info, mask)
        return self._observe(present), self._masks(infos, present)

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every world's active agents; ended worlds are reset according to ``autoreset_mode``."""
        # one flag on the hot path (close() clears it too), then the DISABLED guard
        if not self._has_reset or (self.metadata["autoreset_mode"] == AutoresetMode.DISABLED and self._ended.any()):
            self._refuse_step()
        acting = self._active.copy()  # (B, N)
        rewards, terminated, step_info = self._step_worlds(actions, acting)
        self._elapsed += 1
        at_limit = None if self.max_cycles is None else self._elapsed >= self.max_cycles
        # on most steps no world reaches the limit and no agent terminates: skip the (B, N) work then
        stopping = at_limit is not None and bool(at_limit.any())
        if stopping:
            assert at_limit is not None  # for the type checker: stopping implies a limit
            # every agent that acted on a world's last step is truncated, one terminating on it too
            # (ParallelEnvView._end_step): then all of a world's agents are truncated on that step
            truncated = acting & at_limit[:, None]
            active = acting & ~terminated & ~truncated
        else:
            truncated = np.zeros_like(acting)
            active = acting & ~terminated
        if stopping or terminated.any():
            ended = any_agent(acting) & ~any_agent(active)  # (B,) worlds whose episode ended on this step
        else:  # nobody left: active == acting, so no world ended
            ended = np.zeros(self.num_envs, dtype=bool)
        present = acting.copy()
        infos = merge_info({}, step_info, ~self._ended)
        if ended.any():
            merge_info(infos, self._end_info(), ended)
        resetting = self._ended  # NEXT_STEP: worlds that ended on the previous step
        if resetting.any():
            worlds = np.flatnonzero(resetting)
            merge_info(infos, self._load_worlds(worlds, None), resetting)
            rewards[worlds] = 0.0
            terminated[worlds] = False
            truncated[worlds] = False
            self._elapsed[worlds] = 0
            active[worlds] = True
            present[worlds] = True
        self._active = active
        self._ended = ended
        return self._observe(present), rewards, terminated, truncated, self._masks(infos, present)

    def _masks(self, infos: dict[str, Any], present: np.ndarray) -> dict[str, Any]:
        everywhere = np.ones(self.num_envs, dtype=bool)
        infos["active"], infos["_active"] = self._active.copy(), everywhere
        infos["present"], infos["_present"] = present, everywhere.copy()
        return infos

    def close(self, **kwargs: Any) -> None:
        """Release resources (renderers, simulator processes); safe to call twice. Every call after it is refused."""
        if not self.closed:
            self.close_extras(**kwargs)
        self.closed = True
        self._has_reset = False

    def __enter__(self) -> NativeMultiAgentVectorEnv:
        return self

    def __exit__(self, *args: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.env_id}, num_envs={self.num_envs}, num_agents={self.num_agents})"
