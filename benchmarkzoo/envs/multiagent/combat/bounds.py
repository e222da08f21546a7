"""Outcome bounds of MicroCombat-v0 (see :mod:`benchmarkzoo.core.bounds`).

``sim.py`` ``step``: every agent present gets the team reward ``(dealt + kill_bonus * killed +
win_bonus * won) * reward_scale / max_reward``, never negative, with ``max_reward`` the total
enemy health plus every bonus (dealt damage is capped at the enemies' health), so the rewards
of a whole episode sum to at most ``reward_scale`` (20) per agent. The episode ends early only
when an army is gone: a win (``won``: every enemy killed), a draw or a loss; the episode's
success is ``won``.
"""

from __future__ import annotations

import math
from typing import Any, cast

from benchmarkzoo.core.bounds import Objective, Outcome, OutcomeBounds, Range, Rule
from benchmarkzoo.envs.multiagent.combat import sim
from benchmarkzoo.envs.multiagent.combat.generator import LineupGenerator, RandomCombatGenerator


def bounds(kwargs: dict[str, Any], max_steps: int | None) -> OutcomeBounds:
    """The bounds of a MicroCombat task made with ``kwargs`` and a limit of ``max_steps``."""
    from benchmarkzoo.registration import make_generator

    made = make_generator(kwargs["generator"], kwargs.get("generator_kwargs"))
    generator = cast("LineupGenerator | RandomCombatGenerator", made)  # the kinds the env takes
    n = int(generator.num_allies)
    scale = float(sim.Params.reward_scale)  # the field's default (the env never sets it)

    def broken(o: Outcome) -> str | None:
        won, alive, killed = o.metrics["won"], o.metrics["allies_alive"], o.metrics["enemies_killed"]
        if o.success != bool(won):
            return f"success {o.success} contradicts won {won!r}"
        if won and (killed != 1.0 or alive == 0.0):
            return f"a win kills every enemy and keeps a unit alive; enemies_killed {killed!r}, allies_alive {alive!r}"
        if o.max_length is not None and o.length < o.max_length and killed != 1.0 and alive != 0.0:
            return (
                f"the episode ended after {o.length} of {o.max_length} steps with both armies standing "
                f"(allies_alive {alive!r}, enemies_killed {killed!r})"
            )
        if not close_to_fraction(alive, n):
            return f"allies_alive {alive!r} is not a fraction of the {n} units"
        return None

    return OutcomeBounds(
        max_length=max_steps,
        agents=n,
        success=True,
        objectives=(Objective("return", step=Range(0.0, scale), total=Range(0.0, scale)),),
        metrics={
            "won": Range(0.0, 1.0),
            "allies_alive": Range(0.0, 1.0),
            "enemies_killed": Range(0.0, 1.0),
            "masked_actions": Range(0.0, n * float(max_steps) if max_steps is not None else math.inf),
        },
        integer_metrics=frozenset(("won", "masked_actions")),
        rules=(
            Rule(
                "success is won: every enemy killed with a unit alive; the episode ends early only when an army "
                "is gone",
                broken,
            ),
        ),
    )


def close_to_fraction(value: float, n: int) -> bool:
    """``value`` is ``k / n`` for a whole ``k``."""
    return math.isclose(value * n, round(value * n), abs_tol=1e-9)
