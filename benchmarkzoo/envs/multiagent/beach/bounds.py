"""Outcome bounds of MO-Beach-v0 (see :mod:`benchmarkzoo.core.bounds`).

``sim.py``: rewards are zero before the episode's last step (``num_timesteps``); on it an agent
gets capacity ``x exp(-x / c)`` (at most ``c / e``, summed over ``S`` sections for team rewards)
and mixture ``min_t n_t / x`` (at most ``1 / T``; the mean over sections for team rewards). With
team rewards every agent's return is the episode's ``global_capacity`` and ``global_mixture``.
"""

from __future__ import annotations

import math
from typing import Any, cast

import numpy as np

from benchmarkzoo.core.bounds import Objective, Outcome, OutcomeBounds, Range, Rule, constructor_kwargs


def bounds(kwargs: dict[str, Any], max_steps: int | None) -> OutcomeBounds:
    """The bounds of a MO-Beach task made with ``kwargs`` and a limit of ``max_steps``."""
    from benchmarkzoo.envs.multiagent.beach.env import MOBeachEnv
    from benchmarkzoo.envs.multiagent.beach.generator import BeachGenerator
    from benchmarkzoo.registration import make_generator

    kw = constructor_kwargs(MOBeachEnv, kwargs)
    generator = cast("BeachGenerator", make_generator(kw["generator"], kw.get("generator_kwargs")))
    sections, capacity, types = generator.num_sections, generator.capacity, generator.num_types
    team = kw["reward_mode"] == "team"
    length = int(kw["num_timesteps"]) if max_steps is None else min(int(kw["num_timesteps"]), max_steps)
    peak = capacity / math.e
    global_capacity = Range(0.0, sections * peak * (1 + 1e-6))  # float32 rewards
    mixture = Range(0.0, 1.0 / types * (1 + 1e-6))

    def broken(o: Outcome) -> str | None:
        if o.length != length:
            return f"an episode lasts num_timesteps = {length} steps; this one {o.length}"
        if team:
            expected = np.array([o.metrics["global_capacity"], o.metrics["global_mixture"]])
            if not np.allclose(o.returns, expected, rtol=1e-5, atol=1e-6):
                return f"team rewards pay every agent {expected.tolist()}; returns {o.returns.tolist()!r:.120}"
        return None

    return OutcomeBounds(
        max_length=max_steps,
        agents=generator.num_agents,
        objectives=(
            Objective("capacity", step=Range(0.0, 0.0), once=global_capacity if team else Range(0.0, peak * 1.000001)),
            Objective("mixture", step=Range(0.0, 0.0), once=mixture),
        ),
        metrics={"global_capacity": global_capacity, "global_mixture": mixture},
        rules=(Rule("an episode lasts num_timesteps steps; team rewards are the episode's global rewards", broken),),
    )
