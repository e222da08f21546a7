"""Beach scenarios (each agent's type and start section) and the generator that draws them."""

from __future__ import annotations

import dataclasses

import numpy as np
from typing_extensions import override

from benchmarkzoo.core.errors import GeneratorArgumentError, ScenarioError
from benchmarkzoo.core.scenario import Scenario
from benchmarkzoo.generators.base import Generator


@dataclasses.dataclass(frozen=True, eq=False)
class BeachScenario(Scenario):
    """One beach: ``num_sections`` sections of ``capacity`` each, and every agent's type and start section.

    Attributes:
        num_sections: sections of the beach, in a row.
        capacity: every section's capacity (the crowd at which its capacity reward peaks).
        num_types: agent types.
        types: ``(N,)`` int64, each agent's type in ``0..num_types - 1`` (any integer sequence is accepted).
        starts: ``(N,)`` int64, each agent's start section in ``0..num_sections - 1``.
    """

    kind = "beach"

    num_sections: int
    capacity: int
    num_types: int
    types: np.ndarray
    starts: np.ndarray

    def __post_init__(self) -> None:
        types, starts = (np.array(getattr(self, name), dtype=np.int64, copy=True) for name in ("types", "starts"))
        if types.ndim != 1 or types.shape != starts.shape or not types.size:
            raise ScenarioError(
                f"BeachScenario needs one type and one start per agent, (N,) each; got shapes {types.shape} and "
                f"{starts.shape}."
            )
        if not (
            types.min() >= 0 and types.max() < self.num_types and starts.min() >= 0 and starts.max() < self.num_sections
        ):
            raise ScenarioError(
                f"BeachScenario types must lie in [0, {self.num_types}) and starts in [0, {self.num_sections}); "
                f"got types {types.tolist()!r:.60} and starts {starts.tolist()!r:.60}."
            )
        for name, value in (("types", types), ("starts", starts)):
            value.setflags(write=False)  # scenarios are values: their hash must not go stale
            object.__setattr__(self, name, value)

    @property
    def num_agents(self) -> int:
        """Agents on the beach."""
        return int(self.types.shape[0])


@dataclasses.dataclass(eq=False)
class BeachGenerator(Generator):
    """Agent types drawn from ``type_distribution``, start sections from ``position_distribution``.

    MOMAland's ``mobeach_v0`` defaults: 100 agents, 6 sections of capacity 7, two types with
    probabilities 0.3 and 0.7, starts uniform over the sections.

    Args:
        num_agents: agents, 2..1000.
        num_sections: sections, 2..50.
        capacity: every section's capacity, 1..1000.
        type_distribution: the probability of each type (2..8 types, positive, summing to 1).
        position_distribution: the probability of each start section, or ``None`` for uniform.
    """

    scenario_type = BeachScenario

    num_agents: int = 100
    num_sections: int = 6
    capacity: int = 7
    type_distribution: tuple[float, ...] = (0.3, 0.7)
    position_distribution: tuple[float, ...] | None = None

    def __post_init__(self) -> None:
        self.num_agents = self._check_int_range("num_agents", self.num_agents, 2, 1000)
        self.num_sections = self._check_int_range("num_sections", self.num_sections, 2, 50)
        self.capacity = self._check_int_range("capacity", self.capacity, 1, 1000)
        self.type_distribution = self._distribution("type_distribution", self.type_distribution, None)
        if self.position_distribution is not None:
            self.position_distribution = self._distribution(
                "position_distribution", self.position_distribution, self.num_sections
            )

    def _distribution(self, name: str, value: object, size: int | None) -> tuple[float, ...]:
        try:
            p = np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError):
            p = np.full(0, np.nan)
        need = f"{size} probabilities" if size is not None else "2..8 probabilities"
        fits = p.ndim == 1 and (p.size == size if size is not None else 2 <= p.size <= 8)
        if not fits or not np.all(np.isfinite(p)) or (p < 0).any() or not np.isclose(p.sum(), 1.0):
            raise GeneratorArgumentError(
                f"BeachGenerator: {name} must be {need}, non-negative, summing to 1; got {value!r}."
            )
        return tuple(float(x) for x in p)

    @property
    def num_types(self) -> int:
        """Agent types (the length of ``type_distribution``)."""
        return len(self.type_distribution)

    @override
    def __call__(self, rng: np.random.Generator) -> BeachScenario:
        types = _choice(rng, self.type_distribution, self.num_agents)
        if self.position_distribution is None:
            starts = rng.integers(0, self.num_sections, size=self.num_agents)
        else:
            starts = _choice(rng, self.position_distribution, self.num_agents)
        types.setflags(write=False)
        starts.setflags(write=False)
        # Checked form already (int64 arrays in range, read-only): building it unchecked halves an autoreset's draw
        # (tests/test_unchecked_scenarios.py holds it to what the checked constructor builds).
        return BeachScenario.unchecked(
            num_sections=self.num_sections, capacity=self.capacity, num_types=self.num_types, types=types, starts=starts
        )


def _choice(rng: np.random.Generator, p: tuple[float, ...], size: int) -> np.ndarray:
    """``rng.choice(len(p), size, p=p)``, the same draws and values (numpy's own method), without its checks.

    ``Generator.choice`` validates ``p`` on every call, which cost most of a 100-agent scenario's
    draw; the generator checked ``p`` once, when it was made.
    """
    cdf = np.cumsum(p)
    cdf /= cdf[-1]
    return cdf.searchsorted(rng.random(size), side="right")
