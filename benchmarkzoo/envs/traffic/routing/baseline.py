"""Reference route choices for Routing-v0: the free-flow shortest route, and SUMO's own routing.

Called on the ParallelEnv they return ``{agent: route}`` for every live agent; on the native
vector env, ``(B, N)`` int64. Both read the scenario and SUMO's current travel times, which
the observation also carries; only the deciding agents' entries matter.
"""

from __future__ import annotations

import numpy as np

from benchmarkzoo.envs.traffic.routing import sim


def _act(env, choose) -> dict[str, int] | np.ndarray:
    env = getattr(env, "unwrapped", env)
    if hasattr(env, "scenarios"):  # the native vector env
        out = np.zeros((env.num_envs, env.num_agents), dtype=np.int64)  # (B, N)
        for i, (scenario, m) in enumerate(zip(env.scenarios, env._measurements)):
            if m is not None:
                out[i] = choose(scenario, m)
        return out
    routes = choose(env.scenario, env.sim_state)  # (N,)
    return {agent: int(routes[env._index[agent]]) for agent in env.agents}


class ShortestPathPolicy:
    """Always route 0: the shortest route by free-flow time, whatever the traffic."""

    @staticmethod
    def choose(scenario, m: sim.Measurement) -> np.ndarray:
        """``(N,)`` route 0 for every agent."""
        return np.zeros(scenario.num_agents, dtype=np.int64)

    def __call__(self, env) -> dict[str, int] | np.ndarray:
        """The chosen routes: a dict for the ParallelEnv, ``(B, N)`` for the vector env."""
        return _act(env, self.choose)


class SumoRoutingPolicy:
    """The option SUMO's router ranks fastest now: least summed current travel time of its edges.

    The travel times are SUMO's routing weights (its rerouting device's smoothed edge times,
    what ``simulation.findRoute(..., routingMode=ROUTING_MODE_AGGREGATED)`` routes on), so this
    is the route SUMO would give a vehicle entering now, restricted to the agent's ``k``
    options; ties go to the lower index (the shorter at free flow).
    """

    @staticmethod
    def choose(scenario, m: sim.Measurement) -> np.ndarray:
        """``(N,)`` each agent's option of least current travel time (masked options never)."""
        times = sim.route_times(scenario, m)  # (N, k)
        times = np.where(sim.action_masks(scenario) > 0, times, np.inf)
        return np.argmin(times, axis=1).astype(np.int64)

    def __call__(self, env) -> dict[str, int] | np.ndarray:
        """The chosen routes: a dict for the ParallelEnv, ``(B, N)`` for the vector env."""
        return _act(env, self.choose)
