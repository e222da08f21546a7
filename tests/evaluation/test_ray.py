"""``--backend ray``: shares of episodes on Ray workers give the native backend's raw outcomes, bit for bit."""

from __future__ import annotations

import pytest

from benchmarkzoo.evaluation.protocol import evaluate

from .test_determinism import raw
from .test_multiagent import MA_SUITE

ray = pytest.importorskip("ray", reason="needs Ray (the rllib extra)")


@pytest.fixture(scope="module")
def local_ray():
    """A local Ray of two CPUs, started by the test and stopped after it."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def suites(tmp_path_factory, suite_writer):
    folder = tmp_path_factory.mktemp("ray")
    return {"maze": suite_writer(folder), "mapf": suite_writer(folder, MA_SUITE)}


@pytest.mark.parametrize(("suite", "policy"), [("maze", "random"), ("maze", "baseline"), ("mapf", "baseline")])
def test_ray_equals_native(local_ray, suites, suite, policy):
    native = evaluate(suites[suite], policy, num_envs=4)
    distributed = evaluate(suites[suite], policy, backend="ray", num_envs=2, workers=2)
    assert raw(distributed) == raw(native)
    assert distributed.provenance.backend == "ray"
    assert all(t.status == "ok" for t in distributed.tasks)


def test_ray_task_failure_is_recorded(local_ray, suites, tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def act(observations):\n    raise RuntimeError('boom')\n")
    task = evaluate(suites["maze"], f"{bad}:act", backend="ray", num_envs=2).tasks[0]
    assert task.status == "failed" and "raised RuntimeError: boom" in task.error
