"""Hybrid (discrete + continuous) action spaces as one ``Box``, for learners that take only array spaces.

Stable-Baselines3 trains on ``Box``, ``Discrete``, ``MultiDiscrete`` and ``MultiBinary`` actions
only ("Non-array spaces such as Dict or Tuple are not currently supported by any algorithm",
its docs' algorithm table); its env checker says to "flatten the action using a wrapper", and
its maintainer suggests, for discrete plus continuous parts, "transforming the discrete actions
to continuous ones (or the other way around, discretize the continuous actions)"
(DLR-RM/stable-baselines3 issues #731 and #527). :class:`HybridActionCodec` does the first, in
the parameterized-action form of Hausknecht and Stone (2016, "Deep reinforcement learning in
parameterized action space", ICLR): the learner outputs one score per discrete choice and the
continuous parameters, and the choice is the argmax of the scores.

Why a ``Box`` and not a ``MultiDiscrete`` of discretized parameters: the parameters stay exact
(Platform-v0's landing windows are 0.1 wide on a 2.0-long leap, which would need many bins),
and every SB3 algorithm with ``Box`` actions (PPO, A2C, SAC, TD3) trains on it, where a
``MultiDiscrete`` excludes the off-policy ones.

The layout of the ``Box(-1, 1, (n + d,), float32)``, for a ``Dict`` or ``Tuple`` whose parts are
one ``Discrete(n)`` and ``Box`` es of finite bounds (``d`` their sizes summed), in the space's part
order: ``n`` scores, then each ``Box`` part flattened and rescaled from ``[-1, 1]`` to its bounds.
"""

from __future__ import annotations

import itertools
from typing import Any, cast

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from typing_extensions import override


class HybridActionCodec:
    """Encode and decode one hybrid action space as a ``Box`` (see the module doc).

    Args:
        space: a ``Dict`` or ``Tuple`` of exactly one ``Discrete`` and one or more finite float ``Box`` es.

    Raises:
        TypeError: ``space`` is not of that form (the message names what is not).
    """

    def __init__(self, space: spaces.Space):
        if not is_hybrid(space):
            raise TypeError(
                f"HybridActionCodec encodes a Dict or Tuple of one Discrete and finite float Boxes; got {space}. "
                "Array spaces need no codec; other composites need a wrapper of their own."
            )
        self.hybrid = cast("spaces.Dict | spaces.Tuple", space)  # is_hybrid checked it
        self.keys: list[Any] = (
            list(self.hybrid.spaces) if isinstance(self.hybrid, spaces.Dict) else list(range(len(self.hybrid)))
        )
        parts = {key: self.hybrid[key] for key in self.keys}
        self.choice_key = next(key for key, part in parts.items() if isinstance(part, spaces.Discrete))
        self.choices = cast("spaces.Discrete", parts[self.choice_key])
        #: The ``Box`` parts, in the space's order.
        self.boxes = {key: part for key, part in parts.items() if isinstance(part, spaces.Box)}
        self.box_keys = list(self.boxes)
        sizes = [int(np.prod(box.shape)) for box in self.boxes.values()]
        self.slices = dict(zip(self.box_keys, _consecutive(int(self.choices.n), sizes), strict=True))
        self.space = spaces.Box(-1.0, 1.0, shape=(int(self.choices.n) + sum(sizes),), dtype=np.float32)

    def decode(self, flat: np.ndarray) -> Any:
        """The hybrid action of one ``Box`` action: argmax of the scores (the first on a tie), parameters rescaled."""
        batch = self._decode_parts(np.asarray(flat)[None])
        action = {key: value[0] for key, value in batch.items()}
        action[self.choice_key] = int(action[self.choice_key])
        return action if isinstance(self.hybrid, spaces.Dict) else tuple(action[key] for key in self.keys)

    def decode_batch(self, flat: np.ndarray) -> Any:
        """``(B, n + d)`` ``Box`` actions as a batch of the hybrid space, as a vector env takes it.

        A ``Dict`` space's batch is ``{key: (B, ...)}``, a ``Tuple``'s a tuple of ``(B, ...)`` arrays.
        Out-of-range entries (SB3 clips PPO's Gaussian samples to the bounds, but a policy's
        ``predict`` without clipping may not) are clipped to ``[-1, 1]`` first, so every decoded
        action is in the hybrid space.
        """
        parts = self._decode_parts(flat)
        return parts if isinstance(self.hybrid, spaces.Dict) else tuple(parts[key] for key in self.keys)

    def _decode_parts(self, flat: np.ndarray) -> dict[Any, np.ndarray]:
        flat = np.clip(np.asarray(flat, dtype=np.float64), -1.0, 1.0)
        n = int(self.choices.n)
        out: dict[Any, np.ndarray] = {
            self.choice_key: (np.argmax(flat[:, :n], axis=1) + int(self.choices.start)).astype(np.int64)
        }
        for key in self.box_keys:
            part = self.boxes[key]
            unit = (flat[:, self.slices[key]] + 1.0) / 2.0
            low, high = part.low.astype(np.float64).ravel(), part.high.astype(np.float64).ravel()
            values = np.clip(low + unit * (high - low), low, high).astype(part.dtype)
            out[key] = values.reshape(flat.shape[0], *part.shape)
        return out

    def encode(self, action: Any) -> np.ndarray:
        """The ``Box`` action that decodes to ``action``: its choice scored 1, the others -1, parameters scaled."""
        parts = action if isinstance(self.hybrid, spaces.Dict) else dict(zip(self.keys, action, strict=True))
        flat = np.full(self.space.shape, -1.0, dtype=np.float64)
        flat[int(parts[self.choice_key]) - int(self.choices.start)] = 1.0
        for key in self.box_keys:
            part = self.boxes[key]
            low, high = part.low.astype(np.float64).ravel(), part.high.astype(np.float64).ravel()
            value = np.asarray(parts[key], dtype=np.float64).ravel()
            flat[self.slices[key]] = 2.0 * (value - low) / (high - low) - 1.0
        return flat.astype(np.float32)


def is_hybrid(space: spaces.Space) -> bool:
    """Whether ``space`` is a ``Dict`` or ``Tuple`` of exactly one ``Discrete`` and finite float ``Box`` es."""
    if not isinstance(space, spaces.Dict | spaces.Tuple):
        return False
    parts = list(space.spaces.values()) if isinstance(space, spaces.Dict) else list(space.spaces)
    discrete = [part for part in parts if isinstance(part, spaces.Discrete)]
    boxes = [part for part in parts if isinstance(part, spaces.Box)]
    finite = all(
        part.dtype is not None and part.dtype.kind == "f" and np.all(np.isfinite(part.low) & np.isfinite(part.high))
        for part in boxes
    )
    return len(discrete) == 1 and len(boxes) == len(parts) - 1 and len(boxes) > 0 and finite


def _consecutive(start: int, sizes: list[int]) -> list[slice]:
    bounds = np.cumsum([start, *sizes]).tolist()
    return [slice(a, b) for a, b in itertools.pairwise(bounds)]


class HybridToBox(gym.ActionWrapper):
    """A single env whose hybrid action space is seen as :class:`HybridActionCodec`'s ``Box``."""

    def __init__(self, env: gym.Env):
        super().__init__(env)
        self.codec = HybridActionCodec(env.action_space)
        self.action_space = self.codec.space

    @override
    def action(self, action: Any) -> Any:
        return self.codec.decode(action)
