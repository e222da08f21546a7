"""Actions for the checks: seeded valid action sequences and deliberately invalid actions."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces


def invalid_actions(space: spaces.Space) -> list[tuple[str, Any]]:
    """Actions that are *not* in ``space``, each with a label for the failure message.

    Covers the mistakes policies make: out of range, wrong dtype (a float for a discrete
    action), wrong shape, NaN, and ``None``; for ``Dict`` and ``Tuple`` spaces also a missing or
    an extra part and each part's own mistakes. Candidates that ``space`` happens to contain are
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
    elif isinstance(space, spaces.Dict | spaces.Tuple):
        candidates += _composite_candidates(space)
    return [(label, action) for label, action in candidates if not _contains(space, action)]


def _composite_candidates(space: spaces.Dict | spaces.Tuple) -> list[tuple[str, Any]]:
    """A ``Dict``'s or ``Tuple``'s bad actions: a part missing, one too many, and each part's own bad values."""
    valid = _zero(space)
    if isinstance(space, spaces.Dict):
        keys: list[Any] = list(space.spaces)
        first = keys[0]
        out: list[tuple[str, Any]] = [(f"without key {first!r}", {k: v for k, v in valid.items() if k != first})]
        out.append(("an extra key 'unknown'", {**valid, "unknown": valid[first]}))
    else:
        keys = list(range(len(space.spaces)))
        out = [("one part short", valid[:-1]), ("one part too many", (*valid, valid[0]))]
    for key in keys:
        for label, bad in invalid_actions(space[key]):
            if bad is None:
                continue
            action = dict(valid) if isinstance(space, spaces.Dict) else list(valid)
            action[key] = bad
            out.append((f"part {key!r}: {label}", action if isinstance(action, dict) else tuple(action)))
    return out


def _zero(space: spaces.Space) -> Any:
    """A member of ``space`` built without sampling (its lowest value, part by part)."""
    if isinstance(space, spaces.Dict):
        return {key: _zero(sub) for key, sub in space.spaces.items()}
    if isinstance(space, spaces.Tuple):
        return tuple(_zero(sub) for sub in space.spaces)
    if isinstance(space, spaces.Discrete):
        return int(space.start)
    if isinstance(space, spaces.Box):
        return np.clip(np.zeros(space.shape, dtype=space.dtype), space.low, space.high).astype(space.dtype)
    return space.sample()


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
