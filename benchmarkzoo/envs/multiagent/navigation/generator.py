"""Navigation scenarios and their generator: robots, goals and circular obstacles in a square arena.

The arena is the square ``[-arena_size, arena_size]^2`` (metres). A scenario holds every robot's
start, goal and initial heading and the obstacles' centres and radii. The generator keeps every
gap between obstacles, and between an obstacle and the walls, at least one robot diameter plus
``min_separation``: the free space is then connected, so every goal is reachable from every
start when the other robots are out of the way.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
from typing_extensions import override

from benchmarkzoo.core.errors import GeneratorArgumentError, ScenarioError
from benchmarkzoo.core.scenario import Scenario
from benchmarkzoo.generators.base import Generator

MAX_AGENTS = 256
MAX_OBSTACLES = 256
MAX_ARENA = 50.0  # m, half-width
CANDIDATES = 32  # points drawn at once for each object; the first one that fits is kept
MAX_REDRAWS = 200
#: Objects may cover at most this fraction of the arena (a feasibility check on the arguments).
MAX_FILL = 0.5


@dataclasses.dataclass(frozen=True, eq=False)
class NavigationScenario(Scenario):
    """One navigation instance.

    Attributes:
        arena_size: m, half-width of the square arena ``[-arena_size, arena_size]^2``.
        agent_radius: m, every robot is a disc of this radius.
        starts: ``(num_agents, 2)`` float64, robot centres at reset.
        goals: ``(num_agents, 2)`` float64, goal points.
        headings: ``(num_agents, 2)`` float64, unit vectors, initial headings (read by the
            ``unicycle`` dynamics; holonomic robots ignore them).
        obstacles: ``(num_obstacles, 3)`` float64, ``(x, y, radius)`` of each circular obstacle.

    Checked on construction: robots inside the arena, not overlapping each other or an obstacle,
    goals inside the arena, unit headings, positive obstacle radii.
    """

    kind = "navigation"

    arena_size: float
    agent_radius: float
    starts: np.ndarray
    goals: np.ndarray
    headings: np.ndarray
    obstacles: np.ndarray

    def __post_init__(self) -> None:
        for name in ("arena_size", "agent_radius"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float | np.number) or not 0 < value < math.inf:
                raise ScenarioError(f"NavigationScenario.{name} must be a positive finite number; got {value!r}.")
            object.__setattr__(self, name, float(value))
        arrays = {
            name: np.array(getattr(self, name), dtype=np.float64, copy=True)
            for name in ("starts", "goals", "headings", "obstacles")
        }
        starts, goals, headings, obstacles = arrays.values()
        if starts.ndim != 2 or starts.shape[1:] != (2,) or starts.shape[0] < 1:
            raise ScenarioError(f"NavigationScenario.starts must be a (num_agents, 2) array; got shape {starts.shape}.")
        if goals.shape != starts.shape or headings.shape != starts.shape:
            raise ScenarioError(
                f"NavigationScenario.goals and headings must have the shape of starts {starts.shape}; "
                f"got {goals.shape} and {headings.shape}."
            )
        if obstacles.size == 0:
            obstacles = obstacles.reshape(0, 3)
        if obstacles.ndim != 2 or obstacles.shape[1] != 3:
            raise ScenarioError(
                "NavigationScenario.obstacles must be a (num_obstacles, 3) array of (x, y, radius); "
                f"got {obstacles.shape}."
            )
        if not np.isfinite(np.concatenate([starts, goals, headings, obstacles], axis=None)).all():
            raise ScenarioError("NavigationScenario: every coordinate must be finite.")
        size, r = self.arena_size, self.agent_radius
        if np.abs(starts).max() > size - r:
            raise ScenarioError(
                f"NavigationScenario: every robot (radius {r}) must lie inside the arena of half-width {size}."
            )
        if np.abs(goals).max() > size:
            raise ScenarioError(f"NavigationScenario: every goal must lie inside the arena of half-width {size}.")
        if np.abs((headings * headings).sum(axis=1) - 1.0).max() > 1e-9:
            raise ScenarioError("NavigationScenario.headings must be unit vectors.")
        if obstacles.shape[0] and (obstacles[:, 2].min() <= 0 or np.abs(obstacles[:, :2]).max() > size):
            raise ScenarioError("NavigationScenario: obstacle radii must be positive and centres inside the arena.")
        offsets = starts[:, None, :] - starts[None, :, :]
        gaps = (offsets * offsets).sum(axis=2)  # squared centre distances
        gaps.flat[:: len(starts) + 1] = np.inf
        if gaps.min() < 4 * r * r:
            i, j = np.unravel_index(int(np.argmin(gaps)), gaps.shape)
            raise ScenarioError(f"NavigationScenario: robots {i} and {j} overlap at their starts.")
        if obstacles.shape[0]:
            offsets = starts[:, None, :] - obstacles[None, :, :2]
            clear = np.sqrt((offsets * offsets).sum(axis=2)) - obstacles[None, :, 2]
            if clear.min() < r:
                i, j = np.unravel_index(int(np.argmin(clear)), clear.shape)
                raise ScenarioError(f"NavigationScenario: robot {i} overlaps obstacle {j} at its start.")
        for name, array in zip(arrays, (starts, goals, headings, obstacles)):
            array.setflags(write=False)  # scenarios are values: their hash must not go stale
            object.__setattr__(self, name, array)

    @classmethod
    def _unchecked(
        cls,
        arena_size: float,
        agent_radius: float,
        starts: np.ndarray,
        goals: np.ndarray,
        headings: np.ndarray,
        obstacles: np.ndarray,
    ) -> NavigationScenario:
        """A scenario from arrays the caller owns and has already made valid, without the checks.

        For :class:`UniformGenerator`, whose placement rules are stricter than the checks (a
        test builds its scenarios both ways and compares): the checks cost as much as the draw.
        Arguments as the fields, in their final types (floats, float64 arrays, obstacles ``(M, 3)``).
        """
        scenario = object.__new__(cls)
        for array in (starts, goals, headings, obstacles):
            array.setflags(write=False)
        # what object.__setattr__ would do field by field (a frozen dataclass keeps fields in __dict__)
        scenario.__dict__.update(
            arena_size=arena_size,
            agent_radius=agent_radius,
            starts=starts,
            goals=goals,
            headings=headings,
            obstacles=obstacles,
        )
        return scenario

    @property
    def num_agents(self) -> int:
        """The number of robots."""
        return int(self.starts.shape[0])

    @property
    def num_obstacles(self) -> int:
        """The number of obstacles."""
        return int(self.obstacles.shape[0])


class UniformGenerator(Generator):
    """Uniform random placement with minimum separations (``"navigation/uniform"``).

    Drawn in this order, each object from 32 uniform candidates (the first that fits is kept; if
    none fits the whole scenario is redrawn):

    1. obstacles: radius uniform in ``[obstacle_min_radius, obstacle_max_radius]``; the gap to
       every earlier obstacle and to the walls at least ``2 * agent_radius + min_separation``;
    2. starts, then goals: ``2 * num_agents`` points at least ``2 * agent_radius + min_separation``
       apart, at least ``agent_radius + min_separation`` from every obstacle's edge and from the walls;
    3. headings: angles uniform in ``[0, 2 pi)``.

    Args:
        num_agents: robots, 1..256.
        num_obstacles: obstacles, 0..256.
        arena_size: m, half-width of the arena, 0.5..50.
        agent_radius: m, 0.01..1.
        obstacle_min_radius: m, 0.01..arena_size.
        obstacle_max_radius: m, obstacle_min_radius..arena_size.
        min_separation: m, extra clearance between objects, 0..1.

    Arguments whose objects could not fit (more than half the arena covered, counting clearances)
    raise :class:`GeneratorArgumentError`.
    """

    scenario_type = NavigationScenario

    def __init__(
        self,
        num_agents: int = 4,
        num_obstacles: int = 4,
        arena_size: float = 2.0,
        agent_radius: float = 0.1,
        obstacle_min_radius: float = 0.15,
        obstacle_max_radius: float = 0.3,
        min_separation: float = 0.1,
    ):
        self.num_agents = self._check_int_range("num_agents", num_agents, 1, MAX_AGENTS)
        self.num_obstacles = self._check_int_range("num_obstacles", num_obstacles, 0, MAX_OBSTACLES)
        self.arena_size = self._check_float_range("arena_size", arena_size, 0.5, MAX_ARENA)
        self.agent_radius = self._check_float_range("agent_radius", agent_radius, 0.01, 1.0)
        self.obstacle_min_radius = self._check_float_range(
            "obstacle_min_radius", obstacle_min_radius, 0.01, self.arena_size
        )
        self.obstacle_max_radius = self._check_float_range(
            "obstacle_max_radius", obstacle_max_radius, self.obstacle_min_radius, self.arena_size
        )
        self.min_separation = self._check_float_range("min_separation", min_separation, 0.0, 1.0)
        r, sep, size = self.agent_radius, self.min_separation, self.arena_size
        point_margin = r + sep
        obstacle_margin = self.obstacle_max_radius + 2 * r + sep
        if point_margin >= size or (self.num_obstacles and obstacle_margin >= size):
            raise GeneratorArgumentError(
                f"arena_size={size} leaves no room for robots of radius {r} (and obstacles up to "
                f"{self.obstacle_max_radius}) with min_separation={sep}; use a larger arena or smaller objects."
            )
        covered = 2 * self.num_agents * math.pi * (r + sep / 2) ** 2
        covered += self.num_obstacles * math.pi * (self.obstacle_max_radius + r + sep / 2) ** 2
        if covered > MAX_FILL * (2 * size) ** 2:
            raise GeneratorArgumentError(
                f"{self.num_agents} robots (radius {r}) and {self.num_obstacles} obstacles (radius up to "
                f"{self.obstacle_max_radius}) with min_separation={sep} would cover {covered:.2f} m^2, more than "
                f"{MAX_FILL:.0%} of the {2 * size:g} x {2 * size:g} m arena; use fewer or smaller objects or a "
                "larger arena."
            )

    @override
    def __call__(self, rng: np.random.Generator) -> NavigationScenario:
        for _ in range(MAX_REDRAWS):
            placed = self._place(rng)
            if placed is not None:
                obstacles, points = placed
                angles = rng.uniform(0.0, 2.0 * math.pi, self.num_agents)
                headings = np.empty((self.num_agents, 2))
                headings[:, 0] = np.cos(angles)
                headings[:, 1] = np.sin(angles)
                n = self.num_agents
                return NavigationScenario._unchecked(
                    self.arena_size, self.agent_radius, points[:n], points[n:], headings, obstacles
                )
        raise GeneratorArgumentError(
            f"{self!r} placed no scenario in {MAX_REDRAWS} draws; use fewer or smaller objects or a larger arena."
        )

    def _place(self, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray] | None:
        """Obstacles ``(M, 3)`` and start-then-goal points ``(2N, 2)``, or ``None`` when something did not fit.

        Each object draws one block of ``CANDIDATES`` uniform triples, always, and keeps the first
        candidate that fits; the checks are plain Python (a few objects: faster than array calls).
        The blocks of every object are drawn in one call (the same numbers as one call per
        object); when an object does not fit, the generator is rewound to just after that
        object's block, where drawing them one by one would have stopped. The first candidates
        of all objects are read in one call (most objects keep their first).
        """
        r, sep, size = self.agent_radius, self.min_separation, self.arena_size
        low, span = self.obstacle_min_radius, self.obstacle_max_radius - self.obstacle_min_radius
        gap = 2 * r + sep  # between robots, and the free lane between obstacles and past walls
        clearance = r + sep  # between a robot's centre and an obstacle's edge
        hypot = math.hypot
        m = self.num_obstacles
        saved = rng.bit_generator.state
        blocks = rng.random((m + 2 * self.num_agents, CANDIDATES, 3))
        firsts = blocks[:, 0].tolist()

        def give_up(block: int) -> None:
            rng.bit_generator.state = saved
            rng.random((block + 1, CANDIDATES, 3))

        obstacles: list[tuple[float, float, float]] = []
        for index in range(m):
            candidates = blocks[index]
            for c in range(CANDIDATES):
                u, v, w = candidates[c].tolist() if c else firsts[index]
                radius = low + span * w
                limit = size - radius - gap  # wall gap of a robot diameter plus sep
                x, y = (2 * u - 1) * limit, (2 * v - 1) * limit
                for ox, oy, orad in obstacles:
                    if hypot(x - ox, y - oy) - radius - orad < gap:
                        break
                else:
                    obstacles.append((x, y, radius))
                    break
            else:
                give_up(index)
                return None
        points: list[tuple[float, float]] = []
        limit = size - r - sep
        for index in range(m, len(blocks)):
            candidates = blocks[index]
            for c in range(CANDIDATES):
                u, v, _w = candidates[c].tolist() if c else firsts[index]
                x, y = (2 * u - 1) * limit, (2 * v - 1) * limit
                for px, py in points:
                    if hypot(x - px, y - py) < gap:
                        break
                else:
                    for ox, oy, orad in obstacles:
                        if hypot(x - ox, y - oy) - orad < clearance:
                            break
                    else:
                        points.append((x, y))
                        break
            else:
                give_up(index)
                return None
        obstacle_array = np.array(obstacles, dtype=np.float64) if m else np.empty((0, 3))
        return obstacle_array, np.array(points, dtype=np.float64)
