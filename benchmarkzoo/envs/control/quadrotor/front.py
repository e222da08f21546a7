"""A reference front for ``MO-Quadrotor-v0``: the cascaded PID with its velocity limit swept.

The exact Pareto front of a randomized quadrotor is not computable; this is a known-good
*approximation* from one controller family, recorded so that hypervolumes have a target and a
fixed reference point. It is made by :func:`compute_reference_front`:

1. for each velocity limit ``max_speed`` in :data:`MAX_SPEEDS` (m/s), fly
   :class:`~benchmarkzoo.envs.control.quadrotor.baseline.CascadedPIDPolicy` ``(max_speed=...)``
   (all other gains at their defaults) on the 100 test scenarios of ``control/mo-quadrotor``
   (``quadrotor/goal`` with default kwargs, seeds 100000-100099), one 200-step episode each,
   in the native vector env (world ``i`` plays seed ``100000 + i``);
2. average the undiscounted return vectors ``[progress, energy]`` over the 100 episodes;
3. keep the settings whose mean return no other setting dominates.

A slower limit closes less distance within the 2 s limit but tilts and brakes less, so it
spends less energy. Above about 1.5 m/s every goal is reached in time and a faster limit
only costs energy, so those settings are dominated. The recorded numbers
(:data:`RECORDED_SETTINGS`) were produced with numpy 2.x, gymnasium 1.2.2 on x86-64 by::

    python -c "from benchmarkzoo.envs.control.quadrotor import front; print(front.compute_settings())"

and a test recomputes them. A learned policy may well beat this front (e.g. by not braking
before the time limit, or by switching the motors off: see the env's Rewards section).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from benchmarkzoo.envs.control.quadrotor import sim
from benchmarkzoo.envs.control.quadrotor.generator import GoalGenerator, QuadrotorGenerator

#: m/s, the velocity limits swept (K = 12), geometric-ish from 0.2 to 3.
MAX_SPEEDS: tuple[float, ...] = (0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0, 1.25, 1.5, 2.0, 2.5, 3.0)
#: The test split of ``scenarios/control/mo-quadrotor.yaml`` (a test checks they agree).
TEST_SEEDS = range(100_000, 100_100)
#: The registered time limit (steps).
MAX_EPISODE_STEPS = 200
#: The registered crash penalty and frame.
CRASH_PENALTY = 10.0
FRAME = "x"

#: ``(K, 3)``: ``[max_speed, mean progress, mean energy]`` per setting of :data:`MAX_SPEEDS`,
#: as :func:`compute_settings` returns them (see the module docstring for the command).
RECORDED_SETTINGS: tuple[tuple[float, float, float], ...] = (
    (0.2, 0.3606405406201199, -44.333195173293355),
    (0.3, 0.5383862657302535, -44.3727853256464),
    (0.4, 0.7006153906878353, -44.40591254606843),
    (0.5, 0.8475546775278181, -44.46651699826121),
    (0.6, 0.9770001049172737, -44.5645580342412),
    (0.8, 1.16753164475174, -44.86954428054392),
    (1.0, 1.2629530968955303, -45.20483422722668),
    (1.25, 1.2911225773011785, -45.68670426465571),
    (1.5, 1.2933537637728483, -46.16337934311479),
    (2.0, 1.2922217982117479, -47.02807485960424),
    (2.5, 1.2923661400999804, -47.628168294765054),
    (3.0, 1.2924624109809133, -47.87533943552524),
)

#: ``[progress, energy]`` for hypervolumes: no progress at all, and the energy of 200 steps with
#: every motor at half thrust (``-200 * 0.5^2``, the hover of a thrust-to-weight-2 vehicle, the
#: middle of the generator's range). The recorded front's nadir is about ``[0.361, -46.16]``, so
#: the point lies below every front point, by about 8 % of the costliest one's energy.
REFERENCE_POINT: tuple[float, float] = (0.0, -50.0)


def evaluate_setting(
    max_speed: float,
    seeds: range = TEST_SEEDS,
    generator: str = "quadrotor/goal",
    generator_kwargs: dict[str, Any] | None = None,
    max_episode_steps: int = MAX_EPISODE_STEPS,
) -> np.ndarray:
    """Undiscounted return vectors of the PID with velocity limit ``max_speed``, one episode per seed.

    Args:
        max_speed: m/s, the PID's velocity limit.
        seeds: a ``range`` with step 1: world ``i`` of one native vector env plays ``seeds[i]``.
        generator: the env's scenario generator (a registered name).
        generator_kwargs: its arguments.
        max_episode_steps: the time limit.

    Returns:
        ``(len(seeds), 2)`` float64 ``[progress, energy]`` returns (float32 rewards summed in float64).
    """
    from benchmarkzoo.envs.control.quadrotor.baseline import CascadedPIDPolicy
    from benchmarkzoo.envs.control.quadrotor.mo_vector_env import MOQuadrotorVectorEnv

    if not isinstance(seeds, range) or seeds.step != 1 or len(seeds) == 0:
        raise ValueError(f"seeds must be a non-empty range with step 1; got {seeds!r}.")
    # the constructor is built from MOQuadrotorConfig's fields at class creation (envs/configured.py);
    # mypy sees only the base's plain one
    env = MOQuadrotorVectorEnv(  # type: ignore[call-arg]
        num_envs=len(seeds),
        generator=generator,
        generator_kwargs=generator_kwargs,
        max_episode_steps=max_episode_steps,
    )
    policy = CascadedPIDPolicy(max_speed=max_speed)
    returns = np.zeros((len(seeds), 2))
    ended = np.zeros(len(seeds), dtype=bool)
    env.reset(seed=seeds.start)
    for _ in range(max_episode_steps):  # every world ends within the limit; later steps are autoresets
        _, rewards, terminated, truncated, _ = env.step(policy(env))
        returns[~ended] += rewards[~ended]
        ended |= terminated | truncated
    env.close()
    return returns


def compute_settings(max_speeds: Sequence[float] = MAX_SPEEDS, **kwargs: Any) -> tuple[tuple[float, float, float], ...]:
    """``[max_speed, mean progress, mean energy]`` of every setting; ``kwargs`` go to :func:`evaluate_setting`."""
    rows = []
    for speed in max_speeds:
        mean = evaluate_setting(speed, **kwargs).mean(axis=0)
        rows.append((float(speed), float(mean[0]), float(mean[1])))
    return tuple(rows)


def non_dominated(points: np.ndarray) -> np.ndarray:
    """``(N,)`` bool: the rows of ``(N, M)`` ``points`` (to be maximized) that no other row dominates.

    Row ``a`` dominates ``b`` when it is at least as good in every objective and better in one;
    of exact duplicates, the first is kept.
    """
    points = np.asarray(points, dtype=np.float64)
    keep = np.ones(len(points), dtype=bool)
    for i, p in enumerate(points):
        at_least = (points >= p).all(axis=1)
        better = at_least & (points > p).any(axis=1)
        duplicate_before = (points == p).all(axis=1) & (np.arange(len(points)) < i)
        keep[i] = not (better.any() or duplicate_before.any())
    return keep


def front_of(settings: Sequence[Sequence[float]]) -> np.ndarray:
    """The non-dominated ``[progress, energy]`` of ``[max_speed, progress, energy]`` rows, by increasing progress."""
    returns = np.asarray(settings, dtype=np.float64).reshape(-1, 3)[:, 1:]
    kept = returns[non_dominated(returns)]
    return kept[np.argsort(kept[:, 0], kind="stable")]


def reference_front() -> np.ndarray:
    """The recorded reference front of ``MO-Quadrotor-v0`` (registered configuration).

    An approximation, not the exact Pareto front: see the module docstring.

    Returns:
        ``(P, 2)`` float64 ``[progress, energy]`` mean returns, mutually non-dominated, sorted
        by increasing progress (and so by decreasing energy).
    """
    return front_of(RECORDED_SETTINGS)


def reference_point() -> np.ndarray:
    """``(2,)`` float64, the hypervolume reference point :data:`REFERENCE_POINT`; every reference point dominates it."""
    return np.array(REFERENCE_POINT, dtype=np.float64)


def check_registered_configuration(
    env_id: str, generator: QuadrotorGenerator, params: sim.Params, max_episode_steps: int | None = MAX_EPISODE_STEPS
) -> None:
    """Raise ``ValueError`` unless the env is configured as the recorded front was measured."""
    registered = GoalGenerator()
    same = (
        type(generator) is GoalGenerator
        and generator.kwargs == registered.kwargs
        and params.frame == FRAME
        and params.crash_penalty == CRASH_PENALTY
        and max_episode_steps == MAX_EPISODE_STEPS
    )
    if not same:
        raise ValueError(
            f"{env_id}: the recorded reference front belongs to the registered configuration (generator "
            f"'quadrotor/goal' with default kwargs, frame {FRAME!r}, crash_penalty {CRASH_PENALTY}, "
            f"{MAX_EPISODE_STEPS} steps); this env is {generator!r}, frame {params.frame!r}, crash_penalty "
            f"{params.crash_penalty}, {max_episode_steps} steps. Compute a front for it with "
            "benchmarkzoo.envs.control.quadrotor.front.compute_settings(...) and front_of(...)."
        )
