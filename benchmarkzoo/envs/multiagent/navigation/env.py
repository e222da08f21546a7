"""``benchmarkzoo/Navigation-v0`` and ``MO-Navigation-v0``: PettingZoo ``ParallelEnv`` views on the Navigation sim."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from typing_extensions import override

from benchmarkzoo.core.config import Check, EnvConfig, arg, checked_value, default_of, integer, number, one_of
from benchmarkzoo.core.errors import ScenarioError
from benchmarkzoo.core.spaces import check_action, check_action_dict
from benchmarkzoo.envs.multiagent.navigation import sim
from benchmarkzoo.envs.multiagent.navigation.generator import NavigationScenario, UniformGenerator
from benchmarkzoo.envs.multiagent.objectives import MultiObjectiveAgents
from benchmarkzoo.envs.multiagent.view import ParallelEnvView
from benchmarkzoo.generators.base import Generator

#: Keys added to every present agent's info on the step its world's episode ends.
METRIC_KEYS = ("success_rate", "cooperative_success", "collisions")


#: ``safety_filter``: on, off, or ``None`` (on for unicycle dynamics).
SAFETY_FILTER = Check(
    "True, False or None (on for unicycle)", lambda value: value is None or isinstance(value, bool | np.bool_)
)


class NavigationConfig(EnvConfig):
    """The arguments of Navigation-v0 (both forms): the robots, their sensing and dynamics, the reward's weights."""

    generator: str | Generator = "navigation/uniform"
    generator_kwargs: dict[str, Any] | None = None
    dynamics: str = arg(default="holonomic", check=one_of(sim.DYNAMICS))
    dt: float = arg(default=0.1, check=number(0.0, 1.0, open_low=True))
    max_accel: float = arg(default=2.0, check=number(0.0, 100.0, open_low=True))
    max_speed: float = arg(default=1.0, check=number(0.0, 100.0, open_low=True))
    max_turn_rate: float = arg(default=2.0, check=number(0.0, 100.0, open_low=True))
    goal_radius: float = 0.1  # checked against the generator's arena in sim_params
    num_neighbours: int = arg(default=4, check=integer(0, 64))
    num_obstacles_seen: int = arg(default=4, check=integer(0, 64))
    safety_filter: bool | None = arg(default=None, check=SAFETY_FILTER)
    safety_gamma: float = arg(default=0.5, check=number(0.0, 1.0, open_low=True))
    progress_reward: float = arg(default=1.0, check=number(-1e6, 1e6))
    goal_reward: float = arg(default=1.0, check=number(-1e6, 1e6))
    collision_penalty: float = arg(default=0.5, check=number(-1e6, 1e6))

    generator_type: ClassVar[type] = UniformGenerator
    generator_needs: ClassVar[str] = "a navigation generator"
    time_limit: ClassVar[int] = 100
    agent_prefix: ClassVar[str] = "robot"

    @override
    def sim_params(self, generator: UniformGenerator, env_id: str) -> sim.Params:
        goal_radius = checked_value(
            env_id, "goal_radius", self.goal_radius, number(0.0, generator.arena_size, open_low=True)
        )
        safety = self.dynamics == "unicycle" if self.safety_filter is None else bool(self.safety_filter)
        return sim.Params(
            num_agents=generator.num_agents,
            num_obstacles=generator.num_obstacles,
            arena_size=generator.arena_size,
            agent_radius=generator.agent_radius,
            dynamics=self.dynamics,
            dt=self.dt,
            max_accel=self.max_accel,
            max_speed=self.max_speed,
            max_turn_rate=self.max_turn_rate,
            goal_radius=goal_radius,
            num_neighbours=self.num_neighbours,
            num_obstacles_seen=self.num_obstacles_seen,
            safety_filter=safety,
            safety_gamma=self.safety_gamma,
            progress_reward=self.progress_reward,
            goal_reward=self.goal_reward,
            collision_penalty=self.collision_penalty,
        )

    @override
    def check_scenario(self, scenario: Any, generator: Any, params: sim.Params, env_id: str) -> NavigationScenario:
        """Raise :class:`ScenarioError` unless ``scenario`` fits this env (agents, obstacles, arena, radius)."""
        if (
            not isinstance(scenario, NavigationScenario)
            or scenario.num_agents != params.num_agents
            or scenario.num_obstacles != params.num_obstacles
            or scenario.arena_size != params.arena_size
            or scenario.agent_radius != params.agent_radius
        ):
            raise ScenarioError(
                f"{env_id} was made for {params.num_agents} robots of radius {params.agent_radius} and "
                f"{params.num_obstacles} obstacles in an arena of half-width {params.arena_size}; "
                f"options['scenario'] is {scenario!r:.80}. Make the env with a generator of that size, or pass a "
                "matching NavigationScenario."
            )
        return scenario


class MONavigationConfig(NavigationConfig):
    """The arguments of MO-Navigation-v0 (both forms): Navigation-v0's without the reward's weights.

    The objectives are not weighted; the weights keep Navigation-v0's values in ``sim.Params``.
    """

    # A variant fixes a base argument as a ClassVar (core/config.py, default_of): the config removes that
    # argument on purpose, which mypy reports as an instance variable overridden by a class variable.
    progress_reward: ClassVar[float] = default_of(NavigationConfig, "progress_reward")  # type: ignore[misc]
    goal_reward: ClassVar[float] = default_of(NavigationConfig, "goal_reward")  # type: ignore[misc]
    collision_penalty: ClassVar[float] = default_of(NavigationConfig, "collision_penalty")  # type: ignore[misc]


def build_spaces(params: sim.Params) -> tuple[spaces.Box, spaces.Box]:
    """One agent's observation and action spaces."""
    low, high = params.obs_bounds
    observation_space = spaces.Box(low, high, dtype=np.float32)
    return observation_space, spaces.Box(-1.0, 1.0, shape=(2,), dtype=np.float32)


class NavigationEnv(ParallelEnvView):
    """Continuous multi-robot navigation: every disc robot to its own goal, around obstacles and each other.

    ## Description

    ``N`` disc robots (radius ``agent_radius``) share a square arena ``[-L, L]^2`` with ``M``
    circular obstacles; each robot has a goal point. In the lineage of MPE's ``simple_spread``,
    VMAS's ``navigation`` and CAMAR: robots move at the same time, collide physically, and see
    only their ``k`` nearest neighbours and obstacles. Each reset draws a new scenario from the
    generator (``"navigation/uniform"``: uniform placement with minimum separations; obstacle
    gaps wide enough for a robot, so every goal is reachable).

    Two robot models (``dynamics``):

    * ``"holonomic"`` (default): a double integrator. The action is an acceleration; the speed
      is limited to ``max_speed`` (the state is clipped, never the action).
    * ``"unicycle"``: a differential-drive robot as on the Robotarium. The action is a forward
      speed and a turn rate; a safety filter (a decentralized discrete-time barrier) scales each
      robot's speed down as it closes in on another robot or an obstacle, so that with the
      default ``safety_gamma=0.5`` no two discs ever touch. ``safety_filter=True`` adds the same
      filter to holonomic robots; ``False`` removes it from unicycles.

    Collisions (see :mod:`benchmarkzoo.envs.multiagent.navigation.sim`): robots never overlap
    each other or an obstacle. A robot whose move would end in an overlap does not move (and
    stops: zero velocity); both robots of the pair are *in collision* and pay
    ``collision_penalty``. Two robots on a head-on course therefore stop short of each other.
    Walls stop a robot (the velocity component into the wall is zeroed) without a penalty.

    A robot whose centre comes within ``goal_radius`` of its goal has **arrived**: it is
    terminated on that step (its last observation, reward and info are in the step's dicts) and
    **leaves** the arena and ``env.agents``: it no longer blocks or is seen by anyone (like
    MAPF-v0, and the POGEMA "disappear" convention). The episode ends when ``env.agents`` is empty.

    ## Action Space

    ``Box(-1, 1, (2,), float32)`` per robot:

    | dynamics | ``action[0]`` | ``action[1]`` |
    |---|---|---|
    | ``holonomic`` | x acceleration / ``max_accel`` (2 m/s^2) | y acceleration / ``max_accel`` |
    | ``unicycle`` | forward speed / ``max_speed`` (1 m/s; < 0 backwards) | turn rate / ``max_turn_rate`` (2 rad/s) |

    Positive turn rates turn counter-clockwise. ``step`` takes a dict with exactly one action per
    robot in ``env.agents``. An unknown name,
    a missing robot or one that has already arrived raises ``InvalidAgentError``; an action
    outside the space (out of range, NaN, wrong shape or dtype, ``None``) raises
    ``InvalidActionError`` naming the env and the robot. Nothing is clipped.

    ## Observation Space

    ``Box(low, high, (D,), float32)`` per robot, world frame, metres and m/s, in this order:

    | Entries | Meaning |
    |---|---|
    | 2 | own position ``(x, y)`` |
    | 2 | own velocity |
    | 2 | own heading (unit vector; ``unicycle`` only) |
    | 2 | goal minus own position |
    | ``5 k`` | ``k = num_neighbours`` nearest robots in the arena: relative position, relative velocity, ``1`` |
    | ``4 k_o`` | ``k_o = num_obstacles_seen`` nearest obstacles (edge distance): relative centre, radius, ``1`` |

    Nearest first, ties to the lower index. ``D = 6 + 5k + 4k_o`` (``8 + ...`` for ``unicycle``).
    When fewer robots or obstacles exist the missing rows are zeros, so the last entry of each
    row is a presence mask. With ``L = arena_size`` the bounds are ``[-L, L]`` for positions,
    ``[-2L, 2L]`` for relative positions, ``[-max_speed, max_speed]`` for velocities (twice that
    for relative ones); observations are clipped to them.

    ## Rewards

    Per robot and step: ``progress_reward * (d_before - d_after)`` (``d``: distance to its goal;
    the sum over an episode is the distance covered towards the goal)
    ``- collision_penalty`` (0.5) if in collision ``+ goal_reward`` (1.0) on arrival.
    ``MO-Navigation-v0`` (:class:`MONavigationEnv`) returns progress, energy and collisions as a
    vector instead.

    ## Episode End

    * Termination, per robot: it arrived (``info["is_success"]`` is ``True``).
    * Truncation: after ``max_cycles`` steps (100 in the registered spec) every remaining robot;
      one that arrives on that step is both terminated and truncated (Gymnasium's ``TimeLimit``).
    * Every info has ``is_success`` and ``collision`` (in collision on this step). On the step
      the episode ends, every robot in the dicts also gets the episode's metrics:
      ``success_rate`` (fraction of robots that arrived), ``cooperative_success`` (all arrived)
      and ``collisions`` (robot-steps in collision over the episode).

    ## Arguments

    ```python
    benchmarkzoo.make_parallel("benchmarkzoo/Navigation-v0", generator="navigation/uniform",
                               generator_kwargs={"num_agents": 4, "num_obstacles": 4, "arena_size": 2.0,
                                                 "agent_radius": 0.1},
                               dynamics="holonomic", dt=0.1, max_accel=2.0, max_speed=1.0, max_turn_rate=2.0,
                               goal_radius=0.1, num_neighbours=4, num_obstacles_seen=4, safety_filter=None,
                               safety_gamma=0.5, progress_reward=1.0, goal_reward=1.0, collision_penalty=0.5,
                               max_cycles=100, render_mode=None)
    ```

    * ``generator``, ``generator_kwargs``: a registered generator name or a ``UniformGenerator``
      instance and its arguments: robots, obstacles and their radii, arena half-width, separations.
      The number of robots is the generator's; any number from 1 to 256.
    * ``dynamics``: ``"holonomic"`` or ``"unicycle"``; ``safety_filter``: ``None`` (on for
      unicycle only), ``True`` or ``False``; ``safety_gamma`` in ``(0, 1]``.
    * ``reset(options={"scenario": s})`` plays the given ``NavigationScenario`` instead of drawing one.
    * ``render_mode``: ``"rgb_array"`` or ``"human"`` (needs the ``render`` extra).

    The scenario of ``reset(seed=s)`` is ``generator.sample(s)``. The AEC form is
    ``benchmarkzoo.make_aec("benchmarkzoo/Navigation-v0")``; the native multi-world form is
    ``benchmarkzoo.make_vec("benchmarkzoo/Navigation-v0", num_envs)``
    (:class:`~benchmarkzoo.envs.multiagent.navigation.vector_env.NavigationVectorEnv`). The baseline
    is a potential-field planner
    (:class:`~benchmarkzoo.envs.multiagent.navigation.baseline.PotentialFieldPolicy`): on the
    ``test`` split of ``multiagent/navigation`` 99.8% of holonomic robots arrive (99% of episodes
    fully), 99.3% of unicycles (98%); out-of-distribution figures are in its docstring.

    ## Version History

    * v0: Initial version.

    ## Example

    >>> import numpy as np
    >>> from benchmarkzoo.envs.multiagent.navigation.env import NavigationEnv
    >>> from benchmarkzoo.envs.multiagent.navigation.generator import UniformGenerator
    >>> env = NavigationEnv(generator=UniformGenerator(num_agents=3, num_obstacles=2))
    >>> observations, infos = env.reset(seed=0)
    >>> env.agents
    ['robot_0', 'robot_1', 'robot_2']
    >>> observations["robot_0"].shape  # 6 own + 4 neighbours x 5 + 4 obstacles x 4
    (42,)
    >>> still = np.zeros(2, dtype=np.float32)
    >>> observations, rewards, terminations, truncations, infos = env.step({a: still for a in env.agents})
    >>> rewards["robot_0"], terminations["robot_0"], infos["robot_0"]
    (0.0, False, {'is_success': False, 'collision': False})
    """

    metadata = {
        "name": "navigation_v0",
        "render_modes": ["rgb_array", "human"],
        "render_fps": 10,
        "is_parallelizable": True,
    }

    config_type = NavigationConfig
    agent_noun = "robot"

    metric_keys = METRIC_KEYS

    def _episode_metrics(self) -> dict[str, np.ndarray]:
        return sim.episode_metrics(self.sim_state)

    def _setup(self) -> None:
        self._observation_space, self._action_space = build_spaces(self.params)
        self.sim_state = sim.init_state(self.params, 1)
        self._actions = np.zeros((1, self.params.num_agents, 2), dtype=np.float32)

    def _load(self, scenario: NavigationScenario) -> None:
        sim.load(self.sim_state, 0, scenario)

    def _reset_infos(self) -> dict[str, dict[str, Any]]:
        return {agent: {"is_success": False, "collision": False} for agent in self.agents}

    @override
    def step(self, actions: dict[str, Any]):
        self._check_agents(actions)
        acting = list(self.agents)
        for agent in acting:
            action = actions[agent]
            fast = (
                type(action) is np.ndarray
                and action.dtype == np.float32
                and action.shape == (2,)
                and -1.0 <= action[0] <= 1.0
                and -1.0 <= action[1] <= 1.0
            )  # the common case skips the generic (slower) space check; NaN fails the comparisons
            if not fast:
                check_action(self.env_id, self._action_space, action, who=f"agent {agent!r}")
            self._actions[0, self._index[agent]] = action
        result = sim.step(self.sim_state, self._actions, self.params)
        arrived, collided = result.arrived, result.collided
        self.num_steps += 1
        limit = self.num_steps >= self.max_cycles
        observations = self._observations(acting)
        out_rewards = self._rewards(acting, result)
        terminations, infos = {}, {}
        for agent in acting:
            i = self._index[agent]
            done = bool(arrived[0, i])
            terminations[agent] = done
            infos[agent] = {"is_success": done, "collision": bool(collided[0, i])}
        return self._finish_step(acting, observations, out_rewards, terminations, infos, limit)

    def _rewards(self, acting: list[str], result: sim.StepResult) -> dict[str, Any]:
        return {agent: float(result.rewards[0, self._index[agent]]) for agent in acting}

    def _check_agents(self, actions: Any) -> None:
        check_action_dict(self.env_id, actions, self.agents, self._index, "send zeros to coast or stop")

    def _observations(self, agents: list[str]) -> dict[str, np.ndarray]:
        batch = sim.observe(self.sim_state, self.params)[0]  # (N, D), fresh
        return {agent: batch[self._index[agent]] for agent in agents}

    def _make_renderer(self):
        from benchmarkzoo.envs.multiagent.navigation.render import NavigationRenderer

        return NavigationRenderer(self.params, self.render_mode, self.metadata["render_fps"])


def mo_reward_space(params: sim.Params) -> spaces.Box:
    """One robot's reward space in ``MO-Navigation-v0``: progress, energy, collision (:data:`sim.OBJECTIVES`).

    A step moves a robot at most ``max_speed * dt`` (the speed limit holds before and after the
    step; walls, the safety filter and collisions only shorten moves), so progress lies in
    ``[-max_speed * dt, max_speed * dt]``; energy in ``[-1, 0]``; collision in ``[-1, 0]``.
    """
    reach = params.max_speed * params.dt
    return spaces.Box(
        np.array([-reach, -1.0, -1.0], dtype=np.float32),
        np.array([reach, 0.0, 0.0], dtype=np.float32),
        dtype=np.float32,
    )


class MONavigationEnv(MultiObjectiveAgents, NavigationEnv):
    """Multi-objective navigation: per-robot vector rewards for progress, energy and collisions (``moma`` kind).

    ## Description

    ``Navigation-v0``'s world, robots, observations and episode rules (see
    :class:`NavigationEnv`), with MOMAland's multi-objective API: each robot's reward is a
    vector of three objectives instead of their weighted sum. Getting to the goal fast costs
    control effort, and pushing through a crowd risks collisions: how a team trades them is
    the multi-objective question. Arrival itself earns nothing extra (the progress objective of
    an episode already sums to the distance covered towards the goal).

    ## Rewards

    ``reward_space(agent)`` is ``Box([-max_speed * dt, -1, -1], [max_speed * dt, 0, 0], (3,), float32)``
    (``max_speed * dt`` is 0.1 m by default); rewards are ``(3,)`` float32 arrays, per robot and step:

    | Index | Objective | Value |
    |---|---|---|
    | 0 | progress | ``d_before - d_after``, metres towards the goal on this step (negative when moving away) |
    | 1 | energy | ``-(a_0^2 + a_1^2) / 2``, control effort: ``0`` for a zero action, ``-1`` at full effort |
    | 2 | collision | ``-1`` if the robot is in collision on this step (both robots of a colliding pair), else ``0`` |

    Energy is charged for the action sent, even when a collision cancels the move. For a
    scalar reward, pass weights to the SB3 adapter (``scalarize=``) or the RLlib adapter.

    ## Arguments

    As ``Navigation-v0``, without ``progress_reward``, ``goal_reward`` and ``collision_penalty``
    (they weigh the objectives into ``Navigation-v0``'s scalar reward).

    The native multi-world form is ``benchmarkzoo.make_vec("benchmarkzoo/MO-Navigation-v0", num_envs)``
    (:class:`~benchmarkzoo.envs.multiagent.navigation.vector_env.MONavigationVectorEnv`, rewards
    ``(B, N, 3)`` float32). The baseline is Navigation-v0's potential-field planner.

    ## Version History

    * v0: Initial version.

    ## Example

    >>> import numpy as np
    >>> from benchmarkzoo.envs.multiagent.navigation.env import MONavigationEnv
    >>> from benchmarkzoo.envs.multiagent.navigation.generator import NavigationScenario, UniformGenerator
    >>> scenario = NavigationScenario(arena_size=2.0, agent_radius=0.1, starts=[[0.0, 0.0], [1.0, 1.0]],
    ...                               goals=[[1.5, 0.0], [-1.0, 1.0]], headings=[[1.0, 0.0], [1.0, 0.0]],
    ...                               obstacles=np.zeros((0, 3)))
    >>> env = MONavigationEnv(generator=UniformGenerator(num_agents=2, num_obstacles=0))
    >>> _ = env.reset(seed=0, options={"scenario": scenario})
    >>> env.reward_space("robot_0")
    Box([-0.1 -1.  -1. ], [0.1 0.  0. ], (3,), float32)
    >>> actions = {"robot_0": np.array([0.5, 0.0], dtype=np.float32), "robot_1": np.zeros(2, dtype=np.float32)}
    >>> _, rewards, _, _, _ = env.step(actions)  # robot_0 accelerates towards its goal, robot_1 coasts
    >>> [round(float(x), 6) for x in rewards["robot_0"]], rewards["robot_1"].tolist()
    ([0.005, -0.125, 0.0], [0.0, 0.0, 0.0])
    """

    metadata = {**NavigationEnv.metadata, "name": "mo_navigation_v0"}
    config_type = MONavigationConfig

    @override
    def _objective_space(self) -> spaces.Box:
        return mo_reward_space(self.params)

    def _rewards(self, acting: list[str], result: sim.StepResult) -> dict[str, Any]:
        vectors = sim.mo_rewards(result)[0]  # (N, 3), fresh
        return {agent: vectors[self._index[agent]] for agent in acting}
