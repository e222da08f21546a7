"""``check_generator``: a seed determines a scenario, and the scenario's hash and JSON are stable."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable

from benchmarkzoo.core.scenario import Scenario, canonical_json
from benchmarkzoo.core.seeding import np_random
from benchmarkzoo.generators.base import Generator


def check_generator(generator: Generator, seeds: Iterable[int] = range(20), max_equal: int = 0) -> dict[int, str]:
    """Check the determinism and serialization contracts of a scenario generator.

    * the same seed gives the same content hash (twice through :meth:`Generator.sample`, and
      once through ``generator(np_random(seed))``, which is what an env's ``reset`` does);
    * a generator rebuilt from its own ``kwargs`` (which must be JSON) draws the same scenarios;
    * different seeds give different hashes (at most ``max_equal`` repeated hashes);
    * ``to_dict``/``from_dict`` (through JSON text) keeps the hash, ``to_json`` is canonical
      JSON, and the hash is the sha256 of that text.

    Args:
        generator: the generator under test.
        seeds: seeds to draw (at least two for the "different seeds" check).
        max_equal: how many seeds may repeat an earlier seed's hash (0 for rich generators;
            raise it for deliberately tiny ones).

    Returns:
        ``{seed: content_hash}``, e.g. to pin hashes in a regression test.
    """
    seeds = list(seeds)
    name = repr(generator)
    kwargs_text = json.dumps(generator.kwargs, sort_keys=True)
    rebuilt = type(generator)(**json.loads(kwargs_text))
    hashes: dict[int, str] = {}
    for seed in seeds:
        scenario = generator.sample(seed)
        digest = scenario.content_hash
        again = generator.sample(seed).content_hash
        if again != digest:
            raise AssertionError(f"{name}: seed {seed} gave two different scenarios ({digest[:12]} then {again[:12]})")
        via_rng = generator(np_random(seed)).content_hash
        if via_rng != digest:
            raise AssertionError(
                f"{name}: seed {seed}: generator(np_random(seed)) hashes {via_rng[:12]} but sample(seed) {digest[:12]}"
            )
        from_kwargs = rebuilt.sample(seed).content_hash
        if from_kwargs != digest:
            raise AssertionError(
                f"{name}: a generator rebuilt from its kwargs {kwargs_text} draws another scenario for seed {seed}"
            )
        _check_serialization(name, seed, scenario)
        hashes[seed] = digest
    repeated = len(hashes) - len(set(hashes.values()))
    if repeated > max_equal:
        first: dict[str, int] = {}
        pairs = []
        for seed, digest in hashes.items():
            if digest in first:
                pairs.append((first[digest], seed))
            else:
                first[digest] = seed
        raise AssertionError(
            f"{name}: {repeated} seed(s) repeat an earlier scenario (allowed {max_equal}); equal seed pairs {pairs[:5]}"
        )
    return hashes


def _check_serialization(name: str, seed: int, scenario: Scenario) -> None:
    text = scenario.to_json()
    if canonical_json(json.loads(text)) != text:
        raise AssertionError(f"{name}: seed {seed}: to_json() is not canonical JSON (sorted keys, no spaces)")
    if hashlib.sha256(text.encode()).hexdigest() != scenario.content_hash:
        raise AssertionError(f"{name}: seed {seed}: content_hash is not the sha256 of to_json()")
    restored = type(scenario).from_dict(json.loads(text))
    if restored.content_hash != scenario.content_hash:
        raise AssertionError(f"{name}: seed {seed}: from_dict(to_dict()) changed the hash")
    if restored.to_json() != text:
        raise AssertionError(f"{name}: seed {seed}: the JSON of a restored scenario differs from the original's")
