"""The MicroCombat simulator: ``B`` worlds of ``N`` units of ours against up to ``E`` scripted enemy units.

The ParallelEnv is a batch of one world, the native vector env a batch of ``B``; the rules below
exist once. Units live on one axis of ``U = N + E`` slots, ours first; enemy slots a scenario
leaves empty hold units that are dead from the start. Every unit statistic is an integer or a
multiple of 0.5 and every op is elementwise, an integer-valued sum or an ``argmin``, so world
``i`` of a batch computes exactly the numbers a batch of one would (bit for bit).

Rules of a step, every world and unit at once (all decisions read the state at the start of it):

1. **Decisions.** Our units act as told (masked actions already replaced). The scripted enemy
   picks, for every enemy unit, the target of its strategy: ``closest``, the nearest of our
   live units; ``focus``, the weakest (lowest health, then lowest index) of our units within its
   attack range, or the nearest one if none is. If that target is within attack range it
   attacks it, else it moves one step towards it along the axis with the larger distance.
2. **Attacks** are simultaneous: an attacker whose cooldown is 0 and whose target is alive and
   within its attack range (distance between the two points ``<= attack_range``) deals its
   damage and its cooldown becomes its type's cooldown. Units killed on this step still fire on it.
   An attack while the cooldown runs does nothing (the unit holds its position).
3. **Moves.** ``north``/``south``/``east``/``west`` move a unit by its speed along ``+y``/``-y``/
   ``+x``/``-x``; the map's edge is a wall (a unit stops at it). Units are points and do not collide.
4. **Bookkeeping.** Health drops by the damage received (never below 0); a unit with health 0
   dies. Every cooldown counts down by one (never below 0). A world is done when one side has no
   unit left; we won if the enemy has none and we have at least one (both at once is a draw).

Team reward of a step (SMAC's shaped reward, ``reward_only_positive``): ``(damage dealt to enemy
units, excess over their health not counted + kill_bonus * enemies killed + win_bonus * won) *
reward_scale / max_reward`` with ``max_reward = total enemy health + kill_bonus * E + win_bonus``,
so a flawless win totals ``reward_scale`` (20 by default) over the episode.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from benchmarkzoo.envs.multiagent.combat import units
from benchmarkzoo.envs.multiagent.combat.generator import STRATEGIES, CombatScenario

#: Actions ``0..5``; ``6 + j`` attacks enemy ``j``.
ACTION_NAMES = ("no-op", "stop", "north", "south", "east", "west")
NOOP, STOP, NORTH, SOUTH, EAST, WEST = range(6)
ATTACK = 6
#: ``(6, 2)`` unit (dx, dy) of actions ``0..5``.
MOVES = np.array([[0, 0], [0, 0], [0, 1], [0, -1], [1, 0], [-1, 0]], dtype=np.float64)
MOVES.setflags(write=False)
FOCUS = STRATEGIES.index("focus")


@dataclasses.dataclass(frozen=True)
class Params:
    """Constants of one env instance.

    Attributes:
        num_allies: ``N``, our units (the agents).
        num_enemies: ``E``, enemy slots (the most enemy units a scenario of this env has).
        map_size: side of the square map.
        kill_bonus: reward (before scaling) per enemy unit killed.
        win_bonus: reward (before scaling) for a win.
        reward_scale: a flawless win's total reward.
    """

    num_allies: int
    num_enemies: int
    map_size: float
    kill_bonus: float = 10.0
    win_bonus: float = 200.0
    reward_scale: float = 20.0

    @property
    def num_units(self) -> int:
        """Unit slots per world: ours, then the enemy's."""
        return self.num_allies + self.num_enemies

    @property
    def num_actions(self) -> int:
        """Actions of a unit: the moves, then one attack per enemy slot."""
        return ATTACK + self.num_enemies

    @property
    def obs_size(self) -> int:
        """Entries of one unit's observation."""
        t = units.NUM_TYPES
        return (4 + t) + (self.num_allies - 1) * (5 + t) + self.num_enemies * (6 + t)

    @property
    def state_size(self) -> int:
        """Entries of the global state."""
        return self.num_units * (5 + units.NUM_TYPES)

    @functools.cached_property
    def target_offset(self) -> np.ndarray:
        """``(U,)`` int64 added to ``action - ATTACK`` for the target's slot: ours aim at ``N + j``, theirs at ``j``."""
        n, e = self.num_allies, self.num_enemies
        offset = np.concatenate([np.full(n, n), np.zeros(e)]).astype(np.int64)
        offset.setflags(write=False)
        return offset

    @functools.cached_property
    def others(self) -> np.ndarray:
        """``(N, N - 1)`` int64, the other allies of each ally in index order (its observation's ally slots)."""
        n = self.num_allies
        table = np.array([[k for k in range(n) if k != i] for i in range(n)], dtype=np.int64).reshape(n, n - 1)
        table.setflags(write=False)
        return table


@dataclasses.dataclass
class State:
    """Mutable state of ``B`` worlds; ``U = N + E`` unit slots, ours first.

    Attributes:
        pos: ``(B, U, 2)`` float64, ``(x, y)`` of every unit.
        health: ``(B, U)`` float64, ``0`` for dead units and empty slots.
        cooldown: ``(B, U)`` int64, steps before the unit can fire again (``0``: ready).
        kind: ``(B, U)`` int64, unit type (index into ``units.UNIT_TYPES``).
        alive: ``(B, U)`` bool.
        strategy: ``(B,)`` int64, the enemy's strategy (index into ``STRATEGIES``).
        enemies: ``(B,)`` int64, enemy units of the scenario.
        max_reward: ``(B,)`` float64, SMAC's reward normalizer (see the module docstring).
        won: ``(B,)`` bool, the episode ended in our win.
        masked: ``(B,)`` int64, masked actions our units sent this episode (executed as ``stop``).
    """

    pos: np.ndarray
    health: np.ndarray
    cooldown: np.ndarray
    kind: np.ndarray
    alive: np.ndarray
    strategy: np.ndarray
    enemies: np.ndarray
    max_reward: np.ndarray
    won: np.ndarray
    masked: np.ndarray


def init_state(params: Params, num_worlds: int) -> State:
    """An empty batch; every world must be :func:`load`-ed before it is stepped."""
    u = params.num_units
    return State(
        pos=np.zeros((num_worlds, u, 2), dtype=np.float64),
        health=np.zeros((num_worlds, u), dtype=np.float64),
        cooldown=np.zeros((num_worlds, u), dtype=np.int64),
        kind=np.zeros((num_worlds, u), dtype=np.int64),
        alive=np.zeros((num_worlds, u), dtype=bool),
        strategy=np.zeros(num_worlds, dtype=np.int64),
        enemies=np.ones(num_worlds, dtype=np.int64),
        max_reward=np.ones(num_worlds, dtype=np.float64),
        won=np.zeros(num_worlds, dtype=bool),
        masked=np.zeros(num_worlds, dtype=np.int64),
    )


def load(state: State, world: int, scenario: CombatScenario, params: Params) -> None:
    """Write ``scenario`` into world ``world`` (its enemy slots beyond ``scenario.num_enemies`` stay empty)."""
    n, e = params.num_allies, scenario.num_enemies
    kinds = np.zeros(params.num_units, dtype=np.int64)
    kinds[:n], kinds[n : n + e] = scenario.ally_types, scenario.enemy_types
    health = np.zeros(params.num_units, dtype=np.float64)
    health[: n + e] = units.HEALTH[kinds[: n + e]]
    state.pos[world] = 0.0
    state.pos[world, :n], state.pos[world, n : n + e] = scenario.ally_pos, scenario.enemy_pos
    state.kind[world] = kinds
    state.health[world] = health
    state.alive[world] = health > 0
    state.cooldown[world] = 0
    state.strategy[world] = STRATEGIES.index(scenario.enemy_strategy)
    state.enemies[world] = e
    state.max_reward[world] = health[n:].sum() + params.kill_bonus * e + params.win_bonus
    state.won[world] = False
    state.masked[world] = 0


def norm2(delta: np.ndarray) -> np.ndarray:
    """Euclidean length over the last axis of size 2 (elementwise, so identical in any batch)."""
    return np.sqrt(delta[..., 0] * delta[..., 0] + delta[..., 1] * delta[..., 1])


def move_towards(delta: np.ndarray) -> np.ndarray:
    """The move action along the axis of the larger component of ``delta`` (``(..., 2)``; x on a tie)."""
    dx, dy = delta[..., 0], delta[..., 1]
    return np.where(np.abs(dx) >= np.abs(dy), np.where(dx > 0, EAST, WEST), np.where(dy > 0, NORTH, SOUTH))


def action_masks(state: State, params: Params, worlds: np.ndarray | None = None) -> np.ndarray:
    """Legal actions of our units (SMAC's ``avail_actions``), as of now.

    A live unit may stop, move in any direction (the map's edge stops it) and attack enemy
    ``j`` if ``j`` is alive and within its attack range (whatever its cooldown); ``no-op`` is
    legal only for dead units (and is their only legal action).

    Args:
        state: the ``B`` worlds.
        params: the simulator's parameters.
        worlds: indices of the worlds to compute (``None``: all).

    Returns:
        ``(W, N, 6 + E)`` int8, ``1`` where legal.
    """
    n = params.num_allies
    pos, alive, kind = (
        (state.pos, state.alive, state.kind)
        if worlds is None
        else (state.pos[worlds], state.alive[worlds], state.kind[worlds])
    )
    ours = alive[:, :n]  # (W, N)
    distance = norm2(pos[:, None, n:] - pos[:, :n, None])  # (W, N, E)
    reach = distance <= units.ATTACK_RANGE[kind[:, :n]][..., None]
    mask = np.zeros((*ours.shape, params.num_actions), dtype=np.int8)
    mask[..., NOOP] = ~ours
    mask[..., STOP:ATTACK] = ours[..., None]
    mask[..., ATTACK:] = reach & ours[..., None] & alive[:, None, n:]
    return mask


def enemy_actions(state: State, params: Params) -> np.ndarray:
    """``(B, E)`` int64 actions of the scripted enemy (rule 1), in our encoding with targets among our units."""
    n = params.num_allies
    pos, alive = state.pos, state.alive
    distance = norm2(pos[:, None, :n] - pos[:, n:, None])  # (B, E, N), enemy -> ally
    distance = np.where(alive[:, None, :n], distance, np.inf)
    closest = np.argmin(distance, axis=2)  # (B, E), lowest index on ties
    in_range = distance <= units.ATTACK_RANGE[state.kind[:, n:]][..., None]  # (B, E, N), False for the dead
    weakest = np.argmin(np.where(in_range, state.health[:, None, :n], np.inf), axis=2)  # (B, E)
    target = np.where((state.strategy == FOCUS)[:, None], weakest, closest)
    approach = np.take_along_axis(pos[:, :n], closest[..., None], axis=1) - pos[:, n:]  # (B, E, 2)
    actions = np.where(in_range.any(axis=2), ATTACK + target, move_towards(approach))
    # any(axis=...) of an array is an array; numpy's stubs type it ``bool | ndarray``
    return np.where(alive[:, :n].any(axis=1)[:, None], actions, STOP)  # type: ignore[index]


def step(state: State, actions: np.ndarray, params: Params) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Advance every world one step by the rules in the module docstring; updates ``state`` in place.

    Args:
        state: the ``B`` worlds, advanced in place.
        params: the simulator's parameters.
        actions: ``(B, N)`` int64, legal actions of our units (entries of dead units are ignored).

    Returns:
        reward: ``(B,)`` float64, the team reward.
        died: ``(B, N)`` bool, our units killed on this step.
        done: ``(B,)`` bool, worlds where one side has no unit left.
        won: ``(B,)`` bool, worlds we won on this step.
    """
    num_worlds = actions.shape[0]
    n, u = params.num_allies, params.num_units
    act = np.concatenate([actions, enemy_actions(state, params)], axis=1)  # (B, U)
    alive, kind, pos = state.alive, state.kind, state.pos

    # 2. attacks, simultaneous
    attacking = alive & (act >= ATTACK)
    target = np.where(attacking, act - ATTACK + params.target_offset, 0)  # (B, U) slot of each unit's target
    target_pos = np.take_along_axis(pos, target[..., None], axis=1)  # (B, U, 2)
    fire = (
        attacking
        & np.take_along_axis(alive, target, axis=1)
        & (state.cooldown == 0)
        & (norm2(target_pos - pos) <= units.ATTACK_RANGE[kind])
    )
    slots = (np.arange(num_worlds, dtype=np.int64)[:, None] * u + target).ravel()
    received = np.bincount(slots, weights=np.where(fire, units.DAMAGE[kind], 0.0).ravel(), minlength=num_worlds * u)
    before = state.health.copy()
    np.maximum(before - received.reshape(num_worlds, u), 0.0, out=state.health)
    state.cooldown[fire] = units.COOLDOWN[kind[fire]]

    # 3. moves, from the positions at the start of the step
    moving = alive & (act >= NORTH) & (act <= WEST)
    if moving.any():
        shift = MOVES[np.where(moving, act, STOP)] * units.SPEED[kind][..., None]  # (B, U, 2)
        np.clip(pos + shift, 0.0, params.map_size, out=pos)

    # 4. bookkeeping
    np.maximum(state.cooldown - 1, 0, out=state.cooldown)
    now = alive & (state.health > 0)
    died = alive & ~now
    state.alive = now
    # any(axis=...) of an array is an array; numpy's stubs type it ``bool | ndarray``
    ours_left: np.ndarray = now[:, :n].any(axis=1)  # type: ignore[assignment]
    theirs_left: np.ndarray = now[:, n:].any(axis=1)  # type: ignore[assignment]
    won = ours_left & ~theirs_left
    done = ~ours_left | ~theirs_left
    state.won |= won
    dealt = (before[:, n:] - state.health[:, n:]).sum(axis=1)  # integer-valued: exact in any order
    raw = dealt + params.kill_bonus * died[:, n:].sum(axis=1) + params.win_bonus * won
    reward = raw * params.reward_scale / state.max_reward
    return reward, died[:, :n], done, won


#: MO-MicroCombat-v0's objectives, in reward order.
OBJECTIVES = ("damage_dealt", "units_kept")


def objective_rewards(state: State, before: np.ndarray, died: np.ndarray, params: Params) -> np.ndarray:
    """MO-MicroCombat's ``(B, N, 2)`` float32 rewards of the step that took health from ``before`` to now.

    Objective 0, ``damage_dealt``, is the team's (every agent gets it, as the scalar reward): the
    enemy health removed on the step (capped at what each unit had, as ``step``'s reward) over
    the enemy army's total health, so an episode sums to the fraction of it destroyed, 1.0 for a
    win. Objective 1, ``units_kept``, is the agent's own: ``-1`` on the step its unit dies.

    Args:
        state: the worlds after :func:`step`.
        before: ``(B, U)`` float64, every unit's health before the step.
        died: ``(B, N)`` bool, our units killed on the step (``step``'s ``died``).
        params: the simulator's parameters.
    """
    n = params.num_allies
    enemy_slots = np.arange(params.num_enemies) < state.enemies[:, None]  # (B, E): the scenario's units
    army = (units.HEALTH[state.kind[:, n:]] * enemy_slots).sum(axis=1)  # (B,) integer-valued
    dealt = (before[:, n:] - state.health[:, n:]).sum(axis=1)  # (B,) integer-valued, capped per unit
    rewards = np.empty((state.health.shape[0], n, len(OBJECTIVES)), dtype=np.float32)
    rewards[:, :, 0] = (dealt / army)[:, None]
    rewards[:, :, 1] = np.where(died, -1.0, 0.0)  # not -died: no -0.0
    return rewards


def observe(state: State, params: Params, mask: np.ndarray | None = None) -> np.ndarray:
    """Every ally's observation (fresh arrays), SMAC's layout; zeros for dead units and outside ``mask``.

    Per ally ``i``, with ``s`` its sight range and ``T`` unit types, ``float32`` in ``[-1, 1]``:

    * own (``4 + T``): health / max health, cooldown / its type's cooldown, ``x / map_size``,
      ``y / map_size``, type one-hot;
    * each other ally in index order (``5 + T`` each): visible, ``dx / s``, ``dy / s``,
      distance ``/ s``, health / max health, type one-hot;
    * each enemy slot (``6 + T`` each): visible, attackable (alive and within ``i``'s attack
      range: its action mask entry), ``dx / s``, ``dy / s``, distance ``/ s``, health / max, type one-hot.

    A unit is visible when alive and within distance ``s``; invisible slots are all zeros.

    Args:
        state: the ``B`` worlds.
        params: the simulator's parameters.
        mask: ``(B, N)`` bool; allies outside it get all-zero observations (``None``: every ally).

    Returns:
        ``(B, N, obs_size)`` float32.
    """
    n, t = params.num_allies, units.NUM_TYPES
    pos, alive, kind = state.pos, state.alive, state.kind
    num_worlds = pos.shape[0]
    sight = units.SIGHT[kind[:, :n]][..., None]  # (B, N, 1)
    delta = pos[:, None, :, :] - pos[:, :n, None, :]  # (B, N, U, 2), other minus self
    distance = norm2(delta)  # (B, N, U)
    visible = alive[:, None, :] & (distance <= sight)
    fraction = state.health / units.HEALTH[kind]  # (B, U)
    # channel-first (C, B, N, U): every write below is contiguous; one transposing copy at the end
    feat = np.empty((6 + t, num_worlds, n, params.num_units), dtype=np.float32)
    feat[0] = visible
    feat[1] = visible & (distance <= units.ATTACK_RANGE[kind[:, :n]][..., None])
    feat[2] = delta[..., 0] / sight
    feat[3] = delta[..., 1] / sight
    feat[4] = distance / sight
    feat[5] = fraction[:, None, :]
    feat[6:] = np.moveaxis(units.ONE_HOT[kind], 2, 0)[:, :, None, :]
    feat *= visible
    own = np.empty((4 + t, num_worlds, n), dtype=np.float32)
    own[0] = fraction[:, :n]
    own[1] = state.cooldown[:, :n] / units.COOLDOWN[kind[:, :n]]
    own[2] = pos[:, :n, 0] / params.map_size
    own[3] = pos[:, :n, 1] / params.map_size
    own[4:] = np.moveaxis(units.ONE_HOT[kind[:, :n]], 2, 0)
    allies = feat[[0, *range(2, 6 + t)]][:, :, np.arange(n)[:, None], params.others]  # (5+T, B, N, N-1)
    obs = np.concatenate(
        [
            np.moveaxis(own, 0, -1),
            np.moveaxis(allies, 0, -1).reshape(num_worlds, n, -1),
            np.moveaxis(feat[:, :, :, n:], 0, -1).reshape(num_worlds, n, -1),
        ],
        axis=2,
    )
    hidden = ~alive[:, :n] if mask is None else ~(alive[:, :n] & mask)
    if hidden.any():
        obs[hidden] = 0.0
    return obs


def global_state(state: State, params: Params) -> np.ndarray:
    """The global state: ``(B, U * (5 + T))`` float32 in ``[-1, 1]``.

    Per unit slot (ours, then the enemy's): alive, health / max, cooldown / its type's cooldown,
    ``(x - c) / c``, ``(y - c) / c`` with ``c`` half the map side, type one-hot; zeros for dead
    units and empty slots.
    """
    t, c = units.NUM_TYPES, params.map_size / 2
    kind = state.kind
    feat = np.empty((*kind.shape, 5 + t), dtype=np.float32)
    feat[..., 0] = state.alive
    feat[..., 1] = state.health / units.HEALTH[kind]
    feat[..., 2] = state.cooldown / units.COOLDOWN[kind]
    feat[..., 3:5] = (state.pos - c) / c
    feat[..., 5:] = units.ONE_HOT[kind]
    feat *= state.alive[..., None]
    return feat.reshape(kind.shape[0], -1)


def episode_metrics(state: State, params: Params) -> dict[str, np.ndarray]:
    """Episode metrics of every world, as of now (read them when an episode ends).

    Returns:
        ``won`` ``(B,)`` bool; ``allies_alive`` and ``enemies_killed`` ``(B,)`` float64 fractions
        of the two armies; ``masked_actions`` ``(B,)`` int64, masked actions our units sent.
    """
    n = params.num_allies
    allies = state.alive[:, :n].sum(axis=1) / n
    killed = (state.enemies - state.alive[:, n:].sum(axis=1)) / state.enemies
    return {
        "won": state.won.copy(),
        "allies_alive": allies,
        "enemies_killed": killed,
        "masked_actions": state.masked.copy(),
    }
