"""Parameter sharing for Stable-Baselines3: every agent slot of every world is one ``VecEnv`` entry.

:class:`ParameterSharingVecEnv` turns a native multi-agent vector env (``B`` worlds of ``N``
agents, :class:`~benchmarkzoo.vector.multiagent.NativeMultiAgentVectorEnv`) into an SB3 ``VecEnv``
of ``B * N`` entries; entry ``e`` is agent ``e % N`` (``possible_agents`` order) of world
``e // N``. One SB3 policy then acts for every agent (parameter sharing), with no SuperSuit.

## Agents that leave, and padding

Agents can leave before their world's episode ends (in MAPF-v0 an agent that reaches its goal
disappears). SB3 needs every entry to produce a transition on every step, so an entry lives
through three phases, and this is exactly what SB3 sees:

1. **Agent alive**: the agent's observation, reward, ``done=False``.
2. **Agent leaves** (terminated or truncated): ``done=True`` once, on that step, with
   ``infos[e]["terminal_observation"]`` its last observation, ``"TimeLimit.truncated"`` set only
   for a truncation, its ``"is_success"``, and ``"episode": {"r", "l", "t"}`` (its own return and
   length). This is an ordinary SB3 episode end: the agent's return is neither cut short nor
   bootstrapped past its end (PPO bootstraps from ``terminal_observation`` on truncations only).
3. **Padding** until the world's episode ends: observation all zeros, reward ``0``, the action
   is ignored, ``infos[e]["padding"] = True`` and ``done=False``; on the step the world resets
   (its last agent left), the padding entry reports ``done=True`` once more (zero
   ``terminal_observation``, ``TimeLimit.truncated`` False, no ``"episode"``) and its next
   observation is the agent's first of the new episode.

Why this is correct for PPO: phase 2 ends the agent's real episode, so GAE never mixes padding
into a real return (``done`` cuts the advantage and value recursion). Padding steps form a
separate pseudo-episode in one constant zero state with reward 0 whose actions change nothing:
its value target is 0, its advantage tends to 0 whatever the action, so it adds no gradient on
average, only a little variance and compute. The ``done`` that closes it keeps the first value
of the next real episode out of its bootstrap. Episode statistics (``ep_rew_mean``,
``evaluate_policy``) count the real agent episodes only, since only they carry ``"episode"``;
wrapping this env in ``VecMonitor`` would count padding pseudo-episodes too, so do not.

Worlds reset in the same step they end (SB3's semantics): the native env runs with autoreset
``DISABLED`` and this adapter resets ended worlds with ``reset_mask`` at once, drawing the next
scenario from the world's own generator, exactly as the native ``NEXT_STEP`` autoreset would.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode
from typing_extensions import override

from benchmarkzoo import registration
from benchmarkzoo.adapters.sb3_base import NativeVecEnvAdapter, info_of

_SKIPPED_INFO = ("active", "present")


def entry_info(infos: dict[str, Any], world: int, agent: int, num_agents: int) -> dict[str, Any]:
    """What agent ``agent`` of world ``world`` reports in a multi-agent vector info dict.

    ``(B, N, ...)`` arrays are per agent (their ``[world, agent]`` entry); other ``(B, ...)``
    arrays are per world (episode metrics) and every agent of the world gets their ``[world]``.
    """
    return info_of(infos, world, _SKIPPED_INFO, agent, num_agents)


def _flatten(tree: Any, entries: int) -> Any:
    """``(B, N, ...)`` arrays (or a dict of them) to ``(B * N, ...)``."""
    if isinstance(tree, dict):
        return {k: _flatten(v, entries) for k, v in tree.items()}
    return np.ascontiguousarray(tree).reshape(entries, *tree.shape[2:])


def _entry(tree: Any, index: int) -> Any:
    if isinstance(tree, dict):
        return {k: v[index].copy() for k, v in tree.items()}
    return tree[index].copy()


def _copy(tree: Any) -> Any:
    return {k: v.copy() for k, v in tree.items()} if isinstance(tree, dict) else tree.copy()


def _zero_where(tree: Any, mask: np.ndarray) -> Any:
    """Zero the ``(B * N,)`` ``mask``-ed entries of flattened observations, in place."""
    if isinstance(tree, dict):
        for value in tree.values():
            value[mask] = 0
    else:
        tree[mask] = 0
    return tree


class ParameterSharingVecEnv(NativeVecEnvAdapter):
    """An SB3 ``VecEnv`` of ``B * N`` entries over a native multi-agent vector env; see the module docstring.

    ``seed(s)`` seeds world ``w`` with ``s + w`` at the next reset (every entry of a world shares
    its world's seed; the returned list has one seed per entry). ``get_attr`` / ``env_method``
    resolve per world as in :class:`~benchmarkzoo.adapters.sb3.NativeSB3VecEnv` (entry ``e`` reads
    world ``e // N``); ``observation_space`` / ``action_space`` are one agent's.

    Args:
        native: a native multi-agent vector env made with ``autoreset_mode=DISABLED``.
        metadata: what :attr:`benchmarkzoo_metadata` reports.
        scalarize: weights ``(k,)`` for ``moma`` envs' vector rewards, or ``None``.
        episode_stats: write Monitor-like ``info["episode"]`` when an agent leaves.
    """

    autoreset_mode = AutoresetMode.DISABLED
    autoreset_reason = (
        "parameter sharing needs the native env made with autoreset_mode=DISABLED "
        "(it resets ended worlds itself, in the same step)."
    )
    warn_without_images = False

    def __init__(
        self, native: Any, metadata: dict[str, Any], scalarize: np.ndarray | None = None, episode_stats: bool = True
    ):
        super().__init__(native, metadata, scalarize, episode_stats)
        self.num_agents = native.num_agents
        self._padding = np.zeros(self.num_envs, dtype=bool)  # (B * N,) entries whose agent has left

    @override
    def _entries_of(self, native: Any) -> int:
        return native.num_agents

    @property
    def padding(self) -> np.ndarray:
        """``(B * N,)`` bool: entries that are padding now (their agent has left its world's episode)."""
        return self._padding.copy()

    def _entry_infos(self, infos: dict[str, Any]) -> list[dict[str, Any]]:
        n = self.num_agents
        return [info_of(infos, e // n, _SKIPPED_INFO, e % n, n) for e in range(self.num_envs)]

    # ---- reset and step --------------------------------------------------------------------------

    @override
    def reset(self) -> Any:
        options = self._options[0]
        if any(o != options for o in self._options):
            raise ValueError("ParameterSharingVecEnv: set_options must give every entry the same options.")
        obs, infos = self.native.reset(seed=self.world_seeds(), options=dict(options) or None)
        self.reset_infos = self._entry_infos(infos)
        self._reset_seeds()
        self._reset_options()
        self._padding[:] = False
        self._stats.reset()
        return _flatten(obs, self.num_envs)

    @override
    def step_wait(self) -> tuple[Any, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        b, n, entries = self.num_worlds, self.num_agents, self.num_envs
        actions = np.asarray(self._actions)
        actions = actions.reshape(b, n, *actions.shape[1:])  # (B, N, ...)
        obs, rewards, terminated, truncated, infos = self.native.step(actions)
        rewards = np.asarray(rewards)
        vector = None
        if self.weights is not None:
            vector = rewards.reshape(entries, -1)  # (B * N, k)
            rewards = rewards @ self.weights  # (B, N)
        rewards = rewards.reshape(entries).astype(np.float32)
        terminated, truncated = terminated.reshape(entries), truncated.reshape(entries)
        active = infos["active"]  # (B, N) alive after this step
        world_ended = ~active.any(axis=1)  # (B,) every agent has left: the world resets now
        was_padding = self._padding
        left = ~was_padding & (terminated | truncated)  # (B * N,) agents whose episode ends on this step
        closing = was_padding & np.repeat(world_ended, n)  # padding pseudo-episodes that end on this step
        dones = left | closing
        self._stats.add(rewards, ~was_padding)

        step_obs = _flatten(obs, entries)  # zeros at padding entries already
        reset_infos = None
        if world_ended.any():
            reset_obs, reset_infos = self.native.reset(options={"reset_mask": world_ended})
            next_obs = _flatten(reset_obs, entries)  # worlds not reset: alive agents only, zeros elsewhere
        else:
            next_obs = _zero_where(_copy(step_obs), ~active.reshape(entries))  # agents that just left: padding
        step_infos = self._entry_infos(infos)
        new_reset_infos = self._entry_infos(reset_infos) if reset_infos is not None else None
        out: list[dict[str, Any]] = []
        for e in range(entries):
            info: dict[str, Any] = {"padding": True} if was_padding[e] else {**step_infos[e], "padding": False}
            info["TimeLimit.truncated"] = bool(left[e] and truncated[e] and not terminated[e])
            if vector is not None and not was_padding[e]:
                info["vector_reward"] = vector[e].copy()
            if dones[e]:
                info["terminal_observation"] = _entry(step_obs, e)
            if left[e]:
                record = self._stats.finish(e)
                if self.episode_stats:
                    info["episode"] = record
            if new_reset_infos is not None and world_ended[e // n]:
                self.reset_infos[e] = new_reset_infos[e]
            out.append(info)
        self._padding = ~self.native.active.reshape(entries).copy()
        return next_obs, rewards, dones, out

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.native!r}, entries={self.num_envs})"


def make_parameter_sharing_env(
    spec: registration.EnvSpec,
    num_worlds: int,
    seed: int | None,
    env_kwargs: dict[str, Any],
    scalarize: Any,
    metadata: dict[str, Any],
    episode_stats: bool,
) -> ParameterSharingVecEnv:
    """The parameter-sharing VecEnv of a ``parallel`` / ``moma`` env (used by ``make_vec_env``)."""
    native = registration.make_vec(spec.id, num_worlds, autoreset_mode=AutoresetMode.DISABLED, **env_kwargs)
    return ParameterSharingVecEnv.over(native, spec, seed, scalarize, metadata, episode_stats)


__all__ = ["ParameterSharingVecEnv", "entry_info", "make_parameter_sharing_env"]
