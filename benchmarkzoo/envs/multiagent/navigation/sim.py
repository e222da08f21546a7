"""The Navigation simulator: ``B`` worlds of ``N`` disc robots in batched numpy, shared by every view.

The ParallelEnv is a batch of one world, the native vector env a batch of ``B``. Every state array
is ``(B, N)`` (or ``(B, M)`` for obstacles) per coordinate, and every line below is elementwise
(``+ - * /``, ``sqrt``, comparisons, ``where``), an exact reduction (``min``, ``any``, integer
counts) or a stable sort, so each world's numbers are the same whatever the batch size: world
``i`` of a vector env equals a ParallelEnv seeded ``s + i``, bit for bit. No float ``sum``,
``dot``, ``matmul`` or trigonometry (whose rounding may depend on the shape).

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
``- collision_penalty`` if in collision ``+ goal_reward`` if it arrived.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from benchmarkzoo.envs.multiagent.navigation.generator import NavigationScenario

DYNAMICS = ("holonomic", "unicycle")
NEIGHBOUR_FEATURES = 5  # dx, dy, dvx, dvy, present
OBSTACLE_FEATURES = 4  # dx, dy, radius, present
#: m, the safety filter keeps gaps at least this wide, so rounding cannot turn a near-touch into an overlap.
SKIN = 1e-6


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
        low, high = np.array(low, dtype=np.float32), np.array(high, dtype=np.float32)
        low.setflags(write=False)
        high.setflags(write=False)
        return low, high


@dataclasses.dataclass
class State:
    """Mutable state of ``B`` worlds, one ``(B, N)`` float64 array per coordinate.

    Attributes:
        px, py: robot centres, m (frozen once a robot has arrived).
        vx, vy: velocities, m/s (world frame).
        hx, hy: unit heading (unicycle; holonomic robots keep their initial heading).
        gx, gy: goals, m.
        ox, oy, orad: ``(B, M)`` obstacle centres and radii, m.
        active: ``(B, N)`` bool, in the arena (has not arrived).
        arrival: ``(B, N)`` int64, the step of arrival (``1`` = first step), ``-1`` before.
        collisions: ``(B,)`` int64, robot-steps in collision since the world's load.
        time: ``(B,)`` int64, steps since the world's load.
    """

    px: np.ndarray
    py: np.ndarray
    vx: np.ndarray
    vy: np.ndarray
    hx: np.ndarray
    hy: np.ndarray
    gx: np.ndarray
    gy: np.ndarray
    ox: np.ndarray
    oy: np.ndarray
    orad: np.ndarray
    active: np.ndarray
    arrival: np.ndarray
    collisions: np.ndarray
    time: np.ndarray


def init_state(params: Params, num_worlds: int) -> State:
    """An empty batch; every world must be :func:`load`-ed before it is stepped."""
    n, m = params.num_agents, params.num_obstacles
    zeros = functools.partial(np.zeros, (num_worlds, n))
    return State(
        px=zeros(), py=zeros(), vx=zeros(), vy=zeros(), hx=np.ones((num_worlds, n)), hy=zeros(), gx=zeros(),
        gy=zeros(), ox=np.zeros((num_worlds, m)), oy=np.zeros((num_worlds, m)), orad=np.ones((num_worlds, m)),
        active=np.zeros((num_worlds, n), dtype=bool), arrival=np.full((num_worlds, n), -1, dtype=np.int64),
        collisions=np.zeros(num_worlds, dtype=np.int64), time=np.zeros(num_worlds, dtype=np.int64),
    )


def load(state: State, world: int, scenario: NavigationScenario) -> None:
    """Write ``scenario`` into world ``world``: robots at rest at their starts, clocks at zero."""
    state.px[world], state.py[world] = scenario.starts.T
    state.gx[world], state.gy[world] = scenario.goals.T
    state.hx[world], state.hy[world] = scenario.headings.T
    state.vx[world] = 0.0
    state.vy[world] = 0.0
    state.ox[world], state.oy[world], state.orad[world] = scenario.obstacles.T
    state.active[world] = True
    state.arrival[world] = -1
    state.collisions[world] = 0
    state.time[world] = 0


def _goal_distance(state: State) -> np.ndarray:
    dx, dy = state.gx - state.px, state.gy - state.py
    return np.sqrt(dx * dx + dy * dy)


@functools.lru_cache(maxsize=16)
def _not_self(n: int) -> np.ndarray:
    """``(N, N)`` bool, ``False`` on the diagonal (cached: a step builds no ``eye``)."""
    mask = ~np.eye(n, dtype=bool)
    mask.setflags(write=False)
    return mask


def _pair_mask(active: np.ndarray) -> np.ndarray:
    """``(B, N, N)`` bool: both robots active, and not the same robot."""
    both = active[:, :, None] & active[:, None, :]
    both &= _not_self(active.shape[1])
    return both


def _safety_scale(state: State, dx: np.ndarray, dy: np.ndarray, pairs: np.ndarray, params: Params) -> np.ndarray:
    """``(B, N)`` factor in ``[0, 1]`` for each robot's move ``(dx, dy)``, by the barrier of step 2."""
    gamma, r = params.safety_gamma, params.agent_radius
    scale = np.ones_like(dx)
    groups = [(state.px[:, None, :], state.py[:, None, :], 2.0 * r, 0.5, pairs)]
    if params.num_obstacles:
        groups.append((state.ox[:, None, :], state.oy[:, None, :], r + state.orad[:, None, :], 1.0, None))
    for cx, cy, reach, share, valid in groups:
        rx, ry = cx - state.px[:, :, None], cy - state.py[:, :, None]  # (B, N, K) towards the other disc
        dist = np.sqrt(rx * rx + ry * ry)
        approach = (dx[:, :, None] * rx + dy[:, :, None] * ry) / np.maximum(dist, 1e-12)  # m moved towards it
        bound = np.maximum((gamma * share) * ((dist - reach) - SKIN), 0.0)
        limited = approach > bound
        if valid is not None:
            limited &= valid
        factor = np.ones_like(approach)
        np.divide(bound, approach, out=factor, where=limited)
        np.minimum(scale, factor.min(axis=2), out=scale)
    return scale


def _overlaps(qx: np.ndarray, qy: np.ndarray, pairs: np.ndarray, state: State, params: Params) -> np.ndarray:
    """``(B, N)`` bool: active robots whose disc at ``(qx, qy)`` overlaps another robot's or an obstacle.

    ``pairs`` is :func:`_pair_mask` of the active robots.
    """
    rx, ry = qx[:, :, None] - qx[:, None, :], qy[:, :, None] - qy[:, None, :]
    reach = 2.0 * params.agent_radius
    hit = ((rx * rx + ry * ry) < reach * reach) & pairs
    bad = hit.any(axis=2)
    if params.num_obstacles:
        rx, ry = qx[:, :, None] - state.ox[:, None, :], qy[:, :, None] - state.oy[:, None, :]
        reach = params.agent_radius + state.orad[:, None, :]
        bad |= ((rx * rx + ry * ry) < reach * reach).any(axis=2)
    return bad & state.active


def step(state: State, actions: np.ndarray, params: Params) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Advance every world one step by the rules in the module docstring; updates ``state`` in place.

    Args:
        actions: ``(B, N, 2)`` in ``[-1, 1]``, validated for active robots; entries of inactive
            robots are ignored, whatever they hold.

    Returns:
        rewards: ``(B, N)`` float64, ``0.0`` for robots that were not active.
        arrived: ``(B, N)`` bool, the robots that arrived (and left) on this step.
        collided: ``(B, N)`` bool, the robots in collision on this step.
    """
    active = state.active
    a0 = np.where(active, actions[..., 0], 0.0).astype(np.float64)  # (B, N); inactive robots do nothing
    a1 = np.where(active, actions[..., 1], 0.0).astype(np.float64)
    dt = params.dt
    before = _goal_distance(state)
    if params.dynamics == "holonomic":
        dv = params.max_accel * dt
        vx, vy = state.vx + dv * a0, state.vy + dv * a1
        speed2 = vx * vx + vy * vy
        too_fast = speed2 > params.max_speed * params.max_speed
        if too_fast.any():
            shrink = np.where(too_fast, params.max_speed / np.sqrt(np.maximum(speed2, 1e-300)), 1.0)
            vx *= shrink
            vy *= shrink
        dx, dy = (0.5 * dt) * (state.vx + vx), (0.5 * dt) * (state.vy + vy)
        hx, hy = state.hx, state.hy
    else:
        forward = params.max_speed * a0
        vx, vy = forward * state.hx, forward * state.hy
        dx, dy = dt * vx, dt * vy
        t = (0.5 * dt * params.max_turn_rate) * a1  # tan of half the turn
        denom = 1.0 + t * t
        c, s = (1.0 - t * t) / denom, (2.0 * t) / denom
        hx, hy = c * state.hx - s * state.hy, s * state.hx + c * state.hy
        norm = np.sqrt(hx * hx + hy * hy)
        hx /= norm
        hy /= norm
    limit = params.arena_size - params.agent_radius
    for p, d, v in ((state.px, dx, vx), (state.py, dy, vy)):
        q = p + d
        out = (q > limit) | (q < -limit)
        if out.any():
            d[out] = np.clip(q[out], -limit, limit) - p[out]
            v[out] = 0.0
    pairs = _pair_mask(active)
    if params.safety_filter:  # after the walls: a scaled move from inside the arena stays inside
        scale = _safety_scale(state, dx, dy, pairs, params)
        dx, dy, vx, vy = dx * scale, dy * scale, vx * scale, vy * scale
    qx, qy = state.px + dx, state.py + dy
    moving = active & ((qx != state.px) | (qy != state.py))
    collided = np.zeros_like(active)
    for _ in range(params.num_agents + 1):
        bad = _overlaps(qx, qy, pairs, state, params)
        collided |= bad
        cancel = bad & moving
        if not cancel.any():
            break
        qx[cancel] = state.px[cancel]
        qy[cancel] = state.py[cancel]
        vx[cancel] = 0.0
        vy[cancel] = 0.0
        moving &= ~cancel
    still = ~active  # robots that have left keep their last state
    state.px[:] = np.where(still, state.px, qx)
    state.py[:] = np.where(still, state.py, qy)
    state.vx[:] = np.where(still, state.vx, vx)
    state.vy[:] = np.where(still, state.vy, vy)
    state.hx[:] = np.where(still, state.hx, hx)
    state.hy[:] = np.where(still, state.hy, hy)
    after = _goal_distance(state)
    arrived = active & (after <= params.goal_radius)
    rewards = params.progress_reward * (before - after)
    rewards -= params.collision_penalty * collided
    rewards += params.goal_reward * arrived
    rewards[~active] = 0.0
    state.time += 1
    state.collisions += collided.sum(axis=1)
    if arrived.any():
        active[arrived] = False
        state.arrival[arrived] = np.broadcast_to(state.time[:, None], arrived.shape)[arrived]
    return rewards, arrived, collided


def _nearest(key: np.ndarray, count: int) -> np.ndarray:
    """``(B, N, count)`` indices of the ``count`` smallest entries of ``key`` ``(B, N, K)`` along the last
    axis, ties by index (a stable sort: exact whatever the batch size)."""
    return np.argsort(key, axis=2, kind="stable")[:, :, :count]


def observe(state: State, params: Params, mask: np.ndarray | None = None) -> np.ndarray:
    """Every robot's observation (a fresh array, safe to keep).

    Args:
        mask: ``(B, N)`` bool; robots outside it get all-zero observations (``None``: every robot).

    Returns:
        ``(B, N, obs_size)`` float32, laid out as in the env's docstring: own position, velocity,
        (heading,) goal minus position; then the ``k`` nearest active robots by centre distance
        (relative position, relative velocity, 1), then the ``k_o`` nearest obstacles by edge
        distance (relative centre, radius, 1). Missing neighbours and obstacles are zero rows.
        Clipped to :attr:`Params.obs_bounds`.
    """
    num_worlds, n = state.px.shape
    out = np.zeros((num_worlds, n, params.obs_size), dtype=np.float32)  # float64 values are rounded on assignment
    own = [state.px, state.py, state.vx, state.vy]
    if params.dynamics == "unicycle":
        own += [state.hx, state.hy]
    own += [state.gx - state.px, state.gy - state.py]
    for column, value in enumerate(own):
        out[:, :, column] = value
    start = params.self_size
    k = params.num_neighbours
    if k and n > 1:
        pairs = _pair_mask(state.active)
        rx, ry = state.px[:, None, :] - state.px[:, :, None], state.py[:, None, :] - state.py[:, :, None]
        used = min(k, n - 1)
        order = _nearest(np.where(pairs, rx * rx + ry * ry, np.inf), used)  # (B, N, used): row i, seen by i
        present = np.arange(used) < pairs.sum(axis=2)[:, :, None]  # the others come first, sorted
        flat = order + (np.arange(num_worlds) * n)[:, None, None]  # into (B * N,) arrays
        block = out[:, :, start : start + NEIGHBOUR_FEATURES * used].reshape(num_worlds, n, used, NEIGHBOUR_FEATURES)
        for f, values in enumerate((state.px, state.py, state.vx, state.vy)):
            block[..., f] = np.where(present, values.ravel()[flat] - values[:, :, None], 0.0)
        block[..., 4] = present
        out[:, :, start : start + NEIGHBOUR_FEATURES * used] = block.reshape(num_worlds, n, -1)
    start += NEIGHBOUR_FEATURES * k
    ko, m = params.num_obstacles_seen, params.num_obstacles
    if ko and m:
        rx, ry = state.ox[:, None, :] - state.px[:, :, None], state.oy[:, None, :] - state.py[:, :, None]
        used = min(ko, m)
        order = _nearest(np.sqrt(rx * rx + ry * ry) - state.orad[:, None, :], used)  # by edge distance
        flat = order + (np.arange(num_worlds) * m)[:, None, None]
        block = np.empty((num_worlds, n, used, OBSTACLE_FEATURES), dtype=np.float32)
        block[..., 0] = state.ox.ravel()[flat] - state.px[:, :, None]
        block[..., 1] = state.oy.ravel()[flat] - state.py[:, :, None]
        block[..., 2] = state.orad.ravel()[flat]
        block[..., 3] = 1.0
        out[:, :, start : start + OBSTACLE_FEATURES * used] = block.reshape(num_worlds, n, -1)
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
