"""Compare two results files of one suite: the probability that A improves on B (rliable).

Per task, the chance that a random episode of A scores higher than a random episode of B (ties
half), averaged over tasks, with a stratified bootstrap interval (episodes resampled within each
task, independently for A and B, fixed random state). Scores are each task's scalar score.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from benchmarkzoo.evaluation import metrics
from benchmarkzoo.evaluation.results import Results, task_scores
from benchmarkzoo.leaderboard.validate import SubmissionError, load_submission


@dataclasses.dataclass(frozen=True)
class Comparison:
    """``probability`` that A improves on B, its interval, and the per-task probabilities."""

    suite: str
    a: str
    b: str
    probability: float
    ci: tuple[float, float]
    per_task: dict[str, float]


def compare_results(a: Results, b: Results, reps: int = metrics.REPS) -> Comparison:
    """P(A > B) over the tasks both finished; refuses files of different suites or tasks."""
    if a.suite != b.suite:
        raise SubmissionError(f"the files evaluate different suites: {a.suite} and {b.suite}.")
    if [t.id for t in a.tasks] != [t.id for t in b.tasks]:
        raise SubmissionError("the files have different tasks; compare files of the same suite version.")
    pairs = [(ta, tb) for ta, tb in zip(a.tasks, b.tasks) if ta.status == "ok" and tb.status == "ok"]
    if not pairs:
        raise SubmissionError("no task finished in both files; nothing to compare.")
    xs = [task_scores(ta) for ta, _ in pairs]
    ys = [task_scores(tb) for _, tb in pairs]
    return Comparison(
        suite=a.suite,
        a=a.policy.name,
        b=b.policy.name,
        probability=metrics.probability_of_improvement(xs, ys),
        ci=metrics.probability_of_improvement_ci(xs, ys, reps=reps),
        per_task={ta.id: metrics.probability_of_improvement([x], [y]) for (ta, _), x, y in zip(pairs, xs, ys)},
    )


def compare_files(a: str | Path, b: str | Path) -> Comparison:
    """:func:`compare_results` of two results files (schema-checked, size-limited; not executed)."""
    return compare_results(load_submission(a), load_submission(b))
