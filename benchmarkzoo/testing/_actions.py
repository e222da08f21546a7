"""Actions for the checks: seeded valid action sequences and deliberately invalid actions."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces


def invalid_actions(space: spaces.Space) -> list[tuple[str, Any]]:
    """Actions that are *not* in ``space``, each with a label for the failure message.

    Covers the mistakes policies make: out of range, wrong dtype (a float for a discrete
    action), wrong shape, NaN, and ``None``. Candidates that ``space`` happens to contain are
    dropped, so every returned action must be refused.
    """
    candidates: list[tuple[str, Any]] = [("None", None)]
    if isinstance(space, spaces.Discrete):
        low, high = int(space.start), int(space.start + space.n - 1)
        candidates += [
            (f"{high + 1} (above the range)", high + 1),
            (f"{low - 1} (below the range)", low - 1),
            (f"float {float(low)}", float(low)),
            ("array of shape (2,)", np.array([low, low])),
        ]
    elif isinstance(space, spaces.Box):
        sample = np.zeros(space.shape, dtype=space.dtype)
        sample = np.clip(sample, space.low, space.high).astype(space.dtype)
        if space.dtype is not None and space.dtype.kind == "f":
            nan = sample.copy()
            nan.flat[0] = np.nan
            candidates.append(("NaN", nan))
            if np.isfinite(space.high.flat[0]):
                above = sample.copy()
                above.flat[0] = space.high.flat[0] + 1.0
                candidates.append(("above the upper bound", above))
            candidates.append(
                (
                    "float64 instead of the space's dtype" if space.dtype != np.float64 else "complex",
                    sample.astype(np.float64 if space.dtype != np.float64 else np.complex128),
                )
            )
        else:
            candidates.append(("float dtype", sample.astype(np.float64)))
        candidates.append((f"shape {(*space.shape, 2)}", np.stack([sample, sample], axis=-1)))
    elif isinstance(space, spaces.MultiDiscrete):
        above = (space.start + space.nvec).astype(space.dtype)
        candidates += [
            ("above nvec", above),
            ("float dtype", above.astype(np.float64) - 1),
            ("wrong shape", np.zeros((*space.shape, 2), dtype=space.dtype)),
        ]
    elif isinstance(space, spaces.MultiBinary):
        candidates += [
            ("value 2", np.full(space.shape, 2, dtype=space.dtype)),
            ("wrong shape", np.zeros((*np.atleast_1d(space.shape), 2), dtype=space.dtype)),
        ]
    return [(label, action) for label, action in candidates if not _contains(space, action)]


def _contains(space: spaces.Space, action: Any) -> bool:
    try:
        return bool(space.contains(action))
    except Exception:  # a space that cannot even inspect the value certainly does not contain it
        return False


def draw_actions(space: spaces.Space, seed: int, count: int) -> list[Any]:
    """``count`` actions sampled from a copy of ``space`` seeded with ``seed``."""
    import copy

    space = copy.deepcopy(space)
    space.seed(seed)
    return [space.sample() for _ in range(count)]
