"""Scripted FightingDuel opponents of rising strength: the ladder, batched over worlds.

Each bot maps the simulator's state to one seat's ``(B,)`` actions (always legal: a busy fighter
gets 0). Bots are privileged in convenience only: they read the opponent's move and its frame,
which a player sees on screen (and in its observation: the move slot and phase). Their random
choices come from a hash of the scenario's seed, the frame and a stream number, so a scenario
plays the same way against the same actions in any batch.

The ladder, weakest first (:data:`BOTS`). The order is measured, not assumed:
:func:`~benchmarkzoo.envs.multiagent.fighting.ladder.ladder_order` plays each bot against the one
below it, 40 matches over every character pair, half from each seat; each wins at least 60% of
them (``tests/envs/multiagent/test_fighting_bots.py``; the figures of three seed sets are in
bench/RESULTS.md, the closest 0.625). The styles are not a transitive ranking: the jab-heavy
``rushdown`` beats ``blocker``, so only neighbours are ordered.

| bot | plays |
|---|---|
| ``passive`` | stands still |
| ``masher`` | mashes: a uniformly random legal action every step |
| ``jumper`` | jumps in from mid range with an air stomp, jabs on landing, walks forward from afar |
| ``zoner`` | keeps its distance: fireballs at range (without one, pokes), walks back (blocking) up close |
| ``mixer`` | ``blocker``'s defence; up close it reads the guard: throws a crouching block, lows a standing one |
| ``rushdown`` | walks in and attacks: mostly jabs up close, sometimes a low jab or a throw |
| ``anti_air`` | ``rushdown`` that reacts: a straight against a jump that comes in, a block against half the attacks |
| ``punisher`` | blocks attacks at the right height, then hits the recovery of a move that missed |
| ``blocker`` | frame-perfect: blocks every attack and projectile at the right height, punishes, walks in to throw |
| ``champion`` | ``blocker``, with a low against a standing block, fireballs at range, supers when the meter is full |
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarkzoo.envs.multiagent.fighting import characters as ch
from benchmarkzoo.envs.multiagent.fighting import sim
from benchmarkzoo.envs.multiagent.rps.sim import uniforms

BOTS: tuple[str, ...] = (
    "passive",
    "masher",
    "jumper",
    "zoner",
    "mixer",
    "rushdown",
    "anti_air",
    "punisher",
    "blocker",
    "champion",
)

A = sim.action_index
NEUTRAL = A("neutral", "none")
FORWARD, BACK, DOWN_BACK, CROUCH = A("forward", "none"), A("back", "none"), A("down-back", "none"), A("down", "none")
UP_FORWARD = A("up-forward", "none")
JAB, STRAIGHT = A("neutral", "light"), A("neutral", "heavy")
LOW_JAB, SWEEP = A("down", "light"), A("down", "heavy")
AIR_KICK, AIR_STOMP = A("neutral", "light"), A("neutral", "heavy")
SPECIAL, THROW, SUPER = A("neutral", "special"), A("neutral", "throw"), A("neutral", "super")


class View:
    """What a bot in seat ``p`` reads, ``(B,)`` arrays: distances, the opponent's move and its phase."""

    def __init__(self, state: sim.State, p: int):
        o = 1 - p
        self.state, self.p, self.o = state, p, o
        self.dist = np.abs(state.x[:, o] - state.x[:, p])
        self.mask = sim.action_masks(state)[:, p]  # (B, A)
        self.free = self.mask.sum(axis=1) > 1
        self.char, self.opp_char = state.char[:, p], state.char[:, o]
        move = state.move[:, o]
        slot = np.maximum(move, 0)
        frame = state.move_frame[:, o]
        startup, active = ch.STARTUP[self.opp_char, slot], ch.ACTIVE[self.opp_char, slot]
        self.opp_attacking = (move >= 0) & (frame <= startup + active)
        self.opp_recovering = (move >= 0) & (frame > startup + active)
        self.opp_level = ch.LEVEL[self.opp_char, slot]
        self.opp_reach = ch.REACH[self.opp_char, slot] + ch.ADVANCE[self.opp_char, slot] * (startup + active)
        self.opp_airborne = state.stance[:, o] == sim.AIR
        self.opp_stunned = state.stun[:, o] > 0
        toward = np.sign(state.x[:, p] - state.proj_x[:, o]) == np.sign(state.proj_vx[:, o])
        self.incoming = state.proj[:, o] & toward & (np.abs(state.proj_x[:, o] - state.x[:, p]) < 1600)
        self.meter_full = state.meter[:, p] >= ch.METER_MAX
        self.my_reach = ch.REACH[self.char]  # (B, slots)

    def u(self, stream: int) -> np.ndarray:
        """``(B,)`` uniforms in ``[0, 1)``: the bot's draw ``stream`` of this frame."""
        return uniforms(self.state.seed, self.state.t, 16 + 8 * self.p + stream)

    def in_range(self, slot: int, margin: int = 0) -> np.ndarray:
        """``(B,)`` bool: the opponent's centre is within the reach of this seat's move ``slot`` (plus ``margin``)."""
        return self.dist <= self.my_reach[:, slot] + ch.HALF_WIDTH - 50 + margin


def _guard(v: View) -> np.ndarray:
    """The right block for the threat: down-back against lows and mids, back against highs (overheads)."""
    return np.where(v.opp_level == ch.HIGH, BACK, DOWN_BACK)


def _threatened(v: View) -> np.ndarray:
    """An attack of the opponent that can reach this seat (not a throw), or a projectile coming in."""
    melee = v.opp_attacking & (v.opp_level != ch.THROW) & (v.dist <= v.opp_reach + ch.HALF_WIDTH + 200)
    return melee | v.incoming


def passive(v: View) -> np.ndarray:
    """Stands still."""
    return np.full(v.dist.shape, NEUTRAL)


def masher(v: View) -> np.ndarray:
    """A uniformly random legal action every step."""
    legal = v.mask.astype(np.float64)
    cum = np.cumsum(legal, axis=1)
    pick = v.u(0) * cum[:, -1]
    return (cum <= pick[:, None]).sum(axis=1)


def jumper(v: View) -> np.ndarray:
    """Jumps in from mid range with an air stomp, jabs on landing; walks forward from afar."""
    airborne = v.state.stance[:, v.p] == sim.AIR
    ground = np.where(v.in_range(ch.STAND_LIGHT), JAB, np.where(v.dist > 2200, FORWARD, UP_FORWARD))
    return np.where(airborne, np.where(v.dist < 1500, AIR_STOMP, NEUTRAL), ground)


def zoner(v: View) -> np.ndarray:
    """Keeps away: fireballs at range (a character without one pokes with the straight), backs off up close.

    Up close it walks back (blocking standing), with a straight against a jump.
    """
    fireball = (v.mask[:, SPECIAL] == 1) & (ch.PROJECTILE[v.char, ch.SPECIAL] > 0)
    poke = np.where(v.in_range(ch.STAND_HEAVY), STRAIGHT, np.where(v.dist > 2600, FORWARD, NEUTRAL))
    ranged = np.where(fireball, SPECIAL, poke)
    close = np.where(v.opp_airborne, STRAIGHT, BACK)
    return np.where(v.dist < 1500, close, ranged)


def rushdown(v: View) -> np.ndarray:
    """Walks in; in jab reach mostly jabs (the fastest move), sometimes a low jab or a throw."""
    r = v.u(1)
    close = np.where(r < 0.7, JAB, np.where(r < 0.9, LOW_JAB, THROW))
    return np.where(v.in_range(ch.STAND_LIGHT), close, FORWARD)


def anti_air(v: View) -> np.ndarray:
    """``rushdown`` that reacts: a straight against a jump that comes in, a block against half the attacks."""
    reacting = _threatened(v) & (v.u(4) < 0.5)
    return _anti_air(v, np.where(reacting, _guard(v), rushdown(v)))


def _punish(v: View, otherwise: np.ndarray) -> np.ndarray:
    """Hit a recovering or stunned opponent: the straight if it lands in time and reaches, else the jab."""
    opening = v.opp_recovering | (v.state.stun_kind[:, v.o] == sim.HIT_STUN)
    slot = np.maximum(v.state.move[:, v.o], 0)
    left = np.where(v.opp_recovering, ch.TOTAL[v.opp_char, slot] - v.state.move_frame[:, v.o], v.state.stun[:, v.o])
    straight_in_time = left > ch.STARTUP[v.char, ch.STAND_HEAVY]
    jab_in_time = left > ch.STARTUP[v.char, ch.STAND_LIGHT]
    act = np.where(v.in_range(ch.STAND_HEAVY) & straight_in_time, STRAIGHT, otherwise)
    act = np.where(v.in_range(ch.STAND_LIGHT) & jab_in_time & (act != STRAIGHT), JAB, act)
    return np.where(opening, act, otherwise)


def punisher(v: View) -> np.ndarray:
    """Blocks at the right height, punishes a recovery; else walks in and jabs now and then."""
    r = v.u(2)
    approach = np.where(
        v.in_range(ch.STAND_LIGHT), np.where(r < 0.3, JAB, DOWN_BACK), np.where(r < 0.5, FORWARD, NEUTRAL)
    )
    return np.where(_threatened(v), _guard(v), _punish(v, approach))


def _throwable(v: View) -> np.ndarray:
    return v.in_range(ch.THROW_SLOT, -100) & ~v.opp_airborne & ~v.opp_stunned


def _anti_air(v: View, otherwise: np.ndarray) -> np.ndarray:
    """A straight against a jump that comes in."""
    return np.where(v.opp_airborne & (v.dist < 1300), STRAIGHT, otherwise)


def blocker(v: View) -> np.ndarray:
    """Blocks every threat, anti-airs jumps, punishes recoveries, walks in and throws."""
    approach = np.where(_throwable(v), THROW, FORWARD)
    return _anti_air(v, np.where(_threatened(v), _guard(v), _punish(v, approach)))


def mixer(v: View) -> np.ndarray:
    """``blocker``'s defence; up close it reads the guard: a throw on a crouching block, a low on a standing one.

    Against an opponent starting a move (a throw's startup included) it jabs (4 frames beat them);
    otherwise it throws or low-jabs at random.
    """
    r = v.u(3)
    hold = v.state.hold[:, v.o]
    starting = v.state.move[:, v.o] >= 0
    guess = np.where(r < 0.5, THROW, LOW_JAB)
    read = np.where(hold == -4, THROW, np.where(hold == -3, LOW_JAB, guess))
    read = np.where(starting, JAB, read)
    read = np.where((read == THROW) & ~_throwable(v), FORWARD, read)  # walk into throw range
    offence = np.where(v.in_range(ch.STAND_LIGHT), read, FORWARD)
    return _anti_air(v, np.where(_threatened(v), _guard(v), _punish(v, offence)))


def champion(v: View) -> np.ndarray:
    """``blocker``, with a low against a standing block, fireballs at range and supers when they reach."""
    approach = np.where(_throwable(v), np.where(v.state.hold[:, v.o] == -3, LOW_JAB, THROW), FORWARD)
    act = _anti_air(v, np.where(_threatened(v), _guard(v), _punish(v, approach)))
    super_reach = v.in_range(ch.SUPER, 200) | (ch.PROJECTILE[v.char, ch.SUPER] > 0)
    act = np.where(v.meter_full & super_reach & ~_threatened(v) & (v.mask[:, SUPER] == 1), SUPER, act)
    far = (v.dist > 2400) & (v.mask[:, SPECIAL] == 1) & (ch.PROJECTILE[v.char, ch.SPECIAL] > 0) & ~v.incoming
    return np.where(far, SPECIAL, act)


STRATEGIES: dict[str, Callable[[View], np.ndarray]] = {
    "passive": passive,
    "masher": masher,
    "jumper": jumper,
    "zoner": zoner,
    "rushdown": rushdown,
    "anti_air": anti_air,
    "punisher": punisher,
    "blocker": blocker,
    "mixer": mixer,
    "champion": champion,
}


def act(name: str, state: sim.State, p: int) -> np.ndarray:
    """``(B,)`` int64 legal actions of bot ``name`` in seat ``p`` of every world."""
    v = View(state, p)
    actions = np.asarray(STRATEGIES[name](v), dtype=np.int64)
    legal = np.take_along_axis(v.mask, actions[:, None], axis=1)[:, 0] == 1
    return np.where(legal, actions, NEUTRAL)


def opponent_actions(state: sim.State) -> np.ndarray:
    """``(B,)`` int64: each world's scenario bot's actions for seat 1 (0 in worlds without a bot)."""
    actions = np.zeros(state.num_worlds, dtype=np.int64)
    for index in np.unique(state.opponent[state.opponent >= 0]).tolist():
        w = np.flatnonzero(state.opponent == index)
        actions[w] = act(BOTS[index], state, 1)[w]
    return actions


class BotPolicy:
    """A ladder bot as a policy for the evaluation, for either seat.

    Works on :class:`~benchmarkzoo.envs.multiagent.fighting.env.FightingDuelEnv` (returns an action
    dict for ``env.agents``) and its native vector form (returns ``(B, N)`` int64): every learner
    seat plays the bot; and on FightingLadder-v0's views, seat 0 (an int; ``(B,)`` int64).

    Args:
        name: a name of :data:`BOTS` (default ``"champion"``, the strongest).
    """

    def __init__(self, name: str = "champion"):
        if name not in BOTS:
            raise ValueError(f"name must be one of {list(BOTS)}; got {name!r}.")
        self.name = name

    def __call__(self, env: Any) -> dict[str, int] | int | np.ndarray:
        """The actions for ``env``'s current state."""
        env = getattr(env, "unwrapped", env)
        if not hasattr(env, "possible_agents"):  # FightingLadder-v0 (a single-agent view): the bot is seat 0
            seat0 = act(self.name, env.state, 0)  # (B,)
            return seat0 if hasattr(env, "num_envs") else int(seat0[0])
        seats = range(len(env.possible_agents))
        actions = np.stack([act(self.name, env.sim_state, p) for p in seats], axis=1)  # (B, N)
        if hasattr(env, "num_envs"):
            return actions
        return {agent: int(actions[0, env.possible_agents.index(agent)]) for agent in env.agents}
