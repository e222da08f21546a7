"""Maze-v0 physics on hand-written scenarios, generator properties, the baseline, and rendering."""

from __future__ import annotations

from collections import deque

import gymnasium as gym
import numpy as np
import pytest

import benchmarkzoo
from benchmarkzoo.core.errors import GeneratorArgumentError, InvalidActionError, ResetNeededError
from benchmarkzoo.core.extras import available
from benchmarkzoo.envs.gridworld.maze.baseline import ShortestPathPolicy
from benchmarkzoo.envs.gridworld.maze.generator import DFSMazeGenerator, MazeScenario, ObstacleMapGenerator
from benchmarkzoo.envs.gridworld.maze.vector_env import MazeVectorEnv
from benchmarkzoo.generators.grids import bfs_distances

ENV_ID = "benchmarkzoo/Maze-v0"
UP, RIGHT, DOWN, LEFT = range(4)
SMALL = {"generator": "maze/dfs", "generator_kwargs": {"height": 5, "width": 5, "min_goal_distance": 1}}


def parse(rows: list[str]) -> MazeScenario:
    """``#`` wall, ``.`` floor, ``S`` start, ``G`` goal."""
    walls = np.array([[ch == "#" for ch in row] for row in rows], dtype=bool)
    find = {ch: (r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch in "SG"}
    return MazeScenario(walls=walls, start=find["S"], goal=find["G"])


# Two shortest paths of length 4 from S (1, 1) to G (3, 3), around the wall at (2, 2).
RING = parse(
    [
        "#####",
        "#S..#",
        "#.#.#",
        "#..G#",
        "#####",
    ]
)


@pytest.fixture
def env():
    env = gym.make(ENV_ID, **SMALL)
    yield env
    env.close()


# ---- physics ------------------------------------------------------------------------------------


def test_walls_block_moves(env):
    env.reset(seed=0, options={"scenario": RING})
    for action in (UP, LEFT):
        obs, reward, terminated, truncated, info = env.step(action)
        np.testing.assert_array_equal(env.unwrapped.state.pos[0], [1, 1])
        assert reward == -0.01
        assert (terminated, truncated, info["is_success"]) == (False, False, False)
        np.testing.assert_array_equal(obs["goal_direction"], np.array([0.5, 0.5], dtype=np.float32))
    env.step(RIGHT)
    np.testing.assert_array_equal(env.unwrapped.state.pos[0], [1, 2])
    env.step(DOWN)  # (2, 2) is the wall in the middle
    np.testing.assert_array_equal(env.unwrapped.state.pos[0], [1, 2])


def test_reaching_the_goal_terminates_with_success(env):
    env.reset(seed=0, options={"scenario": RING})
    total = 0.0
    for action in (RIGHT, RIGHT, DOWN):
        _, reward, terminated, _, info = env.step(action)
        total += reward
        assert not terminated and info["is_success"] is False
    _, reward, terminated, truncated, info = env.step(DOWN)
    assert reward == 1.0
    assert terminated is True and truncated is False and info["is_success"] is True
    assert total + reward == pytest.approx(0.97, abs=1e-12)
    np.testing.assert_array_equal(env.unwrapped.state.pos[0], [3, 3])


def test_truncation_at_exactly_200_steps(env):
    assert env.spec.max_episode_steps == 200
    env.reset(seed=0, options={"scenario": RING})
    for t in range(1, 200):
        _, reward, terminated, truncated, _ = env.step(UP)  # into the wall, forever
        assert (terminated, truncated) == (False, False), f"ended early at step {t}"
    _, reward, terminated, truncated, info = env.step(UP)
    assert (reward, terminated, truncated, info["is_success"]) == (-0.01, False, True, False)


def test_view_and_goal_direction_at_known_positions(env):
    obs, info = env.reset(seed=0, options={"scenario": RING})
    assert info == {"is_success": False}
    # 5x5 window around (1, 1); rows and columns -1 and 0 are outside the map or its wall ring
    expected_walls = np.array(
        [
            [1, 1, 1, 1, 1],
            [1, 1, 1, 1, 1],
            [1, 1, 0, 0, 0],
            [1, 1, 0, 1, 0],
            [1, 1, 0, 0, 0],
        ],
        dtype=np.float32,
    )
    expected_goal = np.zeros((5, 5), dtype=np.float32)
    expected_goal[4, 4] = 1.0  # the goal is 2 down and 2 right of the centre
    np.testing.assert_array_equal(obs["view"][0], expected_walls)
    np.testing.assert_array_equal(obs["view"][1], expected_goal)
    assert obs["view"].dtype == np.float32 and obs["goal_direction"].dtype == np.float32
    np.testing.assert_array_equal(obs["goal_direction"], [0.5, 0.5])

    obs, *_ = env.step(RIGHT)  # now at (1, 2)
    np.testing.assert_array_equal(obs["goal_direction"], [0.5, 0.25])
    np.testing.assert_array_equal(obs["view"][0, 3], [1, 0, 1, 0, 1])  # map row 2, columns 0..4
    np.testing.assert_array_equal(np.argwhere(obs["view"][1]), [[4, 3]])

    obs, *_ = env.step(RIGHT)
    obs, *_ = env.step(DOWN)  # at (2, 3), next to the goal
    np.testing.assert_array_equal(obs["goal_direction"], [0.25, 0.0])
    np.testing.assert_array_equal(np.argwhere(obs["view"][1]), [[3, 2]])
    np.testing.assert_array_equal(obs["view"][0, :, 4], [1, 1, 1, 1, 1])  # column 5 is outside the map


@pytest.mark.parametrize("action", [1.0, 4, -1, np.array([1, 2]), None], ids=["float", "4", "-1", "array", "None"])
def test_invalid_actions_raise_with_the_env_id(env, action):
    env.reset(seed=0, options={"scenario": RING})
    with pytest.raises(InvalidActionError, match=r"benchmarkzoo/Maze-v0 expects actions in Discrete\(4\)"):
        env.step(action)
    np.testing.assert_array_equal(env.unwrapped.state.pos[0], [1, 1])  # nothing moved


def test_float_action_hint_says_to_cast():
    maze = gym.make(ENV_ID).unwrapped
    maze.reset(seed=0)
    with pytest.raises(InvalidActionError, match="Discrete actions are integers"):
        maze.step(1.0)


def test_numpy_integer_actions_are_accepted(env):
    env.reset(seed=0, options={"scenario": RING})
    env.step(np.int64(RIGHT))
    env.step(np.array(RIGHT, dtype=np.int32))
    np.testing.assert_array_equal(env.unwrapped.state.pos[0], [1, 3])


def test_step_before_reset_raises():
    maze = gym.make(ENV_ID).unwrapped
    with pytest.raises(ResetNeededError, match="call reset"):
        maze.step(0)
    # through gym.make, Gymnasium's OrderEnforcing wrapper refuses first
    with pytest.raises(gym.error.ResetNeeded):
        gym.make(ENV_ID).step(0)


def test_same_seed_same_maze_and_scenario_matches_generator():
    a, b = gym.make(ENV_ID), gym.make(ENV_ID)
    a.reset(seed=11)
    b.reset(seed=11)
    assert a.unwrapped.scenario == b.unwrapped.scenario
    assert a.unwrapped.scenario.content_hash == a.unwrapped.generator.sample(11).content_hash
    b.reset(seed=12)
    assert a.unwrapped.scenario != b.unwrapped.scenario


# ---- generators ---------------------------------------------------------------------------------


def free_components(walls: np.ndarray) -> int:
    seen = np.zeros_like(walls)
    count = 0
    for start in map(tuple, np.argwhere(~walls)):
        if seen[start]:
            continue
        count += 1
        seen[start] = True
        queue = deque([start])
        while queue:
            r, c = queue.popleft()
            for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                if 0 <= nr < walls.shape[0] and 0 <= nc < walls.shape[1] and not walls[nr, nc] and not seen[nr, nc]:
                    seen[nr, nc] = True
                    queue.append((nr, nc))
    return count


@pytest.mark.parametrize("height,width", [(11, 11), (7, 13), (5, 5)])
def test_dfs_mazes_are_perfect(height, width):
    generator = DFSMazeGenerator(height=height, width=width, min_goal_distance=2)
    for seed in range(100):
        scenario = generator.sample(seed)
        walls = scenario.walls
        free = ~walls
        passages = int((free[:, 1:] & free[:, :-1]).sum() + (free[1:, :] & free[:-1, :]).sum())
        assert walls.shape == (height, width)
        assert walls[0].all() and walls[-1].all() and walls[:, 0].all() and walls[:, -1].all()
        assert free_components(walls) == 1, f"seed {seed}: the free cells are not connected"
        assert passages == int(free.sum()) - 1, f"seed {seed}: a perfect maze is a tree"
        assert free[1::2, 1::2].all(), f"seed {seed}: every odd cell is carved"
        d = bfs_distances(walls, scenario.start)[scenario.goal]
        assert d >= 2


@pytest.mark.parametrize("density", [0.0, 0.3, 0.6])
def test_obstacle_maps_have_a_reachable_far_goal(density):
    generator = ObstacleMapGenerator(height=9, width=12, density=density, min_goal_distance=6)
    wall_fraction = []
    for seed in range(100):
        scenario = generator.sample(seed)
        d = int(bfs_distances(scenario.walls, scenario.start)[scenario.goal])
        assert d >= 6, f"seed {seed}: goal at BFS distance {d}"
        wall_fraction.append(scenario.walls.mean())
    assert np.mean(wall_fraction) == pytest.approx(density, abs=0.05)


@pytest.mark.parametrize(
    "cls,kwargs,shown",
    [
        (DFSMazeGenerator, {"height": 10}, "10"),
        (DFSMazeGenerator, {"width": 3}, "3"),
        (ObstacleMapGenerator, {"density": 0.9}, "0.9"),
        (ObstacleMapGenerator, {"height": 2}, "2"),
        (ObstacleMapGenerator, {"min_goal_distance": 0}, "0"),
    ],
)
def test_bad_generator_arguments_name_the_value(cls, kwargs, shown):
    name = next(iter(kwargs))
    with pytest.raises(GeneratorArgumentError, match=rf"{name} must be .*; got {shown}\."):
        cls(**kwargs)


def test_bad_generator_arguments_through_make():
    with pytest.raises(GeneratorArgumentError, match="got 10"):
        gym.make(ENV_ID, generator_kwargs={"height": 10, "width": 11})
    with pytest.raises(GeneratorArgumentError, match=r"density must be a number in \[0.0, 0.6\]; got 0\.9"):
        benchmarkzoo.make(ENV_ID, generator="maze/obstacles", generator_kwargs={"density": 0.9})


def test_unreachable_min_goal_distance_is_reported():
    generator = ObstacleMapGenerator(height=3, width=3, density=0.0, min_goal_distance=9)
    with pytest.raises(GeneratorArgumentError, match="Lower min_goal_distance"):
        generator.sample(0)


# ---- baseline -----------------------------------------------------------------------------------


def test_shortest_path_policy_single_env():
    env = gym.make(ENV_ID)
    policy = ShortestPathPolicy()
    for seed in range(50):
        env.reset(seed=seed)
        scenario = env.unwrapped.scenario
        d = int(bfs_distances(np.asarray(scenario.walls), scenario.start)[scenario.goal])
        total, steps, terminated, truncated = 0.0, 0, False, False
        while not (terminated or truncated):
            _, reward, terminated, truncated, info = env.step(policy(env))
            total += reward
            steps += 1
        assert terminated and info["is_success"], f"seed {seed}"
        assert steps == d, f"seed {seed}: {steps} steps for BFS distance {d}"
        assert total == pytest.approx(1.0 - 0.01 * (d - 1), abs=1e-9)


def test_shortest_path_policy_vector_env():
    num = 50
    env = MazeVectorEnv(num_envs=num)
    policy = ShortestPathPolicy()
    env.reset(seed=0)
    distances = np.array([int(bfs_distances(np.asarray(s.walls), s.start)[s.goal]) for s in env.scenarios])
    for i in (0, 17, 49):  # world i is the single env's seed i
        assert env.scenarios[i] == env.generator.sample(i)
    returns, lengths = np.zeros(num), np.zeros(num, dtype=np.int64)
    done = np.zeros(num, dtype=bool)
    for _ in range(200):
        _, rewards, terminated, truncated, _ = env.step(policy(env))
        returns[~done] += rewards[~done]
        lengths[~done] += 1
        assert not truncated[~done].any()
        done |= terminated
        if done.all():
            break
    assert done.all()
    np.testing.assert_array_equal(lengths, distances)
    np.testing.assert_allclose(returns, 1.0 - 0.01 * (distances - 1), atol=1e-9)


# ---- rendering ----------------------------------------------------------------------------------


@pytest.mark.skipif(not available("render"), reason="needs extra render: pip install 'benchmarkzoo[render]'")
def test_rgb_array_frame():
    from benchmarkzoo.envs.gridworld.maze.render import AGENT, CELL, GOAL, WALL

    env = gym.make(ENV_ID, render_mode="rgb_array", **SMALL)
    env.reset(seed=0, options={"scenario": RING})
    env.step(RIGHT)  # agent at (1, 2)
    frame = env.render()
    assert frame.shape == (5 * 24, 5 * 24, 3) and frame.dtype == np.uint8
    centre = CELL // 2
    assert tuple(frame[1 * CELL + centre, 2 * CELL + centre]) == AGENT
    assert tuple(frame[3 * CELL + centre, 3 * CELL + centre]) == GOAL
    assert tuple(frame[2 * CELL + centre, 2 * CELL + centre]) == WALL
    env.close()


# ---- the single-world path ----------------------------------------------------------------------


@pytest.mark.parametrize("generator", ["maze/dfs", "maze/obstacles", "maze/rooms"])
def test_single_world_path_matches_the_batched_simulator(generator):
    """step_one/observe_one (the single env's path) give what step/observe give for the same world."""
    from benchmarkzoo.envs.gridworld.maze import sim

    env = gym.make(ENV_ID, generator=generator, generator_kwargs={"height": 11, "width": 11}).unwrapped
    params = env.params
    batch = sim.init_state(params, 3)
    rng = np.random.default_rng(0)
    for seed in range(5):
        scenario = env.generator.sample(seed)
        single = sim.init_state(params, 1)
        sim.load(single, 0, scenario, params)
        for world in range(3):
            sim.load(batch, world, scenario, params)
        tables = sim.episode(single, 0, params)
        for _ in range(150):
            action = int(rng.integers(4))
            reward, reached = sim.step_one(single, 0, action, params)
            rewards, reached_batch = sim.step(batch, np.full(3, action, dtype=np.int64), params)
            assert type(reward) is float and type(reached) is bool
            assert (reward, reached) == (rewards[1], bool(reached_batch[1]))
            np.testing.assert_array_equal(single.pos[0], batch.pos[1])
            one, many = sim.observe_one(single, 0, params, tables), sim.observe(batch, params)
            for key in ("view", "goal_direction"):
                assert one[key].dtype == many[key].dtype == np.float32
                np.testing.assert_array_equal(one[key], many[key][1])
            if reached:
                break


# ---- rooms --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"height": 21, "width": 17, "rooms_high": 3, "rooms_wide": 2, "doors_per_wall": 2},
        {"height": 9, "width": 9, "rooms_high": 1, "rooms_wide": 4},
    ],
)
def test_rooms_are_connected_with_the_asked_doors(kwargs):
    from benchmarkzoo.envs.gridworld.maze.generator import RoomsGenerator

    generator = RoomsGenerator(**kwargs)
    rows, cols = generator.room_rows, generator.room_cols
    for seed in range(50):
        scenario = generator.sample(seed)
        walls = scenario.walls
        assert free_components(walls) == 1, f"seed {seed}: the rooms are not connected"
        assert walls[0].all() and walls[-1].all() and walls[:, 0].all() and walls[:, -1].all()
        for i in range(len(rows) - 1):  # doors in each vertical wall between rooms i,j-1 and i,j
            for c in cols[1:-1]:
                assert (~walls[rows[i] + 1 : rows[i + 1], c]).sum() == generator.doors_per_wall
        for j in range(len(cols) - 1):
            for r in rows[1:-1]:
                assert (~walls[r, cols[j] + 1 : cols[j + 1]]).sum() == generator.doors_per_wall
        room_cells = ~walls[rows[0] + 1 : rows[1], cols[0] + 1 : cols[1]]
        assert room_cells.all(), "a room's interior has no walls"
        d = int(bfs_distances(walls, scenario.start)[scenario.goal])
        assert d >= generator.min_goal_distance


def test_rooms_layout_of_four_rooms():
    from benchmarkzoo.envs.gridworld.maze.generator import RoomsGenerator

    scenario = RoomsGenerator(height=13, width=13).sample(0)
    # the crossing (6, 6) plus two half-walls of 5 cells with one door each
    assert scenario.walls[6, 1:12].sum() == 9 and scenario.walls[1:12, 6].sum() == 9
    assert int((~scenario.walls).sum()) == 4 * 25 + 4


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"height": 4}, r"height must be an integer in \[5, 255\]; got 4\."),
        ({"rooms_high": 7}, r"rooms_high must be an integer in \[1, 6\]; got 7\."),
        ({"rooms_wide": 0}, r"rooms_wide must be an integer in \[1, 6\]; got 0\."),
        ({"doors_per_wall": 6}, r"doors_per_wall must be an integer in \[1, 5\]; got 6\."),
        (
            {"height": 5, "width": 5, "rooms_high": 2, "rooms_wide": 2, "min_goal_distance": 8},
            r"min_goal_distance must be an integer in \[1, 7\].*has 8 free cells, too few to hold a start and a goal",
        ),
    ],
)
def test_bad_rooms_arguments_name_the_value_and_range(kwargs, message):
    with pytest.raises(GeneratorArgumentError, match=message):
        benchmarkzoo.make_generator("maze/rooms", kwargs)


def test_rooms_through_make_and_scenario_set():
    from benchmarkzoo import scenario_sets

    env = gym.make(ENV_ID, generator="maze/rooms", generator_kwargs={"height": 13, "width": 13})
    obs, _ = env.reset(seed=3)
    assert obs["view"].shape == (2, 5, 5)
    rooms = scenario_sets.load_set("gridworld/maze-rooms")
    assert rooms.env == ENV_ID and "gridworld/maze-rooms" in benchmarkzoo.spec(ENV_ID).scenario_sets
    assert rooms.split("ood").make_generator().shape == (25, 25)
    assert scenario_sets.verify(rooms, ["test"]) == []
