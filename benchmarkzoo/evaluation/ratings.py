"""Round-robin ratings of FightingDuel-v0 policies: win/draw/loss matrix, Wilson intervals, openskill ratings.

:func:`round_robin` plays every pairing of a pool of policies ``matches`` times, half from each
seat, on scenarios of the registered generator (match ``k`` of every pairing plays
``FightingGenerator(pairs="all").sample(seed * 100000 + k)``), all in one batch. The ratings are
openskill's Weng-Lin PlackettLuce model fed the matches in a fixed order (pairing by pool order,
then match index), so a seed gives the same numbers bit for bit.

Policies are the ladder bots (:data:`~benchmarkzoo.envs.multiagent.fighting.bots.BOTS`) and
``random`` (a uniformly random legal action every step: the ``masher`` bot).
:func:`rps_round_robin` is the same for RPSSelfPlay-v0 (:data:`RPS_POLICIES`).
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Sequence
from typing import Any, cast

import numpy as np

from benchmarkzoo.core.atomic import atomic_write_text
from benchmarkzoo.core.errors import BenchmarkZooError
from benchmarkzoo.envs.multiagent.fighting import bots
from benchmarkzoo.envs.multiagent.fighting.generator import FightingGenerator, FightingScenario
from benchmarkzoo.envs.multiagent.fighting.ladder import play_bots

#: Policy names besides the bots, and the bot that plays them.
ALIASES = {"random": "masher"}
Z95 = 1.959963984540054


class RatingsError(BenchmarkZooError, ValueError):
    """A pool or match count the round robin cannot play."""


def known_policies() -> list[str]:
    """The names :func:`round_robin` accepts."""
    return [*bots.BOTS, *ALIASES]


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (draws count half, as in a win rate)."""
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _check(pool: Sequence[str], matches: int, known: Sequence[str], env: str) -> None:
    unknown = [p for p in pool if p not in known]
    if unknown:
        raise RatingsError(f"unknown {env} policy {unknown[0]!r}; expected one of {list(known)}.")
    if len(set(pool)) != len(pool) or len(pool) < 2:
        raise RatingsError(f"the pool needs at least 2 distinct policies; got {list(pool)}.")
    if not isinstance(matches, int) or matches < 2 or matches % 2:
        raise RatingsError(f"matches must be an even integer >= 2 (half from each seat); got {matches!r}.")


def round_robin(pool: Sequence[str] = bots.BOTS, matches: int = 20, seed: int = 0) -> dict[str, Any]:
    """Play every pairing of ``pool`` ``matches`` times (policy ``a`` in seat ``k % 2``); the results as a dict."""
    pool = list(pool)
    _check(pool, matches, known_policies(), "FightingDuel")
    generator = FightingGenerator(pairs="all")
    scenarios = [cast(FightingScenario, generator.sample(seed * 100000 + k)) for k in range(matches)]
    pairs = list(itertools.combinations(range(len(pool)), 2))
    seat0, seat1, all_scenarios = [], [], []
    for i, j in pairs:
        a, b = ALIASES.get(pool[i], pool[i]), ALIASES.get(pool[j], pool[j])
        for k, scenario in enumerate(scenarios):
            seat0.append(a if k % 2 == 0 else b)
            seat1.append(b if k % 2 == 0 else a)
            all_scenarios.append(scenario)
    rounds = play_bots(seat0, seat1, all_scenarios)
    return _summarise(pool, pairs, _outcomes(rounds, pairs, matches), matches, seed, env="benchmarkzoo/FightingDuel-v0")


def _outcomes(seat_scores: np.ndarray, pairs: list[tuple[int, int]], matches: int) -> list[np.ndarray]:
    """Per pairing ``(i, j)``: +1 where ``pool[i]`` won match ``k``, 0 a draw, -1 a loss.

    ``seat_scores`` holds (seat 0, seat 1) scores of every match, pairing after pairing, with
    ``pool[i]`` in seat ``k % 2`` of match ``k``.
    """
    sign = np.where(np.arange(matches) % 2 == 0, 1, -1)
    return [
        sign * np.sign(rows[:, 0] - rows[:, 1])
        for rows in (seat_scores[p * matches : (p + 1) * matches] for p in range(len(pairs)))
    ]


def _summarise(pool, pairs, outcomes, matches, seed, env) -> dict[str, Any]:
    from openskill.models import PlackettLuce

    n = len(pool)
    w, d, lo = (np.zeros((n, n), dtype=np.int64) for _ in range(3))
    for out, (i, j) in zip(outcomes, pairs):
        w[i, j] = lo[j, i] = int((out > 0).sum())
        lo[i, j] = w[j, i] = int((out < 0).sum())
        d[i, j] = d[j, i] = int((out == 0).sum())

    model = PlackettLuce()
    ratings = {name: model.rating(name=name) for name in pool}
    # a fixed order: match k of every pairing, then k + 1 (interleaved, so no pairing comes all last)
    for k in range(matches):
        for p, (i, j) in enumerate(pairs):
            a, b = ratings[pool[i]], ratings[pool[j]]
            o = int(outcomes[p][k])
            ranks = [0.0, 0.0] if o == 0 else ([0.0, 1.0] if o > 0 else [1.0, 0.0])
            [[a2], [b2]] = model.rate([[a], [b]], ranks=ranks)
            ratings[pool[i]], ratings[pool[j]] = a2, b2
    win_rate = {}
    for i in range(n):
        row = {}
        for j in range(n):
            if i == j:
                continue
            score = w[i, j] + 0.5 * d[i, j]
            low, high = wilson(score, matches)
            row[pool[j]] = {"rate": score / matches, "ci": [low, high]}
        win_rate[pool[i]] = row
    rated = [
        {
            "policy": name,
            "mu": r.mu,
            "sigma": r.sigma,
            "ci": [r.mu - Z95 * r.sigma, r.mu + Z95 * r.sigma],
            "win_rate": float((w[pool.index(name)].sum() + 0.5 * d[pool.index(name)].sum()) / (matches * (n - 1))),
        }
        for name, r in ratings.items()
    ]
    rated.sort(key=lambda x: -x["mu"])
    return {
        "env": env,
        "seed": seed,
        "matches_per_pairing": matches,
        "rating_model": "openskill PlackettLuce (Weng-Lin), default mu=25, sigma=25/3",
        "policies": pool,
        "wins": w.tolist(),
        "draws": d.tolist(),
        "losses": lo.tolist(),
        "win_rate": win_rate,
        "ratings": rated,
    }


def write_json(result: dict[str, Any], path) -> None:
    """Write ``result`` atomically (a reader never sees half a file), once it validates as a ratings file.

    Validating here means the site (:func:`~benchmarkzoo.evaluation.ratings_file.read_ratings`)
    accepts every file this writes.
    """
    from benchmarkzoo.evaluation.ratings_file import RatingsFile  # it imports this module

    RatingsFile.model_validate(result)
    atomic_write_text(path, json.dumps(result, indent=2) + "\n")


#: RPSSelfPlay-v0 policies of :func:`rps_round_robin`.
RPS_POLICIES = ("rock", "cycle", "random", "frequency", "baseline")


def _rps_moves(name: str, state: Any, player: int) -> np.ndarray:
    from benchmarkzoo.envs.multiagent.rps import sim as rps_sim
    from benchmarkzoo.envs.multiagent.rps.baseline import PatternMatchingPolicy

    if name == "rock":
        return np.zeros(state.t.shape, dtype=np.int64)
    if name == "cycle":
        return (state.t % 3).astype(np.int64)
    if name == "random":  # a pure function of the scenario seed, the round and the seat
        return np.minimum((rps_sim.uniforms(state.seed, state.t, 40 + player) * 3).astype(np.int64), 2)
    return PatternMatchingPolicy("frequency" if name == "frequency" else "pair").act(state, player)


def rps_round_robin(
    pool: Sequence[str] = RPS_POLICIES, matches: int = 20, rounds: int = 100, seed: int = 0
) -> dict[str, Any]:
    """:func:`round_robin` for RPSSelfPlay-v0: a match is ``rounds`` rounds, won by the player of more rounds.

    Match ``k`` of every pairing plays ``RPSSelfPlayScenario(noise=0, seed=seed * 100000 + k)``
    with ``pool[i]`` in seat ``k % 2``. ``baseline`` is the env's pattern-matching baseline,
    ``frequency`` the same on move frequencies, ``random`` uniform moves hashed from the scenario seed.
    """
    from benchmarkzoo.envs.multiagent.rps import sim as rps_sim
    from benchmarkzoo.envs.multiagent.rps.generator import RPSSelfPlayScenario

    pool = list(pool)
    _check(pool, matches, RPS_POLICIES, "RPSSelfPlay")
    if not isinstance(rounds, int) or rounds < 1:
        raise RatingsError(f"rounds must be an integer >= 1; got {rounds!r}.")
    pairs = list(itertools.combinations(range(len(pool)), 2))
    num = len(pairs) * matches
    state = rps_sim.init_state(rps_sim.Params(), num)
    seat: list[tuple[str, str]] = []
    for i, j in pairs:
        for k in range(matches):
            rps_sim.load(state, len(seat), RPSSelfPlayScenario(noise=0.0, seed=seed * 100000 + k))
            seat.append((pool[i], pool[j]) if k % 2 == 0 else (pool[j], pool[i]))
    names = sorted(set(pool))
    where = {(name, p): np.array([s[p] == name for s in seat]) for name in names for p in (0, 1)}
    for _ in range(rounds):
        moves = np.zeros((num, 2), dtype=np.int64)
        for (name, p), mask in where.items():
            if mask.any():
                moves[mask, p] = _rps_moves(name, state, p)[mask]
        rps_sim.play(state, moves[:, 0], moves[:, 1])
    outcomes = _outcomes(state.wins, pairs, matches)
    result = _summarise(pool, pairs, outcomes, matches, seed, env="benchmarkzoo/RPSSelfPlay-v0")
    result["rounds_per_match"] = rounds
    return result
