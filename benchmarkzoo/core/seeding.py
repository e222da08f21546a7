"""Seeding: one convention everywhere, so single, native-vector and sync-vector rollouts agree.

* ``reset(seed=s)`` seeds the env's generator with Gymnasium's ``np_random(s)``; the scenario is
  the first thing drawn from it, so the scenario of seed ``s`` is the same wherever it is made.
* In a vector env world ``i`` is seeded with ``s + i`` (Gymnasium's convention).
* The evaluation protocol derives episode seeds from names and indices with :func:`derive_seed`.
"""

from __future__ import annotations

import hashlib

import numpy as np
from gymnasium.utils import seeding

MAX_SEED = 2**63 - 1


def np_random(seed: int | None) -> np.random.Generator:
    """The generator Gymnasium's ``Env.reset(seed=seed)`` would create (bit-identical)."""
    rng, _ = seeding.np_random(seed)
    return rng


def world_seeds(seed: int | list[int | None] | None, num_worlds: int) -> list[int | None]:
    """Per-world seeds by Gymnasium's vector convention: ``s + i``, a list as given, or all ``None``."""
    if seed is None:
        return [None] * num_worlds
    if isinstance(seed, int | np.integer):
        return [int(seed) + i for i in range(num_worlds)]
    seeds = list(seed)
    if len(seeds) != num_worlds:
        raise ValueError(
            f"Expected one seed per world ({num_worlds}); got a list of {len(seeds)}. "
            "Pass an int (world i gets seed + i) or a list of length num_envs."
        )
    return seeds


def derive_seed(*parts: object) -> int:
    """A seed in ``[0, 2**63)`` determined by ``parts`` alone (e.g. protocol seed, task id, episode).

    Uses sha256 of the parts' reprs joined by NUL, so it is stable across processes, machines
    and Python versions (unlike ``hash``).
    """
    digest = hashlib.sha256("\0".join(repr(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "little") & MAX_SEED
