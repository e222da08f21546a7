"""The goal-conditioned reward, batched: Stable-Baselines3's HER relabels whole batches of goals at once."""

from __future__ import annotations

from typing import Any

import numpy as np

DISTANCE_THRESHOLD = 0.05  # m: success is the achieved goal (both cubes' positions, for Stack) within this
REWARD_TYPES = ("sparse", "dense")


def check_goals(env_id: str, achieved_goal: Any, desired_goal: Any, size: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """Both goal arguments as float arrays of one shape ``(..., size)`` with finite entries, else ``ValueError``."""
    arrays = []
    for name, value in (("achieved_goal", achieved_goal), ("desired_goal", desired_goal)):
        try:
            arr = np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(
                f"{env_id}.compute_reward expects {name} as a float array of shape ({size},) or (batch, {size}); "
                f"got {type(value).__name__}: {value!r:.80}."
            ) from None
        if arr.ndim == 0 or arr.shape[-1] != size:
            raise ValueError(
                f"{env_id}.compute_reward expects {name} of shape ({size},) or (batch, {size}) (x, y, z in metres); "
                f"got shape {arr.shape}."
            )
        if not np.isfinite(arr).all():
            raise ValueError(f"{env_id}.compute_reward got a non-finite {name}: {arr.tolist()!r:.120}.")
        arrays.append(arr)
    if arrays[0].shape != arrays[1].shape:
        raise ValueError(
            f"{env_id}.compute_reward expects achieved_goal and desired_goal of the same shape; got "
            f"{arrays[0].shape} and {arrays[1].shape}."
        )
    return arrays[0], arrays[1]


def goal_distance(achieved_goal: np.ndarray, desired_goal: np.ndarray) -> np.ndarray:
    """Euclidean distance over the last axis: ``(...)`` from two ``(..., goal_size)`` arrays."""
    return np.linalg.norm(achieved_goal - desired_goal, axis=-1)


def reward_from_distance(distance: np.ndarray, reward_type: str, threshold: float = DISTANCE_THRESHOLD) -> np.ndarray:
    """``-(d > threshold)`` (sparse) or ``-d`` (dense), float32, same shape as ``distance``."""
    if reward_type == "sparse":
        return -(distance > threshold).astype(np.float32)
    return (-distance).astype(np.float32)


def is_success(distance: np.ndarray, threshold: float = DISTANCE_THRESHOLD) -> np.ndarray:
    """Whether each distance is below ``threshold`` (same shape as ``distance``)."""
    return distance < threshold
