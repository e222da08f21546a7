"""``benchmarkzoo/MO-Quadrotor-v0``: the multi-objective Gymnasium view on the Quadrotor simulator."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from gymnasium import spaces

from benchmarkzoo.envs.control.quadrotor import front, sim
from benchmarkzoo.envs.control.quadrotor.env import QuadrotorConfig, QuadrotorEnv
from benchmarkzoo.generators.base import Generator

OBJECTIVES = ("progress", "energy")


class MOQuadrotorConfig(QuadrotorConfig):
    """The arguments of MO-Quadrotor-v0 (both forms): Quadrotor-Goal-v0's without the scalar reward's weights."""

    generator: str | Generator = "quadrotor/goal"
    # The scalar reward's weights are unused here: zero, so nothing pretends otherwise (and no argument sets them).
    # A variant fixes a base argument as a ClassVar (core/config.py, default_of): the config removes that
    # argument on purpose, which mypy reports as an instance variable overridden by a class variable.
    pos_weight: ClassVar[float] = 0.0  # type: ignore[misc]
    tilt_weight: ClassVar[float] = 0.0  # type: ignore[misc]
    spin_weight: ClassVar[float] = 0.0  # type: ignore[misc]
    effort_weight: ClassVar[float] = 0.0  # type: ignore[misc]

    time_limit: ClassVar[int] = 200


def build_reward_space(params: sim.Params) -> spaces.Box:
    """``Box([-c - crash_penalty, -1], [c, 0], (2,), float32)`` with ``c`` the per-step progress bound."""
    bound = sim.max_progress_per_step(params)
    return spaces.Box(
        low=np.array([-bound - params.crash_penalty, -1.0], dtype=np.float32),
        high=np.array([bound, 0.0], dtype=np.float32),
        dtype=np.float32,
    )


class MOQuadrotorEnv(QuadrotorEnv):
    """Fly a quadrotor to a goal: how much closer does it get, for how much energy?

    ## Description

    The go-to-goal task of ``benchmarkzoo/Quadrotor-Goal-v0`` (same simulator, generator,
    observations, actions and terminations; see :class:`QuadrotorEnv`) with a vector reward
    and a 2 s time limit. Each reset draws a vehicle (mass, arm length, inertia, motor
    strength, yaw torque, drag) and a goal 0.5 to 2 m from a near-hover start. Getting closer
    sooner takes harder manoeuvres; the hover alone costs most of the energy, and every extra
    metre per second costs a little more.

    ## Action Space

    ``Box(-1, 1, (4,), float32)``: one command per motor, thrust ``max_thrust * (a_i + 1) / 2``,
    X frame by default (the motor table of :class:`QuadrotorEnv`). Invalid actions raise
    ``InvalidActionError``.

    ## Observation Space

    ``Box(-high, high, (18,), float32)``: position minus goal (3, m), velocity (3, m/s),
    body-to-world rotation matrix row-major (9), body rates (3, rad/s), as in
    :class:`QuadrotorEnv`.

    ## Rewards

    A vector, float32, shape ``(2,)``, computed in float64 and rounded once, inside
    ``reward_space = Box([-0.2 - crash_penalty, -1], [0.2, 0])``. With ``d`` the distance to
    the goal and ``u_i = (a_i + 1) / 2`` the thrust fraction of motor ``i``:

    | Index | Objective | Per step |
    |-------|-----------|----------|
    | 0 | progress (m) | ``clip(d_before - d_after, -0.2, 0.2)``, minus ``crash_penalty`` on a crash or exit |
    | 1 | energy | ``-(u_0^2 + u_1^2 + u_2^2 + u_3^2) / 4`` |

    So the progress return is ``d_0 - d_T``, the distance closed by the end of the episode
    (minus ``crash_penalty``, 10 by default, if it ended in a crash or leaving the arena), and
    the energy return of a 200-step flight is about -44 (hovering costs about -0.22 a step).
    The clip (0.2 m a step is 20 m/s, the velocity observation bound) is never reached by the
    default vehicles inside the arena, so the progress return telescopes to the distance
    closed. The energy objective is the scalar Quadrotor reward's effort term: the squared
    thrust fractions, a proxy for electrical power, not joules.

    Crashing ends the episode and so stops the energy bill: a policy that switches its motors
    off scores about 0 on energy and loses ``crash_penalty`` on progress. That corner is on
    the true front; weight energy heavily and it is what a linear scalarization learns.

    ## Reference front (an approximation)

    :meth:`reference_front` returns the non-dominated mean returns of the cascaded PID
    baseline with its velocity limit swept over 12 settings from 0.2 to 3 m/s, measured on
    the 100 test scenarios of ``control/mo-quadrotor`` (seeds 100000-100099), one episode
    each. It is *not* the exact Pareto front: it is what one well-tuned controller family
    reaches, a target for learned policies. 9 of the 12 settings are non-dominated (above
    1.5 m/s every goal is reached in time and more speed only costs energy):

    | max_speed (m/s) | 0.2 | 0.3 | 0.4 | 0.5 | 0.6 | 0.8 | 1.0 | 1.25 | 1.5 |
    |-----------------|-----|-----|-----|-----|-----|-----|-----|------|-----|
    | progress (m) | 0.361 | 0.538 | 0.701 | 0.848 | 0.977 | 1.168 | 1.263 | 1.291 | 1.293 |
    | energy | -44.333 | -44.373 | -44.406 | -44.467 | -44.565 | -44.870 | -45.205 | -45.687 | -46.163 |
    | success at 2 s | 0 | 7 | 15 | 21 | 30 | 44 | 68 | 95 | 100 |

    (success out of 100; no setting crashes.) The hypervolume reference point is
    :func:`~benchmarkzoo.envs.control.quadrotor.front.reference_point`, ``[0, -50]``: no
    progress, and 200 steps with every motor at half thrust. The front's hypervolume against
    it is 7.03. How the front was computed, and the command that recomputes it, are in
    :mod:`benchmarkzoo.envs.control.quadrotor.front`.

    ## Episode End

    * Termination: a crash (floor impact faster than 1 m/s, tilt beyond 1.4 rad) or leaving
      the arena (``info["crashed"]``, ``info["out_of_bounds"]``).
    * Truncation: ``max_episode_steps`` (200, i.e. 2 s, in the registered spec). The
      slowest reference settings do not reach far goals by then: that is the trade-off.

    ``info["is_success"]``: within 0.1 m of the goal and slower than 0.2 m/s after the step.

    ## Arguments

    ```python
    mo_gymnasium.make("benchmarkzoo/MO-Quadrotor-v0", generator="quadrotor/goal",
                      generator_kwargs={}, frame="x", crash_penalty=10.0, render_mode=None)
    ```

    * ``generator``, ``generator_kwargs``, ``frame``, ``render_mode``, and
      ``reset(options={"scenario": s})``: as in :class:`QuadrotorEnv`.
    * ``crash_penalty``: subtracted from the progress reward of a step that crashes or leaves
      the arena (it widens ``reward_space``).

    The scenario of ``reset(seed=s)`` is ``generator.sample(s)``.
    ``gymnasium.make_vec(..., vectorization_mode="sync")`` cannot batch vector rewards; use
    ``vectorization_mode="vector_entry_point"`` (the native vector env) or
    ``mo_gymnasium.wrappers.vector.MOSyncVectorEnv``, which agree bit for bit.

    ## Baseline

    ``benchmarkzoo.envs.control.quadrotor.baseline:WeightedPIDPolicy(weights)``: the cascaded
    PID with the reference setting that maximizes ``weights @ mean return``. The registered
    default, equal weights, flies at 0.6 m/s: mean return ``[0.977, -44.565]``, 30 / 100
    test episodes at the goal when the time limit ends, none crashed. A random policy
    averages ``[-10.0, -9.0]`` (it crashes), motors off ``[-11.0, 0.0]``.

    ## Version History

    * v0: Initial version.

    ## Example

    >>> import mo_gymnasium
    >>> import numpy as np
    >>> import benchmarkzoo
    >>> env = mo_gymnasium.make("benchmarkzoo/MO-Quadrotor-v0")
    >>> obs, info = env.reset(seed=0)
    >>> env.unwrapped.reward_space.shape, env.unwrapped.reward_dim
    ((2,), 2)
    >>> hover = np.full(4, env.unwrapped.scenario.hover_command, dtype=np.float32)
    >>> obs, reward, terminated, truncated, info = env.step(hover)
    >>> reward.dtype, reward.shape, terminated
    (dtype('float32'), (2,), False)
    >>> u = (float(hover[0]) + 1.0) / 2.0  # every motor at the hover thrust fraction
    >>> bool(np.isclose(reward[1], -u * u))
    True
    >>> env.unwrapped.reference_front().shape[1]
    2
    """

    config_type = MOQuadrotorConfig

    def _setup(self) -> None:
        super()._setup()
        self.reward_space = build_reward_space(self.params)
        self.reward_dim = len(OBJECTIVES)
        self.reward_range = (float(self.reward_space.low.min()), float(self.reward_space.high.max()))

    def _simulate(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        rewards, terminated, info = sim.step_objectives(self.state, actions, self.params)
        return rewards[0], terminated, info

    def reference_front(self) -> np.ndarray:
        """The recorded PID reference front of the registered configuration; see :func:`.front.reference_front`.

        Returns:
            ``(P, 2)`` float64 ``[progress, energy]`` mean returns, mutually non-dominated,
            sorted by increasing progress.

        Raises:
            ValueError: this env's generator, frame or crash penalty differs from the
                registered ones (the recorded front is theirs; compute another with
                :func:`.front.compute_reference_front`).
        """
        front.check_registered_configuration(self.env_id, self.generator, self.params)
        return front.reference_front()
