"""``benchmarkzoo/Panda{Reach,Push,Slide,PickAndPlace,Stack}-v0`` (and ``-Dense-v0`` variants): the Gymnasium view."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from typing_extensions import override

from benchmarkzoo.core.config import Check, EnvConfig, arg, one_of
from benchmarkzoo.core.errors import ScenarioError
from benchmarkzoo.core.spaces import check_action
from benchmarkzoo.envs.robotics.panda import reward as rewards
from benchmarkzoo.envs.robotics.panda.generator import (
    WORKSPACE_HALF_WIDTH,
    WORKSPACE_HEIGHT,
    ObjectGenerator,
    ObjectScenario,
    PandaGenerator,
    PickAndPlaceGenerator,
    ReachScenario,
    SlideGenerator,
    StackGenerator,
    StackScenario,
)
from benchmarkzoo.envs.robotics.panda.sim import PandaWorld, Params
from benchmarkzoo.envs.view import SingleAgentEnvView
from benchmarkzoo.generators.base import Generator

OBS_BOUND = 10.0  # observations are clipped to [-10, 10], as panda-gym's space says


CONTROLS = ("ee", "joints")


class PandaConfig(EnvConfig):
    """The arguments of every Panda env (both forms); see :class:`PandaEnv`."""

    generator: str | Generator = "panda/reach"
    generator_kwargs: dict[str, Any] | None = None
    reward_type: str = arg(default="sparse", check=one_of(rewards.REWARD_TYPES))
    control: str = arg(default="ee", check=one_of(CONTROLS))
    report_progress: bool = arg(default=False, check=Check("True or False", lambda value: isinstance(value, bool)))

    generator_type: ClassVar[type] = PandaGenerator
    generator_needs: ClassVar[str] = "a Panda generator"
    time_limit: ClassVar[int] = 50

    @override
    def sim_params(self, generator: PandaGenerator, env_id: str) -> Params:
        stack = isinstance(generator, StackGenerator)
        block_gripper = not isinstance(generator, PickAndPlaceGenerator | StackGenerator)
        return Params(
            control=self.control,
            # 10 ms physics steps let closing fingers sink into the cube and squeeze it out; 8 ms hold it.
            substeps=4 if block_gripper else 5,
            block_gripper=block_gripper,
            with_object=isinstance(generator, ObjectGenerator),
            stack=stack,
            long_table=isinstance(generator, SlideGenerator),
            x_range=generator.x_range,
        )

    @override
    def check_scenario(
        self, scenario: Any, generator: Any, params: Params, env_id: str
    ) -> ReachScenario | ObjectScenario:
        """Raise :class:`ScenarioError` unless ``scenario`` fits this env and lies in the workspace."""
        expected = StackScenario if params.stack else ObjectScenario if params.with_object else ReachScenario
        if not isinstance(scenario, expected) or (not params.stack and isinstance(scenario, StackScenario)):
            raise ScenarioError(f"{env_id}: options['scenario'] must be a {expected.__name__}; got {scenario!r:.80}.")
        x, y, z = scenario.goal
        points = [("goal", x, y, z)]
        if params.with_object:
            assert isinstance(scenario, ObjectScenario)  # for the type checker: expected is an object scenario
            points.append(("object_xy", *scenario.object_xy, 0.0))
        if params.stack:
            assert isinstance(scenario, StackScenario)
            points.append(("second_xy", *scenario.second_xy, 0.0))
        x_low, x_high = params.x_range
        for name, x, y, z in points:
            if not x_low <= x <= x_high or abs(y) > WORKSPACE_HALF_WIDTH or not 0.0 <= z <= WORKSPACE_HEIGHT:
                raise ScenarioError(
                    f"{env_id}: the scenario's {name} {(x, y, z)} lies outside the workspace {x_low} <= x <= "
                    f"{x_high}, |y| <= {WORKSPACE_HALF_WIDTH}, 0 <= z <= {WORKSPACE_HEIGHT}."
                )
        return scenario


def build_spaces(params: Params) -> tuple[spaces.Dict, spaces.Box]:
    """The single-world observation and action spaces."""

    def box(size: int) -> spaces.Box:
        return spaces.Box(-OBS_BOUND, OBS_BOUND, shape=(size,), dtype=np.float32)

    observation_space = spaces.Dict(
        {
            "observation": box(params.obs_size),
            "achieved_goal": box(params.goal_size),
            "desired_goal": box(params.goal_size),
        }
    )
    return observation_space, spaces.Box(-1.0, 1.0, shape=(params.action_size,), dtype=np.float32)


def observe(world: PandaWorld) -> dict[str, np.ndarray]:
    """One world's observation dict, float32, clipped to the observation space."""
    vector, achieved = world.observe()
    return {
        "observation": np.clip(vector, -OBS_BOUND, OBS_BOUND).astype(np.float32),
        "achieved_goal": np.clip(achieved, -OBS_BOUND, OBS_BOUND).astype(np.float32),
        "desired_goal": world.goal.astype(np.float32),
    }


def score(obs: dict[str, np.ndarray], reward_type: str, params: Params) -> tuple[float, bool]:
    """The reward and success of an observation, computed as ``compute_reward`` computes them (float32 goals)."""
    distance = rewards.goal_distance(obs["achieved_goal"].astype(np.float64), obs["desired_goal"].astype(np.float64))
    threshold = params.distance_threshold
    return (
        float(rewards.reward_from_distance(distance, reward_type, threshold)),
        bool(rewards.is_success(distance, threshold)),
    )


def progress(obs: dict[str, np.ndarray], start: float, params: Params) -> float:
    """``info["goal_progress"]``: the share of the episode's starting goal distance ``start`` closed so far.

    ``1 - d / start`` (``start`` floored at the success threshold): 0 where the episode began,
    near 1 at the goal, negative when the cube was sent away from it.
    """
    distance = rewards.goal_distance(obs["achieved_goal"].astype(np.float64), obs["desired_goal"].astype(np.float64))
    return float(1.0 - distance / max(start, params.distance_threshold))


def start_distance(obs: dict[str, np.ndarray]) -> float:
    """m, the goal distance of an episode's first observation (what :func:`progress` is a share of)."""
    return float(rewards.goal_distance(obs["achieved_goal"].astype(np.float64), obs["desired_goal"].astype(np.float64)))


def goal_reward(env_id: str, params: Params, reward_type: str, achieved_goal: Any, desired_goal: Any) -> np.ndarray:
    """``compute_reward`` of the single and vector envs: checked goals of any batch shape in, float32 rewards out."""
    achieved, desired = rewards.check_goals(env_id, achieved_goal, desired_goal, params.goal_size)
    distance = rewards.goal_distance(achieved, desired)
    return rewards.reward_from_distance(distance, reward_type, params.distance_threshold)


class PandaEnv(SingleAgentEnvView):
    """Franka Panda manipulation on PyBullet: reach a point; push, slide, pick and place, or stack cubes.

    ## Description

    A Franka Panda arm (the URDF shipped in ``pybullet_data``) on a table, simulated by the
    real PyBullet engine in DIRECT mode, one physics client per env. The tasks follow
    panda-gym 3 (same robot placement, control, observation layout, goal ranges and
    thresholds), so results compare, but each reset draws a scenario from a seeded generator
    that also randomizes the cube's size, mass and friction:

    * ``benchmarkzoo/PandaReach-v0`` (``"panda/reach"``): move the end effector (the point
      between the fingertips) to a goal in a 0.3 m box above the table centre.
    * ``benchmarkzoo/PandaPush-v0`` (``"panda/push"``): push a cube (edge 35-45 mm, 0.5-1.5
      kg, friction 0.4-0.6) across the table to a goal at least 0.1 m away, gripper closed.
    * ``benchmarkzoo/PandaSlide-v0`` (``"panda/slide"``): strike a slippery cube (friction
      0.035-0.045) so that it slides to a goal 0.25-0.55 m ahead, beyond comfortable pushing
      range, on a 1.4 m table, gripper closed. panda-gym slides a flat puck; here it is a cube,
      because the fingertips press a 2 cm puck into the table instead of striking its side.
    * ``benchmarkzoo/PandaPickAndPlace-v0`` (``"panda/pick_and_place"``): grasp the cube and
      place it at a goal on the table (30 % of episodes) or up to 0.2 m above it; the gripper
      is free (a fourth action opens and closes the fingers).
    * ``benchmarkzoo/PandaStack-v0`` (``"panda/stack"``): two equal cubes; put the first on a
      goal on the table and the second on top of it (goals and achieved goals hold both cubes'
      positions, 6 numbers); free gripper, 100 steps.

    The ``-Dense-v0`` ids are the same tasks with the dense reward; ``control="joints"``
    replaces end-effector control by joint control (``PandaReachJoints-v0`` and
    ``PandaPickAndPlaceJoints-v0`` where registered).

    Physics: gravity 9.81 m/s^2, one env step is 0.04 s made of 4 physics steps of 10 ms
    (5 of 8 ms with the free gripper: closing fingers sink into a cube at 10 ms and squeeze it
    out), run inside one ``stepSimulation`` call, joint position control with panda-gym's
    motor forces. panda-gym takes 20 steps of 2 ms; the motor gains here are rescaled so the
    arm removes the same fraction of its joint error per env step, and end-effector paths under
    the same actions stay within about 2 cm of panda-gym's. Table and fingers have friction 1.0.

    ## Action Space

    ``Box(-1, 1, (n,), float32)``; with end-effector control (the default) ``n`` is 3 (Reach,
    Push, Slide) or 4 (PickAndPlace, Stack):

    | Num | Action | Unit |
    |-----|--------|------|
    | 0-2 | end-effector displacement ``x, y, z``, times 0.05 m | m / 0.05 |
    | 3   | change of the finger opening, times 0.2 m (free gripper only) | m / 0.2 |

    The arm's joint targets come from PyBullet's inverse kinematics for the displaced end
    effector (its height kept at or above the table top) with the gripper pointing down.
    With ``control="joints"`` ``n`` is 7 or 8: actions 0-6 change the seven arm joints'
    target positions by up to 0.05 rad each (panda-gym's joint control), the last one is the
    gripper as above. In Reach, Push and Slide the fingers are held closed. NaN,
    out-of-range, wrongly shaped or float64 actions raise ``InvalidActionError``.

    ## Observation Space

    ``Dict`` of float32 ``Box(-10, 10)`` arrays (panda-gym's layout):

    * ``observation``: end-effector position (3, m) and velocity (3, m/s); with a free gripper
      the finger opening (1, m); with a cube its position (3, m), orientation as Euler angles
      (3, rad), velocity (3, m/s) and angular velocity (3, rad/s), for each cube. Sizes 6
      (Reach), 18 (Push, Slide), 19 (PickAndPlace), 31 (Stack), whatever the control.
    * ``achieved_goal``: the end-effector position (Reach) or the cube's centre (3, m); for
      Stack both cubes' centres (6, m).
    * ``desired_goal``: the goal (3 or 6, m); Stack's second goal is one edge above the first.

    ## Rewards

    With ``d`` the distance between achieved and desired goal after the step (for Stack, the
    norm over both cubes' 6 numbers: stricter than panda-gym's Stack, whose 0.1 m a stack with
    its top cube still on the table can meet): sparse
    ``-(d > 0.05)`` (0 on success, else -1), dense ``-d``.
    ``env.unwrapped.compute_reward(achieved_goal, desired_goal, info)`` gives the same reward
    for goals of shape ``(3,)`` or batches ``(n, 3)`` (``(6,)``, ``(n, 6)`` for Stack), as
    Stable-Baselines3's HER relabels them; ``info`` is ignored. Malformed goals (wrong shape,
    mismatched shapes, NaN) raise ``ValueError``. ``info["is_success"]`` is ``d < 0.05``; with
    ``report_progress=True`` ``info["goal_progress"]`` is ``1 - d / d0``, the share of the
    episode's starting distance ``d0`` closed (0 at the start, near 1 at the goal, negative
    when the cube was sent away), which the evaluation records as an episode metric.

    ## Episode End

    * Termination: success, ``d < 0.05`` (as panda-gym 3).
    * Truncation: 50 steps (2 s) in the registered specs, 100 (4 s) for Stack.

    ## Arguments

    ```python
    gym.make("benchmarkzoo/PandaPush-v0", generator="panda/push", generator_kwargs={},
             reward_type="sparse", render_mode=None, control="ee")
    ```

    * ``generator``: ``"panda/reach"``, ``"panda/push"``, ``"panda/slide"``,
      ``"panda/pick_and_place"``, ``"panda/stack"`` or a ``PandaGenerator``; ``generator_kwargs``
      are its ranges (``goal_xy_range``, ``goal_z_range``; ``object_xy_range``,
      ``min_goal_distance``, ``object_size``, ``object_mass``, ``object_friction``,
      ``object_yaw``; ``goal_x_offset``; ``goal_on_table``; ``separation``). The
      out-of-distribution tiers of ``scenarios/robotics/*.yaml`` are wider ranges.
    * ``reward_type``: ``"sparse"`` or ``"dense"``.
    * ``control``: ``"ee"`` (end-effector displacements) or ``"joints"`` (joint position changes).
    * ``report_progress``: add ``info["goal_progress"]`` (see Rewards). Off by default, so the
      registered envs' outputs stay as they were; ``robotics-v1/slide-test`` scores by it.
    * ``reset(options={"scenario": s})`` plays the given scenario instead of drawing one.
    * ``render_mode``: ``"rgb_array"``, a 480x480 frame from a fixed camera through PyBullet's
      software renderer (``ER_TINY_RENDERER``, no display needed).

    The scenario of ``reset(seed=s)`` is ``generator.sample(s)``; an episode is determined by
    its scenario and its actions. ``close()`` disconnects the physics client (the env then refuses
    ``reset`` and ``step`` with ``ClosedEnvError``). A pickled env
    carries its scenario and the actions of the current episode, and the copy replays them
    in a new client (bit-identical, since PyBullet is deterministic for the same calls).
    The native vector env (``vectorization_mode="vector_entry_point"``) can spread its worlds
    over worker processes: ``gym.make_vec(id, num_envs=8, vectorization_mode="vector_entry_point",
    num_workers=2)``, bit-identical to ``num_workers=None`` (all in one process).

    ## Baseline

    ``benchmarkzoo.envs.robotics.panda.baseline:PandaExpert``, scripted controllers that
    plan end-effector moves from the observation alone (Reach: straight to the goal; Push:
    line up behind the cube as seen from the goal, descend, push at up to 0.5 m/s along the
    line, slowing near the goal; Slide: line up behind the cube's face that points most
    nearly at the goal, then strike it squarely; PickAndPlace: open over the cube, descend,
    close gently until both fingers touch it, lift 2 cm, carry, lower onto the goal; Stack:
    the same for the first cube, let go, then the second onto it, both carried 0.1 m high).
    With ``control="joints"`` the same plans become joint moves by inverse kinematics on a
    kinematic copy of the arm, started from the arm's joint positions, which this form reads
    off the env (``env.joint_positions()``; the observation has none). Success within the
    step limit on the seeds of ``scenarios/robotics/panda-*.yaml``:

    | env | train (seeds 0-99 / 0-199) | test (100000-100099) | ood (200000-200099) | mean length, test |
    |-----|----------------------------|----------------------|---------------------|-------------------|
    | PandaReach-v0 | 100 / 100 | 100 / 100 | 100 / 100 | 2.6 steps |
    | PandaPush-v0 | 200 / 200 | 99 / 100 | 88 / 100 | 20.6 steps |
    | PandaSlide-v0 | 42 / 200 | 20 / 100 | 14 / 100 | 46.3 steps |
    | PandaPickAndPlace-v0 | 190 / 200 | 99 / 100 | 80 / 100 | 19.1 steps |
    | PandaStack-v0 | 192 / 200 | 92 / 100 | 67 / 100 | 54.1 steps |
    | PandaReachJoints-v0 | 200 / 200 | 100 / 100 | 100 / 100 | 6.4 steps |
    | PandaPickAndPlaceJoints-v0 | 191 / 200 | 93 / 100 | 72 / 100 | 29.7 steps |

    The ood push failures are heavy (1.5-3 kg), slippery (friction 0.15-0.4) cubes pushed
    0.3 m or more: they need more than 50 steps at the expert's cautious speed. The slide
    expert mostly misses sideways: a slippery cube leaves along the normal of the face the
    fingertips strike, and with the gripper held pointing down the hand cannot square up to a
    goal off the cube's axes; one strike along the best face still brings the cube nearer the
    goal on 199 / 200, 98 / 100 and 97 / 100 seeds (``goal_progress`` above 0.01; mean 0.64,
    0.69, 0.53), which is what ``robotics-v1`` scores Slide by, the sparse return tying random's
    -50 wherever the cube misses. Joint control moves the arm about 0.05 rad a step, slower
    than end-effector control, hence the longer episodes. The pick-and-place misses are heavy cubes slipping out of the
    fingers during the lift (ood: up to 3 kg at friction 0.3); Stack adds a second lift and
    the top cube landing off-centre.

    ## Version History

    * v0: Initial version.

    ## Example

    >>> import gymnasium as gym
    >>> import numpy as np
    >>> import benchmarkzoo
    >>> env = gym.make("benchmarkzoo/PandaPush-v0")
    >>> obs, info = env.reset(seed=0)
    >>> sorted(obs), obs["observation"].shape
    (['achieved_goal', 'desired_goal', 'observation'], (18,))
    >>> obs, reward, terminated, truncated, info = env.step(np.zeros(3, dtype=np.float32))
    >>> reward, info["is_success"]
    (-1.0, False)
    >>> goals = np.zeros((5, 3))
    >>> env.unwrapped.compute_reward(goals, goals + [0.1, 0, 0], {}).tolist()
    [-1.0, -1.0, -1.0, -1.0, -1.0]
    >>> env.close()

    Pick and place with the scripted expert, and joint control:

    >>> from benchmarkzoo.envs.robotics.panda.baseline import PandaExpert
    >>> env, expert = PandaEnv("panda/pick_and_place"), PandaExpert()
    >>> obs, info = env.reset(seed=100000)
    >>> env.action_space.shape, obs["observation"].shape
    ((4,), (19,))
    >>> for t in range(50):
    ...     obs, reward, terminated, truncated, info = env.step(expert(env, obs))
    ...     if terminated:
    ...         break
    >>> bool(info["is_success"]), bool(obs["achieved_goal"][2] > 0.03)  # lifted off the table
    (True, True)
    >>> env.close()
    >>> env = PandaEnv("panda/reach", control="joints")
    >>> env.action_space.shape, env.env_id
    ((7,), 'benchmarkzoo/PandaReachJoints-v0')
    >>> env.close()
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 25}

    config_type = PandaConfig
    config: PandaConfig
    generator: PandaGenerator
    params: Params

    def _setup(self) -> None:
        self.reward_type = self.config.reward_type
        self.observation_space, self.action_space = build_spaces(self.params)
        self._world: PandaWorld | None = PandaWorld(self.params)
        self._actions: list[np.ndarray] = []  # this episode's actions, so a pickled copy can replay it
        self._camera = None
        self._start = 0.0  # m, the goal distance this episode began at (for info["goal_progress"])

    @property
    def world(self) -> PandaWorld:
        """The PyBullet world of this env (refused after :meth:`close`)."""
        if self._world is None:
            self._refuse_closed("world")
        return self._world

    def joint_positions(self) -> np.ndarray:
        """``(1, 9)`` float64: the arm and finger joint positions, batched like the vector env's (see the sim)."""
        return self.world.joint_positions()[None]

    def _load(self, scenario: ReachScenario | ObjectScenario) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        self.scenario = scenario
        self.world.load(scenario)
        self._actions = []
        obs = observe(self.world)
        self._start = start_distance(obs)
        return obs, self._info(obs, score(obs, self.reward_type, self.params)[1])

    def _info(self, obs: dict[str, np.ndarray], success: bool) -> dict[str, Any]:
        info: dict[str, Any] = {"is_success": success}
        if self.config.report_progress:
            info["goal_progress"] = progress(obs, self._start, self.params)
        return info

    def _step(self, action: Any):
        check_action(self.env_id, self.action_space, action)
        action = np.array(action, dtype=np.float32)
        self.world.act(action)
        self._actions.append(action)
        obs = observe(self.world)
        reward, success = score(obs, self.reward_type, self.params)
        return obs, reward, success, False, self._info(obs, success)

    def compute_reward(self, achieved_goal: Any, desired_goal: Any, info: Any = None) -> np.ndarray:
        """The reward of goal pairs: ``(3,)`` goals give a 0-d float32 array, ``(n, 3)`` batches ``(n,)``."""
        return goal_reward(self.env_id, self.params, self.reward_type, achieved_goal, desired_goal)

    def _render_frame(self) -> np.ndarray:
        from benchmarkzoo.envs.robotics.panda.render import render_world

        return render_world(self.world)

    def _close_sim(self) -> None:
        if self._world is not None:
            self._world.close()
            self._world = None

    # ---- pickling: the physics client cannot travel, the episode's inputs can ----------------------

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_world"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._world = PandaWorld(self.params)
        if self.scenario is not None:
            self._world.load(self.scenario)
            observe(self._world)  # the reads the original made after its reset, so the call sequence matches
            for action in self._actions:
                self._world.act(action)
                observe(self._world)
