"""MazeKeys-v0: the locked door, the key, the observation channels, the generator and the baseline."""

from __future__ import annotations

from collections import deque

import gymnasium as gym
import numpy as np
import pytest

import benchmarkzoo
from benchmarkzoo.core.errors import GeneratorArgumentError, ScenarioError
from benchmarkzoo.core.extras import available
from benchmarkzoo.envs.gridworld.maze_keys.baseline import KeyDoorPlanner
from benchmarkzoo.envs.gridworld.maze_keys.generator import KeyDoorGenerator, MazeKeysScenario
from benchmarkzoo.envs.gridworld.maze_keys.vector_env import MazeKeysVectorEnv
from benchmarkzoo.generators.grids import MOVES, bfs_distances

ENV_ID = "benchmarkzoo/MazeKeys-v0"
UP, RIGHT, DOWN, LEFT = range(4)
SMALL = {"generator_kwargs": {"maze": "maze/dfs", "maze_kwargs": {"height": 7, "width": 7, "min_goal_distance": 2}}}


def parse(rows: list[str]) -> MazeKeysScenario:
    """``#`` wall, ``.`` floor, ``S`` start, ``G`` goal, ``K`` key, ``D`` door."""
    walls = np.array([[ch == "#" for ch in row] for row in rows], dtype=bool)
    find = {ch: (r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch in "SGKD"}
    return MazeKeysScenario(walls=walls, start=find["S"], goal=find["G"], key=find["K"], door=find["D"])


# A corridor: the key is two cells left of the start, the door one cell right of it.
CORRIDOR = parse(
    [
        "#######",
        "#K.SDG#",
        "#######",
        "#######",
        "#######",
        "#######",
        "#######",
    ]
)


@pytest.fixture
def env():
    env = gym.make(ENV_ID, **SMALL)
    yield env
    env.close()


def test_door_blocks_until_the_key_is_picked_up(env):
    obs, _ = env.reset(seed=0, options={"scenario": CORRIDOR})
    assert obs["has_key"].tolist() == [0.0]
    for _ in range(3):  # the locked door blocks like a wall
        obs, reward, terminated, _, _ = env.step(RIGHT)
        np.testing.assert_array_equal(env.unwrapped.state.pos[0], [1, 3])
        assert (reward, terminated) == (-0.01, False)
    env.step(LEFT)
    obs, reward, *_ = env.step(LEFT)  # onto the key
    np.testing.assert_array_equal(env.unwrapped.state.pos[0], [1, 1])
    assert obs["has_key"].tolist() == [1.0] and reward == -0.01  # picking up the key pays nothing
    assert env.unwrapped.state.has_key[0]
    env.step(RIGHT)
    env.step(RIGHT)
    env.step(RIGHT)
    np.testing.assert_array_equal(env.unwrapped.state.pos[0], [1, 4])  # through the open door
    obs, reward, terminated, truncated, info = env.step(RIGHT)
    assert (reward, terminated, truncated, info["is_success"]) == (1.0, True, False, True)
    assert obs["has_key"].tolist() == [1.0]


def test_view_shows_key_and_door_until_the_key_is_taken(env):
    obs, _ = env.reset(seed=0, options={"scenario": CORRIDOR})
    view = obs["view"]  # agent at (1, 3), the centre (2, 2) of the 5x5 window
    assert view.shape == (4, 5, 5) and view.dtype == np.float32
    np.testing.assert_array_equal(np.argwhere(view[1]), [[2, 4]])  # goal two to the right
    np.testing.assert_array_equal(np.argwhere(view[2]), [[2, 0]])  # key two to the left
    np.testing.assert_array_equal(np.argwhere(view[3]), [[2, 3]])  # door one to the right
    np.testing.assert_array_equal(view[0, 2], [0, 0, 0, 0, 0])  # the corridor row: key, door, goal are floor
    env.step(LEFT)
    obs, *_ = env.step(LEFT)  # key taken, agent at (1, 1): door at +3 columns is out of view anyway
    assert obs["view"][2].sum() == 0 and obs["view"][3].sum() == 0
    obs, *_ = env.step(RIGHT)  # at (1, 2): the open door is not shown
    assert obs["view"][3].sum() == 0 and obs["view"][2].sum() == 0
    assert obs["view"][1].sum() == 0  # the goal, three to the right, is out of view


def test_key_and_door_out_of_view_are_hidden():
    env = gym.make(ENV_ID, view_radius=1, **SMALL)
    obs, _ = env.reset(seed=0, options={"scenario": CORRIDOR})  # key two cells away: outside a 3x3 view
    assert obs["view"].shape == (4, 3, 3)
    assert obs["view"][2].sum() == 0 and obs["view"][1].sum() == 0
    np.testing.assert_array_equal(np.argwhere(obs["view"][3]), [[1, 2]])


def test_scenarios_must_need_the_key():
    with pytest.raises(ScenarioError, match=r"goal .* must not be"):
        parse(["#####", "#SDG#", "#.K.#", "#####", "#####"])  # the goal is reachable around the door
    with pytest.raises(ScenarioError, match="four different cells"):
        MazeKeysScenario(walls=CORRIDOR.walls, start=(1, 3), goal=(1, 5), key=(1, 3), door=(1, 4))
    with pytest.raises(ScenarioError, match="free cell"):
        MazeKeysScenario(walls=CORRIDOR.walls, start=(1, 3), goal=(1, 5), key=(0, 0), door=(1, 4))


@pytest.mark.parametrize(
    "maze,maze_kwargs",
    [
        ("maze/dfs", {"height": 11, "width": 11, "min_goal_distance": 6}),
        ("maze/rooms", {"height": 13, "width": 13, "min_goal_distance": 6}),
        ("maze/dfs", {"height": 21, "width": 21, "min_goal_distance": 12}),
    ],
)
def test_generated_goal_is_unreachable_without_the_key(maze, maze_kwargs):
    generator = KeyDoorGenerator(maze, maze_kwargs)
    for seed in range(40):
        s = generator.sample(seed)  # __post_init__ checks it too; check it independently here
        locked = s.walls.copy()
        locked[s.door] = True
        assert bfs_distances(locked, s.start)[s.goal] == -1, f"seed {seed}: goal reachable without the key"
        assert bfs_distances(locked, s.start)[s.key] > 0, f"seed {seed}: key unreachable"
        assert bfs_distances(s.walls, s.start)[s.goal] >= maze_kwargs["min_goal_distance"]


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"maze": "maze/prim"}, "maze/prim"),
        ({"maze": "treasure/seabed"}, "maze must name a maze generator"),
        ({"maze_kwargs": {"height": 10}}, r"height must be an odd integer in \[5, 255\]; got 10"),
        ({"maze_kwargs": {"min_goal_distance": 1}}, r"min_goal_distance'\] must be an integer in \[2, 121\].*got 1"),
    ],
)
def test_bad_generator_arguments(kwargs, message):
    with pytest.raises((GeneratorArgumentError, KeyError), match=message):
        benchmarkzoo.make_generator("maze_keys/key_door", kwargs)


# ---- baseline -----------------------------------------------------------------------------------


def fewest_steps(s: MazeKeysScenario) -> int:
    """BFS over (position, has_key): the fewest steps from the start to the goal."""
    height, width = s.walls.shape
    start = (s.start, False)
    dist = {start: 0}
    queue = deque([start])
    while queue:
        (pos, has_key) = state = queue.popleft()
        if pos == s.goal:
            return dist[state]
        for dr, dc in MOVES.tolist():
            r, c = pos[0] + dr, pos[1] + dc
            if not (0 <= r < height and 0 <= c < width) or s.walls[r, c] or ((r, c) == s.door and not has_key):
                continue
            nxt = ((r, c), has_key or (r, c) == s.key)
            if nxt not in dist:
                dist[nxt] = dist[state] + 1
                queue.append(nxt)
    raise AssertionError("goal unreachable")


def test_planner_takes_the_fewest_steps_single_env():
    env = gym.make(ENV_ID)
    policy = KeyDoorPlanner()
    for seed in list(range(30)) + list(range(100000, 100020)):
        env.reset(seed=seed)
        scenario = env.unwrapped.scenario
        fewest = fewest_steps(scenario)
        direct = int(bfs_distances(scenario.walls, scenario.start)[scenario.goal])
        assert fewest >= direct
        steps, terminated, truncated = 0, False, False
        while not (terminated or truncated):
            _, _, terminated, truncated, info = env.step(policy(env))
            steps += 1
        assert terminated and info["is_success"], f"seed {seed}"
        assert steps == fewest, f"seed {seed}: {steps} steps, fewest possible {fewest}"


def test_planner_takes_the_fewest_steps_vector_env():
    num = 24
    env = MazeKeysVectorEnv(num_envs=num, generator_kwargs={"maze": "maze/rooms", "maze_kwargs": {}})
    env.reset(seed=100)
    policy = KeyDoorPlanner()
    fewest = np.array([fewest_steps(s) for s in env.scenarios])
    lengths, done = np.zeros(num, dtype=np.int64), np.zeros(num, dtype=bool)
    for _ in range(300):
        _, _, terminated, _, _ = env.step(policy(env))
        lengths[~done] += 1
        done |= terminated
        if done.all():
            break
    assert done.all()
    np.testing.assert_array_equal(lengths, fewest)


def test_scenario_set_is_registered_and_verifies():
    from benchmarkzoo import scenario_sets

    keys = scenario_sets.load_set("gridworld/maze-keys")
    assert keys.env == ENV_ID and benchmarkzoo.spec(ENV_ID).scenario_sets == ("gridworld/maze-keys",)
    assert set(keys.splits) >= {"train", "test", "ood"}
    assert keys.split("ood").make_generator().shape == (21, 21)
    assert scenario_sets.verify(keys, ["test"]) == []


# ---- rendering ----------------------------------------------------------------------------------


@pytest.mark.skipif(not available("render"), reason="needs extra render: pip install 'benchmarkzoo[render]'")
def test_rgb_array_frame_shows_key_and_door():
    from benchmarkzoo.envs.gridworld.maze.render import AGENT, CELL
    from benchmarkzoo.envs.gridworld.maze_keys.render import DOOR, KEY

    env = gym.make(ENV_ID, render_mode="rgb_array", **SMALL)
    env.reset(seed=0, options={"scenario": CORRIDOR})
    frame = env.render()
    centre = CELL // 2
    assert frame.shape == (7 * CELL, 7 * CELL, 3)
    assert tuple(frame[1 * CELL + centre, 3 * CELL + centre]) == AGENT
    assert tuple(frame[1 * CELL + centre, 4 * CELL + centre]) == DOOR
    assert tuple(frame[1 * CELL + centre, 1 * CELL + centre]) == KEY
    env.step(LEFT)
    env.step(LEFT)
    frame = env.render()  # key taken: no key, no door
    assert tuple(frame[1 * CELL + centre, 4 * CELL + centre]) != DOOR
    env.close()
