"""``check_vector_matches_single``: the native vector env equals Sync/AsyncVectorEnv bit for bit."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, SyncVectorEnv

from benchmarkzoo.testing._actions import draw_actions
from benchmarkzoo.testing._compare import assert_same, snapshot

_OUTPUTS = ("observations", "rewards", "terminations", "truncations", "infos")


def check_vector_matches_single(
    env_id: str,
    num_envs: int = 16,
    steps: int = 1000,
    seed: int = 0,
    autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
    *,
    backends: tuple[str, ...] = ("sync",),
    **make_kwargs: Any,
) -> dict[str, int]:
    """Roll out the native vector env and Gymnasium's vector env over the single env side by side.

    Both get ``reset(seed=seed)`` (world ``i`` seeded ``seed + i``) and the same pre-drawn
    batched actions; observations, rewards, terminations, truncations and infos (``_key``
    masks, ``final_obs`` and ``final_info`` included) must agree exactly, dtypes too. With
    ``DISABLED`` autoreset, ended worlds are reset with ``options={"reset_mask": ended}`` on
    both, and those resets are compared as well.

    Args:
        env_id: a registered single or multi-objective id with a ``vector_entry_point``.
        num_envs: worlds per vector env.
        steps: batched steps.
        seed: the reset seed and the action-sampling seed.
        autoreset_mode: ``NEXT_STEP``, ``SAME_STEP`` or ``DISABLED`` (enum or its value).
        backends: Gymnasium vectorizers to compare against: ``"sync"`` and/or ``"async"``.
        **make_kwargs: env constructor arguments, passed to every form.

    Returns:
        ``{"episodes_ended": ..., "steps": ...}``, so a caller can insist that autoresets happened.

    Raises:
        AssertionError: naming the backend, the step, the output and the key that differed.
    """
    mode = AutoresetMode(autoreset_mode)
    native = gym.make_vec(
        env_id, num_envs=num_envs, vectorization_mode="vector_entry_point", autoreset_mode=mode, **make_kwargs
    )
    references = {backend: _reference(env_id, backend, num_envs, mode, make_kwargs) for backend in backends}
    try:
        _check_layout(env_id, native, references, mode)
        actions = draw_actions(native.action_space, seed, steps)
        ended_total = 0
        expected = snapshot(native.reset(seed=seed))
        for backend, env in references.items():
            actual = snapshot(env.reset(seed=seed))
            assert_same(expected, actual, f"{env_id} [{backend}, {mode.value}] reset(seed={seed})")
        for t, action in enumerate(actions):
            expected = snapshot(native.step(snapshot(action)))
            for backend, env in references.items():
                actual = snapshot(env.step(snapshot(action)))
                for name, e, a in zip(_OUTPUTS, expected, actual):
                    assert_same(e, a, f"{env_id} [{backend}, {mode.value}] step {t}: {name} (native vs {backend})")
            ended = expected[2] | expected[3]  # (num_envs,) bool
            ended_total += int(ended.sum())
            if mode == AutoresetMode.DISABLED and ended.any():
                reset_expected = snapshot(native.reset(options={"reset_mask": ended.copy()}))
                for backend, env in references.items():
                    actual = snapshot(env.reset(options={"reset_mask": ended.copy()}))
                    assert_same(
                        reset_expected,
                        actual,
                        f"{env_id} [{backend}, {mode.value}] reset(reset_mask=worlds {np.flatnonzero(ended).tolist()}) "
                        f"after step {t}",
                    )
        return {"episodes_ended": ended_total, "steps": steps}
    finally:
        native.close()
        for env in references.values():
            env.close()


class VectorRewardSyncVectorEnv(SyncVectorEnv):
    """Gymnasium's ``SyncVectorEnv`` with a ``(num_envs, num_objectives)`` float32 reward buffer.

    Gymnasium's own buffer is ``(num_envs,)`` float64 and cannot hold vector rewards, and
    MO-Gymnasium's ``MOSyncVectorEnv`` only autoresets on the next step; this is the reference
    for multi-objective envs in every autoreset mode (it equals ``MOSyncVectorEnv`` in NEXT_STEP).
    """

    def __init__(self, env_fns: list[Callable[[], gym.Env]], **kwargs: Any):
        super().__init__(env_fns, **kwargs)
        # a multi-objective env's reward_space is MO-Gymnasium's addition, unknown to gymnasium.Env's type
        self.reward_space = self.envs[0].unwrapped.reward_space  # type: ignore[attr-defined]
        self._rewards = np.zeros((self.num_envs, *self.reward_space.shape), dtype=self.reward_space.dtype)


def _reference(env_id: str, backend: str, num_envs: int, mode: AutoresetMode, make_kwargs: dict[str, Any]) -> Any:
    """Gymnasium's vector env over the single env, or for multi-objective envs MO-Gymnasium's (or ours above)."""
    if not hasattr(gym.make(env_id, **make_kwargs).unwrapped, "reward_space"):
        return gym.make_vec(
            env_id, num_envs=num_envs, vectorization_mode=backend, vector_kwargs={"autoreset_mode": mode}, **make_kwargs
        )
    # The passive checker warns on every vector reward; MO-Gymnasium's make disables it the same way.
    env_fns = [lambda: gym.make(env_id, disable_env_checker=True, **make_kwargs) for _ in range(num_envs)]
    if backend == "async":
        from mo_gymnasium.wrappers.vector import MOAsyncVectorEnv

        return MOAsyncVectorEnv(env_fns, autoreset_mode=mode)
    if mode == AutoresetMode.NEXT_STEP:
        from mo_gymnasium.wrappers.vector import MOSyncVectorEnv

        # MO-Gymnasium annotates env_fns as an Iterator; it is SyncVectorEnv's sequence of callables
        return MOSyncVectorEnv(env_fns)  # type: ignore[arg-type]
    return VectorRewardSyncVectorEnv(env_fns, autoreset_mode=mode)


def _check_layout(env_id: str, native: gym.vector.VectorEnv, references: dict[str, Any], mode: AutoresetMode) -> None:
    if native.metadata.get("autoreset_mode") != mode:
        raise AssertionError(
            f"{env_id}: native vector env metadata['autoreset_mode'] is {native.metadata.get('autoreset_mode')!r}; "
            f"asked for {mode!r}"
        )
    for backend, env in references.items():
        for attr in (
            "num_envs",
            "single_observation_space",
            "single_action_space",
            "observation_space",
            "action_space",
        ):
            if getattr(native, attr) != getattr(env, attr):
                raise AssertionError(
                    f"{env_id}: {attr} differs, native {getattr(native, attr)} != {backend} {getattr(env, attr)}"
                )
