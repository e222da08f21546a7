"""``benchmarkzoo/MO-TrafficGrid-v0``: TrafficGrid-v0 with per-signal vector rewards, waiting time and CO2."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from gymnasium import spaces
from typing_extensions import override

from benchmarkzoo.envs.multiagent.objectives import MultiObjectiveAgents
from benchmarkzoo.envs.traffic.grid.env import TrafficGridConfig, TrafficGridEnv
from benchmarkzoo.envs.traffic.objectives import MultiObjective, build_reward_space, signal_objectives


class MOTrafficGridConfig(TrafficGridConfig):
    """MO-TrafficGrid-v0's arguments: TrafficGrid-v0's but ``reward`` (its rewards are the objectives)."""

    # A variant fixes a base argument as a ClassVar (core/config.py, fixed_arguments): the config removes that
    # argument on purpose, which mypy reports as an instance variable overridden by a class variable.
    reward: ClassVar[str] = "diff-waiting-time"  # type: ignore[misc]


class MOTrafficGridEnv(MultiObjective, MultiObjectiveAgents, TrafficGridEnv):
    """Coordinate the signals of a SUMO network, each trading its vehicles' waiting time against their CO2.

    ## Description

    The networks, demand, signal logic, agents, observations, actions and infos of
    ``benchmarkzoo/TrafficGrid-v0`` (see :class:`TrafficGridEnv`: a grid by default, a spider
    web or random networks with ``generator="traffic/spider"`` / ``"traffic/random"``), with a
    vector reward per agent: MO-TrafficSignal-v0's two objectives, counted on each signal's own
    lanes (:mod:`benchmarkzoo.envs.traffic.objectives`). A MOMAland-style ``moma`` env:
    ``reward_space(agent)`` (and the ``reward_spaces`` dict), rewards ``(2,)`` float32 arrays.

    ## Rewards

    ``reward_space(agent) = Box(-inf, 0, (2,), float32)`` for every agent. SUMO is advanced one
    second at a time; over every simulated second of the step and every vehicle on the lanes
    the signal owns:

    | Index | Objective | Per step | Unit |
    |-------|-----------|----------|------|
    | 0 | waiting time | minus the vehicle-seconds spent halting (speed < 0.1 m/s) | vehicle-s |
    | 1 | CO2 | minus the CO2 SUMO's emission model reports for those vehicles | g |

    A signal owns its controlled incoming lanes, the internal lanes of its junction, and those
    of its outgoing lanes that enter no other signal (exits). A lane between two signals belongs
    to the one it enters. On the generated grids every lane has exactly one owner, so summed
    over the agents the rewards are MO-TrafficSignal-v0's network-wide objectives; on a one-
    junction grid the one agent's reward *is* that objective. On spider webs without ring
    signals and random networks, lanes between two unsignalized junctions count for nobody.
    (SUMO's default class ``HBEFA4/PC_petrol_Euro-4``; CO2 in mg/s per one-second step, summed
    and divided by 1000.)

    ## Baselines

    Returns summed over the 4 agents, means over seeds 100000-100004 of the test split of
    ``traffic/grid`` (2x2 grid, full 360-step episodes, SUMO 1.28; the CO2 equals
    TrafficGrid-v0's ``total_co2`` of the same episodes, as the signals share the whole grid):

    | Controller | waiting time (vehicle-s) | CO2 (g) |
    |------------|--------------------------|---------|
    | fixed-time (30 s greens, no offsets) | -150,784 | -428,308 |
    | max-pressure at every signal | -43,315 | -281,977 |

    Max-pressure dominates fixed-time on both objectives here too; no reference front yet.

    ## Episode End

    As TrafficGrid-v0: never terminates; every agent truncated after ``max_cycles`` steps (360).

    ## Arguments

    ```python
    benchmarkzoo.make_parallel("benchmarkzoo/MO-TrafficGrid-v0", generator="traffic/grid",
                               generator_kwargs={}, delta_time=5, yellow_time=2, min_green=5,
                               max_cycles=360, backend="libsumo", in_process=None)
    ```

    As TrafficGrid-v0, without ``reward``. The native multi-world form (``benchmarkzoo.make_vec``)
    is :class:`~benchmarkzoo.envs.traffic.grid.mo_vector_env.MOTrafficGridVectorEnv`, with
    ``(B, N, 2)`` float32 rewards.

    ## Version History

    * v0: Initial version.

    ## Example

    >>> from benchmarkzoo.envs.traffic.grid.mo_env import MOTrafficGridEnv
    >>> env = MOTrafficGridEnv(generator_kwargs={"duration": 300})
    >>> _ = env.reset(seed=0)
    >>> env.reward_space("A0")
    Box(-inf, 0.0, (2,), float32)
    >>> for _ in range(20):
    ...     _, rewards, _, _, infos = env.step({agent: 0 for agent in env.agents})
    >>> rewards["A0"].dtype, rewards["A0"].shape, bool(rewards["A0"][1] < 0)
    (dtype('float32'), (2,), True)
    >>> env.close()
    """

    metadata = {**TrafficGridEnv.metadata, "name": "mo_traffic_grid_v0"}
    config_type = MOTrafficGridConfig

    @override
    def _objective_space(self) -> spaces.Box:
        return build_reward_space()  # waiting time, CO2

    def _rewards(self) -> dict[str, np.ndarray]:
        m = self._measurement
        return {agent: signal_objectives(m, k) for k, agent in enumerate(self.possible_agents)}
