"""Action checks with messages a person can act on. Nothing is clipped or cast silently.

One rule per space, the same for single envs (:func:`check_action`, which is the space's own
``contains``) and for native vector forms (the batched checks below), so a native vector env and
``SyncVectorEnv`` over the single env refuse the same actions:

* ``Discrete(n)``: a Python int or a numpy integer scalar in ``0..n-1``; any other int, however
  large (``2**70``), is refused as out of range, never an ``OverflowError``.
* ``Box`` of dtype ``d`` (``float32`` here): an array whose dtype casts *safely* to ``d``
  (``numpy.can_cast``, exactly as ``gymnasium.spaces.Box.contains``): bool, int8, int16, uint8,
  uint16, float16 and float32 arrays pass; int32, int64 and float64 arrays do not, because float32
  cannot hold all their values exactly. Lists and scalars are converted to ``d`` first. Cast
  policy outputs with ``.astype(np.float32)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from benchmarkzoo.core.errors import InvalidActionError, InvalidAgentError

_UNSAFE_CAST = (
    "dtype {0} does not cast safely to {1} (the rule of gymnasium's Box.contains), so it is refused even "
    "in bounds: cast with .astype(np.{1})."
)


def _big_int_world(arr: np.ndarray, n: int) -> int | None:
    """The first entry of an object array of Python ints outside ``0..n-1`` (ints too large for int64 land here)."""
    if arr.dtype.kind != "O":
        return None
    flat = arr.ravel().tolist()
    if not all(type(value) is int for value in flat):
        return None
    return next((i for i, value in enumerate(flat) if not 0 <= value < n), None)


def _describe(action: Any) -> str:
    if isinstance(action, np.ndarray):
        body = np.array2string(action, threshold=8, max_line_width=80)
        return f"{body} (ndarray, dtype {action.dtype}, shape {action.shape})"
    return f"{action!r} ({type(action).__name__})"


def check_action(env_id: str, space: spaces.Space, action: Any, who: str = "the action") -> None:
    """Raise :class:`InvalidActionError` unless ``action`` is a member of ``space``.

    Args:
        env_id: the env's registered id, for the message.
        space: the single (unbatched) action space.
        action: what the policy sent.
        who: ``"the action"`` or e.g. ``"agent 'robot_2'"``.
    """
    try:
        if space.contains(action):
            return
    except OverflowError:  # Discrete.contains casts a Python int to int64 first: 2**70 overflows
        pass
    hint = "Sample from env.action_space or map your policy's output into it."
    if isinstance(space, spaces.Discrete) and isinstance(action, float | np.floating):
        hint = "Discrete actions are integers: round or argmax in your policy, then cast to int."
    elif isinstance(space, spaces.Discrete) and isinstance(action, int | np.integer):
        hint = f"Discrete({space.n}) actions are integers in {space.start}..{space.start + space.n - 1}."
    elif isinstance(space, spaces.Box):
        arr = action if isinstance(action, np.ndarray) else np.asarray(action)
        if arr.dtype.kind in "fc" and np.isnan(arr).any():
            hint = "The action contains NaN: check your policy's output."
        elif arr.shape != space.shape:
            hint = f"Reshape the action to {space.shape}."
        elif isinstance(action, np.ndarray) and space.dtype is not None and not np.can_cast(arr.dtype, space.dtype):
            hint = _UNSAFE_CAST.format(arr.dtype, space.dtype)
        else:
            hint = "Clip or rescale in your policy, or wrap the env with gymnasium.wrappers.ClipAction."
    raise InvalidActionError(f"{env_id} expects actions in {space}; {who} sent {_describe(action)}. {hint}")


def check_discrete_batch(env_id: str, actions: Any, n: int, num_worlds: int) -> np.ndarray:
    """Validate a batch of ``Discrete(n)`` actions, shape ``(num_worlds,)``; returns them as int64.

    Fast enough for the vector hot path: one dtype check, one shape check, one range reduction.
    """
    arr = np.asarray(actions)
    if arr.shape != (num_worlds,) or arr.dtype.kind not in "iu":
        if arr.shape == (num_worlds,) and (index := _big_int_world(arr, n)) is not None:
            raise InvalidActionError(
                f"{env_id} expects actions in Discrete({n}) (0..{n - 1}); world {index} sent {arr[index]}. "
                "Sample from env.single_action_space or map your policy's output into it."
            )
        raise InvalidActionError(
            f"{env_id} expects a batch of Discrete({n}) actions: an integer array of shape "
            f"({num_worlds},); got {_describe(arr)}. Use env.action_space.sample() for the layout."
        )
    bad = (arr < 0) | (arr >= n)
    if bad.any():
        index = int(np.flatnonzero(bad)[0])
        raise InvalidActionError(
            f"{env_id} expects actions in Discrete({n}) (0..{n - 1}); world {index} sent {arr[index]}. "
            "Sample from env.single_action_space or map your policy's output into it."
        )
    return arr.astype(np.int64, copy=False)


def check_box_batch(env_id: str, actions: Any, low: float, high: float, shape: tuple[int, ...]) -> np.ndarray:
    """Validate a batch of ``Box(low, high, shape[1:], float32)`` actions, vectorized.

    Accepts exactly what the single env's ``action_space.contains`` accepts row by row (a
    dtype that casts safely to float32, see the module docstring; the shape; every entry in
    bounds; no NaN), so the native and the sync vector env refuse the same batches. Returns the
    batch as an array.
    """
    arr = actions
    if not isinstance(arr, np.ndarray):
        try:
            arr = np.asarray(actions, dtype=np.float32)
        except (TypeError, ValueError) as error:
            raise InvalidActionError(
                f"{env_id} expects a float32 array of shape {shape}; got {type(actions).__name__}: {error}."
            ) from None
    if arr.shape == shape and not np.can_cast(arr.dtype, np.float32):
        raise InvalidActionError(
            f"{env_id} expects a batch of actions as a float32 array of shape {shape} in [{low}, {high}]; got "
            f"dtype {arr.dtype}. " + _UNSAFE_CAST.format(arr.dtype, "float32")
        )
    if arr.shape != shape:
        raise InvalidActionError(
            f"{env_id} expects a batch of actions as a float32 array of shape {shape} in [{low}, {high}]; got "
            f"dtype {arr.dtype}, shape {arr.shape}. Use env.action_space.sample() for the layout, and cast "
            "float64 policy outputs with .astype(np.float32)."
        )
    if not (arr.min() >= low and arr.max() <= high):  # False for NaN too
        bad = ~((arr >= low) & (arr <= high))
        world = int(np.flatnonzero(bad.any(axis=tuple(range(1, arr.ndim))))[0])
        hint = (
            "The action contains NaN: check your policy's output."
            if np.isnan(arr[world]).any()
            else "Clip or rescale in your policy, or wrap the env with gymnasium.wrappers.vector.ClipAction."
        )
        raise InvalidActionError(
            f"{env_id} expects actions in [{low}, {high}] ; world {world} sent {arr[world].tolist()}. {hint}"
        )
    return arr


def check_action_dict(env_id: str, actions: Any, live: list[str], known: Any, idle_action: str) -> None:
    """Raise :class:`InvalidAgentError` unless ``actions`` has exactly one entry per live agent.

    Args:
        env_id: the env's registered id, for the message.
        actions: what the policy sent to a PettingZoo ``ParallelEnv.step``.
        live: ``env.agents``, the agents that must act.
        known: every agent name the env has (``possible_agents``; a set or mapping).
        idle_action: how an agent stays put, for the hint (e.g. ``"send 0 to stay"``).
    """
    if not isinstance(actions, dict):
        raise InvalidAgentError(
            f"{env_id} expects a dict of actions keyed by agent name ({', '.join(live)}); got "
            f"{type(actions).__name__}. Build it as {{agent: action for agent in env.agents}}."
        )
    if len(actions) == len(live) and all(agent in actions for agent in live):
        return
    alive = set(live)
    for name in actions:
        if name in alive:
            continue
        if name in known:
            raise InvalidAgentError(
                f"{env_id}: agent {name!r} has already finished (reached its goal or was truncated) and is no "
                f"longer in env.agents; send actions only for env.agents ({', '.join(live)})."
            )
        raise InvalidAgentError(
            f"{env_id}: unknown agent {name!r} in the action dict; the agents are {', '.join(live)}. "
            "Send actions only for env.agents."
        )
    missing = [agent for agent in live if agent not in actions]
    raise InvalidAgentError(
        f"{env_id}: the action dict has no action for live agent(s) {', '.join(map(repr, missing))}; every agent "
        f"in env.agents must act ({idle_action})."
    )


def check_discrete_agents(env_id: str, actions: Any, n: int, acting: np.ndarray, agents: list[str]) -> np.ndarray:
    """Validate a ``(B, N)`` batch of ``Discrete(n)`` actions where ``acting``; returns int64 with ``0`` elsewhere.

    Entries of agents outside ``acting`` (finished, or in a world about to be reset) are ignored.
    """
    arr = np.asarray(actions)
    if arr.shape != acting.shape or arr.dtype.kind not in "iu":
        if arr.shape == acting.shape and (index := _big_int_world(arr, n)) is not None:
            world, agent = divmod(index, acting.shape[1])
            raise InvalidActionError(
                f"{env_id} expects actions in Discrete({n}) (0..{n - 1}); world {world}, agent {agents[agent]!r} "
                f"sent {arr[world, agent]}. Sample from env.single_action_space or map your policy's output into it."
            )
        raise InvalidActionError(
            f"{env_id} expects a batch of Discrete({n}) actions: an integer array of shape {acting.shape} "
            f"(worlds, agents in possible_agents order); got dtype {arr.dtype}, shape {arr.shape}. "
            "Use env.action_space.sample() for the layout."
        )
    bad = acting & ((arr < 0) | (arr >= n))
    if bad.any():
        world, agent = (int(x) for x in np.argwhere(bad)[0])
        raise InvalidActionError(
            f"{env_id} expects actions in Discrete({n}) (0..{n - 1}); world {world}, agent {agents[agent]!r} sent "
            f"{arr[world, agent]}. Sample from env.single_action_space or map your policy's output into it."
        )
    return np.where(acting, arr, 0).astype(np.int64, copy=False)
