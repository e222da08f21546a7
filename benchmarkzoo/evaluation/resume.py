"""``evaluate --resume``: the finished episodes of an interrupted run's results file, checked to be this run's.

Episodes are independent, so a resumed run that plays only the missing ones writes the file an
uninterrupted run would. Every refusal comes before anything is written.
"""

from __future__ import annotations

from pathlib import Path

from benchmarkzoo.core.errors import BenchmarkZooError
from benchmarkzoo.evaluation.results import Episode, Results, TaskResult
from benchmarkzoo.evaluation.runner import plan_episodes
from benchmarkzoo.evaluation.shares import split_of
from benchmarkzoo.evaluation.suites import Suite, Task

#: How a refusal to resume says to start over.
START_OVER = "Pick another --out, or pass --restart to move the file aside and start over."


class ResumeError(BenchmarkZooError, ValueError):
    """``--resume`` given a file of another run (suite, policy, seed or episodes differ)."""


def resumable(path: Path, suite: Suite, policy_spec: str, seed: int) -> dict[str, TaskResult]:
    """The tasks of a previous run's results file, checked to be of this run."""
    if not path.is_file():
        return {}
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
    return {t.id: t for t in previous.tasks}


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
