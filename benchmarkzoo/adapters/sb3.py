"""Stable-Baselines3 ``VecEnv`` s straight over benchmarkzoo's native vector envs.

SB3 does not accept Gymnasium ``VectorEnv`` s (its issues #1608 and #1568): it wants its own
``VecEnv`` API, with the episode that ended and the one that starts in the same step
(``infos[i]["terminal_observation"]``, ``infos[i]["TimeLimit.truncated"]``). :func:`make_vec_env`
gives that API over one batched simulator, so training needs no glue code:

>>> from stable_baselines3 import PPO
>>> from benchmarkzoo.adapters.sb3 import make_vec_env
>>> env = make_vec_env("benchmarkzoo/Maze-v0", 16, seed=0)
>>> model = PPO("MultiInputPolicy", env, n_steps=64, seed=0).learn(1_024)

What the adapter does, for every kind of env:

* **single** (and **mo** with ``scalarize=weights``): :class:`NativeSB3VecEnv`, the native
  vector env run with ``autoreset_mode=SAME_STEP``; its ``final_obs`` / ``final_info`` become
  SB3's ``terminal_observation`` and the finished episode's info, and the new episode's reset
  info goes to ``reset_infos``. Rollouts equal ``DummyVecEnv`` / ``SubprocVecEnv`` over the
  single env (``backend="dummy"`` / ``"subproc"``) for the same seed and actions, bit for bit.
* **parallel**: :class:`benchmarkzoo.adapters.sb3_multiagent.ParameterSharingVecEnv`, one entry
  per agent slot of every world (``num_envs = B * N``), so one shared policy trains on all agents.
* **hybrid actions** (a ``Dict`` or ``Tuple`` of one ``Discrete`` and ``Box`` es, Platform-v0's):
  SB3 takes array spaces only, so the VecEnv's ``action_space`` is
  :class:`~benchmarkzoo.wrappers.hybrid.HybridActionCodec`'s ``Box`` (a score per discrete
  choice, then the parameters; the choice is the scores' argmax), decoded before every step
  (``HybridToBox`` on the dummy / subproc backends); the metadata records ``action_codec``.
* **seeding**: ``seed(s)`` (which SB3 calls with the model's seed) seeds world ``i`` with
  ``s + i`` at the next reset, as SB3 does and as benchmarkzoo's determinism contract says.
* **episode statistics**: every finished episode's info holds ``{"episode": {"r", "l", "t"}}``,
  as SB3's ``Monitor`` writes it, so the logger shows ``ep_rew_mean`` / ``ep_len_mean`` and
  ``evaluate_policy`` reads true episode returns; no ``VecMonitor`` is needed (it still works).
* **metadata**: :attr:`NativeSB3VecEnv.benchmarkzoo_metadata` (env id, kind, env kwargs,
  scalarization weights); :func:`tag_model` copies it, with the algorithm's name, into a model so
  that ``model.save`` stores it in the zip, where :mod:`benchmarkzoo.adapters.sb3_policy` reads it.

Loading an SB3 model zip unpickles code from it: load only files you trust.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode
from typing_extensions import override

from benchmarkzoo import registration
from benchmarkzoo.adapters.sb3_base import (
    _NEEDED_FOR,
    NativeVecEnvAdapter,
    _vec_env,
    check_weights,
    info_of,
)
from benchmarkzoo.core.extras import require
from benchmarkzoo.wrappers.hybrid import HybridActionCodec, HybridToBox, is_hybrid

BACKENDS = ("native", "dummy", "subproc")
#: The key of a saved model's data (and the attribute of a tagged model) that holds the metadata.
METADATA_KEY = "benchmarkzoo"
#: ``benchmarkzoo_metadata["action_codec"]`` of an env whose hybrid actions SB3 sees as a ``Box``.
HYBRID_CODEC = "hybrid-box"


#: Vector info entries that are not a world's info in SB3's sense (SB3 gets them as ``terminal_observation``).
_AUTORESET_INFO = ("final_obs", "final_info")


# ---- the single-agent adapter ---------------------------------------------------------------------


class NativeSB3VecEnv(NativeVecEnvAdapter):
    """An SB3 ``VecEnv`` over a benchmarkzoo native vector env (``single`` or scalarized ``mo``).

    Use :func:`make_vec_env` to build one. Worlds share one simulator, so:

    * ``get_attr(name)`` returns, per requested world, ``observation_space`` / ``action_space``
      (the single world's), ``np_random`` (the world's generator) and ``scenario`` (its current
      scenario) as the single env would; any other name is the vector env's own attribute.
    * ``set_attr(name, value)`` sets the vector env's attribute (for every world at once).
    * ``env_method(name)`` is per world for methods with a ``world`` parameter and for
      ``render``; any other method is called once. See :func:`~benchmarkzoo.adapters.sb3_base.call_per_world`.

    Args:
        native: a :class:`~benchmarkzoo.vector.base.NativeVectorEnv` made with ``autoreset_mode=SAME_STEP``.
        metadata: what :attr:`benchmarkzoo_metadata` reports (env id, kind, kwargs, weights).
        scalarize: weights ``(k,)`` for a vector reward (``mo`` envs), or ``None``.
        episode_stats: write Monitor-like ``info["episode"]`` when an episode ends.
    """

    autoreset_mode = AutoresetMode.SAME_STEP
    autoreset_reason = "the SB3 adapter needs the native env made with autoreset_mode=SAME_STEP; got {got!r}."
    #: The codec of a hybrid action space (a Dict or Tuple of a Discrete and Boxes); ``None`` for array spaces.
    codec: HybridActionCodec | None = None

    def __init__(self, native: Any, metadata: dict[str, Any], scalarize: Any = None, episode_stats: bool = True):
        super().__init__(native, metadata, scalarize, episode_stats)
        if is_hybrid(native.single_action_space):  # SB3 takes array spaces only: see benchmarkzoo.wrappers.hybrid
            self.codec = HybridActionCodec(native.single_action_space)
            self.action_space = self.codec.space
            self.benchmarkzoo_metadata["action_codec"] = HYBRID_CODEC

    @override
    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions if self.codec is None else self.codec.decode_batch(actions)

    @override
    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        if attr_name == "action_space" and self.codec is not None:
            return [self.codec.space for _ in self._get_indices(indices)]
        return super().get_attr(attr_name, indices)

    # ---- reset and step --------------------------------------------------------------------------

    @override
    def reset(self) -> Any:
        seeds, options = self.world_seeds(), self._options
        if all(_same(o, options[0]) for o in options):
            obs, infos = self.native.reset(seed=seeds, options=dict(options[0]) or None)
        else:
            # Worlds with their own options: a full reset, then each world again with its seed and options.
            obs, infos = self.native.reset(seed=seeds)
            for world, opts in enumerate(options):
                if opts:
                    mask = np.zeros(self.num_envs, dtype=bool)
                    mask[world] = True
                    one = [seeds[world] if w == world else None for w in range(self.num_envs)]
                    obs, world_infos = self.native.reset(seed=one, options={**opts, "reset_mask": mask})
                    infos = _overwrite(infos, world_infos, world)
        self.reset_infos = [info_of(infos, i, _AUTORESET_INFO) for i in range(self.num_envs)]
        self._reset_seeds()
        self._reset_options()
        self._stats.reset()
        return obs

    @override
    def step_wait(self) -> tuple[Any, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        obs, rewards, terminated, truncated, infos = self.native.step(self._actions)
        vector = None
        if self.weights is not None:
            vector = np.asarray(rewards)  # (B, k)
            rewards = vector @ self.weights  # (B,)
        rewards = np.asarray(rewards, dtype=np.float32)  # as DummyVecEnv's reward buffer
        dones = np.asarray(terminated | truncated)
        self._stats.add(rewards)
        final_obs, final_info = infos.get("final_obs"), infos.get("final_info", {})
        out: list[dict[str, Any]] = []
        for i in range(self.num_envs):
            if dones[i]:
                info = info_of(final_info, i, _AUTORESET_INFO)
                info["terminal_observation"] = final_obs[i]
                self.reset_infos[i] = info_of(infos, i, _AUTORESET_INFO)
            else:
                info = info_of(infos, i, _AUTORESET_INFO)
            info["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
            if vector is not None:
                info["vector_reward"] = vector[i].copy()
            if dones[i] and self.episode_stats:
                info["episode"] = self._stats.finish(i)
            elif dones[i]:
                self._stats.finish(i)
            out.append(info)
        return obs, rewards, dones, out


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    try:
        return bool(a == b)
    except (ValueError, TypeError):  # numpy arrays inside options
        return a is b


def _overwrite(infos: dict[str, Any], world_infos: dict[str, Any], world: int) -> dict[str, Any]:
    """``infos`` with world ``world``'s entries replaced by those of ``world_infos``."""
    for key, value in world_infos.items():
        if key.startswith("_") or isinstance(value, dict):
            continue
        if key not in infos:
            infos[key], infos[f"_{key}"] = np.zeros_like(value), np.zeros_like(world_infos[f"_{key}"])
        infos[key][world] = value[world]
        infos[f"_{key}"][world] = world_infos[f"_{key}"][world]
    return infos


# ---- single envs for the dummy / subproc backends ------------------------------------------------


def make_single_env(env_id: str, env_kwargs: dict[str, Any], weights: list[float] | None) -> Any:
    """One single env (scalarized with mo-gymnasium's ``LinearReward`` if ``weights``); top level, so it pickles."""
    env = registration.make(env_id, **env_kwargs)
    if is_hybrid(env.action_space):
        env = HybridToBox(env)
    if weights is not None:
        linear = require("mo_gymnasium.wrappers", "mo", f"{env_id} scalarization").LinearReward
        env = linear(env, weight=np.asarray(weights, dtype=np.float64))
    return env


# ---- the public entry points ---------------------------------------------------------------------------


def make_vec_env(
    env_id: str,
    num_envs: int,
    seed: int | None = 0,
    backend: str = "native",
    env_kwargs: dict[str, Any] | None = None,
    scalarize: Sequence[float] | np.ndarray | None = None,
    episode_stats: bool = True,
) -> Any:
    """An SB3 ``VecEnv`` of ``env_id``, ready for ``PPO(..., env)``.

    Args:
        env_id: a registered id (``"benchmarkzoo/Maze-v0"`` or ``"Maze-v0"``).
        num_envs: worlds (for ``parallel`` envs: worlds; the VecEnv has ``num_envs * N`` entries).
        seed: world ``i`` is seeded ``seed + i`` at the first reset (``None``: OS entropy).
        backend: ``"native"`` (one batched simulator, the fast path), ``"dummy"`` or ``"subproc"``
            (SB3's ``DummyVecEnv`` / ``SubprocVecEnv`` over ``Monitor``-wrapped single envs, for
            comparison; single-agent kinds only).
        env_kwargs: constructor arguments, e.g. ``{"generator_kwargs": {"height": 7, "width": 7}}``;
            they replace the registered defaults key by key.
        scalarize: weights of the objectives of a multi-objective env, e.g. ``np.array([0.5, 0.5])``;
            required for ``mo`` / ``moma`` kinds, refused for the others.
        episode_stats: write Monitor-like ``info["episode"]`` (native backend; the others use ``Monitor``).

    Raises:
        UnknownEnvError: ``env_id`` is not registered (the message lists the closest ids).
        MissingExtraError: the env needs an extra that is not installed.
        ValueError: a bad backend, weights missing or of the wrong shape, or a backend the kind lacks.
    """
    spec = registration.spec(env_id)
    spec.require_extras()
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}; got {backend!r}.")
    if isinstance(num_envs, bool) or not isinstance(num_envs, int | np.integer) or num_envs < 1:
        raise ValueError(f"num_envs must be a positive integer; got {num_envs!r}.")
    env_kwargs = dict(env_kwargs or {})
    metadata: dict[str, Any] = {
        "env_id": spec.id,
        "kind": spec.kind,
        "env_kwargs": env_kwargs,
        "backend": backend,
        "scalarize": None,
        "parameter_sharing": spec.kind in ("parallel", "moma"),
    }
    if spec.kind in ("parallel", "moma"):
        if backend != "native":
            raise ValueError(f"{spec.id} is a {spec.kind!r} env: only backend='native' (parameter sharing) exists.")
        from benchmarkzoo.adapters.sb3_multiagent import make_parameter_sharing_env

        return make_parameter_sharing_env(spec, num_envs, seed, env_kwargs, scalarize, metadata, episode_stats)
    if backend == "native":
        if not spec.has_native_vector:
            raise ValueError(f"{spec.id} has no native vector form; use backend='dummy' or 'subproc'.")
        native = registration.make_vec(
            spec.id,
            num_envs,
            vectorization_mode="vector_entry_point",
            autoreset_mode=AutoresetMode.SAME_STEP,
            **env_kwargs,
        )
        return NativeSB3VecEnv.over(native, spec, seed, scalarize, metadata, episode_stats)
    probe = registration.make(spec.id, **env_kwargs)
    weights = check_weights(spec, getattr(probe.unwrapped, "reward_space", None), scalarize)
    probe.close()
    metadata["scalarize"] = None if weights is None else weights.tolist()
    if is_hybrid(probe.action_space):
        metadata["action_codec"] = HYBRID_CODEC
    env_util = require("stable_baselines3.common.env_util", "sb3", _NEEDED_FOR)
    vec_cls = _vec_env.SubprocVecEnv if backend == "subproc" else _vec_env.DummyVecEnv
    make_one = functools.partial(make_single_env, spec.id, env_kwargs, metadata["scalarize"])
    env = env_util.make_vec_env(make_one, n_envs=num_envs, seed=seed, vec_env_cls=vec_cls)
    env.benchmarkzoo_metadata = metadata
    return env


def env_metadata(env: Any) -> dict[str, Any] | None:
    """The :attr:`benchmarkzoo_metadata` of a VecEnv made by :func:`make_vec_env`, through any VecEnv wrappers."""
    while env is not None:
        found = env.__dict__.get("benchmarkzoo_metadata")
        if found is not None:
            return dict(found)
        env = env.__dict__.get("venv")
    return None


def tag_model(model: Any, env: Any = None) -> dict[str, Any]:
    """Record the env's metadata and the algorithm in ``model`` so that ``model.save`` stores them.

    The record (env id, kind, env kwargs, scalarization weights, parameter sharing, algorithm)
    lands in the zip's ``data`` under ``"benchmarkzoo"``;
    :class:`~benchmarkzoo.adapters.sb3_policy.SB3Policy` reads it to load and check the model.

    Args:
        model: an SB3 algorithm instance.
        env: the VecEnv it trains on (default: ``model.get_env()``).
    """
    metadata = env_metadata(env if env is not None else model.get_env())
    if metadata is None:
        raise ValueError("tag_model needs a VecEnv made by benchmarkzoo.adapters.sb3.make_vec_env (maybe wrapped).")
    metadata["algorithm"] = type(model).__name__
    metadata["algorithm_module"] = type(model).__module__
    setattr(model, METADATA_KEY, metadata)
    return metadata


__all__ = ["BACKENDS", "METADATA_KEY", "NativeSB3VecEnv", "env_metadata", "make_vec_env", "tag_model"]
