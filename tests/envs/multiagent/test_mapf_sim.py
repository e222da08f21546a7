"""The MAPF simulator's fast paths against plain reference implementations, on random batches:
conflict resolution (rule 2 as literal rounds), the incremental board of tiles, the window
gather, and the start/goal sampler (a per-cell reference of the same draws)."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarkzoo.envs.multiagent.mapf import sim
from benchmarkzoo.envs.multiagent.mapf.generator import LifelongMapfGenerator, ObstacleMapGenerator
from benchmarkzoo.generators import agents
from benchmarkzoo.generators.grids import bfs_list


def reference_moves(state: sim.State, actions: np.ndarray, params: sim.Params) -> np.ndarray:
    """``(B, N)`` bool, the agents that move this step, by rule 2 read literally: rounds in which every
    remaining move is tested at once (lowest index wins a cell; nobody enters a staying agent's cell;
    swaps are refused), until a round reverts nothing."""
    num_worlds, n = state.active.shape
    r = params.view_radius
    moved = np.zeros((num_worlds, n), dtype=bool)
    for w in range(num_worlds):
        cur = {k: (int(state.pos[w, k, 0]), int(state.pos[w, k, 1])) for k in range(n) if state.active[w, k]}
        where = {cell: k for k, cell in cur.items()}
        target = {}
        for k, (row, col) in cur.items():
            d_row, d_col = sim.ACTION_MOVES[int(actions[w, k])]
            cell = (row + int(d_row), col + int(d_col))
            target[k] = cell if not state.walls[w, cell[0] + r, cell[1] + r] else cur[k]
        movers = sorted(k for k in cur if target[k] != cur[k])
        while True:
            lose = set()
            for k in movers:
                other = where.get(target[k])
                if other is not None and (target[other] == cur[other] or target[other] == cur[k]):
                    lose.add(k)
                if any(j < k and target[j] == target[k] for j in movers):
                    lose.add(k)
            if not lose:
                break
            for k in lose:
                target[k] = cur[k]
            movers = [k for k in movers if k not in lose]
        for k in movers:
            moved[w, k] = True
    return moved


def random_batch(rng: np.random.Generator, lifelong: bool) -> tuple[sim.State, sim.Params] | None:
    height, width = (int(x) for x in rng.integers(4, 12, size=2))
    num_agents = int(rng.integers(1, height * width // 2 + 1))
    base = {"height": height, "width": width, "num_agents": num_agents, "density": float(rng.uniform(0, 0.3))}
    try:
        generator = (
            LifelongMapfGenerator(base_kwargs=base, goals_per_agent=32) if lifelong else ObstacleMapGenerator(**base)
        )
        scenarios = [generator(rng) for _ in range(int(rng.integers(1, 4)))]
    except ValueError:  # too crowded for this map: draw another batch
        return None
    params = sim.Params(
        height,
        width,
        num_agents,
        view_radius=int(rng.integers(1, 4)),
        lifelong=lifelong,
        goals_per_agent=32 if lifelong else 0,
    )
    state = sim.init_state(params, len(scenarios))
    for i, scenario in enumerate(scenarios):
        sim.load(state, i, scenario, params)
    return state, params


def reference_view(state: sim.State, params: sim.Params) -> np.ndarray:
    """``(B, N, 3, V, V)`` views cell by cell from ``walls``, ``occupant`` and the goals."""
    num_worlds, n = state.active.shape
    r, size = params.view_radius, params.view_size
    view = np.zeros((num_worlds, n, 3, size, size), dtype=np.float32)
    for w in range(num_worlds):
        for k in range(n):
            row, col = (int(x) for x in state.pos[w, k])
            view[w, k, 0] = state.walls[w, row : row + size, col : col + size]
            view[w, k, 1] = state.occupant[w, row : row + size, col : col + size] >= 0
            view[w, k, 1, r, r] = 0.0
            d_row, d_col = (int(x) for x in state.goal[w, k] - state.pos[w, k])
            if abs(d_row) <= r and abs(d_col) <= r:
                view[w, k, 2, d_row + r, d_col + r] = 1.0
    return view


@pytest.mark.parametrize("lifelong", [False, True], ids=["one-shot", "lifelong"])
def test_step_equals_the_literal_rounds_and_keeps_the_tiles(lifelong):
    rng = np.random.default_rng(7 if lifelong else 3)
    batches = steps = 0
    while batches < 25:
        drawn = random_batch(rng, lifelong)
        if drawn is None:
            continue
        state, params = drawn
        batches += 1
        bias = rng.dirichlet(np.full(5, 0.5))  # some batches mostly stay, others mostly push one way
        for _ in range(15):
            actions = rng.choice(5, size=state.active.shape, p=bias)
            before = state.pos.copy()
            expected = reference_moves(state, actions, params)
            sim.step(state, actions, params)
            moved = (state.pos != before).any(axis=-1)
            np.testing.assert_array_equal(moved, expected)
            np.testing.assert_array_equal(state.tiles, np.where(state.occupant >= 0, sim.AGENT, state.walls))
            np.testing.assert_array_equal(sim.observe(state, params)["view"], reference_view(state, params))
            steps += 1
    assert steps == 25 * 15


def reference_starts_goals(rng: np.random.Generator, walls: np.ndarray, num_agents: int):
    """The sampler's documented draws, cell by cell (BFS order per component, row-major candidates)."""
    height, width = walls.shape
    free = (~walls.ravel()).tolist()
    label, cells = [-1] * (height * width), []
    for source in range(height * width):
        if free[source] and label[source] < 0:
            _, order = bfs_list(free, height, width, source)
            for cell in order:
                label[cell] = len(cells)
            cells.append(order)
    draws = rng.random(2 * num_agents)
    unused = [free[c] for c in range(height * width)]
    left = [len(c) for c in cells]
    starts, goals = [], []
    for k in range(num_agents):
        candidates = [c for c in range(height * width) if unused[c] and left[label[c]] >= 2]
        if not candidates:
            return None
        start = candidates[int(draws[2 * k] * len(candidates))]
        unused[start] = False
        options = [c for c in cells[label[start]] if unused[c]]
        goal = options[int(draws[2 * k + 1] * len(options))]
        unused[goal] = False
        left[label[start]] -= 2
        starts.append(divmod(start, width))
        goals.append(divmod(goal, width))
    return np.array(starts), np.array(goals)


def test_start_goal_sampler_equals_the_reference():
    rng = np.random.default_rng(11)
    placed = 0
    for trial in range(300):
        height, width = (int(x) for x in rng.integers(2, 16, size=2))
        walls = rng.random((height, width)) < rng.uniform(0, 0.6)
        num_agents = int(rng.integers(1, max(2, height * width // 2)))
        seed = int(rng.integers(1 << 31))
        got = agents.sample_starts_goals(np.random.default_rng(seed), walls, num_agents)
        expected = reference_starts_goals(np.random.default_rng(seed), walls, num_agents)
        assert (got is None) == (expected is None), trial
        if got is not None:
            placed += 1
            np.testing.assert_array_equal(got[0], expected[0])
            np.testing.assert_array_equal(got[1], expected[1])
            assert got[0].dtype == np.int64 and got[0].shape == (num_agents, 2)
    assert placed > 100


def test_cached_components_are_read_only():
    walls = np.zeros((4, 4), dtype=bool)
    walls[:, 2] = True
    label, cells = agents.components(walls)
    assert agents.components(walls.copy())[0] is label  # the cache hit
    assert label.tolist() == [0, 0, -1, 1] * 4
    assert [c.tolist() for c in cells] == [[0, 1, 4, 5, 8, 9, 12, 13], [3, 7, 11, 15]]  # BFS: up, right, down, left
    with pytest.raises(ValueError, match="read-only"):
        label[0] = 5
    with pytest.raises(ValueError, match="read-only"):
        cells[0][0] = 5
