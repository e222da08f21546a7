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

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode

from benchmarkzoo import registration
from benchmarkzoo.adapters.sb3 import (
    EpisodeStats,
    VecEnv,
    _attribute,
    call_per_world,
    check_weights,
    is_monitor,
)

_SKIPPED_INFO = ("active", "present")


def entry_info(infos: dict[str, Any], world: int, agent: int, num_agents: int) -> dict[str, Any]:
    """What agent ``agent`` of world ``world`` reports in a multi-agent vector info dict.

    ``(B, N, ...)`` arrays are per agent (their ``[world, agent]`` entry); other ``(B, ...)``
    arrays are per world (episode metrics) and every agent of the world gets their ``[world]``.
    """
    out: dict[str, Any] = {}
    for key, value in infos.items():
        if key.startswith("_") or key in _SKIPPED_INFO:
            continue
        if isinstance(value, dict):
            nested = entry_info(value, world, agent, num_agents)
            if nested:
                out[key] = nested
            continue
        mask = infos.get(f"_{key}")
        if mask is not None and not mask[world]:
            continue
        item = value[world]
        if getattr(value, "ndim", 0) >= 2 and value.shape[1] == num_agents:
            item = item[agent]
        out[key] = item.item() if isinstance(item, np.generic) else item
    return out


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


class ParameterSharingVecEnv(VecEnv):
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

    def __init__(
        self, native: Any, metadata: dict[str, Any], scalarize: np.ndarray | None = None, episode_stats: bool = True
    ):
        if native.metadata.get("autoreset_mode") != AutoresetMode.DISABLED:
            raise ValueError(
                f"{native.env_id}: parameter sharing needs the native env made with autoreset_mode=DISABLED "
                "(it resets ended worlds itself, in the same step). Use make_vec_env()."
            )
        self.native = native
        self.num_worlds = native.num_envs
        self.num_agents = native.num_agents
        self.weights = scalarize
        self.episode_stats = episode_stats
        self.benchmarkzoo_metadata = dict(metadata)
        super().__init__(self.num_worlds * self.num_agents, native.single_observation_space, native.single_action_space)
        self._world_seeds: list[int | None] = [None] * self.num_worlds
        self._padding = np.zeros(self.num_envs, dtype=bool)  # (B * N,) entries whose agent has left
        self._stats = EpisodeStats(self.num_envs)
        self._actions: Any = None

    @property
    def scalarization_weights(self) -> np.ndarray | None:
        return None if self.weights is None else self.weights.copy()

    @property
    def padding(self) -> np.ndarray:
        """``(B * N,)`` bool: entries that are padding now (their agent has left its world's episode)."""
        return self._padding.copy()

    def _worlds(self, indices: Any) -> list[int]:
        return [e // self.num_agents for e in self._get_indices(indices)]

    def _entry_infos(self, infos: dict[str, Any]) -> list[dict[str, Any]]:
        n = self.num_agents
        return [entry_info(infos, e // n, e % n, n) for e in range(self.num_envs)]

    # ---- reset and step --------------------------------------------------------------------------

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        if seed is None:
            seed = int(np.random.randint(0, np.iinfo(np.uint32).max, dtype=np.uint32))
        self._world_seeds = [seed + w for w in range(self.num_worlds)]
        return [self._world_seeds[e // self.num_agents] for e in range(self.num_envs)]

    def reset(self) -> Any:
        options = self._options[0]
        if any(o != options for o in self._options):
            raise ValueError("ParameterSharingVecEnv: set_options must give every entry the same options.")
        obs, infos = self.native.reset(seed=list(self._world_seeds), options=dict(options) or None)
        self.reset_infos = self._entry_infos(infos)
        self._world_seeds = [None] * self.num_worlds
        self._reset_options()
        self._padding[:] = False
        self._stats.reset()
        return _flatten(obs, self.num_envs)

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

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
            info = {"padding": True} if was_padding[e] else {**step_infos[e], "padding": False}
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

    # ---- the rest of the VecEnv API ----------------------------------------------------------------

    def close(self) -> None:
        self.native.close()

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        native = self.__dict__.get("native")
        if native is None:  # SB3's VecEnv.__init__ reads render_mode before we are set up
            raise AttributeError(attr_name)
        return [_attribute(native, attr_name, w) for w in self._worlds(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        setattr(self.native, attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any) -> list[Any]:
        return call_per_world(self.native, method_name, self._worlds(indices), method_args, method_kwargs)

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        wrapped = self.episode_stats and is_monitor(wrapper_class)
        return [wrapped for _ in self._get_indices(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        """One frame per world (not per entry)."""
        if self.render_mode != "rgb_array":
            return [None] * self.num_worlds
        return list(self.native.render())

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
    weights = check_weights(spec, getattr(native, "reward_space", None), scalarize)
    metadata = {**metadata, "scalarize": None if weights is None else weights.tolist()}
    env = ParameterSharingVecEnv(native, metadata, weights, episode_stats)
    if seed is not None:
        env.seed(seed)
    return env


__all__ = ["ParameterSharingVecEnv", "entry_info", "make_parameter_sharing_env"]
