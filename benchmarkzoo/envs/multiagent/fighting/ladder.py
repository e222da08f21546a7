"""Matches between ladder bots, all in one batch: the measurement that orders the ladder.

:func:`play_bots` plays any list of bot pairings side by side; :func:`ladder_order` plays each
bot of :data:`~benchmarkzoo.envs.multiagent.fighting.bots.BOTS` against the one below it, half
the matches from each seat, on scenarios of the registered generator over every character pair.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import cast

import numpy as np

from benchmarkzoo.envs.multiagent.fighting import bots, sim
from benchmarkzoo.envs.multiagent.fighting.generator import FightingGenerator, FightingScenario

#: The registered env's constants (FightingConfig's defaults).
PARAMS = sim.Params(frame_skip=4, round_frames=480, rounds_to_win=2, max_rounds=3)


def play_bots(
    seat0: Sequence[str], seat1: Sequence[str], scenarios: Sequence[FightingScenario], params: sim.Params = PARAMS
) -> np.ndarray:
    """Play match ``i`` between bots ``seat0[i]`` and ``seat1[i]`` on ``scenarios[i]``; ``(M, 2)`` rounds won.

    Every world runs until its match is over (a finished world stands still).
    """
    state = sim.init_state(params, len(scenarios))
    for i, scenario in enumerate(scenarios):
        sim.load(state, i, scenario, params)
    names = sorted(set(seat0) | set(seat1))
    where = {(name, p): np.array([n == name for n in (seat0, seat1)[p]]) for name in names for p in (0, 1)}
    actions = np.zeros((len(scenarios), 2), dtype=np.int64)
    while not state.done.all():
        for (name, p), w in where.items():
            if w.any():
                actions[w, p] = bots.act(name, state, p)[w]
        sim.step(state, actions, params)
    return state.wins.copy()


def ladder_order(matches: int = 40, seed: int = 0, ladder: Sequence[str] = bots.BOTS) -> dict[str, float]:
    """Each bot's share of matches won against the bot below it (``upper>lower``: fraction), one batch.

    Match ``k`` of a pairing plays ``FightingGenerator(pairs="all").sample(seed * 100000 + k)``
    with the upper bot in seat ``k % 2``.
    """
    generator = FightingGenerator(pairs="all")
    scenarios = [cast(FightingScenario, generator.sample(seed * 100000 + k)) for k in range(matches)]
    seat0, seat1, all_scenarios = [], [], []
    for lower, upper in itertools.pairwise(ladder):
        for k, scenario in enumerate(scenarios):
            seat0.append(upper if k % 2 == 0 else lower)
            seat1.append(lower if k % 2 == 0 else upper)
            all_scenarios.append(scenario)
    wins = play_bots(seat0, seat1, all_scenarios)
    result = {}
    for j, (lower, upper) in enumerate(itertools.pairwise(ladder)):
        rows = wins[j * matches : (j + 1) * matches]
        upper_seat = np.arange(matches) % 2  # 0: the upper bot is seat 0
        mine = np.where(upper_seat == 0, rows[:, 0], rows[:, 1])
        theirs = np.where(upper_seat == 0, rows[:, 1], rows[:, 0])
        result[f"{upper}>{lower}"] = float((mine > theirs).mean())
    return result
