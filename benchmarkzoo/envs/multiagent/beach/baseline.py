"""Iterated best responses on the beach: a privileged scripted team for MO-Beach-v0.

Every agent in turn picks the move (left, stay, right) that maximizes the team's equal-weight
utility of the final positions (the agents' rewards summed per objective, what a ``moma`` suite
scores: under individual rewards ``sum_s x_s^2 exp(-x_s / c)`` and ``sum_s min_t n_t``), the
others' moves as chosen so far (all start at "stay"), for ``rounds`` sweeps. Each sweep only
climbs, so it ends at a local optimum of that utility reachable in one move. With
``num_timesteps > 1`` it re-plans every step from where the agents stand.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from benchmarkzoo.envs.multiagent.beach import sim


def team_utility(section: np.ndarray, types: np.ndarray, params: sim.Params) -> np.ndarray:
    """``(B,)`` the equal-weight utility of the agents' summed last-step rewards, standing at ``section``."""
    state = sim.State(types, section, np.zeros(section.shape[0], dtype=np.int64))
    return sim.paid(state, params).sum(axis=1, dtype=np.float64) @ np.array([0.5, 0.5])


def best_responses(state: sim.State, params: sim.Params, rounds: int = 2) -> np.ndarray:
    """``(B, N)`` int64 actions of every world: ``rounds`` sweeps of best responses, in agent order."""
    start = state.section
    actions = np.full(start.shape, 1, dtype=np.int64)  # stay
    worlds = np.arange(start.shape[0])
    for _ in range(rounds):
        for k in range(params.num_agents):
            scores = []
            for move in range(len(sim.MOVES)):
                trial = actions.copy()
                trial[:, k] = move
                section = np.clip(start + sim.MOVES[trial], 0, params.num_sections - 1)
                scores.append(team_utility(section, state.types, params))
            actions[worlds, k] = np.argmax(np.stack(scores, axis=1), axis=1)  # ties: the first (left, stay)
    return actions


class BestResponsePolicy:
    """Iterated best responses (module docstring) on an ``MOBeachEnv`` (an action dict) or its vector form."""

    def __init__(self, rounds: int = 2):
        self.rounds = rounds

    def __call__(self, env: Any) -> dict[str, int] | np.ndarray:
        """The actions for ``env``'s current state: a dict per agent, or ``(num_envs, N)`` for a native vector env."""
        actions = best_responses(env.sim_state, env.params, self.rounds)
        if hasattr(env, "num_envs"):
            return actions
        return {agent: int(actions[0, env.possible_agents.index(agent)]) for agent in env.agents}
