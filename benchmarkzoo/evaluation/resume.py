"""``evaluate --resume``: the finished episodes of an interrupted run's results file, checked to be this run's.

Episodes are independent, so a resumed run that plays only the missing ones writes the file an
uninterrupted run would. Every refusal comes before anything is written.
"""

from __future__ import annotations

from pathlib import Path

from benchmarkzoo.core.errors import BenchmarkZooError
from benchmarkzoo.evaluation.results import EarlierRun, Episode, Results, TaskResult
from benchmarkzoo.evaluation.runner import plan_episodes
from benchmarkzoo.evaluation.shares import split_of
from benchmarkzoo.evaluation.suites import Suite, Task

#: How a refusal to resume says to start over.
START_OVER = "Pick another --out, or pass --restart to move the file aside and start over."


class ResumeError(BenchmarkZooError, ValueError):
    """``--resume`` given a file of another run (suite, policy, seed or episodes differ)."""


def resumable(path: Path, suite: Suite, policy_spec: str, seed: int) -> Results | None:
    """A previous run's results file, checked to be of this run (``None``: there is no file yet)."""
    if not path.is_file():
        return None
    try:
        previous = Results.read(path)
    except Exception as error:  # a corrupt file: the user decides, nothing is overwritten
        reason = type(error).__name__
        raise ResumeError(f"Cannot resume from {path}: not a readable results file ({reason}). {START_OVER}") from error
    ours = (suite.name, policy_spec, seed)
    theirs = (previous.suite, previous.policy.spec, previous.protocol_seed)
    if ours != theirs:
        raise ResumeError(
            f"Cannot resume from {path}: it holds suite {theirs[0]}, policy {theirs[1]!r}, seed {theirs[2]}; "
            f"this run is suite {ours[0]}, policy {ours[1]!r}, seed {ours[2]}. {START_OVER}"
        )
    unknown = sorted({t.id for t in previous.tasks} - {t.id for t in suite.tasks})
    if unknown:
        raise ResumeError(
            f"Cannot resume from {path}: suite {suite.name} has no task {', '.join(unknown)}. {START_OVER}"
        )
    return previous


def earlier_runs(previous: Results | None) -> list[EarlierRun]:
    """The invocations that wrote ``previous``, oldest first, each with the figures it timed itself.

    A file written before it kept its own figures (an interrupted run saved only its wall time)
    gives that invocation's steps and episodes as those of the file less what it had resumed.
    """
    if previous is None:
        return []
    prov = previous.provenance
    episodes = sum(len(t.episodes) for t in previous.tasks) - prov.resumed_episodes
    steps = prov.steps or max(sum(e.length for t in previous.tasks for e in t.episodes) - prov.resumed_steps, 0)
    last = EarlierRun(
        started_at=prov.started_at,
        wall_time_s=prov.wall_time_s,
        steps=steps,
        steps_per_s=steps / prov.wall_time_s if prov.wall_time_s > 0 else 0.0,
        episodes=max(episodes, 0),
    )
    return [*prov.earlier_runs, last]


def done_episodes(task: Task, previous: TaskResult | None, seed: int) -> list[Episode]:
    """The episodes of ``previous`` that belong to ``task``'s protocol (those of a failed task too)."""
    if previous is None:
        return []
    plans = plan_episodes(task, seed, list(split_of(task).seeds))
    for episode in previous.episodes:
        if episode.index >= len(plans) or (episode.seed, episode.scenario_seed) != (
            plans[episode.index].seed,
            plans[episode.index].scenario_seed,
        ):
            raise ResumeError(
                f"Cannot resume task {task.id}: its episode {episode.index} is not the protocol's "
                f"(was --episodes different?). {START_OVER}"
            )
    return list(previous.episodes)
