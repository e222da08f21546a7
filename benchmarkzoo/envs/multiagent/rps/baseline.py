"""A pattern-matching best responder (the RPSPopulation and RPSSelfPlay baseline) and the population metrics.

The population metrics (:func:`evaluate_population`) are the return against every bot and the
exploitability of the player's play: the return per round of the online n-gram best responders
of :mod:`~benchmarkzoo.envs.multiagent.rps.responders`, with 95% bootstrap intervals over matches.

The responder is privileged only in convenience: it reads the match statistics the simulator
keeps (counts of the bot's moves given the last round, its last move, overall), which the agent
could rebuild from the observations it has seen.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from benchmarkzoo.envs.multiagent.rps import responders, sim
from benchmarkzoo.envs.multiagent.rps.generator import BOTS, RPSScenario, RPSSelfPlayScenario
from benchmarkzoo.envs.multiagent.rps.responders import RESPONDERS
from benchmarkzoo.evaluation import metrics


class PatternMatchingPolicy:
    """Plays the move that beats its prediction of the opponent's next move.

    The prediction comes from the opponent's moves after the same last round, falling back to
    its last move, then its overall frequencies.

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
        """The move for ``env``'s current state: an int, ``(num_envs,)`` moves, or a dict for self-play."""
        env = getattr(env, "unwrapped", env)
        if hasattr(env, "possible_agents"):  # self-play: every learner's seat (player_0 alone against a bot)
            seats = range(len(env.possible_agents))
            actions = np.stack([self.act(env.sim_state, p) for p in seats], axis=1)  # (B, N)
            if hasattr(env, "num_envs"):
                return actions
            return {agent: int(actions[0, env.possible_agents.index(agent)]) for agent in env.agents}
        actions = self.act(env.state)
        return actions if hasattr(env, "num_envs") else int(actions[0])


def uniform_policy(seed: int = 0) -> Callable[[sim.State], np.ndarray]:
    """A uniformly random player, as an ``act(state)`` function for :func:`evaluate_population`."""
    rng = np.random.default_rng(seed)

    def act(state: sim.State) -> np.ndarray:
        return rng.integers(3, size=(state.t.shape[0],))

    return act


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
        episodes: matches against each bot.
        rounds: rounds per match.
        noise: the bots' noise level.
        seed: the base of the matches' seeds (see ``bots``).

    Returns:
        ``mean_return``: return per round averaged over every match; ``per_bot``: that average per
        bot; ``exploitability``: the follow-the-leader n-gram responder's return per round against
        the agent's moves (``info["exploitability"]`` at a match's end), averaged over matches, and
        ``exploitability_ci`` its 95% bootstrap interval over matches (:func:`metrics.bootstrap_ci`);
        ``exploitability_by_responder``: each responder's return per round, averaged over matches;
        ``best_responder``: the best of them over all matches, ``(name, mean, (low, high))``, its
        interval the bootstrap of that maximum (the matches resampled, the best responder
        re-chosen in every resample).
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
    exploit = sim.exploitability(state)  # (M,)
    by_responder = sim.responder_returns(state)  # (M, R)
    means = by_responder.mean(axis=0)
    best = int(np.argmax(means))
    return {
        "mean_return": float(per_match.mean()),
        "per_bot": per_bot,
        "exploitability": float(exploit.mean()),
        "exploitability_ci": metrics.bootstrap_ci(exploit),
        "exploitability_by_responder": {name: float(m) for name, m in zip(RESPONDERS, means)},
        "best_responder": (RESPONDERS[best], float(means[best]), metrics.bootstrap_ci(by_responder, _best_mean)),
    }


def _best_mean(matches: np.ndarray) -> float:
    """The best responder's mean return over a ``(num_matches, R)`` resample."""
    return float(matches.mean(axis=0).max())


def played_exploitability(
    act: Callable[[sim.State], np.ndarray], episodes: int = 50, rounds: int = 100, seed: int = 0
) -> dict[str, object]:
    """The follow-the-leader n-gram responder really playing ``act``: ``episodes`` matches of ``rounds`` rounds.

    :func:`evaluate_population`'s ``exploitability`` shadows the matches a player played against
    the bots; here the responder is the opponent (player 1 of a self-play world without
    trembles), so a player that reacts to its opponent meets the responder's own moves. Both
    agree for a player that ignores its opponent (a cycle, a constant, a random player).

    Args:
        act: maps the batched :class:`sim.State` to player 0's ``(B,)`` moves; it sees the
            responder's moves as its opponent's (e.g. ``PatternMatchingPolicy().act``).
        seed: match ``e`` plays ``RPSSelfPlayScenario(noise=0.0, seed=seed * 1000 + e)``.

    Returns:
        ``exploitability``: the responder's return per round, averaged over matches, and
        ``exploitability_ci`` its 95% bootstrap interval over matches.
    """
    state = sim.init_state(sim.Params(), episodes)
    for e in range(episodes):
        sim.load(state, e, RPSSelfPlayScenario(noise=0.0, seed=seed * 1000 + e))
    total = np.zeros(episodes)
    for _ in range(rounds):
        moves = np.asarray(act(state), dtype=np.int64)
        responder = responders.leader_moves(state.br_best, state.br_key, state.br_score)[:, 0]
        total -= sim.play(state, moves, responder)  # the responder's payoff is player 0's loss
    per_match = total / rounds
    return {"exploitability": float(per_match.mean()), "exploitability_ci": metrics.bootstrap_ci(per_match)}
