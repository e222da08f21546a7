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
        types: ``(N,)`` each agent's type in ``0..num_types - 1``.
        starts: ``(N,)`` each agent's start section in ``0..num_sections - 1``.
    """

    kind = "beach"

    num_sections: int
    capacity: int
    num_types: int
    types: tuple[int, ...]
    starts: tuple[int, ...]

    def __post_init__(self) -> None:
        if len(self.types) != len(self.starts) or not self.types:
            raise ScenarioError(
                f"BeachScenario needs one type and one start per agent; got {len(self.types)} types and "
                f"{len(self.starts)} starts."
            )
        if not all(0 <= t < self.num_types for t in self.types) or not all(
            0 <= s < self.num_sections for s in self.starts
        ):
            raise ScenarioError(
                f"BeachScenario types must lie in [0, {self.num_types}) and starts in [0, {self.num_sections}); "
                f"got types {self.types!r:.60} and starts {self.starts!r:.60}."
            )

    @property
    def num_agents(self) -> int:
        """Agents on the beach."""
        return len(self.types)


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
        types = rng.choice(self.num_types, size=self.num_agents, p=self.type_distribution)
        if self.position_distribution is None:
            starts = rng.integers(0, self.num_sections, size=self.num_agents)
        else:
            starts = rng.choice(self.num_sections, size=self.num_agents, p=self.position_distribution)
        return BeachScenario(
            self.num_sections, self.capacity, self.num_types, tuple(types.tolist()), tuple(starts.tolist())
        )
