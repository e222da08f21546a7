"""A pattern-matching best responder (the RPSPopulation and RPSSelfPlay baseline) and the population metrics.

The responder is privileged only in convenience: it reads the match statistics the simulator
keeps (counts of the bot's moves given the last round, its last move, overall), which the agent
could rebuild from the observations it has seen.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from benchmarkzoo.envs.multiagent.rps import sim
from benchmarkzoo.envs.multiagent.rps.generator import BOTS, RPSScenario


class PatternMatchingPolicy:
    """Predicts the opponent's next move from its moves after the same last round (falling back to
    its last move, then its overall frequencies) and plays the move that beats the prediction.

    Works on :class:`~benchmarkzoo.envs.multiagent.rps.env.RPSPopulationEnv` (returns an int),
    :class:`~benchmarkzoo.envs.multiagent.rps.vector_env.RPSPopulationVectorEnv` (returns ``(B,)``
    int64), and in self-play for both seats on
    :class:`~benchmarkzoo.envs.multiagent.rps.env.RPSSelfPlayEnv` (returns an action dict for
    ``env.agents``) or :class:`~benchmarkzoo.envs.multiagent.rps.vector_env.RPSSelfPlayVectorEnv`
    (returns ``(B, 2)`` int64).

    Args:
        model: ``"pair"`` (default), ``"two"``, ``"markov"`` or ``"frequency"`` (see :func:`sim.predict`).
    """

    def __init__(self, model: str = "pair"):
        if model not in ("pair", "two", "markov", "frequency", "recent"):
            raise ValueError(f"model must be 'pair', 'two', 'markov', 'frequency' or 'recent'; got {model!r}.")
        self.model = model

    def act(self, state: sim.State, player: int = 0) -> np.ndarray:
        """``(B,)`` int64 moves of ``player``: what beats the predicted move of the other player."""
        worlds = np.arange(state.t.shape[0])
        guess = sim.predict(state, worlds, 1 - player, self.model, np.zeros(worlds.shape))  # no history: rock
        return (guess + 1) % 3

    def __call__(self, env) -> int | np.ndarray | dict[str, int]:
        env = getattr(env, "unwrapped", env)
        if hasattr(env, "possible_agents"):  # self-play: both seats
            actions = np.stack([self.act(env.sim_state, p) for p in (0, 1)], axis=1)  # (B, 2)
            if hasattr(env, "num_envs"):
                return actions
            return {agent: int(actions[0, env.possible_agents.index(agent)]) for agent in env.agents}
        actions = self.act(env.state)
        return actions if hasattr(env, "num_envs") else int(actions[0])


def uniform_policy(seed: int = 0) -> Callable[[sim.State], np.ndarray]:
    """A uniformly random player, as an ``act(state)`` function for :func:`evaluate_population`."""
    rng = np.random.default_rng(seed)
    return lambda state: rng.integers(3, size=state.t.shape[0])


def evaluate_population(
    act: Callable[[sim.State], np.ndarray],
    bots: Sequence[str] = BOTS,
    episodes: int = 20,
    rounds: int = 100,
    noise: float = 0.0,
    seed: int = 0,
) -> dict[str, object]:
    """Play ``act`` against every bot, ``episodes`` matches of ``rounds`` rounds each, all in one batch.

    Args:
        act: maps the batched :class:`sim.State` to ``(B,)`` moves (e.g. ``PatternMatchingPolicy().act``).
        bots: the opponents; match ``e`` against a bot uses ``RPSScenario(bot, noise, seed=seed * 1000 + e)``.

    Returns:
        ``mean_return``: return per round averaged over every match; ``per_bot``: that average per
        bot; ``exploitability``: mean over matches of the best-response return per round against the
        agent's empirical move frequencies in the match (0 uniform, 1 constant).
    """
    params = sim.Params()
    scenarios = [RPSScenario(bot=b, noise=noise, seed=seed * 1000 + e) for b in bots for e in range(episodes)]
    state = sim.init_state(params, len(scenarios))
    for i, scenario in enumerate(scenarios):
        sim.load(state, i, scenario)
    total = np.zeros(len(scenarios))
    for _ in range(rounds):
        moves = np.asarray(act(state), dtype=np.int64)
        total += sim.play(state, moves, sim.bot_moves(state))
    per_match = total / rounds
    per_bot = {b: float(per_match[i * episodes : (i + 1) * episodes].mean()) for i, b in enumerate(bots)}
    return {
        "mean_return": float(per_match.mean()),
        "per_bot": per_bot,
        "exploitability": float(sim.exploitability(state).mean()),
    }
