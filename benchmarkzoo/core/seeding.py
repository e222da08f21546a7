"""Seeding: one convention everywhere, so single, native-vector and sync-vector rollouts agree.

* ``reset(seed=s)`` seeds the env's generator with Gymnasium's ``np_random(s)``; the scenario is
  the first thing drawn from it, so the scenario of seed ``s`` is the same wherever it is made.
* In a vector env world ``i`` is seeded with ``s + i`` (Gymnasium's convention).
* The evaluation protocol derives episode seeds from names and indices with :func:`derive_seed`.
"""

from __future__ import annotations

import hashlib
from typing import TypeGuard

import numpy as np
from gymnasium.utils import seeding

from benchmarkzoo.core.errors import InvalidSeedError

MAX_SEED = 2**63 - 1


def np_random(seed: int | None) -> np.random.Generator:
    """The generator Gymnasium's ``Env.reset(seed=seed)`` would create (bit-identical)."""
    rng, _ = seeding.np_random(seed)
    return rng


def _is_seed(value: object) -> TypeGuard[int]:
    """Gymnasium's rule (``gymnasium.utils.seeding.np_random``): a Python int, not negative."""
    return isinstance(value, int) and value >= 0


def check_seed(env_id: str, seed: object) -> int | None:
    """``seed`` if it is ``None`` or a non-negative Python int, as ``Env.reset`` needs; else :class:`InvalidSeedError`.

    Gymnasium itself raises ``gymnasium.error.Error`` for such seeds ("Seed must be a python
    integer"); this names the env and the way out instead.
    """
    if seed is None or _is_seed(seed):
        return seed
    raise InvalidSeedError(
        f"{env_id}: reset(seed=...) takes a non-negative int or None; got {seed!r} ({type(seed).__name__}). "
        "Pass e.g. seed=0, or int(seed) for a numpy integer."
    )


def world_seeds(seed: object, num_worlds: int, env_id: str = "benchmarkzoo") -> list[int | None]:
    """Per-world seeds by Gymnasium's vector convention: ``s + i``, a list as given, or all ``None``.

    ``s`` is a non-negative int (Python or numpy); a list holds one such int or ``None`` per world.
    Anything else is an :class:`InvalidSeedError` (``SyncVectorEnv`` would fail in its first world's
    ``reset`` with ``gymnasium.error.Error``, or with a ``TypeError`` adding ``i`` to it).
    """
    if seed is None:
        return [None] * num_worlds
    if isinstance(seed, np.integer) and not isinstance(seed, bool):
        seed = int(seed)
    if _is_seed(seed):
        return [seed + i for i in range(num_worlds)]
    how = "Pass a non-negative int (world i gets seed + i) or a list of num_envs such ints or None."
    if not isinstance(seed, list | tuple | np.ndarray):
        raise InvalidSeedError(
            f"{env_id}: reset(seed=...) takes a non-negative int, a list of one seed per world ({num_worlds}) or "
            f"None; got {seed!r:.60} ({type(seed).__name__}). {how}"
        )
    seeds = [int(s) if isinstance(s, np.integer) else s for s in seed]
    if len(seeds) != num_worlds:
        raise InvalidSeedError(
            f"{env_id}: expected one seed per world ({num_worlds}); got a list of {len(seeds)}. {how}"
        )
    for world, value in enumerate(seeds):
        if value is not None and not _is_seed(value):
            raise InvalidSeedError(
                f"{env_id}: the seed of world {world} is {value!r} ({type(value).__name__}); each seed must be a "
                f"non-negative int or None. {how}"
            )
    return seeds


def derive_seed(*parts: object) -> int:
    """A seed in ``[0, 2**63)`` determined by ``parts`` alone (e.g. protocol seed, task id, episode).

    Uses sha256 of the parts' reprs joined by NUL, so it is stable across processes, machines
    and Python versions (unlike ``hash``).
    """
    digest = hashlib.sha256("\0".join(repr(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "little") & MAX_SEED
