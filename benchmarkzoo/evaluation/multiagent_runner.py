"""Run a multi-agent task on the native multi-agent vector form, autoreset DISABLED.

The same scheduling as :func:`benchmarkzoo.evaluation.runner.run_episodes`: each world plays one
planned episode at a time, reset with that episode's seed and scenario, so an episode's
outcome depends on its seed and scenario alone. A world's episode ends when it has no active
agent left. Its outcome holds the return of every agent (``possible_agents`` order), their sum
(the team return), the length in steps, and the env's end-of-episode metrics (for MAPF-v0:
``success_rate``, ``cooperative_success``, ``makespan``, ``sum_of_costs``); ``success`` is the
``cooperative_success`` metric where the env reports one.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarkzoo import registration
from benchmarkzoo.evaluation.policies import Policy
from benchmarkzoo.evaluation.runner import (
    EpisodeOutcome,
    EpisodePlan,
    _world_mask,
    call_policy,
    checked_scenario,
    make_task_env,
    refused,
)
from benchmarkzoo.evaluation.suites import Task
from benchmarkzoo.scenario_sets import Split

#: Per-step infos that are not episode metrics.
_NOT_METRICS = ("active", "present", "is_success")


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
    spec = registration.spec(task.env)
    num_envs = max(1, min(num_envs, len(plans)))
    generator = split.make_generator()
    env = make_task_env(task, split, backend, num_envs)
    try:
        policy.setup(env, spec)
        observations, _ = env.reset(seed=0)  # initialises every world; each is reset again below
        queue = deque(plans)
        running: list[EpisodePlan | None] = [None] * num_envs
        hashes: dict[int, str] = {}
        returns = np.zeros((num_envs, env.num_agents), dtype=np.float64)  # (B, N)
        lengths = [0] * num_envs
        outcomes: dict[int, EpisodeOutcome] = {}

        def start(world: int, plan: EpisodePlan) -> Any:
            scenario = checked_scenario(task, split, generator, plan)
            hashes[world] = scenario.content_hash
            seeds: list[int | None] = [None] * num_envs
            seeds[world] = plan.seed
            obs, _ = env.reset(seed=seeds, options={"reset_mask": _world_mask(num_envs, [world]), "scenario": scenario})
            running[world] = plan
            returns[world] = 0.0
            lengths[world] = 0
            policy.start_episodes(np.array([world]), [plan.seed])
            return obs

        for world in range(num_envs):
            observations = start(world, queue.popleft())
        while any(p is not None for p in running):
            actions = call_policy(policy, observations, env)
            try:
                observations, rewards, _, _, infos = env.step(actions)
            except Exception as error:  # an action the env cannot take fails the task, whatever raised
                raise refused(policy, error) from error
            ended = ~infos["active"].any(axis=1)  # (B,) worlds with no agent left
            idle_ended = []
            for world, plan in enumerate(running):
                if plan is None:
                    if ended[world]:
                        idle_ended.append(world)
                    continue
                returns[world] += rewards[world]
                lengths[world] += 1
                if not ended[world]:
                    continue
                metrics = _end_metrics(infos, world)
                success = bool(metrics["cooperative_success"]) if "cooperative_success" in metrics else None
                outcome = EpisodeOutcome(
                    index=plan.index, seed=plan.seed, scenario_seed=plan.scenario_seed, scenario_hash=hashes[world],
                    episode_return=returns[world].tolist(), team_return=float(returns[world].sum()),
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
    finally:
        env.close()
    return [outcomes[p.index] for p in plans]
