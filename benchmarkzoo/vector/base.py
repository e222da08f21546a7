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

from benchmarkzoo.core.errors import ClosedEnvError, ResetNeededError
from benchmarkzoo.core.options import check_options
from benchmarkzoo.core.seeding import np_random, world_seeds

#: The keys a native vector env's ``reset(options=...)`` reads (both vector bases).
VECTOR_RESET_OPTIONS = ("scenario", "reset_mask")


def refuse_closed(env_id: str, method: str) -> None:
    """Raise :class:`ClosedEnvError` for ``method`` called on a closed vector env."""
    raise ClosedEnvError(
        f"{env_id}: {method}() called after close(); a closed vector env has released its simulators. "
        "Make a new one (gym.make_vec or benchmarkzoo.make_vec) to keep going."
    )


def world_slice(tree: Any, index: int) -> Any:
    """World ``index`` of a batched observation (array, or dict/tuple of arrays), copied."""
    if isinstance(tree, dict):
        return {k: world_slice(v, index) for k, v in tree.items()}
    if isinstance(tree, tuple):
        return tuple(world_slice(v, index) for v in tree)
    return tree[index].copy()


def merge_info(infos: dict[str, Any], part: dict[str, Any], mask: np.ndarray) -> dict[str, Any]:
    """Write the ``mask``-ed worlds of ``part`` (dict of ``(B, ...)`` arrays) into ``infos`` with ``_key`` masks.

    Entries of worlds outside every mask stay zero, as in ``SyncVectorEnv``; a key no masked
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
        if key not in infos:
            infos[key] = np.zeros_like(value)
            infos[f"_{key}"] = np.zeros(mask.shape, dtype=bool)
        infos[key][mask] = value[mask]
        infos[f"_{key}"] |= mask
    return infos


class NativeVectorEnv(VectorEnv):
    """Base class of benchmarkzoo's native vector envs (one batched simulator, ``num_envs`` worlds).

    Subclasses set the four spaces and ``env_id`` in ``__init__`` (after calling this one) and
    implement :meth:`_load_worlds`, :meth:`_step_worlds` and :meth:`_observe`.

    Args:
        num_envs: number of worlds.
        max_episode_steps: truncate an episode after this many steps (``None``: never).
        autoreset_mode: ``NEXT_STEP`` (default), ``SAME_STEP`` or ``DISABLED``, as in Gymnasium.
        render_mode: as in the single env.
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}
    env_id = "benchmarkzoo"
    #: The keys ``reset(options=...)`` reads; any other key is refused.
    reset_options: tuple[str, ...] = VECTOR_RESET_OPTIONS

    def __init__(
        self,
        num_envs: int,
        max_episode_steps: int | None = None,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        render_mode: str | None = None,
    ):
        if not isinstance(num_envs, int | np.integer) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer; got {num_envs!r}.")
        valid_limit = isinstance(max_episode_steps, int | np.integer) and max_episode_steps >= 1
        if max_episode_steps is not None and not valid_limit:
            raise ValueError(f"max_episode_steps must be a positive integer or None; got {max_episode_steps!r}.")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            modes = self.metadata["render_modes"]
            raise ValueError(f"render_mode must be one of {modes} or None; got {render_mode!r}.")
        self.num_envs = int(num_envs)
        self.max_episode_steps = max_episode_steps
        self.render_mode = render_mode
        self.metadata = {**type(self).metadata, "autoreset_mode": AutoresetMode(autoreset_mode)}
        self._rngs: list[np.random.Generator | None] = [None] * self.num_envs
        self._elapsed = np.zeros(self.num_envs, dtype=np.int64)  # steps since each world's reset
        self._ended = np.zeros(self.num_envs, dtype=bool)  # terminated or truncated on the last step
        self._has_reset = False

    # ---- hooks --------------------------------------------------------------------------------

    def _load_worlds(self, worlds: np.ndarray, options: dict[str, Any] | None) -> dict[str, np.ndarray]:
        """Draw a scenario for each world in ``worlds`` from :meth:`world_rng` and load it.

        Returns:
            the reset info as a dict of ``(num_envs, ...)`` arrays; only entries at ``worlds`` are read.
        """
        raise NotImplementedError

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

    def world_rng(self, world: int) -> np.random.Generator:
        """World ``world``'s generator (created from OS entropy on first use if never seeded)."""
        rng = self._rngs[world]
        if rng is None:
            rng = self._rngs[world] = np_random(None)
        return rng

    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset every world, or only ``options["reset_mask"]``'s (needed with ``DISABLED`` autoreset)."""
        if self.closed:
            refuse_closed(self.env_id, "reset")
        seeds = world_seeds(seed, self.num_envs, self.env_id)
        options = dict(check_options(self.env_id, options, self.reset_options))
        mask = options.pop("reset_mask", None)
        if mask is None:
            mask = np.ones(self.num_envs, dtype=bool)
        elif not (isinstance(mask, np.ndarray) and mask.dtype == np.bool_ and mask.shape == (self.num_envs,)):
            raise ValueError(
                f"options['reset_mask'] must be a bool numpy array of shape ({self.num_envs},); got {mask!r}."
            )
        elif not mask.any():
            raise ValueError("options['reset_mask'] selects no world; pass at least one True, or no mask to reset all.")
        elif not self._has_reset and not mask.all():
            raise ResetNeededError(f"{self.env_id}: the first reset must reset every world; drop reset_mask.")
        worlds = np.flatnonzero(mask)
        for i in worlds:
            if seeds[i] is not None:
                self._rngs[i] = np_random(seeds[i])
        info = self._load_worlds(worlds, options or None)
        self._elapsed[worlds] = 0
        self._ended[worlds] = False
        self._has_reset = True
        return self._observe(), merge_info({}, info, mask)

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every world; finished worlds are reset according to ``autoreset_mode``."""
        if not self._has_reset:  # also after close(), which clears it: the hot path tests one flag
            if self.closed:
                refuse_closed(self.env_id, "step")
            raise ResetNeededError(f"{self.env_id}: call reset() before step().")
        mode = self.metadata["autoreset_mode"]
        if mode == AutoresetMode.DISABLED and self._ended.any():
            raise ResetNeededError(
                f"{self.env_id}: worlds {np.flatnonzero(self._ended).tolist()} have ended and autoreset is "
                "DISABLED; call reset(options={'reset_mask': ended}) before stepping them."
            )
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
