"""The shared anatomy of an env: declared arguments, constructed views, ids from the registry, one vector core."""

from __future__ import annotations

import dataclasses
import inspect
import pydoc
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
import pytest

import benchmarkzoo
from benchmarkzoo.core.bounds import constructor_kwargs
from benchmarkzoo.core.config import EnvConfig, arg, integer, number
from benchmarkzoo.core.errors import ResetNeededError
from benchmarkzoo.core.scenario import Scenario
from benchmarkzoo.envs.control.quadrotor.env import QuadrotorEnv
from benchmarkzoo.envs.control.quadrotor.generator import GoalGenerator, HoverGenerator
from benchmarkzoo.envs.control.quadrotor.mo_env import MOQuadrotorEnv
from benchmarkzoo.envs.gridworld.maze import sim as maze_sim
from benchmarkzoo.envs.gridworld.maze.env import MazeConfig, MazeEnv
from benchmarkzoo.envs.gridworld.maze.generator import DFSMazeGenerator
from benchmarkzoo.envs.gridworld.maze.vector_env import MazeVectorEnv
from benchmarkzoo.envs.multiagent.mapf.env import MapfEnv
from benchmarkzoo.envs.multiagent.mapf.vector_env import MapfVectorEnv
from benchmarkzoo.envs.view import SingleAgentEnvView
from benchmarkzoo.generators.base import Generator

# ---- constructors: a real signature from the declared arguments ----------------------------------


def test_signatures_come_from_the_config_with_defaults():
    single = inspect.signature(MazeEnv).parameters
    assert list(single) == ["generator", "generator_kwargs", "view_radius", "step_reward", "goal_reward", "render_mode"]
    assert single["view_radius"].default == 2 and single["step_reward"].default == -0.01
    vector = inspect.signature(MazeVectorEnv).parameters
    assert list(vector)[:1] == ["num_envs"] and list(vector)[-3:] == [
        "max_episode_steps",
        "autoreset_mode",
        "render_mode",
    ]
    assert vector["max_episode_steps"].default == 200  # MazeConfig.time_limit
    parallel = inspect.signature(MapfEnv).parameters
    assert list(parallel)[-2:] == ["max_cycles", "render_mode"] and parallel["max_cycles"].default == 128
    assert "view_radius=2" in pydoc.render_doc(MazeEnv)


def test_a_variant_drops_the_arguments_it_fixes():
    names = set(inspect.signature(MOQuadrotorEnv).parameters)
    assert {"frame", "crash_penalty"} <= names and not names & {"pos_weight", "effort_weight"}
    with pytest.raises(TypeError, match="unexpected keyword argument 'pos_weight'"):
        MOQuadrotorEnv(pos_weight=1.0)
    assert MOQuadrotorEnv().params.pos_weight == 0.0


def test_make_passes_arguments_and_a_misspelt_one_names_the_known_ones():
    env = gym.make("benchmarkzoo/Maze-v0", view_radius=3)
    assert env.unwrapped.params.view_radius == 3 and env.reset(seed=0)[0]["view"].shape == (2, 7, 7)
    with pytest.raises(TypeError, match=r"'veiw_radius'\. Did you mean 'view_radius'\? Its arguments are: generator"):
        gym.make("benchmarkzoo/Maze-v0", veiw_radius=3)
    with pytest.raises(TypeError, match="MazeEnv"):
        MazeEnv("maze/dfs", None, 2, -0.01, 1.0, None, "extra")


def test_arguments_are_checked_and_stored_converted():
    with pytest.raises(
        ValueError, match=r"^benchmarkzoo/Maze-v0: view_radius must be an integer in \[1, 10\]; got 11\."
    ):
        MazeEnv(view_radius=11)
    with pytest.raises(ValueError, match="step_reward must be a finite number; got nan"):
        MazeEnv(step_reward=float("nan"))
    env = MazeEnv(step_reward=-1, goal_reward=np.int64(2))
    assert type(env.config.step_reward) is float and env.params.goal_reward == 2.0


def test_bounds_read_the_defaults_from_the_signature():
    kwargs = constructor_kwargs(MazeEnv, {"view_radius": 4})
    assert kwargs["view_radius"] == 4 and kwargs["step_reward"] == -0.01 and kwargs["goal_reward"] == 1.0
    assert benchmarkzoo.spec("benchmarkzoo/Maze-v0").bounds().max_length == 200


# ---- configs, scenarios and generators: checked as they are declared -----------------------------


def test_a_config_is_a_frozen_dataclass_without_the_decorator():
    class Toy(EnvConfig):
        generator: str = "maze/dfs"
        size: int = arg(default=3, check=integer(1, 5))
        scale: float = arg(default=1.0, check=number(0.0, 2.0, open_low=True))

    config = Toy(size=4)
    assert dataclasses.is_dataclass(Toy) and config.size == 4
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.size = 5
    with pytest.raises(ValueError, match=r"toy: scale must be a number in \(0\.0, 2\.0\]; got 0\.0\."):
        Toy(scale=0.0).checked("toy")


def test_a_scenario_with_the_wrong_dataclass_is_refused_as_it_is_declared():
    with pytest.raises(
        TypeError, match=r"equality by content hash: write @dataclasses.dataclass\(frozen=True, eq=False\)"
    ):

        @dataclasses.dataclass(frozen=True)
        class Compared(Scenario):
            grid: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(2))

    class Undeclared(Scenario):
        size: int = 3

    with pytest.raises(TypeError, match=r"Undeclared is not a dataclass.*write @dataclasses.dataclass"):
        Undeclared()

    @dataclasses.dataclass(frozen=True, eq=False)
    class Good(Scenario):
        kind: ClassVar[str] = "good"
        grid: tuple = (1, 2)

    assert Good() == Good() and hash(Good()) == hash(Good()) and Good() != Good((2, 1))


def test_generator_kwargs_follow_the_mro():
    hover = HoverGenerator(hover_height=1.5, mass=(0.03, 0.03))
    assert hover.kwargs["hover_height"] == 1.5 and hover.kwargs["mass"] == (0.03, 0.03)
    assert set(hover.kwargs) == {"hover_height", *inspect.signature(type(hover).__mro__[1]).parameters}
    assert HoverGenerator(**hover.kwargs).sample(3) == hover.sample(3)
    goal = GoalGenerator()
    assert goal.kwargs["init_pos"] == 0.05 and goal.kwargs["arena_height"] == 4.0  # its own default, the parent's


# ---- ids: from the registry ------------------------------------------------------------------------


def test_ids_come_from_the_registry():
    assert QuadrotorEnv().env_id == "benchmarkzoo/Quadrotor-v0"
    assert QuadrotorEnv(generator=GoalGenerator()).env_id == "benchmarkzoo/Quadrotor-Goal-v0"
    assert QuadrotorEnv(generator=GoalGenerator(goal_distance=(1.0, 1.5))).env_id == "benchmarkzoo/Quadrotor-Goal-v0"
    # made under one id with another's arguments: the id it was made under
    made = gym.make("benchmarkzoo/Quadrotor-Goal-v0", generator="quadrotor/hover").unwrapped
    assert made.env_id == "benchmarkzoo/Quadrotor-Goal-v0"
    parallel = benchmarkzoo.make_parallel("benchmarkzoo/MO-MAPF-v0")
    assert parallel.env_id == "benchmarkzoo/MO-MAPF-v0" and parallel.spec.id == parallel.env_id
    vector = benchmarkzoo.make_vec("benchmarkzoo/MAPF-v0", 2)
    assert vector.env_id == "benchmarkzoo/MAPF-v0"
    vector.close()


def test_an_unregistered_view_names_itself():
    class Corridor(SingleAgentEnvView):
        """A registered generator's mazes with a view of one cell: no spec has this class."""

        config_type = MazeConfig
        env_id = "thirdparty/Corridor-v0"
        observation_space = gym.spaces.Discrete(2)
        action_space = gym.spaces.Discrete(4)

        def _setup(self) -> None:
            self.state = maze_sim.init_state(self.params, 1)

        def _load(self, scenario: Any):
            self.scenario = scenario
            return 0, {}

        def _step(self, action: Any):
            return 0, 0.0, True, False, {}

    env = Corridor(generator=DFSMazeGenerator(height=5, width=5, min_goal_distance=2))
    assert env.env_id == "thirdparty/Corridor-v0"
    with pytest.raises(ResetNeededError, match=r"^thirdparty/Corridor-v0: call reset\(\) before step\(\)"):
        env.step(0)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="thirdparty/Corridor-v0 was made for 5x5 maze scenarios"):
        env.reset(options={"scenario": DFSMazeGenerator().sample(0)})
    assert isinstance(env.generator, Generator)


# ---- one vector core -------------------------------------------------------------------------------


@pytest.mark.parametrize("vector", [MazeVectorEnv, MapfVectorEnv])
@pytest.mark.parametrize("bad", [True, 0, 2.0])
def test_both_vector_bases_refuse_the_same_num_envs(vector, bad):
    with pytest.raises(ValueError, match=rf"num_envs must be a positive integer; got {bad!r}"):
        vector(num_envs=bad)


def test_make_vec_refuses_num_envs_true_for_every_kind():
    for env_id in ("benchmarkzoo/Maze-v0", "benchmarkzoo/MAPF-v0"):
        with pytest.raises(ValueError, match="num_envs must be a positive integer; got True"):
            benchmarkzoo.make_vec(env_id, num_envs=True)


def test_the_default_load_worlds_draws_each_world_from_its_own_generator():
    vector = MazeVectorEnv(3)
    vector.reset(seed=10)
    generator = vector.generator
    assert [s.content_hash for s in vector.scenarios] == [generator.sample(10 + i).content_hash for i in range(3)]
    fixed = generator.sample(99)
    vector.reset(options={"scenario": fixed, "reset_mask": np.array([False, True, False])})
    assert vector.scenarios[1] is fixed and vector.scenarios[0].content_hash == generator.sample(10).content_hash
