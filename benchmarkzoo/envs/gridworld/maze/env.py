"""``benchmarkzoo/Maze-v0``: the single-agent Gymnasium view on the Maze simulator."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from typing_extensions import override

from benchmarkzoo.core.config import EnvConfig, arg, integer, number
from benchmarkzoo.core.errors import ScenarioError
from benchmarkzoo.core.spaces import check_action
from benchmarkzoo.envs.gridworld.keyboard import KeyboardPlay
from benchmarkzoo.envs.gridworld.maze import sim
from benchmarkzoo.envs.gridworld.maze.generator import MazeGenerator, MazeScenario
from benchmarkzoo.envs.view import SingleAgentEnvView
from benchmarkzoo.generators.base import Generator

ACTION_NAMES = ("up", "right", "down", "left")


class MazeConfig(EnvConfig):
    """The arguments of Maze-v0 (both forms); see :class:`MazeEnv`."""

    generator: str | Generator = "maze/dfs"
    generator_kwargs: dict[str, Any] | None = None
    view_radius: int = arg(default=2, check=integer(1, 10))
    step_reward: float = arg(default=-0.01, check=number())
    goal_reward: float = arg(default=1.0, check=number())

    generator_type: ClassVar[type] = MazeGenerator
    generator_needs: ClassVar[str] = "a maze generator"
    time_limit: ClassVar[int] = 200

    @override
    def sim_params(self, generator: MazeGenerator, env_id: str) -> sim.Params:
        height, width = generator.shape
        return sim.Params(height, width, self.view_radius, self.step_reward, self.goal_reward)

    @override
    def check_scenario(self, scenario: Any, generator: Any, params: sim.Params, env_id: str) -> MazeScenario:
        """Raise :class:`ScenarioError` unless ``scenario`` is a maze of this env's size."""
        if not isinstance(scenario, MazeScenario) or scenario.shape != (params.height, params.width):
            raise ScenarioError(
                f"{env_id} was made for {params.height}x{params.width} maze scenarios; options['scenario'] is "
                f"{scenario!r:.80}. Make the env with a generator of that size, or pass a matching MazeScenario."
            )
        return scenario


def build_spaces(params: sim.Params) -> tuple[spaces.Dict, spaces.Discrete]:
    """The single-world observation and action spaces."""
    size = params.view_size
    observation_space = spaces.Dict(
        {
            "view": spaces.Box(0.0, 1.0, shape=(2, size, size), dtype=np.float32),
            "goal_direction": spaces.Box(-1.0, 1.0, shape=(2,), dtype=np.float32),
        }
    )
    return observation_space, spaces.Discrete(len(ACTION_NAMES))


class MazeEnv(KeyboardPlay, SingleAgentEnvView):
    """Find the goal in a procedurally generated maze, seeing only the cells around you.

    ## Description

    The agent walks a grid maze, one cell per step, and must reach a goal cell. Each reset
    draws a new maze from the env's scenario generator: perfect mazes carved by depth-first
    search (``"maze/dfs"``, the default), open maps with random obstacles
    (``"maze/obstacles"``) or a grid of rooms joined by doors (``"maze/rooms"``). The goal is
    always reachable and at least ``min_goal_distance`` steps away. The agent sees a
    ``(2r+1) x (2r+1)`` window centred on itself and a compass to the goal, so it must explore
    and remember what it saw to act well.

    ## Action Space

    ``Discrete(4)``:

    | Num | Action |
    |-----|--------|
    | 0   | up (row - 1) |
    | 1   | right (col + 1) |
    | 2   | down (row + 1) |
    | 3   | left (col - 1) |

    A move into a wall leaves the agent where it is. Anything else (floats, out-of-range
    integers, arrays) raises ``InvalidActionError``.

    ## Observation Space

    ``Dict`` with

    | Key | Space | Meaning |
    |-----|-------|---------|
    | ``view`` | ``Box(0, 1, (2, V, V), float32)``, ``V = 2r+1`` | 0: walls (outside the map too); 1: goal, if in view |
    | ``goal_direction`` | ``Box(-1, 1, (2,), float32)`` | ``(goal - position) / (height - 1, width - 1)`` |

    The agent is at the centre of the view; cells outside the map show as walls.

    ## Rewards

    ``goal_reward`` (1.0) on the step that reaches the goal, ``step_reward`` (-0.01) on
    every other step.

    ## Episode End

    * Termination: the agent reaches the goal (``info["is_success"]`` is ``True``).
    * Truncation: ``max_episode_steps`` steps (200 in the registered spec).

    ## Arguments

    ```python
    gym.make("benchmarkzoo/Maze-v0", generator="maze/dfs", generator_kwargs={"height": 11, "width": 11},
             view_radius=2, step_reward=-0.01, goal_reward=1.0, render_mode=None)
    ```

    * ``generator``: a registered generator name (``"maze/dfs"``, ``"maze/obstacles"``,
      ``"maze/rooms"``) or a
      ``MazeGenerator`` instance; ``generator_kwargs`` are its arguments (map size, density,
      ``min_goal_distance``).
    * ``view_radius``: ``r``, how far the agent sees.
    * ``reset(options={"scenario": s})`` plays the given ``MazeScenario`` instead of drawing one.
    * ``render_mode``: ``"rgb_array"`` or ``"human"`` (needs the ``render`` extra).

    The scenario of ``reset(seed=s)`` is ``generator.sample(s)``: the same maze that scenario
    sets record for seed ``s``.

    ## Version History

    * v0: Initial version.

    ## Example

    >>> import gymnasium as gym
    >>> import benchmarkzoo
    >>> env = gym.make("benchmarkzoo/Maze-v0")
    >>> obs, info = env.reset(seed=0)
    >>> obs["view"].shape
    (2, 5, 5)
    >>> obs, reward, terminated, truncated, info = env.step(1)
    >>> float(reward), info["is_success"]
    (-0.01, False)
    """

    metadata = {"render_modes": ["rgb_array", "human"], "render_fps": 8}
    config_type = MazeConfig
    params: sim.Params
    _episode: sim.Episode  # the episode's fixed observation parts, set by _load

    def _setup(self) -> None:
        self.observation_space, self.action_space = build_spaces(self.params)
        rewards = (self.params.step_reward, self.params.goal_reward)
        self.reward_range = (min(rewards), max(rewards))
        self.state = sim.init_state(self.params, 1)

    def _load(self, scenario: MazeScenario) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        self.scenario = scenario
        sim.load(self.state, 0, scenario, self.params)
        self._episode = sim.episode(self.state, 0, self.params)
        return self._observation(), {"is_success": False}

    def _step(self, action: Any):
        if type(action) is not int or not 0 <= action < len(ACTION_NAMES):  # in-range ints skip the generic check
            check_action(self.env_id, self.action_space, action)
            action = int(action)
        reward, success = sim.step_one(self.state, 0, action, self.params)
        return self._observation(), reward, success, False, {"is_success": success}

    def _observation(self) -> dict[str, np.ndarray]:
        return sim.observe_one(self.state, 0, self.params, self._episode)

    def _make_renderer(self):
        from benchmarkzoo.envs.gridworld.maze.render import MazeRenderer

        return MazeRenderer(self.params, self.render_mode, self.metadata["render_fps"])
