"""MAPF scenarios and their generators: random obstacles, braided mazes, and MovingAI ``.map`` files."""

from __future__ import annotations

import dataclasses
import os
from typing import ClassVar

import numpy as np
from typing_extensions import override

from benchmarkzoo.core.errors import GeneratorArgumentError, ScenarioError
from benchmarkzoo.core.scenario import Scenario
from benchmarkzoo.generators.agents import components, sample_starts_goals
from benchmarkzoo.generators.grids import dfs_maze, obstacle_field
from benchmarkzoo.generators.wall_maps import WallMapGenerator

MAX_SIDE = 255
MAX_AGENTS = 1024
#: MovingAI terrain characters an agent may stand on (``.`` and ``G`` ground, ``S`` swamp).
MOVINGAI_PASSABLE = frozenset(".GS")
#: Every terrain character of the format (``@``/``O`` out of bounds, ``T`` trees, ``W`` water).
MOVINGAI_TERRAIN = frozenset(".GS@OTW")


@dataclasses.dataclass(frozen=True, eq=False)
class MapfScenario(Scenario):
    """One MAPF instance: the map and every agent's start and goal.

    Attributes:
        walls: ``(height, width)`` bool, ``True`` for an obstacle.
        starts: ``(num_agents, 2)`` int64, agent ``k``'s first ``(row, col)``.
        goals: ``(num_agents, 2)`` int64, agent ``k``'s goal ``(row, col)``.

    The ``2 * num_agents`` start and goal cells are distinct free cells and each goal lies in
    its start's connected component (checked on construction).
    """

    kind = "mapf"

    walls: np.ndarray
    starts: np.ndarray
    goals: np.ndarray

    def __post_init__(self) -> None:
        walls = np.array(self.walls, copy=True)
        starts = np.array(self.starts, dtype=np.int64, copy=True)
        goals = np.array(self.goals, dtype=np.int64, copy=True)
        if walls.dtype != np.bool_ or walls.ndim != 2:
            raise ScenarioError(
                f"MapfScenario.walls must be a 2-D bool array; got dtype {walls.dtype}, shape {walls.shape}."
            )
        if starts.ndim != 2 or starts.shape[1:] != (2,) or starts.shape[0] < 1 or goals.shape != starts.shape:
            raise ScenarioError(
                "MapfScenario.starts and goals must both be (num_agents, 2) int arrays; "
                f"got {starts.shape} and {goals.shape}."
            )
        height, width = walls.shape
        cells = np.concatenate([starts, goals])
        inside = (cells[:, 0] >= 0) & (cells[:, 0] < height) & (cells[:, 1] >= 0) & (cells[:, 1] < width)
        if not inside.all() or walls[cells[:, 0], cells[:, 1]].any():
            raise ScenarioError(f"MapfScenario: every start and goal must be a free cell inside the {walls.shape} map.")
        flat = cells[:, 0] * width + cells[:, 1]
        if np.unique(flat).size != flat.size:
            raise ScenarioError("MapfScenario: the starts and goals must be 2 * num_agents distinct cells.")
        label, _ = components(walls)
        n = starts.shape[0]
        unreachable = np.flatnonzero(label[flat[:n]] != label[flat[n:]])
        if unreachable.size:
            raise ScenarioError(f"MapfScenario: agent {int(unreachable[0])}'s goal is not reachable from its start.")
        for array in (walls, starts, goals):
            array.setflags(write=False)  # scenarios are values: their hash must not go stale
        object.__setattr__(self, "walls", walls)
        object.__setattr__(self, "starts", starts)
        object.__setattr__(self, "goals", goals)

    @property
    def shape(self) -> tuple[int, int]:
        """``(height, width)`` of the map."""
        return self.walls.shape

    @property
    def num_agents(self) -> int:
        """The number of agents."""
        return int(self.starts.shape[0])


def load_movingai_map(path: str | os.PathLike[str]) -> np.ndarray:
    """Read a MovingAI benchmark ``.map`` file (https://movingai.com/benchmarks/formats.html).

    The header is ``type octile``, ``height H``, ``width W``, ``map``, then ``H`` rows of ``W``
    terrain characters. ``.``, ``G`` and ``S`` are passable; ``@``, ``O``, ``T`` and ``W`` are not.

    Returns:
        walls: ``(H, W)`` bool.
    """
    with open(path, encoding="ascii") as f:
        lines = [line.rstrip("\r\n") for line in f]
    header: dict[str, str] = {}
    for index, line in enumerate(lines):
        if line.strip() == "map":
            body = index
            break
        key, _, value = line.strip().partition(" ")
        header[key] = value.strip()
    else:
        raise ScenarioError(f"{path}: no 'map' line; a MovingAI .map file has a header 'type/height/width' then 'map'.")
    try:
        height, width = int(header["height"]), int(header["width"])
    except (KeyError, ValueError):
        raise ScenarioError(f"{path}: the header must give 'height H' and 'width W'; got {header}.") from None
    rows = lines[body + 1 : body + 1 + height]
    if len(rows) != height or any(len(row) != width for row in rows):
        raise ScenarioError(f"{path}: expected {height} rows of {width} characters after 'map'.")
    unknown = set("".join(rows)) - MOVINGAI_TERRAIN
    if unknown:
        raise ScenarioError(
            f"{path}: unknown terrain characters {sorted(unknown)}; expected some of {sorted(MOVINGAI_TERRAIN)}."
        )
    return np.array([[ch not in MOVINGAI_PASSABLE for ch in row] for row in rows], dtype=bool)


class MapfGenerator(WallMapGenerator[MapfScenario]):
    """Shared part of MAPF generators: map size, number of agents, start and goal placement."""

    scenario_type: ClassVar[type[MapfScenario]] = MapfScenario

    def __init__(self, height: int, width: int, num_agents: int):
        self.height = self._check_int_range("height", height, 2, MAX_SIDE)
        self.width = self._check_int_range("width", width, 2, MAX_SIDE)
        self.num_agents = self._check_int_range(
            "num_agents", num_agents, 1, min(MAX_AGENTS, self.height * self.width // 2)
        )

    @override
    def _place(self, rng: np.random.Generator, walls: np.ndarray) -> MapfScenario | None:
        placed = sample_starts_goals(rng, walls, self.num_agents)
        return None if placed is None else MapfScenario(walls=walls, starts=placed[0], goals=placed[1])

    @override
    def _unplaceable(self) -> tuple[str, str]:
        return (
            f"map with room for {self.num_agents} agents' starts and goals",
            "Use fewer agents, a larger map or fewer obstacles.",
        )


class ObstacleMapGenerator(MapfGenerator):
    """Open maps with independent random obstacles (POGEMA's ``random`` maps).

    Args:
        height: rows, 2..255.
        width: columns, 2..255.
        num_agents: 1..min(1024, height * width / 2).
        density: probability that a cell is an obstacle, 0..0.5.
    """

    def __init__(self, height: int = 16, width: int = 16, num_agents: int = 8, density: float = 0.2):
        super().__init__(height, width, num_agents)
        self.density = self._check_float_range("density", density, 0.0, 0.5)

    def _walls(self, rng: np.random.Generator) -> np.ndarray:
        return obstacle_field(rng, self.height, self.width, self.density)


class MazeMapGenerator(MapfGenerator):
    """Depth-first-search mazes with some inner walls knocked out (a braided maze).

    A perfect maze has one path between any two cells, so two agents meeting in a corridor
    could never pass; ``openings`` is the probability that each inner wall between two
    corridor cells is removed, adding loops (0 keeps the perfect maze).

    Args:
        height: rows, odd, 5..255.
        width: columns, odd, 5..255.
        num_agents: 1..(free cells of the maze) / 2.
        openings: probability of removing each removable inner wall, 0..1.
    """

    def __init__(self, height: int = 17, width: int = 17, num_agents: int = 8, openings: float = 0.2):
        self._check_int_range("height", height, 5, MAX_SIDE, odd=True)
        self._check_int_range("width", width, 5, MAX_SIDE, odd=True)
        maze_cells = ((height - 1) // 2) * ((width - 1) // 2)
        self._check_int_range("num_agents", num_agents, 1, (2 * maze_cells - 1) // 2)  # a perfect maze's free cells
        super().__init__(height, width, num_agents)
        self.openings = self._check_float_range("openings", openings, 0.0, 1.0)
        rows, cols = np.indices((height, width))
        inner = (rows > 0) & (rows < height - 1) & (cols > 0) & (cols < width - 1)
        # walls between two maze cells: odd row & even col (left/right) or even row & odd col (up/down)
        self._removable = np.flatnonzero((inner & ((rows % 2) != (cols % 2))).ravel())

    def _walls(self, rng: np.random.Generator) -> np.ndarray:
        walls = dfs_maze(rng, self.height, self.width)
        knock = rng.random(self._removable.size) < self.openings  # one uniform per removable wall, always
        walls.ravel()[self._removable[knock]] = False
        return walls


class MovingAIMapGenerator(MapfGenerator):
    """A fixed map read from a MovingAI ``.map`` file, with fresh starts and goals each draw.

    The file is read once, here; scenarios carry the map itself, so their hashes depend on
    the map's content, never on the path.

    Args:
        map_file: path of a MovingAI ``.map`` file (see :func:`load_movingai_map`).
        num_agents: 1..(free cells) / 2.
    """

    def __init__(self, map_file: str, num_agents: int = 8):
        if not isinstance(map_file, str | os.PathLike) or not os.path.isfile(map_file):
            raise GeneratorArgumentError(
                f"map_file must be the path of an existing MovingAI .map file; got {map_file!r}."
            )
        self.map_file = os.fspath(map_file)
        self._map = load_movingai_map(self.map_file)
        self._map.setflags(write=False)
        free = int((~self._map).sum())
        self._check_int_range("num_agents", num_agents, 1, max(free // 2, 1))
        super().__init__(self._map.shape[0], self._map.shape[1], num_agents)

    def _walls(self, rng: np.random.Generator) -> np.ndarray:
        return self._map.copy()


@dataclasses.dataclass(frozen=True, eq=False)
class LifelongMapfScenario(MapfScenario):
    """A lifelong MAPF instance: a :class:`MapfScenario` plus every agent's pre-drawn later goals.

    Attributes:
        goal_sequence: ``(num_agents, K, 2)`` int64, agent ``k``'s goals after ``goals[k]``, in
            order. Agent ``k`` cycles through ``goals[k], goal_sequence[k, 0], ...,
            goal_sequence[k, K - 1]``; its ``K``-th later goal is its last (an agent reaches at
            most one goal per step, so ``K >= max_cycles`` never runs out; the env insists on it).

    Checked on construction (besides the :class:`MapfScenario` checks): ``K >= 1``, every later
    goal is a free cell of its agent's start component, and consecutive goals of an agent differ,
    so an agent never stands on the goal it has just been given. Goals of different agents may
    coincide (a goal is not an obstacle).
    """

    kind = "mapf-lifelong"

    goal_sequence: np.ndarray

    def __post_init__(self) -> None:
        super().__post_init__()
        sequence = np.array(self.goal_sequence, dtype=np.int64, copy=True)
        n = self.num_agents
        if sequence.ndim != 3 or sequence.shape[0] != n or sequence.shape[1] < 1 or sequence.shape[2] != 2:
            raise ScenarioError(
                f"LifelongMapfScenario.goal_sequence must be a (num_agents={n}, K >= 1, 2) int array; "
                f"got shape {sequence.shape}."
            )
        height, width = self.walls.shape
        rows, cols = sequence[..., 0], sequence[..., 1]
        inside = (rows >= 0) & (rows < height) & (cols >= 0) & (cols < width)
        if not inside.all() or self.walls[np.clip(rows, 0, height - 1), np.clip(cols, 0, width - 1)].any():
            raise ScenarioError(
                f"LifelongMapfScenario: every later goal must be a free cell inside the {self.shape} map."
            )
        label, _ = components(self.walls)
        flat = rows * width + cols  # (N, K)
        start_label = label[self.starts[:, 0] * width + self.starts[:, 1]]
        if (label[flat] != start_label[:, None]).any():
            raise ScenarioError("LifelongMapfScenario: every later goal must be reachable from its agent's start.")
        chain = np.concatenate([(self.goals[:, 0] * width + self.goals[:, 1])[:, None], flat], axis=1)
        if (chain[:, 1:] == chain[:, :-1]).any():
            raise ScenarioError("LifelongMapfScenario: consecutive goals of an agent must differ.")
        sequence.setflags(write=False)
        object.__setattr__(self, "goal_sequence", sequence)

    @property
    def goals_per_agent(self) -> int:
        """``K``, the later goals drawn per agent."""
        return int(self.goal_sequence.shape[1])


class LifelongMapfGenerator(MapfGenerator):
    """Lifelong MAPF instances: a map, starts and first goals from another MAPF generator, then later goals.

    The base generator draws its scenario first (so the map, starts and first goals of seed
    ``s`` are exactly the base generator's); then, from the same ``rng``, each agent's
    ``goals_per_agent`` later goals, each uniform among the free cells of its start component
    other than its previous goal (``goals_per_agent * num_agents`` uniforms, drawn at once).

    Args:
        base: a registered MAPF generator name (``"mapf/obstacles"``, ``"mapf/maze"``, ``"mapf/movingai"``).
        base_kwargs: its arguments.
        goals_per_agent: ``K``, 1..4096, at least the env's ``max_cycles`` (each goal takes a step or more).
    """

    scenario_type = LifelongMapfScenario

    def __init__(self, base: str = "mapf/obstacles", base_kwargs: dict | None = None, goals_per_agent: int = 128):
        from benchmarkzoo.registration import make_generator  # the registry imports this module

        self.base = base
        self.base_kwargs = dict(base_kwargs or {})
        base_generator = make_generator(base, self.base_kwargs)
        if not isinstance(base_generator, MapfGenerator) or isinstance(base_generator, LifelongMapfGenerator):
            raise GeneratorArgumentError(f"base must name a (non-lifelong) MAPF generator; got {base!r}.")
        self._base = base_generator
        self.goals_per_agent = self._check_int_range("goals_per_agent", goals_per_agent, 1, 4096)
        self.height, self.width, self.num_agents = self._base.height, self._base.width, self._base.num_agents

    @override
    def __call__(self, rng: np.random.Generator) -> LifelongMapfScenario:
        first = self._base(rng)
        width = first.shape[1]
        draws = rng.random((self.num_agents, self.goals_per_agent))
        label, cells = components(first.walls)
        sequence = np.empty((self.num_agents, self.goals_per_agent, 2), dtype=np.int64)
        for k in range(self.num_agents):
            options = np.asarray(cells[int(label[first.starts[k, 0] * width + first.starts[k, 1]])], dtype=np.int64)
            where = {int(cell): i for i, cell in enumerate(options.tolist())}
            previous = where[int(first.goals[k, 0] * width + first.goals[k, 1])]
            for j in range(self.goals_per_agent):
                pick = int(draws[k, j] * (options.size - 1))  # uniform over the cells other than the previous goal
                pick += pick >= previous
                sequence[k, j] = divmod(int(options[pick]), width)
                previous = pick
        return LifelongMapfScenario(walls=first.walls, starts=first.starts, goals=first.goals, goal_sequence=sequence)
