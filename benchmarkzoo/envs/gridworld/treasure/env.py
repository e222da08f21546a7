"""``benchmarkzoo/MO-Treasure-v0``: the multi-objective Gymnasium view on the Treasure simulator."""

from __future__ import annotations

from typing import Any, ClassVar, cast

import numpy as np
from gymnasium import spaces
from typing_extensions import override

from benchmarkzoo.core.config import EnvConfig, arg, integer
from benchmarkzoo.core.errors import ResetNeededError, ScenarioError
from benchmarkzoo.core.spaces import check_action
from benchmarkzoo.envs.gridworld.keyboard import KeyboardPlay
from benchmarkzoo.envs.gridworld.treasure import pareto, sim
from benchmarkzoo.envs.gridworld.treasure.generator import TreasureGenerator, TreasureScenario
from benchmarkzoo.envs.view import SingleAgentEnvView
from benchmarkzoo.generators.base import Generator

ACTION_NAMES = ("up", "right", "down", "left")
NUM_ACTIONS = len(ACTION_NAMES)


class TreasureConfig(EnvConfig):
    """The arguments of MO-Treasure-v0 (both forms); see :class:`TreasureEnv`."""

    generator: str | Generator = "treasure/seabed"
    generator_kwargs: dict[str, Any] | None = None
    scenario_seed: int | None = arg(default=None, check=integer(0, optional=True))

    generator_type: ClassVar[type] = TreasureGenerator
    generator_needs: ClassVar[str] = "a treasure generator"
    time_limit: ClassVar[int] = 100

    @override
    def sim_params(self, generator: TreasureGenerator, env_id: str) -> sim.Params:
        height, width = generator.shape
        return sim.Params(height, width)

    @override
    def check_scenario(self, scenario: Any, generator: Any, params: sim.Params, env_id: str) -> TreasureScenario:
        """Raise :class:`ScenarioError` unless ``scenario`` is a sea of this env's size and value range."""
        if not isinstance(scenario, TreasureScenario) or scenario.shape != (params.height, params.width):
            raise ScenarioError(
                f"{env_id} was made for {params.height}x{params.width} treasure scenarios; options['scenario'] is "
                f"{scenario!r:.80}. Make the env with a generator of that size, or pass a matching TreasureScenario."
            )
        max_value = generator.max_value
        if np.float32(scenario.treasure_value.max()) > np.float32(max_value):
            raise ScenarioError(
                f"{env_id}: the scenario's largest treasure ({scenario.treasure_value.max():g}) exceeds this env's "
                f"reward_space bound max_value={max_value:g}. Make the env with a generator whose max_value is at "
                "least that."
            )
        return scenario


def build_spaces(params: sim.Params, max_value: float) -> tuple[spaces.Box, spaces.Discrete, spaces.Box]:
    """The single-world observation, action and reward spaces."""
    high = np.array([params.height - 1, params.width - 1], dtype=np.int32)
    observation_space = spaces.Box(low=np.zeros(2, dtype=np.int32), high=high, dtype=np.int32)
    reward_space = spaces.Box(
        low=np.array([0.0, sim.TIME_PENALTY], dtype=np.float32),
        high=np.array([max_value, sim.TIME_PENALTY], dtype=np.float32),
        dtype=np.float32,
    )
    return observation_space, spaces.Discrete(NUM_ACTIONS), reward_space


class TreasureEnv(KeyboardPlay, SingleAgentEnvView):
    """Steer a submarine to one of several treasures on a random seabed: more value, or less time?

    ## Description

    The deep-sea-treasure problem (Vamplew et al. 2011), generated. A submarine starts on the
    surface of a ``height x width`` sea. Below each column lies the seabed; some columns hold
    a treasure on their deepest water cell. Treasures farther away are worth more, so the two
    objectives, treasure value and time, conflict. Each reset draws a new sea from the env's
    generator: ``"treasure/seabed"`` (default; monotone or rugged depth profiles, convex or
    concave Pareto fronts, see :class:`~benchmarkzoo.envs.gridworld.treasure.generator.SeabedGenerator`)
    or ``"treasure/classic"`` (the two published 11x11 maps). The exact Pareto front of the
    current sea is :meth:`pareto_front`.

    ## Action Space

    ``Discrete(4)``, in the order all benchmarkzoo grid worlds share (MO-Gymnasium's
    ``deep-sea-treasure-v0`` orders them up, down, left, right):

    | Num | Action |
    |-----|--------|
    | 0   | up (row - 1) |
    | 1   | right (col + 1) |
    | 2   | down (row + 1) |
    | 3   | left (col - 1) |

    A move off the map or into the seabed leaves the submarine where it is. Anything else
    (floats, out-of-range integers, arrays) raises ``InvalidActionError``.

    ## Observation Space

    ``Box(0, [height - 1, width - 1], (2,), int32)``: the submarine's ``(row, col)``, as in
    ``deep-sea-treasure-v0``. The position is a Markov state for one sea only: the seabed and
    the treasures are not observed. Train on a fixed sea with ``scenario_seed`` (or
    ``reset(options={"scenario": s})``); across seas the task is partially observable and the
    agent must find the treasures by exploring.

    ## Rewards

    A vector, float32, shape ``(2,)``, inside ``reward_space = Box([0, -1], [max_value, -1])``:

    | Index | Objective | Per step |
    |-------|-----------|----------|
    | 0 | treasure value | the treasure's value on the step that reaches it, else 0 |
    | 1 | time | -1 |

    ## Episode End

    * Termination: the submarine reaches a treasure.
    * Truncation: ``max_episode_steps`` steps (100 in the registered spec, as ``deep-sea-treasure-v0``).

    ## Arguments

    ```python
    mo_gymnasium.make("benchmarkzoo/MO-Treasure-v0", generator="treasure/seabed",
                      generator_kwargs={"height": 11, "width": 11, "profile": "monotone", "front": "mixed"},
                      scenario_seed=None, render_mode=None)
    ```

    * ``generator``: a registered generator name (``"treasure/seabed"``, ``"treasure/classic"``)
      or a ``TreasureGenerator`` instance; ``generator_kwargs`` are its arguments (map size,
      number of treasures, depth profile, front shape, value range).
    * ``scenario_seed``: when set, every reset plays ``generator.sample(scenario_seed)``, a fixed
      sea (as in the classic benchmark); when ``None`` (default) the sea of ``reset(seed=s)`` is
      ``generator.sample(s)`` and unseeded resets draw new seas.
    * ``reset(options={"scenario": s})`` plays the given ``TreasureScenario`` instead.
    * ``render_mode``: ``"rgb_array"`` or ``"human"`` (needs the ``render`` extra).

    ``gymnasium.make_vec(..., vectorization_mode="sync")`` cannot batch vector rewards (its
    reward buffer is ``(n,)`` float64); use ``vectorization_mode="vector_entry_point"`` (the
    native vector env) or ``mo_gymnasium.wrappers.vector.MOSyncVectorEnv``, which agree bit for bit.

    ## Version History

    * v0: Initial version.

    ## Example

    >>> import mo_gymnasium
    >>> import benchmarkzoo
    >>> env = mo_gymnasium.make("benchmarkzoo/MO-Treasure-v0", generator="treasure/classic", generator_kwargs={})
    >>> obs, info = env.reset(seed=0)
    >>> obs
    array([0, 0], dtype=int32)
    >>> obs, reward, terminated, truncated, info = env.step(2)  # down, onto the 0.7 treasure
    >>> reward, terminated
    (array([ 0.7, -1. ], dtype=float32), True)
    >>> front = env.unwrapped.pareto_front(gamma=1.0)  # [value, time], one row per optimal treasure
    >>> front.shape, front[:3, 1].tolist()
    ((10, 2), [-1.0, -3.0, -5.0])
    """

    metadata = {"render_modes": ["rgb_array", "human"], "render_fps": 4}
    config_type = TreasureConfig
    config: TreasureConfig
    generator: TreasureGenerator
    params: sim.Params

    def _setup(self) -> None:
        self.scenario_seed = self.config.scenario_seed
        # Generator.sample is typed by the base's Scenario; a treasure generator's are TreasureScenarios
        self._fixed = (
            None if self.scenario_seed is None else cast(TreasureScenario, self.generator.sample(self.scenario_seed))
        )
        self.observation_space, self.action_space, self.reward_space = build_spaces(
            self.params, self.generator.max_value
        )
        self.reward_dim = 2
        self.reward_range = (sim.TIME_PENALTY, float(self.reward_space.high[0]))
        self.state = sim.init_state(self.params, 1)

    def _draw_scenario(self) -> TreasureScenario:
        return self._fixed if self._fixed is not None else self.generator(self.np_random)

    def _load(self, scenario: TreasureScenario) -> tuple[np.ndarray, dict[str, Any]]:
        if scenario is not self.scenario:
            sim.load(self.state, 0, scenario, self.params)
            self.scenario = scenario
        else:  # the same sea again (scenario_seed): its tables are loaded already
            sim.restart(self.state, 0, scenario, self.params)
        return sim.observe_one(self.state, 0), {}

    def _step(self, action: Any):
        if type(action) is not int or not 0 <= action < NUM_ACTIONS:  # plain ints skip the full check
            check_action(self.env_id, self.action_space, action)
            action = int(action)
        reward, terminated = sim.step_one(self.state, 0, action)
        return sim.observe_one(self.state, 0), reward, terminated, False, {}

    def pareto_front(self, gamma: float = 1.0, max_steps: int | None = None) -> np.ndarray:
        """The exact Pareto front of the current sea; see :func:`.pareto.pareto_front`.

        Args:
            gamma: discount factor in ``(0, 1]``.
            max_steps: the time limit, or ``None`` to ignore it. The env cannot see the
                ``TimeLimit`` wrapper around it, so pass the limit when a treasure may lie
                farther than it (never on the registered 11x11 seas: 20 steps at most, limit 100).

        Returns:
            ``(P, 2)`` float64 ``[value, time]`` points sorted by increasing value.
        """
        return pareto.pareto_front(self._front_scenario(), gamma, max_steps)

    def convex_coverage_set(self, gamma: float = 1.0, max_steps: int | None = None) -> np.ndarray:
        """The points of :meth:`pareto_front` that some linear weighting of the objectives prefers."""
        return pareto.convex_coverage_set(self._front_scenario(), gamma, max_steps)

    def _front_scenario(self) -> TreasureScenario:
        scenario = self.scenario if self.scenario is not None else self._fixed
        if scenario is None:
            raise ResetNeededError(
                f"{self.env_id}: the Pareto front belongs to a sea; call reset() first (or make the env with "
                "scenario_seed)."
            )
        return scenario

    def _render_frame(self) -> np.ndarray | None:
        if self._renderer is None:
            from benchmarkzoo.envs.gridworld.treasure.render import TreasureRenderer

            assert self.render_mode is not None  # render() draws only with a render_mode
            self._renderer = TreasureRenderer(self.params, self.render_mode, self.metadata["render_fps"])
        return self._renderer.draw(self.scenario, int(self.state.pos[0]))
