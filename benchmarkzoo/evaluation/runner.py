"""Run a task: schedule its episodes on the worlds of a vector env and collect raw outcomes.

Episode ``k`` of task ``t`` is seeded with ``derive_seed(protocol_seed, t, k)`` and plays the
scenario of the ``k``-th seed of the task's split (cycling if there are more episodes than
scenarios). Worlds run with autoreset DISABLED and are reset one episode at a time, so an
episode's outcome depends on its seed and scenario alone: not on the world it ran in, the
number of worlds, the backend, or what ran beside it.
"""

from __future__ import annotations

import dataclasses
from collections import deque
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import iterate

from benchmarkzoo import registration
from benchmarkzoo.core.errors import BenchmarkZooError, ScenarioSetError
from benchmarkzoo.core.seeding import derive_seed
from benchmarkzoo.evaluation.policies import Policy
from benchmarkzoo.evaluation.suites import Task
from benchmarkzoo.scenario_sets import Split

BACKENDS = ("native", "sync", "async")


class TaskFailedError(BenchmarkZooError, RuntimeError):
    """The policy raised, or returned an action the env refused; the message says which."""


@dataclasses.dataclass(frozen=True)
class EpisodePlan:
    """What determines one episode: its index, its seed, and the scenario it plays."""

    index: int
    seed: int
    scenario_seed: int


@dataclasses.dataclass
class EpisodeOutcome:
    """Raw outcome of one episode; aggregates are computed from these alone."""

    index: int
    seed: int
    scenario_seed: int
    scenario_hash: str
    episode_return: float | list[float]
    length: int
    success: bool | None
    metrics: dict[str, float]


def plan_episodes(task: Task, protocol_seed: int, scenario_seeds: list[int]) -> list[EpisodePlan]:
    """The task's episodes in index order."""
    return [
        EpisodePlan(k, derive_seed(protocol_seed, task.id, k), scenario_seeds[k % len(scenario_seeds)])
        for k in range(task.episodes)
    ]


def make_task_env(task: Task, split: Split, backend: str, num_envs: int) -> gym.vector.VectorEnv:
    """The vector env a task runs on, drawing from the task split's generator."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}; got {backend!r}.")
    spec = registration.spec(task.env)
    spec.require_extras()
    kwargs = {**split.env_kwargs(), **task.env_kwargs}
    if backend == "native":
        if not spec.has_native_vector:
            raise ValueError(f"{spec.id} has no native vector form; use --backend sync or async.")
        return registration.make_vec(
            spec.id, num_envs, vectorization_mode="vector_entry_point", autoreset_mode=AutoresetMode.DISABLED, **kwargs
        )
    return gym.make_vec(
        spec.id, num_envs, vectorization_mode=backend, vector_kwargs={"autoreset_mode": AutoresetMode.DISABLED},
        **kwargs,
    )


def _world_mask(num_envs: int, worlds: list[int]) -> np.ndarray:
    mask = np.zeros(num_envs, dtype=bool)
    mask[worlds] = True
    return mask


def _describe(actions: Any) -> str:
    """A short, one-line description of what a policy returned (for error messages)."""
    array = np.asarray(actions, dtype=object) if actions is None else actions
    shape = getattr(array, "shape", None)
    dtype = getattr(array, "dtype", None)
    layout = f", shape {tuple(shape)}, dtype {dtype}" if shape is not None else ""
    return f"{type(actions).__name__}{layout}"


def _check_batch(env: gym.vector.VectorEnv, actions: Any) -> None:
    """Refuse a batch without one action per world before a Gymnasium vector env splits it.

    ``SyncVectorEnv`` would silently pair a (2, 3) array's rows with the first two worlds, and
    ``AsyncVectorEnv`` would send part of the batch to its workers before noticing. The native
    vector envs check their whole batch themselves.
    """
    try:
        count = sum(1 for _ in iterate(env.action_space, actions))
    except Exception as error:
        raise TaskFailedError(
            f"expected a batch of {env.num_envs} actions in {env.action_space}; got {_describe(actions)} ({error})."
        ) from error
    if count != env.num_envs:
        raise TaskFailedError(
            f"expected a batch of {env.num_envs} actions in {env.action_space}; got {count} ({_describe(actions)})."
        )


def _metrics(info: dict[str, Any], world: int) -> tuple[bool | None, dict[str, float]]:
    """``is_success`` and the numeric scalar infos of ``world`` at the end of an episode."""
    success, metrics = None, {}
    for key, value in info.items():
        if key.startswith("_") or key.startswith("final_") or not info.get(f"_{key}", np.zeros(1, bool))[world]:
            continue
        item = value[world]
        if key == "is_success":
            success = bool(item)
        elif isinstance(item, int | float | np.number | np.bool_):
            metrics[key] = float(item)
    return success, metrics


def run_episodes(
    task: Task,
    split: Split,
    plans: list[EpisodePlan],
    policy: Policy,
    backend: str = "native",
    num_envs: int = 8,
    on_episode: Callable[[EpisodeOutcome, int], None] | None = None,
) -> list[EpisodeOutcome]:
    """Play ``plans`` with ``policy``; outcomes come back in plan order.

    Args:
        on_episode: called with each outcome and the number of steps it took, as it finishes.

    Raises:
        TaskFailedError: the policy raised, or its action was refused by the env.
    """
    spec = registration.spec(task.env)
    num_envs = max(1, min(num_envs, len(plans)))
    generator = split.make_generator()
    env = make_task_env(task, split, backend, num_envs)
    failed = True
    try:
        policy.setup(env, spec)
        observations, _ = env.reset(seed=0)  # initialises every world; each is reset again below
        queue = deque(plans)
        running: list[EpisodePlan | None] = [None] * num_envs
        hashes: dict[int, str] = {}
        returns: list[Any] = [0.0] * num_envs
        lengths = [0] * num_envs
        outcomes: dict[int, EpisodeOutcome] = {}

        def start(world: int, plan: EpisodePlan) -> Any:
            scenario = generator.sample(plan.scenario_seed)
            expected = split.hashes.get(plan.scenario_seed)
            if expected != scenario.content_hash:
                raise ScenarioSetError(
                    f"{task.scenario_set}/{task.split}: seed {plan.scenario_seed} now generates "
                    f"{scenario.content_hash[:12]}, the set records {str(expected)[:12]}. "
                    "Run `benchmarkzoo scenarios verify`."
                )
            hashes[world] = scenario.content_hash
            seeds: list[int | None] = [None] * num_envs
            seeds[world] = plan.seed
            obs, _ = env.reset(seed=seeds, options={"reset_mask": _world_mask(num_envs, [world]), "scenario": scenario})
            running[world] = plan
            returns[world], lengths[world] = 0.0, 0
            policy.start_episodes(np.array([world]), [plan.seed])
            return obs

        for world in range(num_envs):
            observations = start(world, queue.popleft())
        while any(p is not None for p in running):
            try:
                actions = policy.act(observations, env)
            except Exception as error:  # the policy's own failure fails the task, with its message
                raise TaskFailedError(f"policy {policy.name!r} raised {type(error).__name__}: {error}") from error
            try:
                if backend != "native":
                    _check_batch(env, actions)
                observations, rewards, terminations, truncations, infos = env.step(actions)
            except Exception as error:  # an action the env cannot take fails the task, whatever raised
                reason = str(error) if isinstance(error, BenchmarkZooError) else f"{type(error).__name__}: {error}"
                raise TaskFailedError(f"policy {policy.name!r} sent an action the env refused: {reason}") from error
            idle_ended = []
            for world, plan in enumerate(running):
                if plan is None:
                    if terminations[world] or truncations[world]:
                        idle_ended.append(world)
                    continue
                returns[world] = returns[world] + rewards[world]
                lengths[world] += 1
                if terminations[world] or truncations[world]:
                    success, metrics = _metrics(infos, world)
                    ret = returns[world]
                    outcome = EpisodeOutcome(
                        index=plan.index, seed=plan.seed, scenario_seed=plan.scenario_seed, scenario_hash=hashes[world],
                        episode_return=ret.tolist() if isinstance(ret, np.ndarray) else float(ret),
                        length=lengths[world], success=success, metrics=metrics,
                    )
                    outcomes[plan.index] = outcome
                    if on_episode is not None:
                        on_episode(outcome, lengths[world])
                    running[world] = None
                    if queue:
                        observations = start(world, queue.popleft())
                    else:
                        idle_ended.append(world)
            if idle_ended and any(p is not None for p in running):
                # Idle worlds keep stepping (their outputs are ignored) but must be reset once ended.
                observations, _ = env.reset(options={"reset_mask": _world_mask(num_envs, idle_ended)})
        failed = False
    finally:
        # After a failure an async env may have lost workers or hold a half-sent step: terminate it.
        if failed and isinstance(env, gym.vector.AsyncVectorEnv):
            env.close(terminate=True)
        else:
            env.close()
    return [outcomes[p.index] for p in plans]
