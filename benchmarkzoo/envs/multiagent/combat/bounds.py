"""Outcome bounds of MicroCombat-v0 (see :mod:`benchmarkzoo.core.bounds`).

``sim.py`` ``step``: every agent present gets the team reward ``(dealt + kill_bonus * killed +
win_bonus * won) * reward_scale / max_reward``, never negative, with ``max_reward`` the total
enemy health plus every bonus (dealt damage is capped at the enemies' health), so the rewards
of a whole episode sum to at most ``reward_scale`` (20) per agent. The episode ends early only
when an army is gone: a win (``won``: every enemy killed), a draw or a loss; the episode's
success is ``won``.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, cast

from benchmarkzoo.core.bounds import Objective, Outcome, OutcomeBounds, Range, Rule
from benchmarkzoo.envs.multiagent.combat import sim
from benchmarkzoo.envs.multiagent.combat.generator import LineupGenerator, RandomCombatGenerator


def bounds(kwargs: dict[str, Any], max_steps: int | None) -> OutcomeBounds:
    """The bounds of a MicroCombat task made with ``kwargs`` and a limit of ``max_steps``."""
    n = _num_allies(kwargs)
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


def mo_bounds(kwargs: dict[str, Any], max_steps: int | None) -> OutcomeBounds:
    """MO-MicroCombat-v0 (``sim.objective_rewards``): damage dealt (team share, at most 1 per agent), units kept.

    Every agent's ``damage_dealt`` is the team's capped damage over the enemy army's health, so
    it sums to at most 1 (exactly 1 for an agent alive at a win, which killed every enemy);
    ``units_kept`` is ``-1`` once, on the step the agent's unit dies, so the team's sum is
    ``-N * (1 - allies_alive)``.
    """
    scalar = bounds(kwargs, max_steps)
    n = _num_allies(kwargs)

    def broken(o: Outcome) -> str | None:
        lost = round(n * (1.0 - o.metrics["allies_alive"]))
        if not math.isclose(float(o.team[1]), -lost, abs_tol=1e-6):
            return f"units_kept sums to {float(o.team[1])!r} over the agents; allies_alive says {lost} units were lost"
        if o.success and not (o.returns[:, 0] >= 1.0 - 1e-5).any():
            return f"a win destroys the whole enemy army, yet no agent's damage_dealt reaches 1: {o.returns[:, 0]!r}"
        return None

    return dataclasses.replace(
        scalar,
        objectives=(
            Objective("damage_dealt", step=Range(0.0, 1.0), total=Range(0.0, 1.0 + 1e-5)),  # float32 sums
            Objective("units_kept", step=Range(0.0, 0.0), once=Range(-1.0, 0.0)),
        ),
        rules=(
            *scalar.rules,
            Rule("units_kept sums to minus the units lost; a win's survivors dealt the whole enemy health", broken),
        ),
    )


def _num_allies(kwargs: dict[str, Any]) -> int:
    """Our army's size (the agents) of a task made with ``kwargs``."""
    from benchmarkzoo.registration import make_generator

    made = make_generator(kwargs["generator"], kwargs.get("generator_kwargs"))
    generator = cast("LineupGenerator | RandomCombatGenerator", made)  # the kinds the env takes
    return int(generator.num_allies)


def close_to_fraction(value: float, n: int) -> bool:
    """``value`` is ``k / n`` for a whole ``k``."""
    return math.isclose(value * n, round(value * n), abs_tol=1e-9)
