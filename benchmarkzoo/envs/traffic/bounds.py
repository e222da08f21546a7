"""Outcome bounds of the SUMO envs (see :mod:`benchmarkzoo.core.bounds`).

Signal control (``sim.py`` ``reward``): ``diff-waiting-time`` pays ``(previous - current) / 100``
of the summed waiting time on a signal's incoming lanes, so an episode telescopes to
``(W_0 - W_L) / 100``; ``W_0 = 0`` (the first measurement is taken at second 0, before any
vehicle is inserted; RESCO's windows are shifted to start there too), so the return is at most 0,
and for TrafficSignal-v0 exactly ``-waiting_time / 100`` with ``waiting_time`` the last step's.
``queue`` pays minus the halting vehicles (at most 0); ``pressure`` is a difference of vehicle
counts, bounded only by the network. The MO envs pay minus halting vehicle-seconds and minus
grams of CO2 (both at most 0, ``SignalController._advance``); the CO2 summed over every lane is
the network's ``total_co2``, and a signal owns each lane at most once. Traffic never ends an
episode early, and every step is ``delta_time`` simulated seconds from second 0.

Routing-v0 (``routing/env.py``): an agent is paid once, minus its travel time in minutes, and
travel times end at the day's horizon; a day has at most one step per agent (its departure slots).
"""

from __future__ import annotations

import math
from typing import Any, cast

from benchmarkzoo.core.bounds import (
    Objective,
    Outcome,
    OutcomeBounds,
    Range,
    Rule,
    close,
    constructor_kwargs,
    fixed_length,
)

_NON_NEGATIVE = Range(0.0, math.inf)
_COUNTS = frozenset(("arrived", "throughput", "queue"))


def _signal_objective(reward: str) -> Objective:
    if reward == "diff-waiting-time":
        return Objective("return", step=Range(), total=Range(-math.inf, 0.0))
    if reward == "queue":
        return Objective("return", step=Range(-math.inf, 0.0))
    return Objective("return", step=Range())  # pressure: bounded only by how many vehicles the lanes hold


def _clock_rule(delta_time: int) -> Rule:
    def broken(o: Outcome) -> str | None:
        if not close(o.metrics["sim_time"], o.length * delta_time):
            return f"sim_time {o.metrics['sim_time']!r} should be length * delta_time = {o.length * delta_time}"
        if o.metrics["arrived"] != o.metrics["throughput"]:
            return f"arrived {o.metrics['arrived']!r} and throughput {o.metrics['throughput']!r} are the same count"
        return None

    return Rule(f"sim_time is L * delta_time ({delta_time} s); throughput is arrived (completed trips)", broken)


def _metrics(single: bool) -> dict[str, Range]:
    names = ["sim_time", "arrived", "mean_waiting_time", "mean_travel_time", "throughput", "mean_queue", "total_co2"]
    if single:
        names += ["queue", "waiting_time"]
    return dict.fromkeys(names, _NON_NEGATIVE)


def _co2_rule(exact: bool) -> Rule:
    """The CO2 objective summed over the agents against the network's ``total_co2``."""

    def broken(o: Outcome) -> str | None:
        co2, total = -float(o.team[1]), o.metrics.get("total_co2")
        if total is None:
            return "total_co2 is missing; the multi-objective traffic envs always account emissions"
        if (exact and not close(co2, total)) or (not exact and co2 > total * (1 + 1e-6) + 1e-6):
            return f"the CO2 objective sums to {-co2!r}; the network emitted total_co2 = {total!r} g"
        return None

    relation = "is minus" if exact else "is at least minus"
    return Rule(f"the CO2 objective summed over the agents {relation} the network's total_co2", broken)


def _signal_env_bounds(
    kw: dict[str, Any],
    max_steps: int | None,
    objectives: tuple[Objective, ...],
    single: bool,
    rules: tuple[Rule, ...] = (),
    optional: frozenset[str] = frozenset(),
) -> OutcomeBounds:
    """What every signal-control env declares: episodes of the full step limit on SUMO's clock, the counts.

    Args:
        kw: the env's constructor kwargs (``delta_time`` read).
        max_steps: the step limit.
        objectives: the reward's objectives.
        single: one signal (TrafficSignal's metrics) or one agent per signal (TrafficGrid's).
        rules: the env's own rules, after the shared ones.
        optional: metrics an episode may lack (``total_co2`` without ``emissions``).
    """
    return OutcomeBounds(
        max_length=max_steps,
        objectives=objectives,
        metrics=_metrics(single),
        integer_metrics=_COUNTS,
        optional_metrics=optional,
        rules=(fixed_length("traffic never ends an episode"), _clock_rule(int(kw["delta_time"])), *rules),
    )


def signal_bounds(kwargs: dict[str, Any], max_steps: int | None) -> OutcomeBounds:
    """TrafficSignal-v0."""
    from benchmarkzoo.envs.traffic.signal.env import TrafficSignalEnv

    kw = constructor_kwargs(TrafficSignalEnv, kwargs)
    rules = []
    if kw["reward"] == "diff-waiting-time":

        def broken(o: Outcome) -> str | None:
            expected = -o.metrics["waiting_time"] / 100.0
            if not close(float(o.returns[0, 0]), expected):
                return f"return {float(o.returns[0, 0])!r} should be -waiting_time / 100 = {expected!r}"
            return None

        rules.append(Rule("the diff-waiting-time return telescopes to -waiting_time / 100 (the last step's)", broken))
    objectives = (_signal_objective(kw["reward"]),)
    return _signal_env_bounds(kw, max_steps, objectives, True, tuple(rules), frozenset(("total_co2",)))


def grid_bounds(kwargs: dict[str, Any], max_steps: int | None) -> OutcomeBounds:
    """TrafficGrid-v0 and the RESCO envs: one agent per signal (how many depends on the network)."""
    from benchmarkzoo.envs.traffic.grid.env import TrafficGridEnv

    kw = constructor_kwargs(TrafficGridEnv, kwargs)
    objectives = (_signal_objective(kw["reward"]),)
    return _signal_env_bounds(kw, max_steps, objectives, False, optional=frozenset(("total_co2",)))


def _mo_objectives() -> tuple[Objective, Objective]:
    return (Objective("waiting time", step=Range(-math.inf, 0.0)), Objective("CO2", step=Range(-math.inf, 0.0)))


def mo_signal_bounds(kwargs: dict[str, Any], max_steps: int | None) -> OutcomeBounds:
    """MO-TrafficSignal-v0: network-wide waiting vehicle-seconds and CO2."""
    from benchmarkzoo.envs.traffic.signal.mo_env import MOTrafficSignalEnv

    kw = constructor_kwargs(MOTrafficSignalEnv, kwargs)
    return _signal_env_bounds(kw, max_steps, _mo_objectives(), True, (_co2_rule(True),))


def mo_grid_bounds(kwargs: dict[str, Any], max_steps: int | None) -> OutcomeBounds:
    """MO-TrafficGrid-v0: per signal, the waiting vehicle-seconds and CO2 of the lanes it owns."""
    from benchmarkzoo.envs.traffic.grid.mo_env import MOTrafficGridEnv

    kw = constructor_kwargs(MOTrafficGridEnv, kwargs)
    every_lane_owned = kw["generator"] == "traffic/grid"  # generated grids: every lane has exactly one owner
    return _signal_env_bounds(kw, max_steps, _mo_objectives(), False, (_co2_rule(every_lane_owned),))


def routing_bounds(kwargs: dict[str, Any], max_steps: int | None) -> OutcomeBounds:
    """Routing-v0: minus each CAV's travel time in minutes, paid once."""
    from benchmarkzoo.envs.traffic.routing.env import RoutingEnv
    from benchmarkzoo.envs.traffic.routing.generator import RoutingGenerator
    from benchmarkzoo.registration import make_generator

    kw = constructor_kwargs(RoutingEnv, kwargs)
    generator = cast(RoutingGenerator, make_generator(kw["generator"], kw["generator_kwargs"]))  # the env's kind
    n, horizon = int(generator.num_agents), float(generator.horizon)
    limit = max_steps if max_steps is not None else n  # a day has at most one step per departure slot
    metrics = dict.fromkeys(
        (
            "sim_time",
            "mean_travel_time_agents",
            "mean_travel_time_humans",
            "mean_travel_time",
            "total_delay",
            "humans_arrived",
        ),
        _NON_NEGATIVE,
    )
    metrics["agents_arrived"] = Range(0.0, float(n))
    return OutcomeBounds(
        max_length=limit,
        agents=n,
        objectives=(Objective("return", step=Range(0.0, 0.0), once=Range(-horizon / 60.0, 0.0)),),
        metrics=metrics,
        integer_metrics=frozenset(("agents_arrived", "humans_arrived")),
    )
