"""``benchmarkzoo/Quadrotor-v0`` and ``benchmarkzoo/Quadrotor-Goal-v0``: the Gymnasium view on the simulator."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from typing_extensions import override

from benchmarkzoo.core.config import EnvConfig, arg, number, one_of
from benchmarkzoo.core.errors import ScenarioError
from benchmarkzoo.core.spaces import check_action
from benchmarkzoo.envs.control.quadrotor import sim
from benchmarkzoo.envs.control.quadrotor.generator import QuadrotorGenerator, QuadrotorScenario
from benchmarkzoo.envs.view import SingleAgentEnvView
from benchmarkzoo.generators.base import Generator


def vehicle_params(
    generator: QuadrotorGenerator, frame: str, weights: tuple[float, float, float, float], crash_penalty: float
) -> sim.Params:
    """The simulator's parameters: the generator's arena, the frame, the reward's weights (pos, tilt, spin, effort)."""
    pos_weight, tilt_weight, spin_weight, effort_weight = weights
    return sim.Params(
        arena_half_width=generator.arena_half_width,
        arena_height=generator.arena_height,
        frame=frame,
        pos_weight=pos_weight,
        tilt_weight=tilt_weight,
        spin_weight=spin_weight,
        effort_weight=effort_weight,
        crash_penalty=crash_penalty,
    )


class QuadrotorConfig(EnvConfig):
    """The arguments of Quadrotor-v0 and Quadrotor-Goal-v0 (both forms); see :class:`QuadrotorEnv`."""

    generator: str | Generator = "quadrotor/hover"
    generator_kwargs: dict[str, Any] | None = None
    frame: str = arg(default="x", check=one_of(sim.FRAMES))
    pos_weight: float = arg(default=0.7, check=number(0.0))
    tilt_weight: float = arg(default=0.1, check=number(0.0))
    spin_weight: float = arg(default=0.1, check=number(0.0))
    effort_weight: float = arg(default=0.1, check=number(0.0))
    crash_penalty: float = arg(default=10.0, check=number(0.0))

    generator_type: ClassVar[type] = QuadrotorGenerator
    generator_needs: ClassVar[str] = "a quadrotor generator"
    time_limit: ClassVar[int] = 500

    @override
    def sim_params(self, generator: QuadrotorGenerator, env_id: str) -> sim.Params:
        weights = (self.pos_weight, self.tilt_weight, self.spin_weight, self.effort_weight)
        return vehicle_params(generator, self.frame, weights, self.crash_penalty)

    @override
    def check_scenario(self, scenario: Any, generator: Any, params: sim.Params, env_id: str) -> QuadrotorScenario:
        """Raise :class:`ScenarioError` unless ``scenario`` is a quadrotor scenario with start and goal in the arena."""
        if not isinstance(scenario, QuadrotorScenario):
            raise ScenarioError(f"{env_id}: options['scenario'] must be a QuadrotorScenario; got {scenario!r:.80}.")
        for name in ("start_pos", "goal"):
            x, y, z = getattr(scenario, name)
            if max(abs(x), abs(y)) > params.arena_half_width or not 0.0 <= z <= params.arena_height:
                raise ScenarioError(
                    f"{env_id}: the scenario's {name} {(x, y, z)} lies outside the arena |x|, |y| <= "
                    f"{params.arena_half_width}, 0 <= z <= {params.arena_height}. Make the env with a generator "
                    "of a larger arena, or move the point."
                )
        return scenario


def build_spaces(params: sim.Params) -> tuple[spaces.Box, spaces.Box]:
    """The single-world observation and action spaces."""
    high = params.obs_high.astype(np.float32)
    observation_space = spaces.Box(-high, high, shape=(sim.OBS_SIZE,), dtype=np.float32)
    return observation_space, spaces.Box(-1.0, 1.0, shape=(4,), dtype=np.float32)


def reward_range(params: sim.Params) -> tuple[float, float]:
    """Bounds of the per-step reward."""
    weights = params.pos_weight + params.tilt_weight + params.spin_weight + params.effort_weight
    return (1.0 - weights - params.crash_penalty, 1.0)


class QuadrotorEnv(SingleAgentEnvView):
    """Fly a quadrotor with randomized physics: hold a hover, or reach a goal and stop there.

    ## Description

    A rigid-body quadrotor (a Crazyflie-sized vehicle by default) in a walled arena,
    commanded per motor, in the spirit of QuadSwarm. Each reset draws a new vehicle and task
    from the env's scenario generator: mass, arm length, inertia, motor strength
    (thrust-to-weight ratio), yaw torque coefficient and drag are randomized, so a policy must
    adapt to the vehicle it flies.

    * ``benchmarkzoo/Quadrotor-v0`` (``"quadrotor/hover"``): start within 0.5 m of the goal
      ``(0, 0, 2)``, up to 0.5 m/s, 0.5 rad of tilt, 1 rad/s of body rate and any heading;
      recover and hold the hover.
    * ``benchmarkzoo/Quadrotor-Goal-v0`` (``"quadrotor/goal"``): start near a hover at
      ``(0, 0, 2)``, fly to a goal 0.5 to 2 m away and stop there.

    Dynamics (``sim.py``): thrust ``max_thrust * (a + 1) / 2`` per motor along the body z
    axis, X frame (or ``"plus"``), gravity 9.81 m/s^2, linear drag, Euler's equation with
    gyroscopic and damping terms, two semi-implicit Euler substeps per 0.01 s control step,
    a floor at ``z = 0``.

    ## Action Space

    ``Box(-1, 1, (4,), float32)``: one command per motor, mapped linearly to thrust
    ``f_i = max_thrust * (a_i + 1) / 2`` in ``[0, max_thrust]``. With the X frame:

    | Num | Motor | Position (body x forward, y left) | Spin (seen from above) |
    |-----|-------|-----------------------------------|------------------------|
    | 0   | front-left  | ``(+l, +l) / sqrt(2)`` | clockwise |
    | 1   | back-left   | ``(-l, +l) / sqrt(2)`` | counter-clockwise |
    | 2   | back-right  | ``(-l, -l) / sqrt(2)`` | clockwise |
    | 3   | front-right | ``(+l, -l) / sqrt(2)`` | counter-clockwise |

    More thrust on the left motors (0, 1) rolls right side down (+x torque); on the back
    motors (1, 2) pitches nose down (+y torque); on motors 0 and 2 yaws counter-clockwise
    (+z torque). The hover command is ``2 m g / (4 max_thrust) - 1`` on every motor, about
    -0.1 for the default vehicles. Actions outside ``[-1, 1]``, NaN, of the wrong shape or of
    a dtype that does not cast safely to float32 raise ``InvalidActionError``.

    ## Observation Space

    ``Box(-high, high, (18,), float32)``, clipped to its bounds:

    | Num   | Observation | Unit | Bound |
    |-------|-------------|------|-------|
    | 0-2   | position minus goal, world frame | m | ``2 * max(arena_half_width, arena_height)`` (8) |
    | 3-5   | velocity, world frame | m/s | 20 |
    | 6-14  | body-to-world rotation matrix, row-major (column 2 is the body z axis) | | 1 |
    | 15-17 | body rates ``(p, q, r)``, body frame | rad/s | 50 |

    ## Rewards

    With ``d`` the distance to the goal, ``R22`` the vertical component of the body z axis,
    ``s`` the norm of the body rates and ``u_i = (a_i + 1) / 2``, all after the step:

    ``r = 1 - (0.7 * d / (d + 0.5) + 0.1 * (1 - R22) / 2 + 0.1 * s / (s + 5) + 0.1 * mean_i(u_i^2))``

    in ``[0, 1]``, so staying airborne always pays and crashing early never does; a step that
    crashes or leaves the arena earns ``r - 10`` more. The weights are arguments
    (``pos_weight``, ``tilt_weight``, ``spin_weight``, ``effort_weight``, ``crash_penalty``).
    ``info["is_success"]`` is ``True`` on a step that ends within 0.1 m of the goal at a speed
    below 0.2 m/s; evaluate an episode by its value on the last step.

    ## Episode End

    * Termination (``info["crashed"]``): the vehicle hits the floor faster than 1 m/s, or its
      body z axis tilts more than 1.4 rad (80 degrees) from the vertical.
    * Termination (``info["out_of_bounds"]``): ``|x|`` or ``|y|`` beyond 3 m, or ``z`` above 4 m.
    * Truncation: ``max_episode_steps`` steps (500, i.e. 5 s, in the registered specs).

    Slower floor contacts are not crashes: the vehicle stands on the floor and may take off.

    ## Arguments

    ```python
    gym.make("benchmarkzoo/Quadrotor-v0", generator="quadrotor/hover", generator_kwargs={},
             frame="x", pos_weight=0.7, tilt_weight=0.1, spin_weight=0.1, effort_weight=0.1,
             crash_penalty=10.0, render_mode=None)
    ```

    * ``generator``: ``"quadrotor/hover"``, ``"quadrotor/goal"`` or a ``QuadrotorGenerator``;
      ``generator_kwargs`` are its ranges (``mass``, ``arm_length``, ``inertia_scale``,
      ``thrust_to_weight``, ``torque_coef``, ``drag``), arena size, initial perturbations
      (``init_pos``, ``init_vel``, ``init_tilt``, ``init_ang_vel``, ``init_yaw``) and goal
      placement (``hover_height``; ``start_height``, ``goal_distance``, ``goal_min_height``).
      Out-of-distribution tiers are wider ranges, e.g. ``{"mass": [0.02, 0.05],
      "thrust_to_weight": [1.5, 3.0], "goal_distance": [2.0, 2.5]}``.
    * ``frame``: ``"x"`` or ``"plus"`` (motors front, left, back, right; 0 and 2 clockwise).
    * ``reset(options={"scenario": s})`` flies the given ``QuadrotorScenario`` instead of drawing one.
    * ``render_mode``: ``"rgb_array"`` (top, front and side views) or ``"human"`` (needs the
      ``render`` extra).

    The scenario of ``reset(seed=s)`` is ``generator.sample(s)``.

    ## Baseline

    ``benchmarkzoo.envs.control.quadrotor.baseline:CascadedPIDPolicy``, a cascaded PID
    controller (position, velocity, attitude, body rates, motor mixing) that reads the drawn
    vehicle parameters and the true state. Measured on 100 seeds (10000-10099) per env, one
    500-step episode each:

    | env | success at the time limit | crashes | settled (median) | distance to goal, last 2 s |
    |-----|---------------------------|---------|------------------|----------------------------|
    | Quadrotor-v0 | 100 / 100 | 0 | 0.89 s | 3e-5 m RMS, 1.2e-4 m max (tolerance 0.05 m) |
    | Quadrotor-Goal-v0 | 100 / 100 | 0 | 1.26 s | 1e-4 m RMS, 1.2e-3 m max |

    On a wider tier (mass 0.02-0.05 kg, thrust-to-weight 1.5-3, inertia scale 0.5-2, drag
    0-0.5; hover starts up to 1 rad of tilt, 1 m/s and 3 rad/s; goals 2-2.5 m away) it
    succeeds in 99 / 100 hover and 100 / 100 goal episodes. That precision comes from knowing
    the exact model; a learned policy sees only the observation.

    ## Version History

    * v0: Initial version.

    ## Example

    >>> import gymnasium as gym
    >>> import numpy as np
    >>> import benchmarkzoo
    >>> env = gym.make("benchmarkzoo/Quadrotor-v0")
    >>> obs, info = env.reset(seed=0)
    >>> obs.shape, obs.dtype
    ((18,), dtype('float32'))
    >>> hover = np.full(4, env.unwrapped.scenario.hover_command, dtype=np.float32)
    >>> obs, reward, terminated, truncated, info = env.step(hover)
    >>> 0.0 <= reward <= 1.0, terminated
    (True, False)
    """

    metadata = {"render_modes": ["rgb_array", "human"], "render_fps": 50}
    config_type = QuadrotorConfig
    generator: QuadrotorGenerator
    params: sim.Params

    def _setup(self) -> None:
        self.observation_space, self.action_space = build_spaces(self.params)
        self.reward_range = reward_range(self.params)
        self.state = sim.init_state(1)

    def _load(self, scenario: QuadrotorScenario) -> tuple[np.ndarray, dict[str, bool]]:
        self.scenario = scenario
        sim.load(self.state, [0], [scenario])
        info = {key: bool(value[0]) for key, value in sim.reset_info(self.state, self.params).items()}
        return sim.observe(self.state, self.params)[0], info

    def _step(self, action: Any):
        check_action(self.env_id, self.action_space, action)
        reward, terminated, info = self._simulate(np.asarray(action, dtype=np.float32).reshape(1, 4))
        return (
            sim.observe(self.state, self.params)[0],
            reward,
            bool(terminated[0]),
            False,
            {key: bool(value[0]) for key, value in info.items()},
        )

    def _simulate(self, actions: np.ndarray) -> tuple[Any, np.ndarray, dict[str, np.ndarray]]:
        """Advance the vehicle by ``actions`` ``(1, 4)``: the step's reward, ``(1,)`` terminated and the info."""
        rewards, terminated, info = sim.step(self.state, actions, self.params)
        return float(rewards[0]), terminated, info

    def _make_renderer(self):
        from benchmarkzoo.envs.control.quadrotor.render import QuadrotorRenderer

        return QuadrotorRenderer(self.params, self.render_mode, self.metadata["render_fps"])
