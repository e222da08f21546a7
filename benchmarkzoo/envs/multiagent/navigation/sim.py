"""The Navigation simulator: ``B`` worlds of ``N`` disc robots in batched numpy, shared by every view.

The ParallelEnv is a batch of one world, the native vector env a batch of ``B``. Every line below
is elementwise (``+ - * /``, ``sqrt``, comparisons, ``where``), an exact reduction (``min``,
``any``, integer counts) or an exact ranking (ties to the lower index), so each world's numbers
are the same whatever the batch size: world ``i`` of a vector env equals a ParallelEnv seeded
``s + i``, bit for bit. No float ``sum``, ``dot``, ``matmul`` or trigonometry (whose rounding may
depend on the shape).

**Layout.** The arrays are agent-major, the world axis last: positions ``(2, N, B)``, obstacles
``(3, M, B)``, pairwise quantities ``(N, N, B)``. numpy's cost at these sizes is per call and per
inner loop, and with the world axis last every inner loop runs over all ``B`` worlds, while a
``(B, N, N)`` layout would loop over ``N`` (3 robots: a loop of 3, 40 times slower for a
reduction). :class:`State` still offers the ``(B, N)`` views (``state.px[world, robot]``) the
views, the baseline and the renderer read.

A step, every world at once (``dt`` seconds):

1. **Dynamics.** ``holonomic`` (double integrator): the action is an acceleration,
   ``v' = v + max_accel * a * dt``, then ``v'`` is scaled down to ``|v'| <= max_speed`` (the
   state is clipped, the action never is); the move is ``(v + v') / 2 * dt``, exact for a
   constant acceleration below the speed limit. ``unicycle`` (differential drive, as on the
   Robotarium): the action is ``(forward speed, turn rate)`` scaled by ``max_speed`` and
   ``max_turn_rate``; the move is ``v * heading * dt`` with the heading before the turn, then
   the heading turns by ``2 atan(w dt / 2)`` (about ``w dt``; a Cayley rotation, which needs no
   trigonometry).
2. **Walls.** A move that would leave the arena stops at the wall; that velocity component is zeroed.
3. **Safety filter** (on by default for ``unicycle``): each robot's move is scaled by the
   largest factor in ``[0, 1]`` for which its approach towards every other robot is at most
   ``safety_gamma * gap / 2`` and towards every obstacle at most ``safety_gamma * gap``
   (``gap``: distance between the discs' edges, less a 1 micrometre skin). A discrete-time barrier in the spirit of the
   Robotarium's barrier certificates, decentralized (each robot takes half of a pair's share):
   with ``safety_gamma < 1`` no two discs can touch, so the filter alone prevents collisions.
   The velocity is scaled with the move.
4. **Collisions (no overlap).** A robot whose new disc would overlap another robot's new disc or
   an obstacle is *in collision*; if it moved, its move is cancelled (it stays where it was, with
   zero velocity). Cancelling can cause new overlaps, so this is repeated until none is left (at
   most ``N`` rounds; positions at the start of the step never overlap, so it always ends).
   Both robots of an overlapping pair are in collision, a robot hit while standing still too.
   So two robots on a head-on course stop short of each other instead of passing through.
5. **Goals.** A robot whose centre ends within ``goal_radius`` of its goal has arrived: it is
   terminated and leaves the arena (it no longer blocks or is seen by anyone).

Reward of each active robot: ``progress_reward * (d_before - d_after)`` (distance to its goal)
``- collision_penalty`` if in collision ``+ goal_reward`` if it arrived. MO-Navigation-v0's
vector reward (:func:`mo_rewards`): ``(d_before - d_after, -(a_0^2 + a_1^2) / 2, -1 if in collision)``.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from benchmarkzoo.envs.multiagent.navigation.generator import NavigationScenario

DYNAMICS = ("holonomic", "unicycle")
NEIGHBOUR_FEATURES = 5  # dx, dy, dvx, dvy, present
OBSTACLE_FEATURES = 4  # dx, dy, radius, present
#: The objectives of MO-Navigation-v0's vector reward, in order (:func:`mo_rewards`).
OBJECTIVES = ("progress", "energy", "collision")
#: m, the safety filter keeps gaps at least this wide, so rounding cannot turn a near-touch into an overlap.
SKIN = 1e-6
#: Up to this many candidates, and from this many worlds on, :func:`_nearest` ranks by pairwise
#: comparison (``K^2`` elementwise calls over all worlds, no sort call); otherwise a stable
#: ``argsort`` (one call, cheaper for a few worlds or many candidates).
RANK_BY_COMPARISON = 8
RANK_MIN_WORLDS = 32


@dataclasses.dataclass(frozen=True)
class Params:
    """Constants of one env instance (every world of a batch shares them).

    Attributes:
        num_agents: ``N``, robots per world.
        num_obstacles: ``M``, obstacles per world.
        arena_size: m, half-width of the square arena.
        agent_radius: m.
        dynamics: ``"holonomic"`` or ``"unicycle"``.
        dt: s per step.
        max_accel: m/s^2 at action 1 (holonomic).
        max_speed: m/s, the speed limit (holonomic) or the forward speed at action 1 (unicycle).
        max_turn_rate: rad/s at action 1 (unicycle).
        goal_radius: m, arrival when the centre is this close to the goal.
        num_neighbours: ``k``, robots in each observation.
        num_obstacles_seen: ``k_o``, obstacles in each observation.
        safety_filter: apply the barrier of step 2.
        safety_gamma: the barrier's rate, in ``(0, 1]``.
        progress_reward, goal_reward, collision_penalty: reward terms (module docstring).
    """

    num_agents: int
    num_obstacles: int
    arena_size: float = 2.0
    agent_radius: float = 0.1
    dynamics: str = "holonomic"
    dt: float = 0.1
    max_accel: float = 2.0
    max_speed: float = 1.0
    max_turn_rate: float = 2.0
    goal_radius: float = 0.1
    num_neighbours: int = 4
    num_obstacles_seen: int = 4
    safety_filter: bool = False
    safety_gamma: float = 0.5
    progress_reward: float = 1.0
    goal_reward: float = 1.0
    collision_penalty: float = 0.5

    @property
    def self_size(self) -> int:
        """Entries of the observation's own block: position, velocity, (heading,) goal vector."""
        return 8 if self.dynamics == "unicycle" else 6

    @property
    def obs_size(self) -> int:
        """Entries of one robot's observation."""
        return self.self_size + NEIGHBOUR_FEATURES * self.num_neighbours + OBSTACLE_FEATURES * self.num_obstacles_seen

    @functools.cached_property
    def obs_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """``(low, high)``, each ``(obs_size,)`` float32; observations are clipped to them."""
        size, speed = self.arena_size, self.max_speed
        heading = [1.0, 1.0] if self.dynamics == "unicycle" else []
        high = [size, size, speed, speed, *heading, 2 * size, 2 * size]
        high += [2 * size, 2 * size, 2 * speed, 2 * speed, 1.0] * self.num_neighbours
        high += [2 * size, 2 * size, size, 1.0] * self.num_obstacles_seen
        low = [-x for x in high[: self.self_size]]
        low += [-2 * size, -2 * size, -2 * speed, -2 * speed, 0.0] * self.num_neighbours
        low += [-2 * size, -2 * size, 0.0, 0.0] * self.num_obstacles_seen
        lows, highs = np.array(low, dtype=np.float32), np.array(high, dtype=np.float32)
        lows.setflags(write=False)
        highs.setflags(write=False)
        return lows, highs

    @functools.cached_property
    def clip_every_column(self) -> bool:
        """Whether :func:`observe` must clip every column, not only those that can leave their bounds.

        Positions stay within ``arena_size - agent_radius`` up to a rounding of the last bit, and
        goals and obstacle centres within ``arena_size`` (the scenario checks it), so position-like
        columns can only leave their bounds if the radius is below that rounding. Envs get radii of
        at least 1 cm from their generator; a hand-made ``Params`` with a smaller one is clipped
        in full.
        """
        return self.agent_radius < 1e-9 * self.arena_size


@dataclasses.dataclass
class State:
    """Mutable state of ``B`` worlds, agent-major (module docstring).

    Attributes:
        kin: ``(4, N, B)`` float64, robot centres ``x``, ``y`` (m; frozen once a robot has
            arrived) and velocities ``vx``, ``vy`` (m/s, world frame); ``pos`` and ``vel`` are its
            halves (one array, so an observation gathers a neighbour's four numbers in one call).
        head, goal: ``(2, N, B)`` float64: unit headings (unicycle; holonomic robots keep their
            initial heading), goals (m).
        obstacles: ``(3, M, B)`` float64, centre ``x``, ``y`` and radius (m) of each obstacle.
        alive: ``(N, B)`` bool, in the arena (has not arrived).
        arrived_at: ``(N, B)`` int64, the step of arrival (``1`` = first step), ``-1`` before.
        collisions: ``(B,)`` int64, robot-steps in collision since the world's load.
        time: ``(B,)`` int64, steps since the world's load.

    The properties ``px``, ``py``, ``vx``, ``vy``, ``hx``, ``hy``, ``gx``, ``gy``, ``active``,
    ``arrival`` (``(B, N)``) and ``ox``, ``oy``, ``orad`` (``(B, M)``) are writable views.
    """

    kin: np.ndarray
    head: np.ndarray
    goal: np.ndarray
    obstacles: np.ndarray
    alive: np.ndarray
    arrived_at: np.ndarray
    collisions: np.ndarray
    time: np.ndarray

    pos = property(lambda self: self.kin[:2])
    vel = property(lambda self: self.kin[2:])
    px = property(lambda self: self.pos[0].T)
    py = property(lambda self: self.pos[1].T)
    vx = property(lambda self: self.vel[0].T)
    vy = property(lambda self: self.vel[1].T)
    hx = property(lambda self: self.head[0].T)
    hy = property(lambda self: self.head[1].T)
    gx = property(lambda self: self.goal[0].T)
    gy = property(lambda self: self.goal[1].T)
    ox = property(lambda self: self.obstacles[0].T)
    oy = property(lambda self: self.obstacles[1].T)
    orad = property(lambda self: self.obstacles[2].T)
    active = property(lambda self: self.alive.T)
    arrival = property(lambda self: self.arrived_at.T)


class StepResult(NamedTuple):
    """What :func:`step` returns: ``(B, N)`` arrays (views of agent-major ones).

    Attributes:
        rewards: float64, the scalar reward of the module docstring, ``0.0`` for robots that were not active.
        arrived: bool, the robots that arrived (and left) on this step.
        collided: bool, the robots in collision on this step.
        progress: float64, ``d_before - d_after`` (m towards the goal), ``0.0`` for robots that were not active.
        acted: bool, the robots that were active at the start of the step (and not masked out).
        applied: ``(B, N, 2)`` float64, the actions applied (zeros for robots outside ``acted``).
    """

    rewards: np.ndarray
    arrived: np.ndarray
    collided: np.ndarray
    progress: np.ndarray
    acted: np.ndarray
    applied: np.ndarray


def init_state(params: Params, num_worlds: int) -> State:
    """An empty batch; every world must be :func:`load`-ed before it is stepped."""
    n, m, b = params.num_agents, params.num_obstacles, num_worlds
    obstacles = np.zeros((3, m, b))
    obstacles[2] = 1.0
    head = np.zeros((2, n, b))
    head[0] = 1.0
    return State(
        kin=np.zeros((4, n, b)),
        head=head,
        goal=np.zeros((2, n, b)),
        obstacles=obstacles,
        alive=np.zeros((n, b), dtype=bool),
        arrived_at=np.full((n, b), -1, dtype=np.int64),
        collisions=np.zeros(b, dtype=np.int64),
        time=np.zeros(b, dtype=np.int64),
    )


def load(state: State, world: int, scenario: NavigationScenario) -> None:
    """Write ``scenario`` into world ``world``: robots at rest at their starts, clocks at zero."""
    state.pos[:, :, world] = scenario.starts.T
    state.goal[:, :, world] = scenario.goals.T
    state.head[:, :, world] = scenario.headings.T
    state.vel[:, :, world] = 0.0
    state.obstacles[:, :, world] = scenario.obstacles.T
    state.alive[:, world] = True
    state.arrived_at[:, world] = -1
    state.collisions[world] = 0
    state.time[world] = 0


def load_worlds(state: State, worlds: np.ndarray, scenarios: Sequence[NavigationScenario]) -> None:
    """:func:`load` ``scenarios[i]`` into world ``worlds[i]`` for every ``i``, in a few array writes."""
    if len(worlds) == 1:
        load(state, int(worlds[0]), scenarios[0])
        return
    state.pos[:, :, worlds] = np.stack([s.starts for s in scenarios], axis=2).transpose(1, 0, 2)  # (2, N, W)
    state.goal[:, :, worlds] = np.stack([s.goals for s in scenarios], axis=2).transpose(1, 0, 2)
    state.head[:, :, worlds] = np.stack([s.headings for s in scenarios], axis=2).transpose(1, 0, 2)
    state.vel[:, :, worlds] = 0.0
    if state.obstacles.shape[1]:
        state.obstacles[:, :, worlds] = np.stack([s.obstacles for s in scenarios], axis=2).transpose(1, 0, 2)
    state.alive[:, worlds] = True
    state.arrived_at[:, worlds] = -1
    state.collisions[worlds] = 0
    state.time[worlds] = 0


def _clip(x: np.ndarray, low: float, high: float, out: np.ndarray | None = None) -> np.ndarray:
    """``np.clip(x, low, high)`` as its two ufuncs.

    The same numbers, without ``np.clip``'s Python layers, which cost more than the arithmetic for
    a world or two.
    """
    out = np.maximum(x, low, out=out)
    return np.minimum(out, high, out=out)


def _goal_distance(state: State) -> np.ndarray:
    """``(N, B)`` centre-to-goal distances."""
    d = state.goal - state.pos  # (2, N, B)
    d *= d
    return np.sqrt(d[0] + d[1])


@functools.lru_cache(maxsize=16)
def _not_self(n: int) -> np.ndarray:
    """``(N, N, 1)`` bool, ``False`` on the diagonal (cached: a step builds no ``eye``)."""
    mask = ~np.eye(n, dtype=bool)[:, :, None]
    mask.setflags(write=False)
    return mask


def _pair_mask(alive: np.ndarray) -> np.ndarray:
    """``(N, N, B)`` bool: both robots active, and not the same robot."""
    both = alive[:, None, :] & alive[None, :, :]
    both &= _not_self(alive.shape[0])
    return both


def _safety_scale(state: State, d: np.ndarray, pairs: np.ndarray, params: Params) -> np.ndarray:
    """``(N, B)`` factor in ``[0, 1]`` for each robot's move ``d`` ``(2, N, B)``, by the barrier of step 2."""
    gamma, r = params.safety_gamma, params.agent_radius
    px, py = state.pos[0][:, None, :], state.pos[1][:, None, :]  # (N, 1, B)
    dx, dy = d[0][:, None, :], d[1][:, None, :]
    scale = np.ones_like(d[0])
    # (centre x, centre y, reach, share of the avoidance, valid pairs or None for all)
    groups: list[tuple[np.ndarray, np.ndarray, Any, float, np.ndarray | None]] = [
        (state.pos[0][None], state.pos[1][None], 2.0 * r, 0.5, pairs)
    ]
    if params.num_obstacles:
        ox, oy, orad = state.obstacles[:, None]  # each (1, M, B)
        groups.append((ox, oy, r + orad, 1.0, None))
    for cx, cy, reach, share, valid in groups:
        rx, ry = cx - px, cy - py  # (N, K, B) towards the other disc
        dist = np.sqrt(rx * rx + ry * ry)
        approach = (dx * rx + dy * ry) / np.maximum(dist, 1e-12)  # m moved towards it
        bound = np.maximum((gamma * share) * ((dist - reach) - SKIN), 0.0)
        limited = approach > bound
        if valid is not None:
            limited &= valid
        with np.errstate(divide="ignore", invalid="ignore"):  # the quotients outside `limited` are not used
            factor = np.where(limited, bound / approach, 1.0)
        np.minimum(scale, factor.min(axis=1), out=scale)
    return scale


def _overlaps(q: np.ndarray, pairs: np.ndarray, state: State, params: Params) -> np.ndarray:
    """``(N, B)`` bool: active robots whose disc at ``q`` ``(2, N, B)`` overlaps another robot's or an obstacle.

    ``pairs`` is :func:`_pair_mask` of the active robots.
    """
    rx, ry = q[0][:, None, :] - q[0][None, :, :], q[1][:, None, :] - q[1][None, :, :]  # (N, N, B)
    reach = 2.0 * params.agent_radius
    rx *= rx
    ry *= ry
    rx += ry
    hit = rx < reach * reach
    hit &= pairs
    bad = hit.any(axis=1)
    if params.num_obstacles:
        ox, oy, orad = state.obstacles[:, None]  # each (1, M, B)
        rx, ry = q[0][:, None, :] - ox, q[1][:, None, :] - oy  # (N, M, B)
        reach = params.agent_radius + orad
        bad |= ((rx * rx + ry * ry) < reach * reach).any(axis=1)
    bad &= state.alive
    return bad


def step(state: State, actions: np.ndarray, params: Params, mask: np.ndarray | None = None) -> StepResult:
    """Advance every world one step by the rules in the module docstring; updates ``state`` in place.

    Args:
        state: the ``B`` worlds, advanced in place.
        params: the simulator's parameters.
        actions: ``(B, N, 2)`` in ``[-1, 1]``, validated for active robots; entries of inactive
            robots are ignored, whatever they hold.
        mask: ``(B, N)`` bool, or ``None``; robots outside it are stepped with zero actions (the
            vector env's robots in worlds that are about to be reloaded).
    """
    alive = state.alive  # (N, B)
    acted = alive.copy() if mask is None else alive & mask.T
    a = np.where(acted, actions.transpose(2, 1, 0), 0.0).astype(np.float64)  # (2, N, B); zeros where not acted
    dt = params.dt
    before = _goal_distance(state)
    if params.dynamics == "holonomic":
        v = state.vel + (params.max_accel * dt) * a  # (2, N, B)
        speed2 = v[0] * v[0]
        speed2 += v[1] * v[1]
        too_fast = speed2 > params.max_speed * params.max_speed
        if too_fast.any():
            v *= np.where(too_fast, params.max_speed / np.sqrt(np.maximum(speed2, 1e-300)), 1.0)
        d = state.vel + v
        d *= 0.5 * dt
        head = None
    else:
        forward = params.max_speed * a[0]
        v = forward * state.head
        d = dt * v
        t = (0.5 * dt * params.max_turn_rate) * a[1]  # tan of half the turn
        t2 = t * t
        denom = 1.0 + t2
        c, s = (1.0 - t2) / denom, (2.0 * t) / denom
        hx0, hy0 = state.head
        head = np.empty_like(state.head)
        head[0] = c * hx0 - s * hy0
        head[1] = s * hx0 + c * hy0
        norm = np.sqrt(head[0] * head[0] + head[1] * head[1])
        head /= norm
    limit = params.arena_size - params.agent_radius
    q = state.pos + d
    out = q > limit
    out |= q < -limit
    if out.any():  # elementwise selections (np.where): no fancy indexing, no slow masked copies
        d = np.where(out, _clip(q, -limit, limit) - state.pos, d)
        v = np.where(out, 0.0, v)
    pairs = _pair_mask(alive)
    if params.safety_filter:  # after the walls: a scaled move from inside the arena stays inside
        scale = _safety_scale(state, d, pairs, params)
        d *= scale
        v *= scale
    q = state.pos + d
    moving = (q[0] != state.pos[0]) | (q[1] != state.pos[1])
    moving &= alive
    collided = np.zeros_like(alive)
    for _ in range(params.num_agents + 1):
        bad = _overlaps(q, pairs, state, params)
        collided |= bad
        cancel = bad & moving
        if not cancel.any():
            break
        q = np.where(cancel, state.pos, q)
        v = np.where(cancel, 0.0, v)
        moving &= ~cancel
    if alive.all():
        state.pos[...], state.vel[...] = q, v
        if head is not None:
            state.head[...] = head
    else:  # robots that have left keep their last state
        state.pos[...], state.vel[...] = np.where(alive, q, state.pos), np.where(alive, v, state.vel)
        if head is not None:
            state.head[...] = np.where(alive, head, state.head)
    after = _goal_distance(state)
    arrived = after <= params.goal_radius
    arrived &= alive
    progress = before - after
    rewards = params.progress_reward * progress
    rewards -= params.collision_penalty * collided
    rewards += params.goal_reward * arrived
    gone = ~alive
    rewards[gone] = 0.0
    progress[gone] = 0.0
    state.time += 1
    state.collisions += collided.sum(axis=0)
    if arrived.any():
        alive[arrived] = False
        state.arrived_at[arrived] = np.broadcast_to(state.time, arrived.shape)[arrived]
    return StepResult(rewards.T, arrived.T, collided.T, progress.T, acted.T, a.transpose(2, 1, 0))


def mo_rewards(result: StepResult) -> np.ndarray:
    """``(B, N, 3)`` float32 vector rewards of MO-Navigation-v0 (see :data:`OBJECTIVES`).

    Args:
        result: what :func:`step` returned.

    Returns:
        progress ``d_before - d_after`` (m); energy ``-(a_0^2 + a_1^2) / 2`` (``0`` for a zero
        action, ``-1`` at full effort on both axes); collision ``-1`` in collision, else ``0``.
        Zeros for robots that did not act.
    """
    a = result.applied
    effort = 0.5 * (a[..., 0] * a[..., 0] + a[..., 1] * a[..., 1])  # (B, N)
    out = np.zeros((*result.acted.shape, len(OBJECTIVES)), dtype=np.float32)
    out[..., 0] = result.progress
    out[..., 1] = 0.0 - effort  # 0.0, not -0.0, for a zero action
    out[..., 2][result.collided] = -1.0
    out[~result.acted] = 0.0
    return out


def _nearest(key: np.ndarray, count: int) -> np.ndarray:
    """``(N, count, B)`` indices of the ``count`` smallest entries of ``key`` ``(N, K, B)`` along axis 1.

    Ties go to the lower index (the order of a stable sort; exact whatever the batch size).

    Up to :data:`RANK_BY_COMPARISON` candidates, each one's rank is counted from the
    ``K (K - 1) / 2`` pairwise comparisons (for ``i < j``, ``i`` comes first iff
    ``key[i] <= key[j]``), on ``(N, B)`` rows: a sort along a short axis costs numpy a call per row.
    """
    k = key.shape[1]
    if k > RANK_BY_COMPARISON or key.shape[2] < RANK_MIN_WORLDS:
        return np.argsort(key, axis=1, kind="stable")[:, :count]
    rows = [key[:, j] for j in range(k)]  # (N, B) each
    rank = np.zeros((k, *rows[0].shape), dtype=np.int8)
    for j in range(1, k):
        for i in range(j):
            first = rows[i] <= rows[j]  # i comes before j
            rank[j] += first
            first ^= True
            rank[i] += first
    slots = np.arange(count, dtype=np.int8)[:, None, None]
    order = np.zeros((count, *rows[0].shape), dtype=np.int64)  # (count, N, B): the one j of each rank
    for j in range(1, k):
        order += (rank[j] == slots) * j
    return order.transpose(1, 0, 2)


def observe(state: State, params: Params, mask: np.ndarray | None = None) -> np.ndarray:
    """Every robot's observation (a fresh array, safe to keep).

    Args:
        state: the ``B`` worlds.
        params: the simulator's parameters.
        mask: ``(B, N)`` bool; robots outside it get all-zero observations (``None``: every robot).

    Returns:
        ``(B, N, obs_size)`` float32, laid out as in the env's docstring: own position, velocity,
        (heading,) goal minus position; then the ``k`` nearest active robots by centre distance
        (relative position, relative velocity, 1), then the ``k_o`` nearest obstacles by edge
        distance (relative centre, radius, 1). Missing neighbours and obstacles are zero rows.
        Clipped to :attr:`Params.obs_bounds`.

    Only the velocity, heading and obstacle-radius columns are clipped: the others cannot leave
    their bounds (see :attr:`Params.clip_every_column`). Clipping the float64 value to a float32
    bound before rounding gives the float32 that clipping after rounding would give.

    Neighbours and obstacles are gathered slot by slot and temporaries are dropped early: the
    step's peak of temporary memory decides whether glibc trims and regrows the heap (page faults
    on every step, twice the time at 4 robots x 1024 worlds) or keeps it.
    """
    n, num_worlds = state.alive.shape
    out = np.zeros((num_worlds, n, params.obs_size), dtype=np.float32)
    columns = out.transpose(2, 1, 0)  # (D, N, B) view: column c of every robot is columns[c]
    speed = np.float64(np.float32(params.max_speed))  # the bounds, as float32 values
    px, py = state.pos
    columns[0], columns[1] = px, py
    columns[2:4] = _clip(state.vel, -speed, speed)
    start = 4
    if params.dynamics == "unicycle":
        columns[4:6] = _clip(state.head, -1.0, 1.0)
        start = 6
    columns[start : start + 2] = state.goal - state.pos
    start = params.self_size
    k = params.num_neighbours
    if k and n > 1:
        pairs = _pair_mask(state.alive)  # (N, N, B)
        key = px[None, :, :] - px[:, None, :]  # (N, N, B), [i, j]: j seen by i
        key *= key
        dy = py[None, :, :] - py[:, None, :]
        dy *= dy
        key += dy
        del dy
        used = min(k, n - 1)
        order = _nearest(np.where(pairs, key, np.inf), used)  # (N, used, B): the others come first, nearest first
        del key
        present = None  # (N, used, B), or None when every robot of every world is in the arena
        if not state.alive.all():
            present = np.arange(used)[None, :, None] < pairs.sum(axis=1, dtype=np.int64)[:, None, :]
        table = state.kin.reshape(4, n * num_worlds)
        speed2 = np.float64(np.float32(2 * params.max_speed))
        for slot in range(used):  # slot by slot: small temporaries (see the note above)
            rel = table.take(order[:, slot] * num_worlds + np.arange(num_worlds), axis=1)  # (4, N, B)
            rel -= state.kin
            _clip(rel[2:], -speed2, speed2, out=rel[2:])
            if present is not None:
                rel = np.where(present[:, slot], rel, 0.0)
            at = start + NEIGHBOUR_FEATURES * slot
            columns[at : at + 4] = rel
            columns[at + 4] = 1.0 if present is None else present[:, slot]
    start += NEIGHBOUR_FEATURES * k
    ko, m = params.num_obstacles_seen, params.num_obstacles
    if ko and m:
        ox, oy, orad = state.obstacles  # (M, B) each
        key = ox[None, :, :] - px[:, None, :]  # (N, M, B)
        key *= key
        dy = oy[None, :, :] - py[:, None, :]
        dy *= dy
        key += dy
        del dy
        np.sqrt(key, out=key)
        key -= orad  # edge distance
        used = min(ko, m)
        order = _nearest(key, used)
        del key
        table = state.obstacles.reshape(3, m * num_worlds)
        size = np.float64(np.float32(params.arena_size))
        for slot in range(used):
            seen = table.take(order[:, slot] * num_worlds + np.arange(num_worlds), axis=1)  # (3, N, B)
            seen[:2] -= state.pos
            _clip(seen[2], 0.0, size, out=seen[2])
            at = start + OBSTACLE_FEATURES * slot
            columns[at : at + 3] = seen
            columns[at + 3] = 1.0
    if params.clip_every_column:
        low, high = params.obs_bounds
        np.clip(out, low, high, out=out)
    if mask is not None and not mask.all():
        out[~mask] = 0.0
    return out


def episode_metrics(state: State) -> dict[str, np.ndarray]:
    """Episode metrics of every world, as of now (read them when an episode ends).

    Returns:
        ``success_rate`` ``(B,)`` float64: fraction of robots that arrived;
        ``cooperative_success`` ``(B,)`` bool: every robot arrived;
        ``collisions`` ``(B,)`` int64: robot-steps in collision over the episode.
    """
    arrived = state.arrival >= 0
    return {
        "success_rate": arrived.mean(axis=1),
        "cooperative_success": arrived.all(axis=1),
        "collisions": state.collisions.copy(),
    }
