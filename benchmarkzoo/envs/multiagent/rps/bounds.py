"""Outcome bounds of RPSPopulation-v0 and RPSSelfPlay-v0 (see :mod:`benchmarkzoo.core.bounds`).

``sim.py`` ``payoff``: every round pays +1, 0 or -1 (zero-sum between the two players of
RPSSelfPlay-v0, whose team return is then 0; with a population generator its only agent is
``player_0``, against the scenario's bot); nothing terminates an episode, which lasts the step
limit. ``info["bot_move"]`` is a move (0, 1, 2); ``exploitability`` is the per-round return of an online n-gram best
responder (:mod:`~benchmarkzoo.envs.multiagent.rps.responders`), a mean of +1, 0 and -1 payoffs,
in ``[-1, 1]``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from benchmarkzoo.core.bounds import Objective, Outcome, OutcomeBounds, Range, Rule, fixed_length

_ROUND = Objective("return", step=Range(-1.0, 1.0))


def _whole(o: Outcome) -> str | None:
    if not np.array_equal(o.returns, np.round(o.returns)):
        return f"returns {o.returns.ravel().tolist()} are not whole numbers of rounds"
    return None


_WHOLE = Rule("returns are whole numbers (+1, 0 or -1 a round)", _whole)


def population_bounds(kwargs: dict[str, Any], max_steps: int | None) -> OutcomeBounds:
    """RPSPopulation-v0."""
    return OutcomeBounds(
        max_length=max_steps,
        objectives=(_ROUND,),
        metrics={"bot_move": Range(0.0, 2.0), "exploitability": Range(-1.0, 1.0)},
        integer_metrics=frozenset(("bot_move",)),
        rules=(fixed_length("rock-paper-scissors never terminates"), _WHOLE),
    )


def self_play_bounds(kwargs: dict[str, Any], max_steps: int | None) -> OutcomeBounds:
    """RPSSelfPlay-v0: two players, zero-sum; or, with a population generator, ``player_0`` alone against a bot."""
    if _against_a_bot(kwargs.get("generator")):
        return OutcomeBounds(
            max_length=max_steps,
            agents=1,
            objectives=(_ROUND,),
            rules=(fixed_length("rock-paper-scissors never terminates"), _WHOLE),
        )
    return OutcomeBounds(
        max_length=max_steps,
        agents=2,
        objectives=(_ROUND,),
        team=(Objective("return", step=Range(0.0, 0.0), total=Range(0.0, 0.0)),),
        rules=(fixed_length("rock-paper-scissors never terminates"), _WHOLE),
    )


def _against_a_bot(generator: Any) -> bool:
    """The env's generator (a registered name or an instance) puts a population bot in seat 1."""
    from benchmarkzoo.envs.multiagent.rps.generator import RPSPopulationGenerator

    return generator == "rps/population" or isinstance(generator, RPSPopulationGenerator)
