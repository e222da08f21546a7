"""The dispatchers behind one interface: the settings choose the class, and every one gives the same episodes."""

from __future__ import annotations

import pytest

from benchmarkzoo.evaluation.dispatch import Dispatcher, InProcessDispatcher, WorkerDispatcher
from benchmarkzoo.evaluation.pool_dispatcher import PoolDispatcher
from benchmarkzoo.evaluation.protocol import run_task
from benchmarkzoo.evaluation.runner import plan_episodes
from benchmarkzoo.evaluation.shares import split_of, split_shares
from benchmarkzoo.evaluation.suites import load_suite


@pytest.mark.parametrize(
    ("backend", "workers", "expected"),
    [("native", 1, InProcessDispatcher), ("sync", 1, InProcessDispatcher), ("native", 2, PoolDispatcher)],
)
def test_the_settings_choose_the_dispatcher(backend, workers, expected):
    dispatcher = Dispatcher("random", backend, 4, workers)
    assert type(dispatcher) is expected
    assert (dispatcher.backend, dispatcher.num_envs, dispatcher.workers) == (backend, 4, workers)
    assert dispatcher.queues_ahead is issubclass(expected, WorkerDispatcher)
    dispatcher.close()  # nothing was started: closing is harmless


def test_the_ray_dispatcher_is_chosen_for_ray():
    pytest.importorskip("ray", reason="needs Ray (the rllib extra)")
    from benchmarkzoo.evaluation.ray_dispatcher import RayDispatcher

    dispatcher = Dispatcher("random", "ray", 2)
    assert type(dispatcher) is RayDispatcher and not dispatcher.queued("any")  # Ray is joined only at start()


def test_a_subclass_is_built_as_itself():
    assert type(PoolDispatcher("random", "native", 2, 1)) is PoolDispatcher  # one worker, but asked for a pool


class _Counting(WorkerDispatcher):
    """Plays each share in this process at ``results``, recording what the interface was asked."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.submitted, self.cancelled, self.stopped = [], [], None

    def submit(self, task, share):
        self.submitted.append([p.index for p in share])
        return (task, share)

    def results(self, task, pending):
        from benchmarkzoo.evaluation.shares import _run_share

        (task, share), *rest = pending
        return [_run_share(task, share, self.policy_spec, self.backend, self.num_envs)], rest

    def cancel(self, handles):
        self.cancelled.extend(handles)

    def shutdown(self, wait_workers):
        self.stopped = wait_workers


def test_a_worker_dispatcher_needs_only_submit_results_cancel(tiny_suite):
    task = load_suite(tiny_suite).tasks[0]
    reference = run_task(task, "random", num_envs=2)  # in this process
    dispatcher = _Counting("random", "native", 2, workers=2)
    played = run_task(task, "random", num_envs=2, dispatcher=dispatcher)
    assert [e.model_dump() for e in played.episodes] == [e.model_dump() for e in reference.episodes]
    plans = plan_episodes(task, 0, list(split_of(task).seeds))
    assert dispatcher.submitted == [[p.index for p in s] for s in split_shares(plans, 2, 2)]
    assert dispatcher.submitted == [[0, 1], [2, 3], [4, 5], [6]]  # 7 episodes, 2 workers, 2 shares each
    dispatcher.close(wait_workers=False)
    assert dispatcher.stopped is False and dispatcher.cancelled == []


def test_a_failed_share_fails_its_task_with_the_policy_message(tiny_suite, tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def act(observations):\n    raise RuntimeError('boom')\n")
    task = load_suite(tiny_suite).tasks[0]
    result = run_task(task, f"{bad}:act", num_envs=2, dispatcher=_Counting(f"{bad}:act", "native", 2, workers=2))
    assert result.status == "failed" and "raised RuntimeError: boom" in result.error and result.episodes == []
