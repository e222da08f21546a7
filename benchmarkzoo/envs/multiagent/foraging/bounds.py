"""Outcome bounds of Foraging-v0 and MO-Foraging-v0 (see :mod:`benchmarkzoo.core.bounds`).

``sim.py`` ``step``: an item of level ``F`` collected by loaders of total level ``T`` pays each
``level * F / (T * food_total)``, so the item pays ``F / food_total`` in all and the team's
collection return is the collected food level over the scenario's total: in ``[0, 1]``, 1
exactly when every item was collected (``all_collected``), 0 when none was (``food_collected``
is the fraction of items). A load that collects nothing costs ``load_penalty``. The episode ends
early only when the last item is collected. MO-Foraging-v0 splits the same reward by food type
(``typed``) and has no penalty.
"""

from __future__ import annotations

import math
from typing import Any

from benchmarkzoo.core.bounds import Objective, Outcome, OutcomeBounds, Range, Rule, close, constructor_kwargs

_METRICS = {"food_collected": Range(0.0, 1.0), "all_collected": Range(0.0, 1.0)}


def _setting(env_class: Any, kwargs: dict[str, Any]) -> tuple[dict[str, Any], Any]:
    from benchmarkzoo.registration import make_generator

    kw = constructor_kwargs(env_class, kwargs)
    return kw, make_generator(kw["generator"], kw["generator_kwargs"])


def _collection_rule(num_food: int, penalised: bool) -> Rule:
    def broken(o: Outcome) -> str | None:
        items = o.metrics["food_collected"] * num_food
        if not close(items, round(items)):
            return f"food_collected {o.metrics['food_collected']!r} is not a fraction of the {num_food} items"
        everything = round(items) == num_food
        if bool(o.metrics["all_collected"]) != everything:
            return (
                f"all_collected {o.metrics['all_collected']!r} contradicts food_collected "
                f"{o.metrics['food_collected']!r}"
            )
        if not everything and o.max_length is not None and o.length < o.max_length:
            return f"the episode ended after {o.length} of {o.max_length} steps with food left"
        collected = float(o.team.sum())
        if not penalised:
            if everything and not close(collected, 1.0):
                return f"every item was collected, so the team's return sums to 1; it sums to {collected!r}"
            if round(items) == 0 and not close(collected, 0.0):
                return f"no item was collected, so the team's return is 0; it sums to {collected!r}"
            if 0 < round(items) < num_food and not 0.0 < collected < 1.0:
                return f"{round(items)} of {num_food} items were collected, but the team's return sums to {collected!r}"
        return None

    return Rule(
        "the episode ends early only when every item is collected (all_collected); the team's collection "
        "return is the collected food level over the total: 1 when everything, 0 when nothing was collected",
        broken,
    )


def bounds(kwargs: dict[str, Any], max_steps: int | None) -> OutcomeBounds:
    """Foraging-v0."""
    from benchmarkzoo.envs.multiagent.foraging.env import ForagingEnv

    kw, generator = _setting(ForagingEnv, kwargs)
    n, penalty = int(generator.num_agents), float(kw["load_penalty"])
    return OutcomeBounds(
        max_length=max_steps,
        agents=n,
        objectives=(Objective("return", step=Range(-penalty, 1.0), total=Range(-math.inf, 1.0)),),
        team=(Objective("return", step=Range(-n * penalty, 1.0), total=Range(-math.inf, 1.0)),),
        metrics=_METRICS,
        integer_metrics=frozenset(("all_collected",)),
        rules=(_collection_rule(int(generator.num_food), penalty != 0.0),),
    )


def mo_bounds(kwargs: dict[str, Any], max_steps: int | None) -> OutcomeBounds:
    """MO-Foraging-v0: one objective per food type."""
    from benchmarkzoo.envs.multiagent.foraging.env import MOForagingEnv

    _, generator = _setting(MOForagingEnv, kwargs)
    types = int(generator.num_food_types)
    share = Objective("food", step=Range(0.0, 1.0), total=Range(0.0, 1.0))
    return OutcomeBounds(
        max_length=max_steps,
        agents=int(generator.num_agents),
        objectives=tuple(Objective(f"food type {t}", share.step, total=share.total) for t in range(types)),
        team=tuple(Objective(f"food type {t}", share.step, total=share.total) for t in range(types)),
        metrics=_METRICS,
        integer_metrics=frozenset(("all_collected",)),
        rules=(_collection_rule(int(generator.num_food), False),),
    )
