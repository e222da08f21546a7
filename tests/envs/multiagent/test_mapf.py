"""MAPF-v0: conflict rules on hand-written scenarios, removal on arrival, metrics, refusals,
generators and the MovingAI loader, the scenario set, the prioritized-planning baseline, conformance."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

import benchmarkzoo
from benchmarkzoo import scenario_sets
from benchmarkzoo.core.errors import (
    GeneratorArgumentError,
    InvalidActionError,
    InvalidAgentError,
    ResetNeededError,
    ScenarioError,
)
from benchmarkzoo.core.extras import available
from benchmarkzoo.envs.multiagent.mapf.baseline import PrioritizedPlanningPolicy, plan_conflicts, prioritized_plan
from benchmarkzoo.envs.multiagent.mapf.env import MapfEnv
from benchmarkzoo.envs.multiagent.mapf.generator import (
    MapfScenario,
    MazeMapGenerator,
    MovingAIMapGenerator,
    ObstacleMapGenerator,
    load_movingai_map,
)
from benchmarkzoo.testing import check_generator, check_parallel_env

ENV_ID = "benchmarkzoo/MAPF-v0"
STAY, UP, RIGHT, DOWN, LEFT = range(5)


def parse(rows: list[str]) -> MapfScenario:
    """``#`` obstacle, ``.`` floor, ``A``, ``B``, ... starts of agents 0, 1, ...; ``a``, ``b``, ... their goals."""
    walls = np.array([[ch == "#" for ch in row] for row in rows], dtype=bool)
    found = {ch: (r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch.isalpha()}
    n = sum(ch.isupper() for ch in found)
    starts = [found[chr(ord("A") + k)] for k in range(n)]
    goals = [found[chr(ord("a") + k)] for k in range(n)]
    return MapfScenario(walls=walls, starts=np.array(starts), goals=np.array(goals))


def env_for(scenario: MapfScenario, **kwargs) -> MapfEnv:
    """An env sized for ``scenario``, reset onto it."""
    height, width = scenario.shape
    generator = ObstacleMapGenerator(height=height, width=width, num_agents=scenario.num_agents, density=0.0)
    env = MapfEnv(generator=generator, **kwargs)
    env.reset(seed=0, options={"scenario": scenario})
    return env


def positions(env: MapfEnv) -> list[list[int]]:
    return env.sim_state.pos[0].tolist()


# ---- conflicts ----------------------------------------------------------------------------------


def test_vertex_conflict_lets_the_lower_index_move_and_blocks_the_later_agent():
    env = env_for(
        parse(
            [
                ".....",
                "A.B..",
                "b...a",
            ]
        )
    )
    _, rewards, terminations, _, _ = env.step({"agent_1": LEFT, "agent_0": RIGHT})  # both target (1, 1)
    assert positions(env) == [[1, 1], [1, 2]]
    assert rewards == {"agent_0": -0.01, "agent_1": -0.01}
    assert terminations == {"agent_0": False, "agent_1": False}


def test_vertex_conflict_with_a_staying_agent_blocks_the_mover():
    env = env_for(
        parse(
            [
                ".....",
                "AB...",
                "b...a",
            ]
        )
    )
    env.step({"agent_0": RIGHT, "agent_1": STAY})
    assert positions(env) == [[1, 0], [1, 1]]


def test_swap_conflict_blocks_both_agents():
    env = env_for(
        parse(
            [
                ".....",
                "AB...",
                "b...a",
            ]
        )
    )
    env.step({"agent_0": RIGHT, "agent_1": LEFT})
    assert positions(env) == [[1, 0], [1, 1]]


def test_following_is_allowed_and_reverts_cascade():
    scenario = parse(
        [
            "......",
            "ABC...",
            "cb...a",
        ]
    )
    env = env_for(scenario)
    env.step({"agent_0": RIGHT, "agent_1": RIGHT, "agent_2": RIGHT})  # a train: everyone moves
    assert positions(env) == [[1, 1], [1, 2], [1, 3]]
    env.reset(options={"scenario": scenario})
    env.step({"agent_0": RIGHT, "agent_1": RIGHT, "agent_2": STAY})  # C stays: B is blocked, then A
    assert positions(env) == [[1, 0], [1, 1], [1, 2]]


def test_rotation_of_four_agents_is_allowed():
    env = env_for(
        parse(
            [
                "......",
                ".AB...",
                ".DC...",
                "abcd..",
            ]
        )
    )
    env.step({"agent_0": RIGHT, "agent_1": DOWN, "agent_2": LEFT, "agent_3": UP})
    assert positions(env) == [[1, 2], [2, 2], [2, 1], [1, 1]]


def test_moves_into_obstacles_and_off_the_map_are_stays():
    env = env_for(
        parse(
            [
                "A#..",
                "...a",
            ]
        )
    )
    env.step({"agent_0": UP})
    env.step({"agent_0": LEFT})
    env.step({"agent_0": RIGHT})
    assert positions(env) == [[0, 0]]


# ---- arrival, removal, metrics, truncation -------------------------------------------------------


def test_an_arrived_agent_is_terminated_removed_and_frees_its_cell():
    env = env_for(
        parse(
            [
                "......",
                "AaB..b",
            ]
        )
    )
    observations, rewards, terminations, truncations, infos = env.step({"agent_0": RIGHT, "agent_1": STAY})
    assert rewards == {"agent_0": 1.0, "agent_1": -0.01}
    assert terminations == {"agent_0": True, "agent_1": False}
    assert truncations == {"agent_0": False, "agent_1": False}
    assert infos["agent_0"]["is_success"] is True and infos["agent_1"]["is_success"] is False
    assert set(observations) == {"agent_0", "agent_1"}  # the arriving agent gets its last observation
    assert env.agents == ["agent_1"]
    r = env.params.view_radius
    assert observations["agent_1"]["view"][1, r, r - 1] == 0.0  # agent_0 has left the grid
    with pytest.raises(InvalidAgentError, match=r"MAPF-v0: agent 'agent_0' has already finished"):
        env.step({"agent_0": STAY, "agent_1": STAY})
    env.step({"agent_1": LEFT})  # into the cell agent_0 left
    assert positions(env)[1] == [1, 1]


def test_episode_metrics_when_every_agent_arrives():
    env = env_for(
        parse(
            [
                "Aa....",
                "....Bb",
            ]
        )
    )
    _, _, _, _, infos = env.step({"agent_0": RIGHT, "agent_1": STAY})
    assert "makespan" not in infos["agent_0"]  # the episode goes on
    env.step({"agent_1": STAY})
    _, rewards, terminations, _, infos = env.step({"agent_1": RIGHT})
    assert env.agents == [] and terminations == {"agent_1": True} and rewards == {"agent_1": 1.0}
    assert infos["agent_1"] == {
        "is_success": True,
        "success_rate": 1.0,
        "cooperative_success": True,
        "makespan": 3,
        "sum_of_costs": 4,
    }
    with pytest.raises(ResetNeededError, match="every agent has finished"):
        env.step({})


def test_truncation_at_max_cycles_ends_the_episode_with_metrics():
    env = env_for(
        parse(
            [
                "Aa....",
                "B....b",
            ]
        ),
        max_cycles=2,
    )
    env.step({"agent_0": RIGHT, "agent_1": STAY})
    _, _, terminations, truncations, infos = env.step({"agent_1": STAY})
    assert terminations == {"agent_1": False} and truncations == {"agent_1": True}
    assert env.agents == []
    assert infos["agent_1"] == {
        "is_success": False,
        "success_rate": 0.5,
        "cooperative_success": False,
        "makespan": 2,
        "sum_of_costs": 3,
    }


def test_observation_channels_and_goal_direction():
    env = env_for(
        parse(
            [
                "#.....",
                "..A.B.",
                "a.b...",
            ]
        ),
        view_radius=2,
    )
    observations, _ = env.reset(options={"scenario": env.scenario})
    view = observations["agent_0"]["view"]  # agent_0 at (1, 2): window rows -1..3, cols 0..4
    expected_walls = np.zeros((5, 5), dtype=np.float32)
    expected_walls[0, :] = 1.0  # row -1 is off the map
    expected_walls[1, 0] = 1.0  # the obstacle at (0, 0)
    expected_walls[4, :] = 1.0  # row 3 is off the map
    np.testing.assert_array_equal(view[0], expected_walls)
    others = np.zeros((5, 5), dtype=np.float32)
    others[2, 4] = 1.0  # agent_1 at (1, 4)
    np.testing.assert_array_equal(view[1], others)
    goal = np.zeros((5, 5), dtype=np.float32)
    goal[3, 0] = 1.0  # goal a at (2, 0)
    np.testing.assert_array_equal(view[2], goal)
    np.testing.assert_array_equal(
        observations["agent_0"]["goal_direction"], np.array([1 / 2, -2 / 5], dtype=np.float32)
    )


# ---- refusals -----------------------------------------------------------------------------------


@pytest.fixture
def two_agents():
    return env_for(
        parse(
            [
                ".....",
                "A.B..",
                "b...a",
            ]
        )
    )


@pytest.mark.parametrize("bad", [5, -1, 1.0, np.array([1, 2]), None, "up"])
def test_invalid_actions_name_the_env_and_agent(two_agents, bad):
    with pytest.raises(
        InvalidActionError, match=r"benchmarkzoo/MAPF-v0 expects actions in Discrete\(5\); agent 'agent_1'"
    ):
        two_agents.step({"agent_0": STAY, "agent_1": bad})
    two_agents.step({"agent_0": np.int64(2), "agent_1": np.array(4)})  # numpy integers are fine
    assert positions(two_agents) == [[1, 1], [1, 2]]


def test_unknown_and_missing_agents_are_named(two_agents):
    with pytest.raises(InvalidAgentError, match=r"MAPF-v0: unknown agent 'agent_7'"):
        two_agents.step({"agent_0": STAY, "agent_1": STAY, "agent_7": STAY})
    with pytest.raises(InvalidAgentError, match=r"no action for live agent\(s\) 'agent_1'"):
        two_agents.step({"agent_0": STAY})
    with pytest.raises(InvalidAgentError, match="expects a dict of actions"):
        two_agents.step([0, 0])
    assert positions(two_agents) == [[1, 0], [1, 2]]  # refusals change nothing


def test_step_before_reset_and_foreign_scenarios_are_refused():
    env = MapfEnv(generator=ObstacleMapGenerator(height=8, width=8, num_agents=2))
    with pytest.raises(ResetNeededError, match=r"call reset\(\) before step\(\)"):
        env.step({"agent_0": 0})
    other = ObstacleMapGenerator(height=8, width=8, num_agents=3).sample(0)
    with pytest.raises(ScenarioError, match="8x8 maps with 2 agents"):
        env.reset(options={"scenario": other})


# ---- generators ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "generator",
    [
        ObstacleMapGenerator(height=16, width=16, num_agents=8, density=0.3),
        MazeMapGenerator(height=17, width=17, num_agents=8, openings=0.0),
        MazeMapGenerator(height=17, width=17, num_agents=8, openings=0.3),
    ],
    ids=["obstacles", "perfect-maze", "braided-maze"],
)
def test_generators_place_distinct_reachable_starts_and_goals(generator):
    hashes = check_generator(generator, seeds=range(20))
    assert len(set(hashes.values())) == 20
    from benchmarkzoo.generators.grids import bfs_distances

    for seed in range(20):
        scenario = generator.sample(seed)
        cells = {tuple(c) for c in np.concatenate([scenario.starts, scenario.goals]).tolist()}
        assert len(cells) == 2 * scenario.num_agents
        for start, goal in zip(scenario.starts.tolist(), scenario.goals.tolist()):
            assert bfs_distances(scenario.walls, tuple(start))[tuple(goal)] > 0


def test_braided_mazes_have_loops_and_perfect_mazes_do_not():
    perfect = MazeMapGenerator(height=17, width=17, num_agents=2, openings=0.0).sample(3).walls
    braided = MazeMapGenerator(height=17, width=17, num_agents=2, openings=0.3).sample(3).walls
    # a perfect maze on c cells has c - 1 passages: free cells = 2c - 1
    assert int((~perfect).sum()) == 2 * 64 - 1
    assert int((~braided).sum()) > 2 * 64 - 1


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"num_agents": 0}, r"num_agents must be an integer in \[1, 128\]; got 0"),
        ({"density": 0.9}, r"density must be a number in \[0.0, 0.5\]; got 0.9"),
        ({"height": 1}, r"height must be an integer in \[2, 255\]; got 1"),
    ],
)
def test_generator_arguments_are_checked(kwargs, message):
    with pytest.raises(GeneratorArgumentError, match=message):
        ObstacleMapGenerator(**kwargs)


def test_scenarios_refuse_shared_cells_and_unreachable_goals():
    with pytest.raises(ScenarioError, match="distinct cells"):
        MapfScenario(walls=np.zeros((3, 3), bool), starts=np.array([[0, 0], [0, 1]]), goals=np.array([[0, 1], [2, 2]]))
    with pytest.raises(ScenarioError, match="agent 0's goal is not reachable"):
        MapfScenario(walls=np.array([[0, 1, 0]], bool), starts=np.array([[0, 0]]), goals=np.array([[0, 2]]))


MOVINGAI_MAP = """type octile
height 4
width 6
map
..@...
.T..W.
......
@@G.S.
"""


def test_movingai_loader_and_generator(tmp_path):
    path = tmp_path / "tiny.map"
    path.write_text(MOVINGAI_MAP)
    walls = load_movingai_map(path)
    expected = np.zeros((4, 6), dtype=bool)
    expected[0, 2] = expected[1, 1] = expected[1, 4] = expected[3, 0] = expected[3, 1] = True
    np.testing.assert_array_equal(walls, expected)
    generator = MovingAIMapGenerator(map_file=str(path), num_agents=3)
    assert generator.shape == (4, 6)
    scenario = generator.sample(5)
    np.testing.assert_array_equal(scenario.walls, expected)
    copy = tmp_path / "renamed.map"
    shutil.copy(path, copy)
    assert MovingAIMapGenerator(map_file=str(copy), num_agents=3).sample(5) == scenario  # content, not path
    env = benchmarkzoo.make_parallel(
        ENV_ID, generator="mapf/movingai", generator_kwargs={"map_file": str(path), "num_agents": 3}
    )
    env.reset(seed=5)
    assert env.scenario == scenario and len(env.agents) == 3


@pytest.mark.parametrize(
    "text,message",
    [
        ("type octile\nheight 2\nwidth 2\n..\n..\n", "no 'map' line"),
        ("type octile\nheight 2\nwidth 3\nmap\n..\n..\n", "expected 2 rows of 3 characters"),
        ("type octile\nheight 1\nwidth 2\nmap\n.x\n", r"unknown terrain characters \['x'\]"),
    ],
)
def test_movingai_loader_refuses_malformed_files(tmp_path, text, message):
    path = tmp_path / "bad.map"
    path.write_text(text)
    with pytest.raises(ScenarioError, match=message):
        load_movingai_map(path)


def test_movingai_generator_needs_an_existing_file(tmp_path):
    with pytest.raises(GeneratorArgumentError, match=r"existing MovingAI \.map file"):
        MovingAIMapGenerator(map_file=str(tmp_path / "missing.map"))


# ---- scenario set -------------------------------------------------------------------------------


def test_scenario_set_verifies_and_the_env_plays_its_scenarios():
    loaded = scenario_sets.load_set("multiagent/mapf")
    assert list(loaded.splits)[:3] == ["train", "test", "ood"]
    assert scenario_sets.verify(loaded, ["test", "ood"]) == []
    ood = loaded.split("ood")
    assert ood.kwargs["num_agents"] > loaded.split("train").kwargs["num_agents"]
    assert ood.kwargs["height"] > loaded.split("train").kwargs["height"]
    for split in loaded.splits.values():
        env = benchmarkzoo.make_parallel(loaded.env, **split.env_kwargs())
        for seed in list(split.seeds)[:5]:
            env.reset(seed=seed)
            assert env.scenario.content_hash == split.hashes[seed], (split.name, seed)


# ---- baseline -----------------------------------------------------------------------------------


def test_prioritized_plans_are_conflict_free_and_followed_exactly():
    generator = ObstacleMapGenerator(height=8, width=8, num_agents=6, density=0.2)
    policy = PrioritizedPlanningPolicy()
    for seed in range(40):
        env = MapfEnv(generator=generator, max_cycles=64)
        env.reset(seed=seed)
        paths = prioritized_plan(env.scenario, env.max_cycles)
        assert plan_conflicts(env.scenario, paths, env.max_cycles) == [], seed
        width = env.scenario.shape[1]
        while env.agents:
            env.step(policy(env))
            t = env.num_steps
            for k, path in enumerate(paths):
                if path is not None and t < len(path):  # on the plan until arrival
                    assert divmod(path[t], width) == tuple(env.sim_state.pos[0, k].tolist()), (seed, k, t)
        for k, path in enumerate(paths):
            assert env.sim_state.arrival[0, k] == (len(path) - 1 if path is not None else -1)


def test_plan_conflicts_finds_vertex_and_swap_conflicts():
    scenario = parse(
        [
            "AB..",
            "ba..",
        ]
    )
    assert plan_conflicts(scenario, [[0, 1, 5], [1, 0, 4]], 4) == [("swap", 1, 0, 1)]
    assert plan_conflicts(scenario, [[0, 1, 5], [1, 1, 4]], 4) == [("vertex", 1, 0, 1)]


def test_baseline_reaches_cooperative_success_on_the_test_split():
    split = scenario_sets.load_set("multiagent/mapf").split("test")
    env = benchmarkzoo.make_parallel(ENV_ID, **split.env_kwargs())
    policy = PrioritizedPlanningPolicy()
    outcomes = []
    for seed in list(split.seeds)[:30]:
        env.reset(seed=seed)
        while env.agents:
            _, _, _, _, infos = env.step(policy(env))
        outcomes.append(next(iter(infos.values())))
    cooperative = np.mean([o["cooperative_success"] for o in outcomes])
    assert cooperative >= 0.9, cooperative  # measured 30/30 (see the baseline's docstring)
    assert np.mean([o["success_rate"] for o in outcomes]) >= 0.95


# ---- conformance, AEC, rendering ----------------------------------------------------------------


def test_check_parallel_env_passes():
    check_parallel_env(lambda: benchmarkzoo.make_parallel(ENV_ID), seed=0, steps=300, strict=True)


def test_small_maze_env_passes_check_parallel_env():
    kwargs = {
        "generator": "mapf/maze",
        "generator_kwargs": {"height": 9, "width": 9, "num_agents": 4},
        "max_cycles": 30,
    }
    check_parallel_env(lambda: benchmarkzoo.make_parallel(ENV_ID, **kwargs), seed=1, steps=200, strict=True)


def test_aec_form_passes_pettingzoo_api_test():
    from pettingzoo.test import api_test

    api_test(benchmarkzoo.make_aec(ENV_ID, generator_kwargs={"height": 8, "width": 8, "num_agents": 3}), num_cycles=100)


@pytest.mark.skipif(not available("render"), reason="needs extra render: pip install 'benchmarkzoo[render]'")
def test_rgb_array_frame():
    env = MapfEnv(generator=ObstacleMapGenerator(height=8, width=10, num_agents=3), render_mode="rgb_array")
    env.reset(seed=0)
    frame = env.render()
    assert frame.shape == (8 * 20, 10 * 20, 3) and frame.dtype == np.uint8
    assert len(np.unique(frame.reshape(-1, 3), axis=0)) > 3  # floor, obstacles and agent colours
    env.close()
