"""Run a multi-agent task on the native multi-agent vector form, autoreset DISABLED.

The same scheduling as :func:`benchmarkzoo.evaluation.runner.run_episodes`: each world plays one
planned episode at a time, reset with that episode's seed and scenario, so an episode's
outcome depends on its seed and scenario alone. A world's episode ends when it has no active
agent left. Its outcome holds the return of every agent (``possible_agents`` order; for ``moma``
envs one list per agent, an entry per objective), their sum (the team return; for ``moma`` the
scoring sums them per objective), the length in steps, and the env's end-of-episode metrics (for MAPF-v0:
``success_rate``, ``cooperative_success``, ``makespan``, ``sum_of_costs``); ``success`` is the
``cooperative_success`` metric where the env reports one, else its ``won`` (MicroCombat).
Episodes whose simulator died (SUMO, for the traffic envs) are replayed like the single-agent ones
(:func:`~benchmarkzoo.evaluation.runner.replaying`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarkzoo import registration
from benchmarkzoo.core.errors import SimulatorError
from benchmarkzoo.evaluation.policies import Policy
from benchmarkzoo.evaluation.runner import (
    EpisodeOutcome,
    EpisodePlan,
    Scheduler,
    SimulatorCrashError,
    call_policy,
    close_task_env,
    make_task_env,
    refused,
    replaying,
)
from benchmarkzoo.evaluation.suites import Task
from benchmarkzoo.scenario_sets import Split

#: Per-step infos that are not episode metrics.
_NOT_METRICS = ("active", "present", "is_success")
_SUCCESS_METRICS = ("cooperative_success", "won")  # the first an env reports is the episode's success


def _end_metrics(infos: dict[str, Any], world: int) -> dict[str, float]:
    """The scalar per-world infos of ``world`` at the end of its episode (``(B,)`` arrays under their mask)."""
    found = {}
    for key, value in infos.items():
        if key.startswith("_") or key in _NOT_METRICS or not infos.get(f"_{key}", np.zeros(1, bool))[world]:
            continue
        item = value[world]
        if np.ndim(item) == 0 and isinstance(item, int | float | np.number | np.bool_):
            found[key] = float(item)
    return found


def run_multiagent_episodes(
    task: Task,
    split: Split,
    plans: list[EpisodePlan],
    policy: Policy,
    backend: str = "native",
    num_envs: int = 8,
    on_episode: Callable[[EpisodeOutcome, int], None] | None = None,
) -> list[EpisodeOutcome]:
    """Play ``plans`` of a ``parallel`` task with ``policy``; outcomes come back in plan order."""
    return replaying(
        plans, lambda todo, finished: _play(task, split, todo, policy, backend, num_envs, finished), on_episode
    )


def _play(
    task: Task,
    split: Split,
    plans: list[EpisodePlan],
    policy: Policy,
    backend: str,
    num_envs: int,
    finished_episode: Callable[[EpisodeOutcome, int], None],
) -> None:
    """One try at ``plans`` on a fresh env; a dead simulator comes out as :class:`SimulatorCrashError`."""
    spec = registration.spec(task.env)
    num_envs = max(1, min(num_envs, len(plans)))
    env, worlds = None, None
    failed = True
    try:
        env = make_task_env(task, split, backend, num_envs)
        policy.setup(env, spec)
        worlds = Scheduler(env, task, split, plans, policy)
        observations = worlds.start(list(range(num_envs)), first=True)
        returns: np.ndarray | None = None  # (B, N), or (B, N, k) for moma's vector rewards
        lengths = np.zeros(num_envs, dtype=np.int64)  # (B,)
        while worlds.active:
            actions = call_policy(policy, observations, env)
            try:
                observations, rewards, _, _, infos = env.step(actions)
            except SimulatorError:
                raise
            except Exception as error:  # an action the env cannot take fails the task, whatever raised
                raise refused(policy, error) from error
            # Every world at once (elementwise: each world's sum is the same in any batch); idle
            # worlds' sums are garbage and zeroed when they start an episode.
            if returns is None:
                returns = np.zeros(np.shape(rewards), dtype=np.float64)
            returns += rewards
            lengths += 1
            ended = ~infos["active"].any(axis=1)  # (B,) worlds with no agent left
            if not ended.any():
                continue
            finished, idle_ended = [], []
            for world in np.flatnonzero(ended).tolist():
                plan = worlds.running[world]
                if plan is None:
                    idle_ended.append(world)
                    continue
                worlds.finish(world)
                finished.append(world)
                metrics = _end_metrics(infos, world)
                success = next((bool(metrics[key]) for key in _SUCCESS_METRICS if key in metrics), None)
                outcome = EpisodeOutcome(
                    index=plan.index,
                    seed=plan.seed,
                    scenario_seed=plan.scenario_seed,
                    scenario_hash=worlds.hashes[world],
                    episode_return=returns[world].tolist(),
                    team_return=float(returns[world].sum()) if returns.ndim == 2 else None,
                    length=int(lengths[world]),
                    success=success,
                    metrics=metrics,
                )
                finished_episode(outcome, outcome.length)
            restart = finished[: len(worlds.queue)]
            idle = [*finished[len(restart) :], *idle_ended]
            if restart or (idle and worlds.active):
                # Idle worlds keep stepping (their outputs are ignored) but must be reset once ended.
                observations = worlds.start(restart, idle)
                returns[restart] = 0.0
                lengths[restart] = 0
        failed = False
    except SimulatorError as error:
        raise SimulatorCrashError(error, worlds.in_flight() if worlds is not None else []) from error
    finally:
        close_task_env(env, failed)
