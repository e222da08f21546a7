"""The native vector base: autoreset, per-world seeding, time limits and info masks in one place.

Subclasses own a batched simulator and implement three hooks: load fresh scenarios into some
worlds, step every world, observe every world. This class turns those into Gymnasium's
``VectorEnv`` contract so that, for the same seed and actions, the native env and
``SyncVectorEnv``/``AsyncVectorEnv`` over the single env produce bit-identical observations,
rewards, terminations, truncations and infos:

* world ``i`` has its own ``numpy.random.Generator``, seeded like ``Env.reset(seed=s + i)``;
  an autoreset redraws world ``i`` from that generator, as the single env's ``reset()`` would;
* the time limit counts steps per world exactly as ``gymnasium.wrappers.TimeLimit`` does;
* infos are dicts of ``(num_envs,)`` arrays with ``_key`` masks, laid out as ``SyncVectorEnv``'s.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from benchmarkzoo.vector.core import VECTOR_RESET_OPTIONS, VectorCore, refuse_closed

__all__ = ["VECTOR_RESET_OPTIONS", "NativeVectorEnv", "merge_info", "refuse_closed", "world_slice"]


def world_slice(tree: Any, index: int | np.integer) -> Any:
    """World ``index`` of a batched observation (array, or dict/tuple of arrays), copied."""
    if isinstance(tree, dict):
        return {k: world_slice(v, index) for k, v in tree.items()}
    if isinstance(tree, tuple):
        return tuple(world_slice(v, index) for v in tree)
    return tree[index].copy()


def merge_info(infos: dict[str, Any], part: dict[str, Any], mask: np.ndarray) -> dict[str, Any]:
    """Write the ``mask``-ed worlds of ``part`` (dict of ``(B, ...)`` arrays) into ``infos`` with ``_key`` masks.

    Entries of worlds outside every mask stay zero (``None`` in object arrays), as in ``SyncVectorEnv``; a key no masked
    world reports is left out, as ``SyncVectorEnv`` leaves it out. A new key under a mask that
    selects every world is a plain copy of ``value`` (a masked write costs ten copies).
    """
    if not mask.any():
        return infos
    full = bool(mask.all())
    for key, value in part.items():
        if isinstance(value, dict):
            infos[key] = merge_info(infos.get(key, {}), value, mask)
            continue
        if key not in infos and full:
            infos[key] = value.copy(order="K")
            infos[f"_{key}"] = np.ones(mask.shape, dtype=bool)
            continue
        if key not in infos:  # SyncVectorEnv's blanks: zeros, or None in an object array (names, say)
            infos[key] = np.full_like(value, None) if value.dtype == object else np.zeros_like(value)
            infos[f"_{key}"] = np.zeros(mask.shape, dtype=bool)
        infos[key][mask] = value[mask]
        infos[f"_{key}"] |= mask
    return infos


class NativeVectorEnv(VectorCore, VectorEnv):
    """Base class of benchmarkzoo's native vector envs (one batched simulator, ``num_envs`` worlds).

    A subclass with a ``config_type`` (its env's :class:`~benchmarkzoo.core.config.EnvConfig`) is
    constructed as ``(num_envs, <config fields>, max_episode_steps, autoreset_mode, render_mode)``
    (:class:`~benchmarkzoo.vector.core.VectorCore`) and sets its four spaces and state in
    :meth:`_setup`; one without calls this constructor and sets them after it. Both implement
    :meth:`_step_worlds` and :meth:`_observe`, and :meth:`_load_worlds` unless ``sim.load`` does.

    Args:
        num_envs: number of worlds.
        max_episode_steps: truncate an episode after this many steps (``None``: never).
        autoreset_mode: ``NEXT_STEP`` (default), ``SAME_STEP`` or ``DISABLED``, as in Gymnasium.
        render_mode: as in the single env.
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(
        self,
        num_envs: int,
        max_episode_steps: int | None = None,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        render_mode: str | None = None,
    ):
        self._init_worlds(num_envs, max_episode_steps, autoreset_mode, render_mode)
        self.max_episode_steps = max_episode_steps

    @classmethod
    def _base_init(cls, env: Any, num_envs: int, limit: int | None, autoreset_mode: Any, render_mode: Any) -> None:
        NativeVectorEnv.__init__(env, num_envs, limit, autoreset_mode, render_mode)

    def _set_spaces(self, single_observation_space: Any, single_action_space: Any) -> None:
        """Set the single-world spaces and their batches of ``num_envs``."""
        self.single_observation_space, self.single_action_space = single_observation_space, single_action_space
        self.observation_space = batch_space(single_observation_space, self.num_envs)
        self.action_space = batch_space(single_action_space, self.num_envs)

    # ---- hooks --------------------------------------------------------------------------------

    def _step_worlds(self, actions: Any) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        """Validate ``actions`` and advance every world one step.

        Returns:
            rewards ``(num_envs,)`` float64, terminated ``(num_envs,)`` bool, and the step info
            as a dict of ``(num_envs, ...)`` arrays.
        """
        raise NotImplementedError

    def _observe(self) -> Any:
        """Observations of every world, as fresh arrays laid out like ``observation_space``."""
        raise NotImplementedError

    # ---- the VectorEnv contract -----------------------------------------------------------------

    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset every world, or only ``options["reset_mask"]``'s (needed with ``DISABLED`` autoreset)."""
        mask, _, info = self._reset_worlds(seed, options)
        return self._observe(), merge_info({}, info, mask)

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every world; finished worlds are reset according to ``autoreset_mode``."""
        mode = self.metadata["autoreset_mode"]
        # one flag on the hot path (close() clears it too), then the DISABLED guard
        if not self._has_reset or (mode == AutoresetMode.DISABLED and self._ended.any()):
            self._refuse_step()
        rewards, terminated, step_info = self._step_worlds(actions)
        self._elapsed += 1
        if self.max_episode_steps is None:
            truncated = np.zeros(self.num_envs, dtype=bool)
        else:
            truncated = self._elapsed >= self.max_episode_steps

        if mode == AutoresetMode.NEXT_STEP:
            resetting = self._ended
            infos = merge_info({}, step_info, ~resetting)
            if resetting.any():
                worlds = np.flatnonzero(resetting)
                reset_info = self._load_worlds(worlds, None)
                rewards[worlds] = 0.0
                terminated[worlds] = False
                truncated[worlds] = False
                self._elapsed[worlds] = 0
                merge_info(infos, reset_info, resetting)
            observations = self._observe()
        elif mode == AutoresetMode.SAME_STEP:
            ended = terminated | truncated
            observations = self._observe()
            infos = merge_info({}, step_info, ~ended)
            if ended.any():
                worlds = np.flatnonzero(ended)
                final_obs = np.full(self.num_envs, None, dtype=object)
                for i in worlds:
                    final_obs[i] = world_slice(observations, i)
                infos["final_obs"], infos["_final_obs"] = final_obs, ended.copy()
                infos["final_info"] = merge_info({}, step_info, ended)
                infos["_final_info"] = ended.copy()
                merge_info(infos, self._load_worlds(worlds, None), ended)
                self._elapsed[worlds] = 0
                observations = self._observe()
        else:
            infos = merge_info({}, step_info, np.ones(self.num_envs, dtype=bool))
            observations = self._observe()

        self._ended = terminated | truncated
        return observations, rewards, terminated, truncated, infos

    def close(self, **kwargs: Any) -> None:
        """Release the simulators (``close_extras``); safe to call twice. The env refuses every call after it."""
        super().close(**kwargs)
        self._has_reset = False
