"""``benchmarkzoo/MO-TrafficSignal-v0``: one signalized intersection, waiting time vs CO2 as two objectives."""

from __future__ import annotations

import functools
from typing import ClassVar

import numpy as np
from gymnasium import spaces

from benchmarkzoo.envs.traffic.objectives import MultiObjective, build_reward_space, objectives
from benchmarkzoo.envs.traffic.signal.env import TrafficSignalConfig, TrafficSignalEnv


class MOTrafficSignalConfig(TrafficSignalConfig):
    """MO-TrafficSignal-v0's arguments: TrafficSignal-v0's but the two its objectives fix."""

    # A variant fixes a base argument as a ClassVar (core/config.py, fixed_arguments): the config removes that
    # argument on purpose, which mypy reports as an instance variable overridden by a class variable.
    reward: ClassVar[str] = "diff-waiting-time"  # type: ignore[misc]
    emissions: ClassVar[bool] = True  # type: ignore[misc]  # the CO2 objective


class MOTrafficSignalEnv(MultiObjective, TrafficSignalEnv):
    """Control one signalized intersection of SUMO, trading vehicles' waiting time against their CO2.

    ## Description

    The intersection, demand, signal logic, observations and actions of
    ``benchmarkzoo/TrafficSignal-v0`` (see :class:`TrafficSignalEnv`), with a vector reward.
    The objectives need not agree: a second of idling at red costs a full second of waiting
    but little CO2, while stopping and pulling away again costs CO2 above cruising.

    ## Rewards

    A vector, float32, shape ``(2,)``, in ``reward_space = Box(-inf, 0, (2,), float32)``;
    SUMO is advanced one second at a time and both are summed over every simulated second of
    the step and every vehicle in the network (internal junction lanes included):

    | Index | Objective | Per step | Unit |
    |-------|-----------|----------|------|
    | 0 | waiting time | minus the vehicle-seconds spent halting (speed < 0.1 m/s) | vehicle-s |
    | 1 | CO2 | minus the CO2 emitted, SUMO's per-vehicle emission model | g |

    SUMO's default vehicle type has emission class ``HBEFA4/PC_petrol_Euro-4`` (SUMO 1.28).
    SUMO reports each vehicle's CO2 in mg/s for the last one-second simulation step; objective 1
    is the sum of those over the step's seconds and vehicles, divided by 1000 (grams). At the
    default 400 vehicles/hour per arm a step averages about ``[-8, -217]`` under max-pressure
    and ``[-18, -237]`` under fixed-time (the returns below over 360 steps).

    ``info`` is TrafficSignal-v0's with ``emissions=True`` (``total_co2`` included).

    ## Baselines

    Mean returns over seeds 100000-100009 of the test split of ``traffic/single-intersection``
    (360 steps, SUMO 1.28); their episode metrics are in :class:`TrafficSignalEnv`'s table:

    | Controller | waiting time (vehicle-s) | CO2 (g) |
    |------------|--------------------------|---------|
    | fixed-time (30 s greens) | -6,448 | -85,166 |
    | max-pressure | -2,894 | -78,200 |

    Max-pressure dominates fixed-time on both objectives here: neither is a point on a
    trade-off curve, and no reference front is published for this env yet.

    ## Episode End

    As TrafficSignal-v0: never terminates; truncated after 360 steps (1800 s) in the registered spec.

    ## Arguments

    ```python
    mo_gymnasium.make("benchmarkzoo/MO-TrafficSignal-v0", generator="traffic/single-intersection",
                      generator_kwargs={}, delta_time=5, yellow_time=2, min_green=5,
                      backend="libsumo", in_process=None)
    ```

    As TrafficSignal-v0, without ``reward`` and ``emissions``. ``gymnasium.make_vec(...,
    vectorization_mode="sync")`` cannot batch vector rewards; use the native vector env
    (``vectorization_mode="vector_entry_point"``, one worker process per world) or
    ``mo_gymnasium.wrappers.vector.MOSyncVectorEnv``, which agree bit for bit.

    ## Version History

    * v0: Initial version.

    ## Example

    >>> from benchmarkzoo.envs.traffic.signal.mo_env import MOTrafficSignalEnv
    >>> env = MOTrafficSignalEnv()
    >>> obs, info = env.reset(seed=0)
    >>> env.reward_space.shape, env.reward_dim
    ((2,), 2)
    >>> for _ in range(30):
    ...     obs, reward, terminated, truncated, info = env.step(0)
    >>> reward.dtype, reward.shape, bool(reward[1] < 0)
    (dtype('float32'), (2,), True)
    >>> env.close()
    """

    config_type = MOTrafficSignalConfig

    @functools.cached_property
    def reward_space(self) -> spaces.Box:
        """``Box(-inf, 0, (2,), float32)``: waiting time, CO2 (MO-Gymnasium's attribute)."""
        return build_reward_space()

    def _reward(self) -> np.ndarray:
        return objectives(self._measurement)
