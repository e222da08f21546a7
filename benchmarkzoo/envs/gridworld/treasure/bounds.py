"""Outcome bounds of MO-Treasure-v0 (see :mod:`benchmarkzoo.core.bounds`).

``sim.py`` ``transitions``: a step that ends on a treasure pays ``[treasure_value, -1]`` and
terminates, every other step ``[0, -1]`` (``TIME_PENALTY``); treasure values lie in
``(0, max_value]`` of the env's generator (``env.py`` ``check_scenario`` refuses larger ones).
So the time objective is exactly ``-L``, the treasure objective is paid at most once, and an
episode shorter than the step limit found a treasure.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from benchmarkzoo.core.bounds import Objective, Outcome, OutcomeBounds, Range, Rule, close, constructor_kwargs
from benchmarkzoo.envs.gridworld.treasure import sim
from benchmarkzoo.envs.gridworld.treasure.generator import TreasureGenerator


def bounds(kwargs: dict[str, Any], max_steps: int | None) -> OutcomeBounds:
    """The bounds of an MO-Treasure-v0 task made with ``kwargs`` and a limit of ``max_steps``."""
    from benchmarkzoo.envs.gridworld.treasure.env import TreasureEnv
    from benchmarkzoo.registration import make_generator

    kw = constructor_kwargs(TreasureEnv, kwargs)
    generator = cast(TreasureGenerator, make_generator(kw["generator"], kw["generator_kwargs"]))  # the env's kind
    max_value = float(np.float32(generator.max_value))

    def broken(o: Outcome) -> str | None:
        value, time = float(o.returns[0, 0]), float(o.returns[0, 1])
        if not close(time, sim.TIME_PENALTY * o.length):
            expected = sim.TIME_PENALTY * o.length
            return f"the time objective {time!r} of an episode of {o.length} steps should be {expected!r}"
        if value == 0.0 and o.max_length is not None and o.length < o.max_length:
            return (
                f"the episode ended after {o.length} of {o.max_length} steps without a treasure (treasure "
                "objective 0); only a treasure ends one early"
            )
        return None

    return OutcomeBounds(
        max_length=max_steps,
        objectives=(
            Objective("treasure", step=Range(0.0, 0.0), once=Range(0.0, max_value)),
            Objective("time", step=Range(sim.TIME_PENALTY, sim.TIME_PENALTY)),
        ),
        rules=(
            Rule(
                "the time objective is -L; an episode shorter than the step limit ended on a treasure "
                "(treasure objective > 0)",
                broken,
            ),
        ),
    )
