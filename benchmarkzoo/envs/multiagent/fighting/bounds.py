"""Outcome bounds of FightingDuel-v0 and FightingLadder-v0 (see :mod:`benchmarkzoo.core.bounds`).

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
from typing import Any, cast

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


def ladder_bounds(kwargs: dict[str, Any], max_steps: int | None) -> OutcomeBounds:
    """The bounds of a FightingLadder task made with ``kwargs`` and a limit of ``max_steps``.

    ``ladder_env.py``: the reward is FightingDuel's seat-0 reward, each rung one match; a run plays
    at most the ``len(bots) - start_rung`` rungs from its start. ``matches_won`` counts the run's
    won matches, ``rung`` is the rung being played (a won match moves it up, except on the top
    rung), ``is_success`` is the top rung's match won.
    """
    from benchmarkzoo.envs.multiagent.fighting.generator import LadderGenerator
    from benchmarkzoo.envs.multiagent.fighting.ladder_env import FightingLadderEnv
    from benchmarkzoo.registration import make_generator

    kw = constructor_kwargs(FightingLadderEnv, kwargs)
    wins, bonus = int(kw["rounds_to_win"]), float(kw["round_reward"])
    start = int(kw["start_rung"])
    rungs = len(cast(LadderGenerator, make_generator(kw["generator"], kw.get("generator_kwargs"))).bots)
    matches = rungs - start
    total = matches * (2 * wins - 1) * (1.0 + bonus)

    def broken(o: Outcome) -> str | None:
        rung, won = o.metrics["rung"], o.metrics["matches_won"]
        if o.success != (won == matches):
            return f"success {o.success} contradicts matches_won {won!r} of the {matches} rungs from rung {start}"
        expected = rungs - 1 if o.success else start + won
        if rung != expected:
            return f"rung {rung!r} contradicts matches_won {won!r} from rung {start} (expected rung {expected})"
        return None

    return OutcomeBounds(
        max_length=max_steps,
        agents=1,
        success=True,
        objectives=(Objective("return", step=Range(-(2.0 + bonus), 2.0 + bonus), total=Range(-total, total)),),
        metrics={"rung": Range(float(start), float(rungs - 1)), "matches_won": Range(0.0, float(matches))},
        integer_metrics=frozenset(("rung", "matches_won")),
        rules=(
            Rule(
                "success is every rung from start_rung won; rung is start_rung + matches_won (the top rung on success)",
                broken,
            ),
        ),
    )
