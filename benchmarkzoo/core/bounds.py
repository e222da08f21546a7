"""What an env's episodes can produce: the outcome bounds every env declares on its spec.

A results file is untrusted input; a consistent forgery passes any check that only recomputes
aggregates. So every env family states, next to its reward code, what one episode of it can
return, how long it can last, which metrics it reports and in which ranges, and the rules that
tie them together (a Maze episode that reached the goal has the return its length fixes). The
leaderboard validator (:mod:`benchmarkzoo.leaderboard.plausibility`) checks every recorded
episode against them; ``benchmarkzoo info ID`` shows them.

A spec names its bounds function as ``outcome_bounds="module:function"``; the function takes the
env's constructor kwargs (spec defaults, scenario split and task overrides merged) and the
episode step limit, and returns an :class:`OutcomeBounds`. Bounds are honest (every episode the
env can play lies inside them) and as tight as the reward code allows.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

INF = math.inf
#: Relative and absolute slack of every comparison: float32 rewards summed in float64 differ in the last bits.
REL_TOL = 1e-6
ABS_TOL = 1e-6


def close(a: float, b: float) -> bool:
    """``a`` equals ``b`` up to the rounding of float32 rewards summed over an episode."""
    return math.isclose(a, b, rel_tol=REL_TOL, abs_tol=ABS_TOL)


@dataclasses.dataclass(frozen=True)
class Range:
    """A closed interval ``[low, high]``; infinite ends are unbounded, ``low > high`` is empty."""

    low: float = -INF
    high: float = INF

    def contains(self, value: float) -> bool:
        """Whether ``value`` lies in the range, with a float32 rounding slack at its finite ends."""
        if self.low > self.high:
            return False
        ends = [abs(x) for x in (self.low, self.high) if math.isfinite(x)]
        slack = ABS_TOL + REL_TOL * max(ends, default=0.0)
        return self.low - slack <= value <= self.high + slack

    def __add__(self, other: Range) -> Range:
        return Range(self.low + other.low, self.high + other.high)

    def scaled(self, n: int) -> Range:
        """The range of a sum of ``n`` values each in this range (``n >= 0``)."""
        return Range(self.low * n if n else 0.0, self.high * n if n else 0.0)

    def intersect(self, other: Range) -> Range:
        """The range of values in both this range and ``other`` (empty if they do not meet)."""
        return Range(max(self.low, other.low), min(self.high, other.high))

    def to_json(self) -> list[float | None]:
        """``[low, high]`` with ``None`` for an unbounded end (JSON has no infinity)."""
        return [None if self.low == -INF else self.low, None if self.high == INF else self.high]

    def __str__(self) -> str:
        if self.low > self.high:
            return "[] (empty)"

        def end(x: float) -> str:
            return "inf" if x == INF else "-inf" if x == -INF else f"{x:.12g}"

        return f"[{end(self.low)}, {end(self.high)}]"


@dataclasses.dataclass(frozen=True)
class Objective:
    """The return of one objective of one agent over an episode of ``L`` steps.

    The episode's return lies in ``L * step + once``, intersected with ``total``.

    Attributes:
        name: the objective's name (``"return"`` for a scalar reward).
        step: the reward of any one step (0 included where an agent can sit out steps).
        once: what a single step may add beside ``step`` (a goal bonus, a crash penalty).
        total: a bound on the whole episode's sum that holds whatever its length
            (a telescoping progress reward, a normalized team reward).
    """

    name: str
    step: Range
    once: Range = Range(0.0, 0.0)
    total: Range = Range()

    def episode(self, length: int) -> Range:
        """The range of this objective's return over an episode of ``length`` steps."""
        return (self.step.scaled(length) + self.once).intersect(self.total)  # empty: no such episode exists

    @property
    def step_reward(self) -> Range:
        """The range of any one step's reward (Gymnasium's old ``reward_range``): ``step``, or ``step + once``.

        ``total`` is not applied: it bounds a sum, and one step of a telescoping reward may exceed it.
        """
        return Range(self.step.low + min(0.0, self.once.low), self.step.high + max(0.0, self.once.high))

    def to_json(self) -> dict[str, Any]:
        """The objective as JSON: its name and its three ranges as :meth:`Range.to_json` writes them."""
        return {
            "name": self.name,
            "step": self.step.to_json(),
            "once": self.once.to_json(),
            "total": self.total.to_json(),
        }


@dataclasses.dataclass(frozen=True)
class Outcome:
    """One recorded episode as the bounds read it.

    Attributes:
        returns: ``(agents, objectives)`` float64; a single-agent scalar return is ``(1, 1)``.
        length: steps.
        success: the recorded success, or ``None``.
        metrics: the recorded episode metrics.
        max_length: the task's step limit.
    """

    returns: np.ndarray
    length: int
    success: bool | None
    metrics: Mapping[str, float]
    max_length: int | None

    @property
    def team(self) -> np.ndarray:
        """``(objectives,)`` float64: the agents' returns summed per objective."""
        return self.returns.sum(axis=0)


@dataclasses.dataclass(frozen=True)
class Rule:
    """A consistency rule between an episode's return, length, success and metrics.

    Attributes:
        description: the rule in one sentence, as ``benchmarkzoo info`` shows it.
        broken: the reason the outcome breaks the rule (naming the values and what was expected),
            or ``None`` when it holds. Only called once lengths, returns and metrics are in bounds
            and every declared metric is present.
    """

    description: str
    broken: Callable[[Outcome], str | None]


@dataclasses.dataclass(frozen=True)
class OutcomeBounds:
    """Everything an env's episode can produce, as declared by the env family.

    Attributes:
        max_length: the step limit; an episode lasts ``1..max_length`` steps.
        objectives: the per-agent return bound of each objective (one agent for ``single``/``mo``).
        agents: the number of agents of every episode, or ``None`` where it depends on the scenario.
        team: per objective, a bound on the agents' returns summed, where it is tighter than the
            per-agent bounds added up (a zero-sum game, a team reward normalized to 1).
        success: whether the env reports a success (then every episode records one, else none).
        metrics: every episode metric the env reports, with its range.
        integer_metrics: those of ``metrics`` that count things (whole numbers).
        optional_metrics: those of ``metrics`` that an episode may lack (e.g. ``total_co2`` without
            ``emissions=True``).
        rules: consistency rules (see :class:`Rule`).
    """

    max_length: int | None
    objectives: tuple[Objective, ...]
    agents: int | None = None
    team: tuple[Objective, ...] | None = None
    success: bool = False
    metrics: Mapping[str, Range] = dataclasses.field(default_factory=dict)
    integer_metrics: frozenset[str] = frozenset()
    optional_metrics: frozenset[str] = frozenset()
    rules: tuple[Rule, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """A JSON-compatible description (rules by their descriptions)."""
        return {
            "max_length": self.max_length,
            "agents": self.agents,
            "objectives": [o.to_json() for o in self.objectives],
            "team": None if self.team is None else [o.to_json() for o in self.team],
            "success": self.success,
            "metrics": {name: r.to_json() for name, r in sorted(self.metrics.items())},
            "integer_metrics": sorted(self.integer_metrics),
            "optional_metrics": sorted(self.optional_metrics),
            "rules": [rule.description for rule in self.rules],
        }

    def step_rewards(self) -> dict[str, Range]:
        """Per objective (per agent for parallel kinds), the range of one step's reward."""
        return {o.name: o.step_reward for o in self.objectives}

    def describe(self) -> list[str]:
        """Human-readable lines, for ``benchmarkzoo info``."""
        lines = [f"length: 1..{self.max_length if self.max_length is not None else 'unbounded'} steps"]
        if self.agents is not None:
            lines.append(f"agents: {self.agents}")
        who = "per agent, " if self.agents is not None or self.team is not None else ""
        for o in self.objectives:
            total = f", episode within {o.total}" if o.total != Range() else ""
            lines.append(f"{o.name} ({who}episode of L steps): L * {o.step} + {o.once}{total}")
        for o in self.team or ():
            lines.append(f"{o.name} (team, episode of L steps): L * {o.step} + {o.once}, episode within {o.total}")
        lines.append("success: reported" if self.success else "success: not reported")
        for name, r in sorted(self.metrics.items()):
            kind = " (integer)" if name in self.integer_metrics else ""
            lines.append(f"metric {name}: {r}{kind}")
        lines.extend(f"rule: {rule.description}" for rule in self.rules)
        return lines


def constructor_kwargs(entry_point: Callable[..., Any], kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """``kwargs`` completed with the constructor defaults of ``entry_point``.

    Defaults are declared once, on the env's constructor; bounds read them from there.
    """
    merged = {
        name: p.default
        for name, p in inspect.signature(entry_point).parameters.items()
        if p.default is not inspect.Parameter.empty
    }
    merged.update(kwargs)
    return merged


def fixed_length(what: str = "the env never terminates") -> Rule:
    """Every episode lasts exactly the step limit."""

    def broken(o: Outcome) -> str | None:
        if o.max_length is not None and o.length != o.max_length:
            return f"length {o.length} is not the step limit {o.max_length} ({what})"
        return None

    return Rule(f"every episode lasts the step limit ({what})", broken)
