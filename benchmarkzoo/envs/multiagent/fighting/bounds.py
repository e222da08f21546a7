"""Outcome bounds of FightingDuel-v0 (see :mod:`benchmarkzoo.core.bounds`).

``sim.py`` ``frame``: seat 0's reward is ``damage dealt / opponent's max health - damage taken /
own max health + round_reward * (round won - round lost)``; seat 1's is its negative (team return
0). Damage never exceeds what is left of a bar, and a round ends when a bar is empty, so each
round's damage terms lie in ``[-1, 1]`` and its round term in ``[-round_reward, round_reward]``;
a step that ends a round may open the next, so a step is bounded by two bars and a round;
a match plays at most ``2 * rounds_to_win - 1`` rounds. Against a bot (a generator with
``opponents``) ``player_0`` is the only agent. The metrics are ``player_0``'s: rounds won and lost
(whole numbers up to the rounds played), ``won`` (the episode's success) and ``masked_actions`` (at most one a step).
"""

from __future__ import annotations

import math
from typing import Any

from benchmarkzoo.core.bounds import Objective, Outcome, OutcomeBounds, Range, Rule, constructor_kwargs


def bounds(kwargs: dict[str, Any], max_steps: int | None) -> OutcomeBounds:
    """The bounds of a FightingDuel task made with ``kwargs`` and a limit of ``max_steps``."""
    from benchmarkzoo.envs.multiagent.fighting.env import FightingDuelEnv
    from benchmarkzoo.registration import make_generator

    kw = constructor_kwargs(FightingDuelEnv, kwargs)
    wins, bonus = int(kw["rounds_to_win"]), float(kw["round_reward"])
    rounds = 2 * wins - 1
    total = rounds * (1.0 + bonus)
    generator = make_generator(kw["generator"], kw.get("generator_kwargs"))
    agents = 1 if getattr(generator, "opponents", None) is not None else 2

    def broken(o: Outcome) -> str | None:
        won, lost, w = o.metrics["rounds_won"], o.metrics["rounds_lost"], o.metrics["won"]
        if won + lost > rounds or max(won, lost) > wins:
            return f"rounds_won {won!r} and rounds_lost {lost!r} exceed a best of {rounds}"
        if w != float(won > lost):
            return f"won {w!r} contradicts rounds_won {won!r} and rounds_lost {lost!r}"
        if o.success != bool(w):
            return f"success {o.success} contradicts won {w!r}"
        return None

    team = () if agents == 1 else (Objective("return", step=Range(0.0, 0.0), total=Range(0.0, 0.0)),)
    return OutcomeBounds(
        max_length=max_steps,
        agents=agents,
        success=True,
        objectives=(Objective("return", step=Range(-(2.0 + bonus), 2.0 + bonus), total=Range(-total, total)),),
        team=team,
        metrics={
            "rounds_won": Range(0.0, float(wins)),
            "rounds_lost": Range(0.0, float(wins)),
            "won": Range(0.0, 1.0),
            "masked_actions": Range(0.0, float(max_steps) if max_steps is not None else math.inf),
        },
        integer_metrics=frozenset(("rounds_won", "rounds_lost", "won", "masked_actions")),
        rules=(
            Rule("success is won, which is rounds_won > rounds_lost, within a best of 2 * rounds_to_win - 1", broken),
        ),
    )
