"""The ``VecEnv`` plumbing both Stable-Baselines3 adapters share: one base over a native vector env.

:class:`NativeVecEnvAdapter` holds what :class:`~benchmarkzoo.adapters.sb3.NativeSB3VecEnv`
(one entry per world) and :class:`~benchmarkzoo.adapters.sb3_multiagent.ParameterSharingVecEnv`
(one entry per agent slot of every world) would otherwise both write: the autoreset-mode
check, scalarization weights, Monitor-like episode statistics, seeding (world ``w`` with
``s + w``, shared by the world's entries), per-world ``get_attr`` / ``env_method``, images and
close. A subclass writes only its ``reset`` and ``step_wait``: how entries map onto worlds.
"""

from __future__ import annotations

import inspect
import time
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from gymnasium.vector import AutoresetMode
from typing_extensions import Self, override

from benchmarkzoo import registration
from benchmarkzoo.core.extras import require

_NEEDED_FOR = "benchmarkzoo.adapters.sb3 (Stable-Baselines3 training)"
_vec_env = require("stable_baselines3.common.vec_env", "sb3", _NEEDED_FOR)
_monitor = require("stable_baselines3.common.monitor", "sb3", _NEEDED_FOR)
if TYPE_CHECKING:  # the checker reads SB3's class; at run time a missing extra is named by `require`
    from stable_baselines3.common.vec_env import VecEnv
else:
    VecEnv = _vec_env.VecEnv


def info_of(
    infos: dict[str, Any], world: int, skipped: tuple[str, ...], agent: int | None = None, num_agents: int = 0
) -> dict[str, Any]:
    """What world ``world`` reports in a vector info dict (``(B, ...)`` arrays under their ``_key`` masks).

    Nested dicts are read alike; keys in ``skipped`` are left out. With ``agent``, ``(B, N, ...)``
    arrays (``N = num_agents``) are per agent and give their ``[world, agent]`` entry; other
    ``(B, ...)`` arrays are per world (episode metrics) and every agent of the world gets their ``[world]``.
    """
    out: dict[str, Any] = {}
    for key, value in infos.items():
        if key.startswith("_") or key in skipped:
            continue
        if isinstance(value, dict):
            nested = info_of(value, world, skipped, agent, num_agents)
            if nested:
                out[key] = nested
            continue
        mask = infos.get(f"_{key}")
        if mask is not None and not mask[world]:
            continue
        item = value[world]
        if agent is not None and getattr(value, "ndim", 0) >= 2 and value.shape[1] == num_agents:
            item = item[agent]
        out[key] = item.item() if isinstance(item, np.generic) else item
    return out


class EpisodeStats:
    """Monitor-like episode statistics for ``n`` entries: ``{"r", "l", "t"}`` on each finished episode."""

    def __init__(self, n: int):
        self.returns = np.zeros(n, dtype=np.float64)  # (n,)
        self.lengths = np.zeros(n, dtype=np.int64)  # (n,)
        self.started = time.time()

    def reset(self) -> None:
        """Zero every entry's running return and length."""
        self.returns[:] = 0.0
        self.lengths[:] = 0

    def add(self, rewards: np.ndarray, counting: np.ndarray | None = None) -> None:
        """Accumulate one step's ``(n,)`` rewards (only where ``counting``, if given)."""
        if counting is None:
            self.returns += rewards
            self.lengths += 1
        else:
            self.returns[counting] += rewards[counting]
            self.lengths[counting] += 1

    def finish(self, index: int) -> dict[str, float]:
        """Entry ``index``'s episode ended: its record, and zeroed counters for the next."""
        record = {
            "r": round(float(self.returns[index]), 6),
            "l": int(self.lengths[index]),
            "t": round(time.time() - self.started, 6),
        }
        self.returns[index] = 0.0
        self.lengths[index] = 0
        return record


def check_weights(spec: registration.EnvSpec, reward_space: Any, scalarize: Any) -> np.ndarray | None:
    """Validate ``scalarize`` against the env's reward; ``None`` for scalar-reward envs."""
    vector_reward = spec.kind in ("mo", "moma")
    if not vector_reward:
        if scalarize is not None:
            raise ValueError(f"{spec.id} has a scalar reward; scalarize is only for mo/moma envs. Drop scalarize=.")
        return None
    shape = None if reward_space is None else tuple(reward_space.shape)
    if scalarize is None:
        raise ValueError(
            f"{spec.id} has a vector reward ({reward_space}); SB3 trains on scalar rewards. "
            f"Pass scalarize=np.array([...]) with {shape[0] if shape else 'one'} weight(s), e.g. "
            f"np.full({shape[0] if shape else 'k'}, 1 / {shape[0] if shape else 'k'})."
        )
    weights = np.asarray(scalarize, dtype=np.float64)
    if (shape is not None and weights.shape != shape) or not np.all(np.isfinite(weights)):
        raise ValueError(f"{spec.id}: scalarize must be {shape} finite weights (one per objective); got {scalarize!r}.")
    return weights


def per_world_attribute(native: Any, name: str, world: int) -> Any:
    """Attributes that differ per world, as the single env of world ``world`` would have them.

    Raises:
        KeyError: ``name`` is not a per-world attribute (the caller then reads the vector env's own).
    """
    if name == "observation_space":
        return native.single_observation_space
    if name == "action_space":
        return native.single_action_space
    if name == "np_random":
        return native.world_rng(world)
    if name == "scenario" and hasattr(native, "scenarios"):
        return native.scenarios[world]
    raise KeyError(name)


def call_per_world(native: Any, method_name: str, worlds: list[int], args: tuple, kwargs: dict) -> list[Any]:
    """``env_method`` over a native vector env whose worlds share one simulator.

    A method with a ``world`` parameter (e.g. ``world_rng``) is called once per requested world
    and gives per-world values; ``render`` gives each world's frame; any other method is called
    once (the worlds share it) and its result is repeated for every requested entry.
    """
    if method_name == "get_wrapper_attr":
        return [_attribute(native, args[0], w) for w in worlds]
    method = getattr(native, method_name)
    if method_name == "render":
        frames = method(*args, **kwargs)
        return [frames[w] if isinstance(frames, tuple | list) else frames for w in worlds]
    try:
        takes_world = "world" in inspect.signature(method).parameters
    except (TypeError, ValueError):
        takes_world = False
    if takes_world:
        return [method(*args, world=w, **kwargs) for w in worlds]
    result = method(*args, **kwargs)
    return [result for _ in worlds]


def _attribute(native: Any, name: str, world: int) -> Any:
    try:
        return per_world_attribute(native, name, world)
    except KeyError:
        return getattr(native, name)


def is_monitor(wrapper_class: type) -> bool:
    """Whether ``wrapper_class`` is SB3's ``Monitor``: the episode statistics it would add are already there."""
    return isinstance(wrapper_class, type) and issubclass(_monitor.Monitor, wrapper_class)


class NativeVecEnvAdapter(VecEnv):
    """An SB3 ``VecEnv`` of ``entries_per_world`` entries per world of a native vector env.

    Entry ``e`` belongs to world ``e // entries_per_world``. ``get_attr`` / ``env_method``
    resolve per world (see :func:`per_world_attribute` and :func:`call_per_world`);
    ``set_attr`` sets the vector env's attribute (for every world at once).

    Args:
        native: a native (single- or multi-agent) vector env made with :attr:`autoreset_mode`.
        metadata: what :attr:`benchmarkzoo_metadata` reports (env id, kind, kwargs, weights).
        scalarize: weights ``(k,)`` for a vector reward, or ``None``.
        episode_stats: write Monitor-like ``info["episode"]`` when an entry's episode ends.

    A subclass with more than one entry per world says how many in :meth:`_entries_of`.
    """

    #: The autoreset mode the native env must be made with.
    autoreset_mode: AutoresetMode
    #: Why it must, for the error when it was not (formatted with ``got``, the mode it was made with).
    autoreset_reason: str
    #: Warn when :meth:`get_images` has no images to give.
    warn_without_images = True

    def __init__(
        self,
        native: Any,
        metadata: dict[str, Any],
        scalarize: np.ndarray | None = None,
        episode_stats: bool = True,
    ):
        got = native.metadata.get("autoreset_mode")
        if got != self.autoreset_mode:
            raise ValueError(f"{native.env_id}: {self.autoreset_reason.format(got=got)} Use make_vec_env().")
        self.native = native
        self.num_worlds = native.num_envs
        self.entries_per_world = entries_per_world = self._entries_of(native)
        self.weights = scalarize
        self.episode_stats = episode_stats
        self.benchmarkzoo_metadata = dict(metadata)
        super().__init__(
            self.num_worlds * entries_per_world, native.single_observation_space, native.single_action_space
        )
        self._stats = EpisodeStats(self.num_envs)
        self._actions: Any = None

    @classmethod
    def over(
        cls,
        native: Any,
        spec: registration.EnvSpec,
        seed: int | None,
        scalarize: Any,
        metadata: dict[str, Any],
        episode_stats: bool,
    ) -> Self:
        """The adapter over ``native``: weights checked and in its metadata, seeded ``seed`` (for ``make_vec_env``)."""
        weights = check_weights(spec, getattr(native, "reward_space", None), scalarize)
        metadata = {**metadata, "scalarize": None if weights is None else weights.tolist()}
        env = cls(native, metadata, weights, episode_stats)
        if seed is not None:
            env.seed(seed)
        return env

    def _entries_of(self, native: Any) -> int:
        """``VecEnv`` entries per world of ``native``: one (a world's agents, for parameter sharing)."""
        return 1

    @property
    def scalarization_weights(self) -> np.ndarray | None:
        """The weights that turn the vector reward into SB3's scalar reward (``None``: scalar env)."""
        return None if self.weights is None else self.weights.copy()

    @override
    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """World ``w`` is seeded with ``seed + w`` at the next reset (SB3's semantics); one seed per entry."""
        if seed is None:
            seed = int(np.random.randint(0, np.iinfo(np.uint32).max, dtype=np.uint32))
        self._seeds = [seed + e // self.entries_per_world for e in range(self.num_envs)]
        return self._seeds

    def world_seeds(self) -> list[int | None]:
        """The seed of each world at the next reset (``None``: the world goes on with its generator)."""
        return list(self._seeds[:: self.entries_per_world])

    @override
    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    @override
    def close(self) -> None:
        self.native.close()

    def _worlds(self, indices: Any) -> list[int]:
        return [e // self.entries_per_world for e in self._get_indices(indices)]

    @override
    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        native = self.__dict__.get("native")
        if native is None:  # SB3's VecEnv.__init__ reads render_mode before we are set up
            raise AttributeError(attr_name)
        return [_attribute(native, attr_name, w) for w in self._worlds(indices)]

    @override
    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        """Set the vector env's attribute, for every world at once (``indices`` cannot pick worlds)."""
        setattr(self.native, attr_name, value)

    @override
    def env_method(self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any) -> list[Any]:
        return call_per_world(self.native, method_name, self._worlds(indices), method_args, method_kwargs)

    @override
    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        wrapped = self.episode_stats and is_monitor(wrapper_class)
        return [wrapped for _ in self._get_indices(indices)]

    @override
    def get_images(self) -> Sequence[np.ndarray | None]:
        """One frame per world (not per entry)."""
        if self.render_mode != "rgb_array":
            if self.warn_without_images:
                warnings.warn(
                    f"render_mode is {self.render_mode!r}; make the env with env_kwargs={{'render_mode': "
                    "'rgb_array'}} to get images.",
                    stacklevel=2,
                )
            return [None] * self.num_worlds
        return list(self.native.render())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.native!r})"
