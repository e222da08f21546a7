"""``evaluate --resume``: a run killed midway (SIGINT or SIGKILL) continues to the uninterrupted run's raw outcomes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import textwrap
import time

import pytest

from benchmarkzoo.core.seeding import derive_seed
from benchmarkzoo.evaluation.protocol import ResumeError, evaluate

from .test_determinism import raw
from .test_faults import _command as evaluate_command

#: The random policy, slowed down when BZ_SLOW is set (in the run that is killed), so it can be caught midway:
#: ten times slower once the episode seeded BZ_SLOWER_SEED starts, so a loaded machine still sees the run
#: save some episodes before it ends. It raises KeyboardInterrupt (a Ctrl-C) at its first step after the
#: episode seeded BZ_INTERRUPT_SEED starts.
SLOW = textwrap.dedent(
    """
    import os
    import time

    from benchmarkzoo.evaluation.policies import RandomPolicy


    class SlowRandom(RandomPolicy):
        name = "slow-random"
        interrupt = False
        slower = False

        def start_episodes(self, worlds, seeds):
            self.interrupt = self.interrupt or str(os.environ.get("BZ_INTERRUPT_SEED")) in map(str, seeds)
            self.slower = self.slower or str(os.environ.get("BZ_SLOWER_SEED")) in map(str, seeds)
            super().start_episodes(worlds, seeds)

        def act(self, observations, env):
            if os.environ.get("BZ_SLOW"):
                time.sleep(0.1 if self.slower else 0.01)
            if self.interrupt:
                raise KeyboardInterrupt
            return super().act(observations, env)
    """
)


@pytest.fixture(scope="module")
def setup(tmp_path_factory, suite_writer):
    folder = tmp_path_factory.mktemp("resume")
    suite = suite_writer(folder)
    policy = folder / "slow.py"
    policy.write_text(SLOW)
    return suite, f"{policy}:SlowRandom", evaluate(suite, "random", num_envs=2)


def _episodes_in(path) -> int:
    try:
        return sum(len(t["episodes"]) for t in json.loads(path.read_text())["tasks"])
    except (OSError, ValueError):
        return 0


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL])
def test_killed_run_resumes_bit_identical(setup, tmp_path, sig):
    suite, spec, reference = setup
    out = tmp_path / "results.json"
    cmd = evaluate_command(suite, spec, out)
    # From the fourth episode on (two worlds: it starts when the second ends) the run is slow enough to catch.
    slow = {"BZ_SLOW": "1", "BZ_SLOWER_SEED": str(derive_seed(0, "maze-test", 3))}
    proc = subprocess.Popen(cmd, env={**os.environ, **slow}, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while _episodes_in(out) < 3 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None, f"the run ended before it could be interrupted: {proc.communicate()}"
    proc.send_signal(sig)
    _, stderr = proc.communicate(timeout=30)
    kept = json.loads(out.read_text())
    if sig == signal.SIGINT:
        assert proc.returncode == 130 and b"continue with --resume" in stderr and b"Traceback" not in stderr
    else:
        assert proc.returncode == -signal.SIGKILL
    statuses = [t["status"] for t in kept["tasks"]]
    assert statuses[-1] == "incomplete" or statuses == ["ok"], statuses
    kept_count = sum(len(t["episodes"]) for t in kept["tasks"])
    assert 3 <= kept_count < 12
    played, started = [], {}
    results = evaluate(
        suite,
        spec,
        num_envs=3,
        out=out,
        resume=True,
        on_episode=lambda t, o, s: played.append(o.index),
        on_start=started.update,
    )
    assert len(played) == 12 - kept_count  # finished episodes are not played again
    assert raw(results) == raw(reference)
    assert [t["status"] for t in json.loads(out.read_text())["tasks"]] == ["ok", "ok"]
    assert [t.status for t in results.tasks] == ["ok", "ok"]
    # the progress bars start from what the file kept, task by task
    kept_by_task = {t["id"]: len(t["episodes"]) for t in kept["tasks"]}
    assert started == {t.id: kept_by_task.get(t.id, 0) for t in results.tasks}
    _check_resumed_throughput(json.loads(out.read_text())["provenance"], kept, results)


def _check_resumed_throughput(written, kept, results):
    """steps/s counts only this invocation's episodes over its own time; the kept ones keep their run's figures."""
    kept_steps = sum(e["length"] for t in kept["tasks"] for e in t["episodes"])
    kept_count = sum(len(t["episodes"]) for t in kept["tasks"])
    all_steps = sum(e.length for t in results.tasks for e in t.episodes)
    assert written["resumed_episodes"] == kept_count and written["resumed_steps"] == kept_steps
    assert written["steps"] == all_steps - kept_steps > 0
    assert written["steps_per_s"] == pytest.approx(written["steps"] / written["wall_time_s"])
    (earlier,) = written["earlier_runs"]  # the interrupted invocation, with the figures its own file had
    assert earlier["started_at"] == kept["provenance"]["started_at"]
    assert earlier["episodes"] == kept_count and earlier["steps"] == kept_steps
    assert earlier["wall_time_s"] == kept["provenance"]["wall_time_s"] > 0
    assert earlier["steps_per_s"] == pytest.approx(kept_steps / kept["provenance"]["wall_time_s"])
    # the old figure: every step over this invocation's time, higher than its own rate
    assert all_steps / written["wall_time_s"] > written["steps_per_s"]
    for task in results.tasks:  # a task's wall time covers every episode its steps count
        assert task.wall_time_s >= next(
            (t["wall_time_s"] for t in kept["tasks"] if t["id"] == task.id and t["status"] != "ok"), 0.0
        )


def test_progress_bars_start_from_the_finished_count(setup):
    from benchmarkzoo.evaluation.commands import _Progress
    from benchmarkzoo.evaluation.suites import load_suite

    suite = load_suite(setup[0])
    with _Progress(suite, None) as progress:
        progress.start({suite.tasks[0].id: 4, suite.tasks[1].id: 0})
        progress.episode(suite.tasks[1].id, None, 10)
        bars = {task.description: (task.completed, task.total) for task in progress.progress.tasks}
    assert bars == {suite.tasks[0].id: (4, suite.tasks[0].episodes), suite.tasks[1].id: (1, suite.tasks[1].episodes)}


def test_resume_refuses_another_runs_file(setup, tmp_path):
    suite, _, reference = setup
    out = tmp_path / "results.json"
    reference.write(out)
    before = out.read_bytes()
    with pytest.raises(ResumeError, match=r"policy 'random', seed 0; this run is .* seed 3.*--restart"):
        evaluate(suite, "random", seed=3, out=out, resume=True)
    assert out.read_bytes() == before  # a refusal writes nothing
    # The first task is unfinished, the second is not of this protocol: refused before anything plays.
    data = json.loads(before)
    data["tasks"][0].update(status="incomplete", aggregates=None, episodes=data["tasks"][0]["episodes"][:3])
    data["tasks"][1]["episodes"][2]["scenario_seed"] += 1
    out.write_text(json.dumps(data))
    before = out.read_bytes()
    played = []
    with pytest.raises(ResumeError, match="task maze-ood: its episode 2 is not the protocol's"):
        evaluate(suite, "random", out=out, resume=True, on_episode=lambda *a: played.append(a))
    assert played == [] and out.read_bytes() == before
    reference.write(out)
    # A finished file resumes to itself without playing anything.
    played = []
    again = evaluate(suite, "random", out=out, resume=True, on_episode=lambda *a: played.append(a))
    assert played == [] and raw(again) == raw(reference)


def test_a_failed_task_resumes_from_its_kept_episodes_and_an_interrupted_resume_loses_nothing(
    setup, tmp_path, monkeypatch
):
    suite, spec, reference = setup
    out = tmp_path / "results.json"
    evaluate(suite, spec, num_envs=2, out=out)
    data = json.loads(out.read_text())
    first = data["tasks"][0]
    first.update(
        status="failed",
        error="policy 'slow-random' raised RuntimeError: x",
        aggregates=None,
        pareto_fronts=None,
        episodes=first["episodes"][:3],
    )
    out.write_text(json.dumps(data, indent=1))
    later_task = data["tasks"][1]
    # Ctrl-C while the failed task's missing episodes play: the later task, not reached yet, stays in the file.
    monkeypatch.setenv("BZ_INTERRUPT_SEED", str(derive_seed(0, "maze-test", 5)))
    with pytest.raises(KeyboardInterrupt):
        evaluate(suite, spec, num_envs=2, out=out, resume=True, save_every=0.0)
    kept = json.loads(out.read_text())
    assert [t["status"] for t in kept["tasks"]] == ["incomplete", "ok"]
    assert kept["tasks"][1]["episodes"] == later_task["episodes"]
    indices = [e["index"] for e in kept["tasks"][0]["episodes"]]
    assert indices[:3] == [0, 1, 2] and 5 not in indices and len(indices) >= 4
    monkeypatch.delenv("BZ_INTERRUPT_SEED")
    played = []
    results = evaluate(
        suite, spec, num_envs=2, out=out, resume=True, on_episode=lambda t, o, s: played.append((t, o.index))
    )
    assert sorted(played) == [("maze-test", k) for k in range(7) if k not in indices]
    assert raw(results) == raw(reference)
