"""Exploitability that sees sequences: online n-gram best responders shadowing each player of a match.

A best response to the empirical mix of a player's moves sees only marginals: it scores a
deterministic R, P, S cycle 0.0, while an opponent that remembers the last move wins every
round. So each world keeps, for each player, :data:`NUM_RESPONDERS` n-gram responders. Responder
``r`` keeps counts of the player's move given a context (its own last ``k`` moves, or the last
``k`` whole rounds), predicts the player's next move as the most frequent one in the current
context (rock on a tie or an unseen context; a context longer than the match so far falls back
to the order-0 counts) and plays the move that beats it:

=====  ==========================================  ========  ==============================================
name   context                                     contexts  catches
=====  ==========================================  ========  ==============================================
own-0  none (move frequencies)                     1         biased and constant play
own-1  the player's last move                      3         cycles (R P S ...), "repeat" habits
own-2  the player's last two moves                 9         R R P P S S ..., longer cycles
own-3  the player's last three moves               27        period-3 patterns of pairs
pair-1 the last round (own move, opponent's)       9         reactions: copy / beat the opponent, win-stay
pair-2 the last two rounds                         81        reactions over two rounds
=====  ==========================================  ========  ==============================================

``K = 3`` own moves and 2 whole rounds: with 100 rounds a match, an order-``k`` table over whole
rounds has ``9**k`` contexts, and ``k = 3`` (729 contexts) would not be seen enough to learn.

Every responder predicts from the past only, so each is an opponent that could really play
that match. The value reported is the **follow-the-leader** responder's: each round it plays the
move of the responder with the highest score so far (the first on ties), the online form of
"the max over the orders" that needs no hindsight. Against a player whose moves do not depend on
the opponent's (a cycle, a constant, a uniform random player) this is exactly what that opponent
would score; against a reactive player it is the score on the rounds the player actually played
(a counterfactual: the player would have met the responder's moves instead). A uniformly random
player gives every opponent an expected 0 per round; a negative value means the responders lose
to the player (the true exploitability of any policy is at least 0).

The statistics are int32 counts (half the memory of floats: 3 kB a world) with each context's
most counted move kept beside them (the first on ties, as
:func:`~benchmarkzoo.envs.multiagent.rps.sim.predict` breaks them), so a guess is one lookup;
this module never touches a random stream, so bot play and rollouts are unchanged by it. The
cost is measured: about 1 ms of CPU per step of 1,024 worlds on this 2-core machine under load,
roughly as much again as the rest of a population step.
"""

from __future__ import annotations

import numpy as np

#: The responders, in the order of the last axis of the scores.
RESPONDERS: tuple[str, ...] = ("own-0", "own-1", "own-2", "own-3", "pair-1", "pair-2")
NUM_RESPONDERS = len(RESPONDERS)
# first row of each responder's contexts in the counts table, and the table's height
_OFFSETS = np.array([0, 1, 4, 13, 40, 49], dtype=np.int64)
NUM_CONTEXTS = 130
#: The history key of a match's start (nothing known); see :func:`next_key`.
START_KEY = 0
_MOVES = np.arange(3, dtype=np.int64)
_PAYOFF = np.array([-1, 0, 1, -1, 0], dtype=np.int64)  # payoff of (guess + 1) against a move, by guess - move + 2


def _context_table() -> np.ndarray:
    """``(4096, R)`` int64: for every history key, the first of each responder's 3 counts in a player's table.

    A key holds the last three rounds from the player's side, most recent first, a base-16 digit
    each: ``own + 4 * opponent``, each move ``+1`` (``0``: no round yet). A context longer than the
    rounds known reads the order-0 counts (row 0).
    """
    key = np.arange(16**3)
    own = np.stack([(key >> (4 * j)) % 4 for j in range(3)], axis=1) - 1  # (4096, 3), -1: no round
    other = np.stack([(key >> (4 * j + 2)) % 4 for j in range(3)], axis=1) - 1
    pair = own * 3 + other
    rows = np.stack(
        [
            np.zeros_like(key),
            own[:, 0],
            own[:, 0] + 3 * own[:, 1],
            own[:, 0] + 3 * own[:, 1] + 9 * own[:, 2],
            pair[:, 0],
            pair[:, 0] + 9 * pair[:, 1],
        ],
        axis=1,
    )
    needs = np.array([0, 1, 2, 3, 1, 2])
    # a round is known when its own move is (both players move every round, so the opponent's is too)
    known = np.cumprod(own >= 0, axis=1)  # (4096, 3)
    enough = np.concatenate([np.ones((key.size, 1), dtype=bool), known.astype(bool)], axis=1)[:, needs]
    table = np.where(enough, rows + _OFFSETS, 0) * 3
    table.setflags(write=False)
    return table


_CONTEXT = _context_table()


def next_key(key: np.ndarray, moves: np.ndarray) -> np.ndarray:
    """``(B, 2)`` int64: each player's history key after a round of ``moves`` (``(B, 2)``), from ``key`` before it."""
    return moves + 4 * moves[:, ::-1] + 5 + 16 * (key % 256)


def update(
    counts: np.ndarray, best: np.ndarray, key: np.ndarray, score: np.ndarray, value: np.ndarray, moves: np.ndarray
) -> None:
    """Score every responder against this round's ``moves``, then let them learn; in place.

    Args:
        counts: ``(B, 2, NUM_CONTEXTS, 3)`` int32, each player's moves counted per context.
        best: ``(B, 2, NUM_CONTEXTS)`` int8, each context's most counted move (the first on ties),
            kept with ``counts`` so a guess is one lookup, not an argmax.
        key: ``(B, 2)`` int64, each player's history key before this round (:func:`next_key`).
        score: ``(B, 2, R)`` float64, each responder's total payoff against each player so far.
        value: ``(B, 2)`` float64, the follow-the-leader responder's total against each player.
        moves: ``(B, 2)`` int64, this round's moves as played.
    """
    num_worlds = moves.shape[0]
    row = _CONTEXT[key] // 3 + _context_starts(num_worlds)  # (B, 2, R): each responder's context, flat
    flat_best = best.reshape(-1)  # views
    flat = counts.reshape(-1)
    guess = flat_best[row].astype(np.int64)  # (B, 2, R): the predicted move
    target = moves[:, :, None]  # (B, 2, 1)
    gain = _PAYOFF[guess - target + 2]  # (B, 2, R): what beats the guess, against the move
    leader = score.argmax(axis=-1).ravel() + _row_starts(num_worlds)  # (2B,), chosen before this round's gains
    value += gain.reshape(-1)[leader].reshape(value.shape)
    score += gain
    # Learn. Unknown contexts all read row 0: a repeated index writes the same value once, so row 0
    # counts the move once. Only the counted move can become the best: it does when it passes the
    # best's count, or ties it from a lower index (the first on ties).
    at = row * 3
    seen = flat[at + target] + 1  # (B, 2, R)
    flat[at + target] = seen
    leading = flat[at + guess]
    overtakes = (seen > leading) | ((seen == leading) & (target < guess))
    flat_best[row] = np.where(overtakes, target, guess)


def _guesses(best: np.ndarray, key: np.ndarray) -> np.ndarray:
    """``(B, 2, R)`` int64: each responder's guess of each player's next move."""
    row = _CONTEXT[key] // 3 + _context_starts(key.shape[0])
    return best.reshape(-1)[row].astype(np.int64)


def context_starts(key: np.ndarray) -> np.ndarray:
    """``(..., R)`` int64: where each responder's context of history ``key`` starts in one player's flat counts."""
    return _CONTEXT[key]


def guess(flat: np.ndarray, at: np.ndarray) -> np.ndarray:
    """The move each context predicts: the most frequent in ``flat[at:at + 3]``.

    The first on ties (rock when nothing is known); ``at`` of any shape, the result of its shape.
    """
    seen = flat[at[..., None] + _MOVES]  # (..., 3): the counts of the contexts
    rock, paper, scissors = seen[..., 0], seen[..., 1], seen[..., 2]
    over_rock = paper > rock  # argmax over 3, unrolled
    return np.where(scissors > np.where(over_rock, paper, rock), 2, over_rock)


def leader_moves(best: np.ndarray, key: np.ndarray, score: np.ndarray) -> np.ndarray:
    """``(B, 2)`` int64: the move the follow-the-leader responder plays next against each player.

    Lets the responder really play (:func:`~benchmarkzoo.envs.multiagent.rps.baseline.played_exploitability`)
    instead of shadowing a match; arguments as :func:`update`'s.
    """
    guess = _guesses(best, key)  # (B, 2, R)
    leader = score.argmax(axis=-1)[:, :, None]  # (B, 2, 1)
    return (np.take_along_axis(guess, leader, axis=-1)[:, :, 0] + 1) % 3


_STARTS: dict[int, tuple[np.ndarray, np.ndarray]] = {}


def _starts(num_worlds: int) -> tuple[np.ndarray, np.ndarray]:
    """Offsets of world ``b``'s player ``p`` among flat contexts (``(B, 2, 1)``) and flat scores (``(2B,)``), cached."""
    starts = _STARTS.get(num_worlds)
    if starts is None:
        player = np.arange(num_worlds * 2, dtype=np.int64)
        starts = (player.reshape(num_worlds, 2, 1) * NUM_CONTEXTS, player * NUM_RESPONDERS)
        for array in starts:
            array.setflags(write=False)
        _STARTS[num_worlds] = starts
    return starts


def _context_starts(num_worlds: int) -> np.ndarray:
    return _starts(num_worlds)[0]


def _row_starts(num_worlds: int) -> np.ndarray:
    return _starts(num_worlds)[1]


def per_round(total: np.ndarray, t: np.ndarray) -> np.ndarray:
    """``total`` (``(B, ...)``) divided by the rounds played ``t`` (``(B,)``); ``0`` before the first round."""
    rounds = np.maximum(t, 1).astype(np.float64)
    return total / rounds.reshape(rounds.shape + (1,) * (total.ndim - 1))
