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

#: Where the worlds of a task live: in one native simulator, or Gymnasium's sync / async vector envs.
ENV_BACKENDS = ("native", "sync", "async")
#: ``--backend`` choices: an env backend, or ``ray`` (shares of episodes on Ray workers, native there).
BACKENDS = (*ENV_BACKENDS, "ray")


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
    team_return: float | None = None


def plan_episodes(task: Task, protocol_seed: int, scenario_seeds: list[int]) -> list[EpisodePlan]:
    """The task's episodes in index order."""
    return [
        EpisodePlan(k, derive_seed(protocol_seed, task.id, k), scenario_seeds[k % len(scenario_seeds)])
        for k in range(task.episodes)
    ]


def make_task_env(task: Task, split: Split, backend: str, num_envs: int) -> gym.vector.VectorEnv:
    """The vector env a task runs on, drawing from the task split's generator."""
    if backend not in ENV_BACKENDS:
        raise ValueError(f"backend must be one of {ENV_BACKENDS}; got {backend!r}.")
    spec = registration.spec(task.env)
    spec.require_extras()
    kwargs = {**split.env_kwargs(), **task.env_kwargs}
    if spec.kind in ("parallel", "moma"):
        if backend != "native":
            raise TaskFailedError(
                f"{spec.id} is a multi-agent env: it runs on its native multi-agent vector form only; "
                "use --backend native (or ray, which runs native)."
            )
        return registration.make_vec(spec.id, num_envs, autoreset_mode=AutoresetMode.DISABLED, **kwargs)
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


def checked_scenario(task: Task, split: Split, generator: Any, plan: EpisodePlan) -> Any:
    """The scenario ``plan`` plays, refused unless its hash is the one the scenario set records."""
    scenario = generator.sample(plan.scenario_seed)
    expected = split.hashes.get(plan.scenario_seed)
    if expected != scenario.content_hash:
        raise ScenarioSetError(
            f"{task.scenario_set}/{task.split}: seed {plan.scenario_seed} now generates "
            f"{scenario.content_hash[:12]}, the set records {str(expected)[:12]}. "
            "Run `benchmarkzoo scenarios verify`."
        )
    return scenario


def call_policy(policy: Policy, observations: Any, env: Any) -> Any:
    """``policy.act``, its own failure turned into a :class:`TaskFailedError` naming it."""
    try:
        return policy.act(observations, env)
    except Exception as error:  # the policy's own failure fails the task, with its message
        raise TaskFailedError(f"policy {policy.name!r} raised {type(error).__name__}: {error}") from error


def refused(policy: Policy, error: Exception) -> TaskFailedError:
    """The failure of a task whose policy sent an action the env refused."""
    reason = str(error) if isinstance(error, BenchmarkZooError) else f"{type(error).__name__}: {error}"
    return TaskFailedError(f"policy {policy.name!r} sent an action the env refused: {reason}")


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
    if spec.kind in ("parallel", "moma"):
        from benchmarkzoo.evaluation.multiagent_runner import run_multiagent_episodes

        return run_multiagent_episodes(task, split, plans, policy, backend, num_envs, on_episode)
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
        returns: np.ndarray | None = None  # (B,) or (B, k), in the rewards' dtype, allocated at the first step
        lengths = np.zeros(num_envs, dtype=np.int64)  # (B,)
        outcomes: dict[int, EpisodeOutcome] = {}

        def start(world: int, plan: EpisodePlan) -> Any:
            scenario = checked_scenario(task, split, generator, plan)
            hashes[world] = scenario.content_hash
            seeds: list[int | None] = [None] * num_envs
            seeds[world] = plan.seed
            obs, _ = env.reset(seed=seeds, options={"reset_mask": _world_mask(num_envs, [world]), "scenario": scenario})
            running[world] = plan
            if returns is not None:
                returns[world] = 0
            lengths[world] = 0
            policy.start_episodes(np.array([world]), [plan.seed])
            return obs

        for world in range(num_envs):
            observations = start(world, queue.popleft())
        while any(p is not None for p in running):
            actions = call_policy(policy, observations, env)
            try:
                if backend != "native":
                    _check_batch(env, actions)
                observations, rewards, terminations, truncations, infos = env.step(actions)
            except Exception as error:  # an action the env cannot take fails the task, whatever raised
                raise refused(policy, error) from error
            # Accumulate every world at once (elementwise, so each world's sum is the same in any batch);
            # idle worlds' sums are garbage and zeroed when they start an episode.
            rewards = np.asarray(rewards)
            if returns is None:
                returns = np.zeros_like(rewards)
            returns += rewards
            lengths += 1
            idle_ended = []
            for world in np.flatnonzero(np.logical_or(terminations, truncations)).tolist():
                plan = running[world]
                if plan is None:
                    idle_ended.append(world)
                    continue
                success, metrics = _metrics(infos, world)
                ret = returns[world]
                outcome = EpisodeOutcome(
                    index=plan.index, seed=plan.seed, scenario_seed=plan.scenario_seed, scenario_hash=hashes[world],
                    episode_return=ret.tolist() if ret.ndim else float(ret),
                    length=int(lengths[world]), success=success, metrics=metrics,
                )
                outcomes[plan.index] = outcome
                if on_episode is not None:
                    on_episode(outcome, int(lengths[world]))
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
