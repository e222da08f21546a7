"""The RPS simulator: batched numpy over worlds, shared by the single, vector and self-play forms.

Moves are ``0`` rock, ``1`` paper, ``2`` scissors; ``(m + 1) % 3`` beats ``m``. Every world
holds two players: player 0 is the learner (``player_0`` in self-play), player 1 the scripted
bot (``player_1`` in self-play, a world loaded with an :class:`RPSSelfPlayScenario`, whose
``bot`` is ``-1``). The state keeps the whole game's statistics for both players
(move counts, decayed counts, transition counts given the last move, the last pair and the
last two moves), which the bots and the baseline read; observations show only the last ``K``
rounds. It also keeps, for each player, the n-gram best responders of
:mod:`~benchmarkzoo.envs.multiagent.rps.responders`, whose score is the player's exploitability.

Bot randomness never touches a ``numpy.random.Generator``: a bot's ``u`` in round ``t`` is a
splitmix64 hash of its scenario's ``seed``, ``t`` and a stream number. It is a pure function of
the scenario and the round, so a world plays the same in a batch of any size (native vector ==
``SyncVectorEnv``) and a recorded scenario replays exactly. A self-play world has no bot, so its
players' trembles (:func:`tremble`) draw from the same four streams, two per player.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from benchmarkzoo.envs.multiagent.rps import responders
from benchmarkzoo.envs.multiagent.rps.generator import BOTS, RPSScenario, RPSSelfPlayScenario

NUM_MOVES = 3
MOVE_NAMES = ("rock", "paper", "scissors")
DECAY = 0.8  # of the "recent" counts
META_DECAY = 0.9  # of meta_predictor's candidate scores
SWITCH_DECAY, SWITCH_THRESHOLD = 0.8, -1.5  # switcher's running score and when it gives up a strategy
_BOT = {name: i for i, name in enumerate(BOTS)}
# streams of the per-round hash
_NOISE, _CHOICE, _MIX, _NOISE_MOVE = range(4)
# self-play trembles, per player: whether the hand trembles, and the move it then plays
_TREMBLE_WHETHER = np.array([_NOISE, _CHOICE], dtype=np.uint64)
_TREMBLE_WHICH = np.array([_NOISE_MOVE, _MIX], dtype=np.uint64)
_FIRST_ADAPTIVE = min(_BOT[name] for name in ("meta_predictor", "switcher", "regret_matching"))
_ONE_HOT = np.vstack([np.eye(NUM_MOVES), np.zeros((1, NUM_MOVES))]).astype(np.float32)  # row -1: no move yet
_ONE_HOT.setflags(write=False)


@dataclasses.dataclass(frozen=True)
class Params:
    """Constants of one env instance.

    Attributes:
        history: ``K``, the rounds shown in an observation (most recent first).
    """

    history: int = 5

    @property
    def obs_size(self) -> int:
        """Entries of an observation: the one-hot moves of both players over ``history`` rounds."""
        return self.history * 2 * NUM_MOVES


@dataclasses.dataclass
class State:
    """Mutable state of ``B`` worlds. Axis 1 of the statistics is the player whose moves they count.

    Attributes:
        bot: ``(B,)`` int64 strategy index of player 1 (``-1``: no bot, self-play).
        noise: ``(B,)`` float64, the bot's noise level (self-play: each player's tremble probability).
        seed: ``(B,)`` uint64, the seed of the bot's random stream (self-play: of the trembles).
        t: ``(B,)`` int64 rounds played.
        wins: ``(B, 2)`` int64 rounds won by each player (draws are ``t - wins.sum(1)``).
        hist: ``(B, K, 2)`` int64 moves of the last ``K`` rounds, most recent first, ``-1`` before the game.
        last, prev: ``(B, 2)`` int64 each player's last and second-to-last move (``-1``: none).
        counts: ``(B, 2, 3)`` float64 move counts; ``recent``: the same decayed by :data:`DECAY` per round.
        trans: ``(B, 2, 3, 3)`` counts of a player's move given its last move.
        pair: ``(B, 2, 9, 3)`` counts given the last round (``own * 3 + other``).
        two: ``(B, 2, 9, 3)`` counts given the player's last two moves (``prev * 3 + last``).
        meta, candidates: ``(B, 9)`` meta_predictor's candidate scores and this round's candidates.
        switch, switch_score: ``(B,)`` switcher's current strategy and running score.
        regret: ``(B, 3)`` regret_matching's cumulative regrets.
        br_key: ``(B, 2)`` int64 the last three rounds from each player's side (:func:`responders.next_key`),
            which the responders' contexts read (``hist`` may be shorter).
        br_counts: ``(B, 2, C, 3)`` int32 each player's moves counted per responder context (``C`` =
            :data:`responders.NUM_CONTEXTS`); ``br_best``: ``(B, 2, C)`` int8 each context's most counted move.
        br_score: ``(B, 2, R)`` each responder's total payoff against each player.
        br_value: ``(B, 2)`` the follow-the-leader responder's total: each player's exploitability times ``t``.
    """

    bot: np.ndarray
    noise: np.ndarray
    seed: np.ndarray
    t: np.ndarray
    wins: np.ndarray
    hist: np.ndarray
    last: np.ndarray
    prev: np.ndarray
    counts: np.ndarray
    recent: np.ndarray
    trans: np.ndarray
    pair: np.ndarray
    two: np.ndarray
    meta: np.ndarray
    candidates: np.ndarray
    switch: np.ndarray
    switch_score: np.ndarray
    regret: np.ndarray
    br_key: np.ndarray
    br_counts: np.ndarray
    br_best: np.ndarray
    br_score: np.ndarray
    br_value: np.ndarray


def init_state(params: Params, num_worlds: int) -> State:
    """The state of ``num_worlds`` worlds before their first game (every game is started by ``load``)."""
    b = num_worlds
    return State(
        bot=np.full(b, -1, dtype=np.int64),
        noise=np.zeros(b),
        seed=np.zeros(b, dtype=np.uint64),
        t=np.zeros(b, dtype=np.int64),
        wins=np.zeros((b, 2), dtype=np.int64),
        hist=np.full((b, params.history, 2), -1, dtype=np.int64),
        last=np.full((b, 2), -1, dtype=np.int64),
        prev=np.full((b, 2), -1, dtype=np.int64),
        counts=np.zeros((b, 2, 3)),
        recent=np.zeros((b, 2, 3)),
        trans=np.zeros((b, 2, 3, 3)),
        pair=np.zeros((b, 2, 9, 3)),
        two=np.zeros((b, 2, 9, 3)),
        meta=np.zeros((b, 9)),
        candidates=np.zeros((b, 9), dtype=np.int64),
        switch=np.zeros(b, dtype=np.int64),
        switch_score=np.zeros(b),
        regret=np.zeros((b, 3)),
        br_key=np.full((b, 2), responders.START_KEY, dtype=np.int64),
        br_counts=np.zeros((b, 2, responders.NUM_CONTEXTS, 3), dtype=np.int32),
        br_best=np.zeros((b, 2, responders.NUM_CONTEXTS), dtype=np.int8),
        br_score=np.zeros((b, 2, responders.NUM_RESPONDERS)),
        br_value=np.zeros((b, 2)),
    )


def load(state: State, world: int, scenario: RPSScenario | RPSSelfPlayScenario | None) -> None:
    """Start a new game in world ``world``: against ``scenario``'s bot, or self-play.

    Self-play takes an :class:`RPSSelfPlayScenario`, or ``None`` for self-play without trembles.
    """
    for field in dataclasses.fields(state):
        arr = getattr(state, field.name)
        arr[world] = -1 if field.name in ("bot", "hist", "last", "prev") else 0
    if isinstance(scenario, RPSScenario):
        state.bot[world] = scenario.bot_index
    if scenario is not None:
        state.noise[world] = scenario.noise
        state.seed[world] = scenario.seed


def payoff(mine: np.ndarray, theirs: np.ndarray) -> np.ndarray:
    """``+1`` where ``mine`` beats ``theirs``, ``-1`` where it loses, ``0`` on a draw (int64, broadcasting)."""
    return (mine - theirs + 1) % 3 - 1


# ---- the bots' random stream ----------------------------------------------------------------------

_GOLDEN, _M1, _M2 = np.uint64(0x9E3779B97F4A7C15), np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)


def _splitmix(x: np.ndarray) -> np.ndarray:
    z = x + _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


def uniforms(seed: np.ndarray, t: np.ndarray, stream: int) -> np.ndarray:
    """``(n,)`` float64 in ``[0, 1)``: the bot's draw number ``stream`` of round ``t``."""
    key = _splitmix(t.astype(np.uint64) * np.uint64(4) + np.uint64(stream))
    return (_splitmix(seed ^ key) >> np.uint64(11)).astype(np.float64) * (1.0 / 2**53)


def _uniforms_per_player(seed: np.ndarray, t: np.ndarray, streams: np.ndarray) -> np.ndarray:
    """``(n, 2)``: column ``p`` is ``uniforms(seed, t, streams[p])``, in one pass."""
    key = _splitmix(t.astype(np.uint64)[:, None] * np.uint64(4) + streams)
    return (_splitmix(seed[:, None] ^ key) >> np.uint64(11)).astype(np.float64) * (1.0 / 2**53)


def _pick(u: np.ndarray) -> np.ndarray:
    return np.minimum((u * 3).astype(np.int64), 2)


def _sample(weights: np.ndarray, u: np.ndarray) -> np.ndarray:
    """A move drawn with probabilities ``weights / weights.sum()`` (rows with zero weight: uniform)."""
    total = weights.sum(axis=1)
    flat = total <= 0
    weights = np.where(flat[:, None], 1.0, weights)
    cum = np.cumsum(weights, axis=1)
    return np.sum((u * cum[:, -1])[:, None] >= cum[:, :2], axis=1)


# ---- predictions of a player's next move ---------------------------------------------------------


def _row(table: np.ndarray, w: np.ndarray, player: int, key: np.ndarray) -> np.ndarray:
    """``table[w, player, key]``, zeros where ``key < 0`` (no history yet)."""
    rows = table[w, player, np.maximum(key, 0)]
    return np.where((key >= 0)[:, None], rows, 0.0)


def _predict(rows: list[np.ndarray], u: np.ndarray) -> np.ndarray:
    """The argmax of the first non-empty row of ``rows`` (first index on ties), else a random move."""
    move = _pick(u)
    done = np.zeros(move.shape, dtype=bool)
    for row in rows:
        use = ~done & (row.sum(axis=1) > 0)
        move = np.where(use, np.argmax(row, axis=1), move)
        done |= use
    return move


def predict(state: State, w: np.ndarray, player: int, model: str, u: np.ndarray) -> np.ndarray:
    """Predict ``player``'s next move in worlds ``w`` from its statistics.

    ``model``: ``"frequency"``, ``"recent"``, ``"markov"`` (given its last move, falling back to
    frequency), ``"pair"`` (given the last round, then markov, then frequency) or ``"two"`` (given
    its last two moves, then markov, then frequency). Unknown history: ``_pick(u)``.
    """
    other = 1 - player
    freq = state.counts[w, player]
    if model == "frequency":
        return _predict([freq], u)
    if model == "recent":
        return _predict([state.recent[w, player]], u)
    last, last_other, prev = state.last[w, player], state.last[w, other], state.prev[w, player]
    markov = _row(state.trans, w, player, last)
    if model == "markov":
        return _predict([markov, freq], u)
    if model == "pair":
        key = np.where((last >= 0) & (last_other >= 0), last * 3 + last_other, -1)
        return _predict([_row(state.pair, w, player, key), markov, freq], u)
    if model == "two":
        key = np.where((prev >= 0) & (last >= 0), prev * 3 + last, -1)
        return _predict([_row(state.two, w, player, key), markov, freq], u)
    raise ValueError(f"unknown model {model!r}")


# ---- the bots -------------------------------------------------------------------------------------


def _meta_candidates(state: State, w: np.ndarray, u: np.ndarray) -> np.ndarray:
    """``(n, 9)``: for three predictions ``p`` of the agent's move, the moves ``p + 1``, ``p + 2``, ``p + 3``."""
    preds = [predict(state, w, 0, model, u) for model in ("frequency", "markov", "pair")]
    return np.stack([(p + 1 + r) % 3 for p in preds for r in range(3)], axis=1)


# Bots that play the move beating their model's prediction of the agent's next move.
_BEAT_PREDICTION = {
    "frequency": "frequency",
    "frequency_recent": "recent",
    "markov": "markov",
    "markov_pair": "pair",
    "markov_two": "two",
}


def _strategy(name: str, state: State, w: np.ndarray, u: np.ndarray, u_mix: np.ndarray) -> np.ndarray:
    """Bot ``name``'s move in worlds ``w`` (before noise)."""
    t = state.t[w]
    agent_last, own_last = state.last[w, 0], state.last[w, 1]
    seen = agent_last >= 0
    rnd = _pick(u)
    if name in ("rock", "paper", "scissors"):
        return np.full(w.shape, MOVE_NAMES.index(name), dtype=np.int64)
    if name == "cycle_up":
        return t % 3
    if name == "cycle_down":
        return (-t) % 3
    if name == "cycle_double":
        return (t // 2) % 3
    if name == "biased":
        return np.where(u < 0.5, 0, np.where(u < 0.8, 1, 2))
    if name == "uniform":
        return rnd
    if name == "copy_last":
        return np.where(seen, agent_last, rnd)
    if name == "beat_last":
        return np.where(seen, (agent_last + 1) % 3, rnd)
    if name == "lose_to_last":
        return np.where(seen, (agent_last + 2) % 3, rnd)
    outcome = payoff(own_last, agent_last)
    if name == "win_stay_lose_shift":
        return np.where(~seen, rnd, np.where(outcome == 1, own_last, (own_last + 1) % 3))
    if name == "win_stay_lose_beat":
        move = np.where(outcome == 1, own_last, np.where(outcome == -1, (agent_last + 1) % 3, rnd))
        return np.where(seen, move, rnd)
    if name in _BEAT_PREDICTION:
        return (predict(state, w, 0, _BEAT_PREDICTION[name], u) + 1) % 3
    if name == "frequency_sampled":
        return (_sample(state.counts[w, 0] + 1.0, u) + 1) % 3
    if name == "second_guess":  # the agent will beat my favourite move: beat that
        return (predict(state, w, 1, "frequency", u) + 2) % 3
    if name == "beat_beat_last":  # the agent will beat my last move: beat that
        return np.where(seen, (own_last + 2) % 3, rnd)
    if name == "mixture":
        model = np.where(u_mix < 0.5, predict(state, w, 0, "frequency", u), predict(state, w, 0, "markov", u))
        return (model + 1) % 3
    if name == "meta_predictor":
        candidates = _meta_candidates(state, w, u)
        state.candidates[w] = candidates
        return candidates[np.arange(w.size), np.argmax(state.meta[w], axis=1)]
    if name == "switcher":
        options = np.stack(
            [
                (predict(state, w, 0, "frequency", u) + 1) % 3,
                (predict(state, w, 0, "markov", u) + 1) % 3,
                np.where(seen, (agent_last + 1) % 3, rnd),
                rnd,
            ],
            axis=1,
        )
        return options[np.arange(w.size), state.switch[w]]
    if name == "regret_matching":
        return _sample(np.maximum(state.regret[w], 0.0), u)
    raise ValueError(f"unknown bot {name!r}")


def bot_moves(state: State) -> np.ndarray:
    """``(B,)`` int64: every bot's move this round (``0`` in worlds without a bot)."""
    moves = np.zeros(state.bot.shape, dtype=np.int64)
    has_bot = state.bot >= 0
    if not has_bot.any():
        return moves
    seed, t = state.seed, state.t
    u = uniforms(seed, t, _CHOICE)
    u_mix = uniforms(seed, t, _MIX)
    for index in np.unique(state.bot[has_bot]).tolist():
        w = np.flatnonzero(state.bot == index)
        moves[w] = _strategy(BOTS[index], state, w, u[w], u_mix[w])
    noisy = has_bot & (uniforms(seed, t, _NOISE) < state.noise)
    return np.where(noisy, _pick(uniforms(seed, t, _NOISE_MOVE)), moves)


def tremble(state: State, moves: np.ndarray) -> np.ndarray:
    """Self-play noise: ``(B, 2)`` int64, the chosen ``moves`` with trembles (a fresh array).

    Each player's move is replaced by a uniformly random move with probability ``state.noise``;
    worlds with a bot are unchanged.
    """
    out = np.array(moves, dtype=np.int64)
    if not state.noise.any():
        return out
    seed, t = state.seed, state.t
    shaky = (state.bot < 0)[:, None] & (_uniforms_per_player(seed, t, _TREMBLE_WHETHER) < state.noise[:, None])
    if shaky.any():  # the random moves are drawn only when needed (they are pure functions of seed and t)
        out = np.where(shaky, _pick(_uniforms_per_player(seed, t, _TREMBLE_WHICH)), out)
    return out


def _learn(state: State, agent: np.ndarray, bot: np.ndarray) -> None:
    """The adaptive bots' updates after a round (before the statistics move on)."""
    if state.bot.max(initial=-1) < _FIRST_ADAPTIVE:  # no adaptive bot in the batch (self-play included)
        return
    for name in ("meta_predictor", "switcher", "regret_matching"):
        w = np.flatnonzero(state.bot == _BOT[name])
        if w.size == 0:
            continue
        a = agent[w][:, None]
        if name == "meta_predictor":
            state.meta[w] = META_DECAY * state.meta[w] + payoff(state.candidates[w], a)
        elif name == "switcher":
            score = SWITCH_DECAY * state.switch_score[w] + payoff(bot[w], agent[w])
            give_up = score < SWITCH_THRESHOLD
            state.switch[w] = np.where(give_up, (state.switch[w] + 1) % 4, state.switch[w])
            state.switch_score[w] = np.where(give_up, 0.0, score)
        else:
            gains = payoff(np.arange(3)[None, :], a) - payoff(bot[w], agent[w])[:, None]
            state.regret[w] += gains


def play(state: State, move0: np.ndarray, move1: np.ndarray) -> np.ndarray:
    """Play one round in every world; returns player 0's ``(B,)`` float64 reward (+1 win, 0 draw, -1 loss)."""
    _learn(state, move0, move1)
    moves = np.stack([move0, move1], axis=1)  # (B, 2)
    b, p = np.arange(moves.shape[0])[:, None], np.arange(2)[None, :]  # (B, 1), (1, 2)
    state.counts[b, p, moves] += 1.0
    state.recent *= DECAY
    state.recent[b, p, moves] += 1.0
    # both players move every round, so both have a last (and a previous) move or neither has
    w = np.flatnonzero(state.last[:, 0] >= 0)
    if w.size:
        last, mine = state.last[w], moves[w]  # (n, 2) each
        state.trans[w[:, None], p, last, mine] += 1.0
        state.pair[w[:, None], p, last * 3 + last[:, ::-1], mine] += 1.0
    w = np.flatnonzero(state.prev[:, 0] >= 0)
    if w.size:
        state.two[w[:, None], p, state.prev[w] * 3 + state.last[w], moves[w]] += 1.0
    state.prev[:] = state.last
    state.last[:] = moves
    state.hist[:, 1:] = state.hist[:, :-1].copy()
    state.hist[:, 0] = moves
    responders.update(state.br_counts, state.br_best, state.br_key, state.br_score, state.br_value, moves)
    state.br_key[:] = responders.next_key(state.br_key, moves)
    state.t += 1
    outcome = payoff(move0, move1)
    state.wins[:, 0] += outcome == 1
    state.wins[:, 1] += outcome == -1
    return outcome.astype(np.float64)


def observe(state: State, player: int = 0) -> np.ndarray:
    """``(B, K * 6)`` float32: the last ``K`` rounds (most recent first) as seen by ``player``.

    Each round is the one-hot of ``player``'s move then of the opponent's; zeros for rounds before
    the game.
    """
    hist = state.hist[:, :, [player, 1 - player]]  # (B, K, 2)
    return _ONE_HOT[hist].reshape(hist.shape[0], -1)


def exploitability(state: State, player: int | None = 0) -> np.ndarray:
    """``(B,)`` float64 (``(B, 2)`` for ``player=None``, both players): ``player``'s exploitability so far.

    The return per round of the follow-the-leader n-gram best responder
    (:mod:`~benchmarkzoo.envs.multiagent.rps.responders`) shadowing ``player``'s moves: near ``1``
    for a constant player or a deterministic cycle, an expected ``0`` for a uniformly random one,
    in ``[-1, 1]``; ``0`` before the first round.
    """
    value = state.br_value if player is None else state.br_value[:, player]
    return responders.per_round(value, state.t)


def responder_returns(state: State, player: int = 0) -> np.ndarray:
    """``(B, R)`` float64: the return per round of each n-gram responder against ``player``
    (in the order of :data:`responders.RESPONDERS`)."""
    return responders.per_round(state.br_score[:, player], state.t)
