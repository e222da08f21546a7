"""A trained best response: the n-gram responders learning across matches, within a fixed budget, then frozen.

The responders of :mod:`~benchmarkzoo.envs.multiagent.rps.responders` start every match knowing
nothing; an opponent that has met a policy before knows it from the first round. This one is a
tabular learner: one table of the policy's moves per context (the responders' six context
families, their 130 contexts), shared by every match it plays. The budget is fixed:

* **train**: ``train_matches`` matches (20) of ``rounds`` rounds (100) against the policy,
  played side by side (2,000 rounds in all). Each round the learner plays the move of the
  context family with the best score so far (follow the leader, scores summed over matches),
  then counts the policy's moves. Every move the policy sees is the learner's own, so what it
  learns is the policy's answer to it.
* **test**: ``test_matches`` fresh matches (20), from the trained table, which keeps counting
  (the test matches' past rounds only). Frozen, it would be a fixed opponent, which an adaptive
  policy learns within a match and beats: the pattern-matching baseline takes 0.93 a round off
  a frozen learner.

The value reported is the learner's return per round on the test matches, with its 95% bootstrap
interval over them: an opponent that really played, trained on other matches than the ones it is
scored on. A deterministic cycle scores 1.00 (it is known from the first round), a uniform
random player -0.03 [-0.07, 0.01], the pattern-matching baseline -0.01: counts summed over 2,000
rounds change slowly, and the baseline re-learns its opponent every match, so this learner does
worse against it than the per-match responder of
:func:`~benchmarkzoo.envs.multiagent.rps.baseline.played_exploitability` (0.21). Each is an
opponent that could really play, so each is a lower bound of the policy's exploitability.
Tabular and counting (rather than a network with gradient steps) because a policy's RPS play is
a function of the recent history, which 130 contexts already cover, and because counts learn it
in a budget a test can afford (well under a second).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from benchmarkzoo.envs.multiagent.rps import responders, sim
from benchmarkzoo.envs.multiagent.rps.generator import RPSSelfPlayScenario
from benchmarkzoo.evaluation import metrics

#: The recorded budget: training matches, test matches, rounds per match.
TRAIN_MATCHES, TEST_MATCHES, ROUNDS = 20, 20, 100


def trained_exploitability(
    act: Callable[[sim.State], np.ndarray],
    train_matches: int = TRAIN_MATCHES,
    test_matches: int = TEST_MATCHES,
    rounds: int = ROUNDS,
    seed: int = 0,
) -> dict[str, object]:
    """Train the tabular best response against ``act`` within the budget, then score it on fresh matches.

    Args:
        act: maps the batched :class:`sim.State` to player 0's ``(B,)`` moves; the learner is player 1
            (a self-play world without trembles), so ``act`` sees the learner's moves as its opponent's.
        train_matches: matches the best response trains on.
        test_matches: fresh matches it is scored on.
        rounds: rounds per match.
        seed: training match ``e`` plays ``RPSSelfPlayScenario(seed=seed * 1000 + e)``, test match ``e``
            ``seed * 1000 + 500 + e``.

    Returns:
        ``exploitability``: the learner's return per round on the test matches, averaged;
        ``exploitability_ci``: its 95% bootstrap interval over test matches; ``responder``: the
        context family it plays; ``train``: its return per round while it learned.
    """
    learner = _Learner()
    train = learner.play(act, train_matches, rounds, seed * 1000, learn=True)
    test = learner.play(act, test_matches, rounds, seed * 1000 + 500, learn=True)
    return {
        "exploitability": float(test.mean()),
        "exploitability_ci": metrics.bootstrap_ci(test),
        "responder": responders.RESPONDERS[learner.leader],
        "train": float(train.mean()),
    }


class _Learner:
    """The shared table of the policy's moves per context, and each context family's score."""

    def __init__(self) -> None:
        self.counts = np.zeros(responders.NUM_CONTEXTS * 3, dtype=np.int64)  # (C * 3,)
        self.scores = np.zeros(responders.NUM_RESPONDERS)  # (R,)

    @property
    def leader(self) -> int:
        return int(self.scores.argmax())

    def play(self, act: Callable[[sim.State], np.ndarray], matches: int, rounds: int, first_seed: int, learn: bool):
        """``(matches,)`` the learner's return per round in each match, learning as it goes if ``learn``."""
        state = sim.init_state(sim.Params(), matches)
        for e in range(matches):
            sim.load(state, e, RPSSelfPlayScenario(noise=0.0, seed=first_seed + e))
        total = np.zeros(matches)
        for _ in range(rounds):
            at = responders.context_starts(state.br_key[:, 0])  # (M, R): the policy's contexts
            guesses = responders.guess(self.counts, at)  # (M, R)
            moves = np.asarray(act(state), dtype=np.int64)
            total -= sim.play(state, moves, (guesses[:, self.leader] + 1) % 3)  # the learner is player 1
            if learn:
                self.scores += sim.payoff(guesses + 1, moves[:, None]).sum(axis=0)
                np.add.at(self.counts, at + moves[:, None], 1)  # matches share contexts: add every one
        return total / rounds
