"""Foraging scenarios and their generator: agent and food positions, levels and food types."""

from __future__ import annotations

import dataclasses

import numpy as np
from typing_extensions import override

from benchmarkzoo.core.errors import GeneratorArgumentError, ScenarioError
from benchmarkzoo.core.scenario import Scenario
from benchmarkzoo.generators.base import Generator

MAX_SIDE = 64
MAX_AGENTS = 64
MAX_FOOD = 64
MAX_LEVEL = 9
MAX_FOOD_TYPES = 4
#: Agents that fit next to one food item (its 4-neighbourhood).
MAX_NEIGHBOURS = 4


def team_level(agent_levels: np.ndarray) -> int:
    """The highest total level that can load one food item: the sum of the four highest agent levels."""
    return int(np.sort(agent_levels)[::-1][:MAX_NEIGHBOURS].sum())


@dataclasses.dataclass(frozen=True, eq=False)
class ForagingScenario(Scenario):
    """One level-based foraging instance on an open ``height x width`` grid.

    Attributes:
        height: rows of the grid.
        width: columns of the grid.
        agent_pos: ``(N, 2)`` int64, each agent's first ``(row, col)``.
        agent_levels: ``(N,)`` int64, each agent's level, ``>= 1``.
        food_pos: ``(M, 2)`` int64, each food item's ``(row, col)``.
        food_levels: ``(M,)`` int64, each food item's level, ``>= 1``.
        food_types: ``(M,)`` int64, each food item's type in ``0..num_food_types - 1`` (the
            objective it counts towards in ``MO-Foraging-v0``; ignored by ``Foraging-v0``).

    The ``N + M`` cells are distinct and inside the grid (checked on construction). At most four
    agents fit next to a food item, so an item whose level exceeds the sum of the four highest
    agent levels can never be collected; generators never draw one, and hand-written scenarios
    are refused with one.
    """

    kind = "foraging"

    height: int
    width: int
    agent_pos: np.ndarray
    agent_levels: np.ndarray
    food_pos: np.ndarray
    food_levels: np.ndarray
    food_types: np.ndarray

    def __post_init__(self) -> None:
        arrays = {}
        for name in ("agent_pos", "agent_levels", "food_pos", "food_levels", "food_types"):
            value = np.array(getattr(self, name), dtype=np.int64, copy=True)
            arrays[name] = value
        n, m = arrays["agent_levels"].shape[0] if arrays["agent_levels"].ndim == 1 else -1, -1
        if arrays["food_levels"].ndim == 1:
            m = arrays["food_levels"].shape[0]
        shapes_ok = (
            n >= 1
            and m >= 1
            and arrays["agent_pos"].shape == (n, 2)
            and arrays["food_pos"].shape == (m, 2)
            and arrays["food_types"].shape == (m,)
        )
        if not shapes_ok:
            raise ScenarioError(
                "ForagingScenario needs agent_pos (N, 2), agent_levels (N,), food_pos (M, 2), food_levels (M,) and "
                "food_types (M,) with N, M >= 1; got shapes "
                + ", ".join(f"{k} {v.shape}" for k, v in arrays.items())
                + "."
            )
        if not (isinstance(self.height, int) and isinstance(self.width, int) and self.height >= 2 and self.width >= 2):
            raise ScenarioError(
                f"ForagingScenario: height and width must be integers >= 2; got {self.height!r}, {self.width!r}."
            )
        cells = np.concatenate([arrays["agent_pos"], arrays["food_pos"]])
        inside = (cells[:, 0] >= 0) & (cells[:, 0] < self.height) & (cells[:, 1] >= 0) & (cells[:, 1] < self.width)
        if not inside.all():
            raise ScenarioError(
                f"ForagingScenario: every agent and food must lie inside the {self.height}x{self.width} grid."
            )
        flat = cells[:, 0] * self.width + cells[:, 1]
        if np.unique(flat).size != flat.size:
            raise ScenarioError("ForagingScenario: agents and food must occupy N + M distinct cells.")
        if (arrays["agent_levels"] < 1).any() or (arrays["food_levels"] < 1).any() or (arrays["food_types"] < 0).any():
            raise ScenarioError("ForagingScenario: levels must be >= 1 and food types >= 0.")
        reach = team_level(arrays["agent_levels"])
        if arrays["food_levels"].max() > reach:
            raise ScenarioError(
                f"ForagingScenario: a food of level {int(arrays['food_levels'].max())} exceeds the sum of the "
                f"{MAX_NEIGHBOURS} highest agent levels ({reach}), so it could never be collected."
            )
        for name, value in arrays.items():
            value.setflags(write=False)  # scenarios are values: their hash must not go stale
            object.__setattr__(self, name, value)

    @property
    def num_agents(self) -> int:
        """The number of agents."""
        return int(self.agent_levels.shape[0])

    @property
    def num_food(self) -> int:
        """The number of food items."""
        return int(self.food_levels.shape[0])


class ForagingGenerator(Generator):
    """Random level-based foraging instances, as LBF draws them.

    Agent levels are uniform in ``1..max_agent_level``. Food items are placed away from the
    border and never next to one another (8-neighbourhood), as in LBF; their levels are uniform
    in ``1..`` the sum of the four highest agent levels (capped at ``max_food_level``), so every
    item can be collected by the agents that fit around it. With ``cooperative=True`` every food
    level exceeds the highest agent level (LBF's ``force_coop``): no agent can ever collect food
    alone. Agents start on
    uniformly drawn free cells. Food types are uniform in ``0..num_food_types - 1``.

    Args:
        height: rows, 5..64.
        width: columns, 5..64.
        num_agents: ``N``, 1..64 (2..64 when ``cooperative``).
        num_food: ``M``, 1..64; must fit on the grid (refused at the first draw otherwise).
        max_agent_level: 1..9.
        max_food_level: cap on food levels, 1..36 (``None``: no cap beyond the four strongest agents' total).
        cooperative: every food needs at least two agents.
        num_food_types: 1..4, the objectives of ``MO-Foraging-v0``.
    """

    scenario_type = ForagingScenario

    def __init__(
        self,
        height: int = 8,
        width: int = 8,
        num_agents: int = 3,
        num_food: int = 4,
        max_agent_level: int = 3,
        max_food_level: int | None = None,
        cooperative: bool = False,
        num_food_types: int = 1,
    ):
        self.height = self._check_int_range("height", height, 5, MAX_SIDE)
        self.width = self._check_int_range("width", width, 5, MAX_SIDE)
        if not isinstance(cooperative, bool):
            raise GeneratorArgumentError(f"cooperative must be True or False; got {cooperative!r}.")
        self.cooperative = cooperative
        self.num_agents = self._check_int_range("num_agents", num_agents, 2 if cooperative else 1, MAX_AGENTS)
        interior = (self.height - 2) * (self.width - 2)
        # food never touches food (8-neighbourhood): at most one per 2x2 block of the interior
        food_room = ((self.height - 1) // 2) * ((self.width - 1) // 2)
        self.num_food = self._check_int_range("num_food", num_food, 1, min(MAX_FOOD, food_room))
        if self.num_agents + self.num_food > self.height * self.width // 2 or self.num_food > interior:
            raise GeneratorArgumentError(
                f"num_agents + num_food must be at most half the {height}x{width} grid "
                f"({self.height * self.width // 2}); got {num_agents} + {num_food}. Use a larger grid."
            )
        self.max_agent_level = self._check_int_range("max_agent_level", max_agent_level, 1, MAX_LEVEL)
        if max_food_level is not None:
            max_food_level = self._check_int_range("max_food_level", max_food_level, 1, MAX_NEIGHBOURS * MAX_LEVEL)
            if cooperative and max_food_level < 2:
                raise GeneratorArgumentError(
                    f"max_food_level must be at least 2 with cooperative=True; got {max_food_level!r}."
                )
        self.max_food_level = max_food_level
        self.num_food_types = self._check_int_range("num_food_types", num_food_types, 1, MAX_FOOD_TYPES)

    @property
    def food_level_bound(self) -> int:
        """The highest food level this generator can draw (the observation's scale)."""
        bound = min(self.num_agents, MAX_NEIGHBOURS) * self.max_agent_level
        return bound if self.max_food_level is None else min(bound, self.max_food_level)

    @override
    def __call__(self, rng: np.random.Generator) -> ForagingScenario:
        h, w, n, m = self.height, self.width, self.num_agents, self.num_food
        agent_levels = rng.integers(1, self.max_agent_level + 1, size=n)
        total = team_level(agent_levels)
        high = total if self.max_food_level is None else min(total, self.max_food_level)
        low = 1
        if self.cooperative:
            low = int(agent_levels.max()) + 1
            if low > high:  # a cap at or below the strongest agent: every agent is lowered below the cap
                low = high = max(high, 2)
                agent_levels = np.minimum(agent_levels, high - 1)
        food_levels = rng.integers(low, high + 1, size=m)
        food_types = rng.integers(0, self.num_food_types, size=m)
        taken = np.zeros((h + 2, w + 2), dtype=bool)  # padded by one: 8-neighbour checks need no bounds tests
        food_pos = np.zeros((m, 2), dtype=np.int64)
        placed = 0
        for cell in rng.permutation((h - 2) * (w - 2)).tolist():
            row, col = cell // (w - 2) + 1, cell % (w - 2) + 1
            if taken[row : row + 3, col : col + 3].any():
                continue
            taken[row + 1, col + 1] = True
            food_pos[placed] = (row, col)
            placed += 1
            if placed == m:
                break
        if placed < m:
            raise GeneratorArgumentError(
                f"{self!r} could place only {placed} of {m} food items apart from each other; use fewer food items "
                "or a larger grid."
            )
        occupied = np.zeros(h * w, dtype=bool)
        occupied[food_pos[:, 0] * w + food_pos[:, 1]] = True
        free = np.flatnonzero(~occupied)
        cells = free[rng.permutation(free.size)[:n]]
        agent_pos = np.stack([cells // w, cells % w], axis=1)
        return ForagingScenario(
            height=h,
            width=w,
            agent_pos=agent_pos,
            agent_levels=agent_levels,
            food_pos=food_pos,
            food_levels=food_levels,
            food_types=food_types,
        )
