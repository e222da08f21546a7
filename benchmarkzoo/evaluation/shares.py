"""A task's episodes cut into shares, and one share played where a dispatcher sends it.

Outcomes depend on an episode's seed and scenario alone (:mod:`benchmarkzoo.evaluation.runner`),
so a task can be cut into contiguous shares played anywhere, in any order, and merged back by
episode index: the results are the same for any number of workers or shares.
"""

from __future__ import annotations

from benchmarkzoo.core.errors import BenchmarkZooError
from benchmarkzoo.evaluation.policies import load_policy
from benchmarkzoo.evaluation.runner import EpisodeOutcome, EpisodePlan, run_episodes
from benchmarkzoo.evaluation.suites import Task
from benchmarkzoo.scenario_sets import Split, load_set, set_path

#: Shares per worker and task: few, since each share pays for its env and its own tail of idle
#: worlds; tasks are queued back to back, so workers stay busy without finer shares.
SHARES_PER_WORKER = 2

#: Splits loaded by this process (the main one, or a worker), keyed by set and the file's path, mtime, size:
#: parsing a set's YAML costs tens of milliseconds, and a worker plays many shares of one task.
_SPLITS: dict[tuple, Split] = {}


def split_of(task: Task) -> Split:
    """The scenario split ``task`` plays, loaded once per process while its file is unchanged."""
    path = set_path(task.scenario_set)
    stat = path.stat()
    key = (task.scenario_set, task.split, str(path), stat.st_mtime_ns, stat.st_size)
    split = _SPLITS.get(key)
    if split is None:
        if len(_SPLITS) >= 64:
            _SPLITS.clear()
        split = _SPLITS[key] = load_set(task.scenario_set).split(task.split)
    return split


def failure_message(error: BaseException, policy_spec: str) -> str:
    """The one line a task failure is recorded with."""
    if isinstance(error, BenchmarkZooError):
        return str(error)
    if isinstance(error, SystemExit):
        return f"policy {policy_spec!r} called sys.exit({error.code!r}); a policy returns actions or raises."
    return f"{type(error).__name__}: {error} (while playing policy {policy_spec!r})"


def split_shares(plans: list[EpisodePlan], parallel: int, num_envs: int) -> list[list[EpisodePlan]]:
    """Contiguous shares of ``plans``: about ``SHARES_PER_WORKER`` per worker, each at least ``num_envs`` long."""
    size = max(num_envs, -(-len(plans) // (max(1, parallel) * SHARES_PER_WORKER)), 1)
    return [plans[i : i + size] for i in range(0, len(plans), size)]


def _run_share(
    task: Task, plans: list[EpisodePlan], policy_spec: str, backend: str, num_envs: int
) -> tuple[list[EpisodeOutcome], str | None]:
    """A worker's share of a task (top-level, so it pickles; Ray names its worker processes after it).

    A task failure comes back as its message, with the episodes the share finished before it.
    """
    finished: list[EpisodeOutcome] = []
    try:
        policy = load_policy(policy_spec)
        run_episodes(task, split_of(task), plans, policy, backend, num_envs, lambda o, _: finished.append(o))
        return finished, None
    except (Exception, SystemExit) as failure:  # SystemExit too: it would end the worker, not the task
        return finished, failure_message(failure, policy_spec)
