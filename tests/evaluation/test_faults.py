"""Faults during ``benchmarkzoo evaluate``, produced for real: signals sent by PID, a full tmpfs, a missing Ray.

Each ends with one line that says what happened and how to go on (never a traceback), keeps
every finished episode, and ``--resume`` then plays only the missing ones to the uninterrupted
run's raw outcomes. No process outlives a killed run.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest
from click.testing import CliRunner

from benchmarkzoo.cli import cli
from benchmarkzoo.core.seeding import derive_seed
from benchmarkzoo.evaluation.protocol import evaluate
from benchmarkzoo.evaluation.results import Results
from benchmarkzoo.leaderboard.validate import SubmissionError, validate

from .test_determinism import raw

#: The random policy, slowed by BZ_SLOW (seconds per step); BZ_FAULT=exit|raise makes it call
#: ``sys.exit(3)`` or raise at its first step after the episode seeded BZ_FAULT_SEED starts.
FAULTY = textwrap.dedent(
    """
    import os
    import sys
    import time

    from benchmarkzoo.evaluation.policies import RandomPolicy


    class Faulty(RandomPolicy):
        name = "faulty"
        armed = False

        def start_episodes(self, worlds, seeds):
            self.armed = self.armed or str(os.environ.get("BZ_FAULT_SEED")) in map(str, seeds)
            super().start_episodes(worlds, seeds)

        def act(self, observations, env):
            if os.environ.get("BZ_SLOW"):
                time.sleep(float(os.environ["BZ_SLOW"]))
            if self.armed and os.environ.get("BZ_FAULT") == "exit":
                sys.exit(3)
            if self.armed and os.environ.get("BZ_FAULT") == "raise":
                raise RuntimeError("boom")
            return super().act(observations, env)
    """
)
#: Episodes of the tiny suite's tasks (conftest.TINY_SUITE).
EPISODES = {"maze-test": 7, "maze-ood": 5}


@pytest.fixture(scope="module")
def setup(tmp_path_factory, suite_writer):
    folder = tmp_path_factory.mktemp("faults")
    suite = suite_writer(folder)
    policy = folder / "faulty.py"
    policy.write_text(FAULTY)
    return suite, f"{policy}:Faulty", evaluate(suite, "random", num_envs=2)


def _command(suite: Path, spec: str, out: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "benchmarkzoo",
        "evaluate",
        "--suite",
        str(suite),
        "--policy",
        spec,
        "--num-envs",
        "2",
        "--out",
        str(out),
        *extra,
    ]


def _run(args: list[str], **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(args, env={**os.environ, **env}, capture_output=True, text=True, timeout=300)


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def _episodes_in(path: Path) -> int:
    try:
        return sum(len(t["episodes"]) for t in json.loads(path.read_text())["tasks"])
    except (OSError, ValueError):
        return 0


def _alive(pids: list[int]) -> list[int]:
    """The processes of ``pids`` still running (a zombie has exited)."""
    living = []
    for pid in pids:
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                living.append(pid)
        except psutil.NoSuchProcess:
            pass
    return living


def _workers(proc: subprocess.Popen) -> list[psutil.Process]:
    """The pool worker processes of the CLI ``proc`` (its children, less multiprocessing's resource tracker)."""
    children = []
    for child in psutil.Process(proc.pid).children():
        try:
            if "resource_tracker" not in " ".join(child.cmdline()):
                children.append(child)
        except psutil.NoSuchProcess:
            pass
    return children


def _wait(condition, proc: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert proc.poll() is None, f"the run ended before the fault: {proc.communicate()}"
        assert time.monotonic() < deadline, "the run never reached the state the test waits for"
        time.sleep(0.05)


def _partial(reference: Results, spec: str, out: Path) -> None:
    """Write a results file of ``spec`` interrupted after 5 episodes of its first task."""
    data = json.loads(reference.model_dump_json(by_alias=True))
    data["policy"].update(spec=spec, name="faulty")
    first = data["tasks"][0]
    first.update(status="incomplete", aggregates=None, pareto_fronts=None, episodes=first["episodes"][:5])
    data["tasks"] = [first]
    out.write_text(json.dumps(data, indent=1))


# ---- 1. resume never destroys ---------------------------------------------------------------------


def test_a_refused_resume_leaves_the_file_byte_identical(setup, tmp_path):
    suite, spec, reference = setup
    out = tmp_path / "results.json"
    _partial(reference, spec, out)
    data = json.loads(out.read_text())
    data["tasks"][0]["episodes"][3]["seed"] += 1  # one altered seed
    out.write_text(json.dumps(data, indent=1))
    before = out.read_bytes()
    done = _run(_command(suite, spec, out, "--resume"))
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and len(_lines(done.stderr)) == 1, done.stderr
    assert "Cannot resume task maze-test: its episode 3 is not the protocol's" in done.stderr
    assert "--restart" in done.stderr
    assert out.read_bytes() == before
    out.write_text("{ not json")  # a corrupt file is refused the same way
    done = _run(_command(suite, spec, out, "--resume"))
    assert done.returncode == 2 and "not a readable results file" in done.stderr
    assert out.read_text() == "{ not json"

    # --restart moves the old file aside, never over an earlier one, and says where.
    out.write_bytes(before)
    done = _run(_command(suite, spec, out, "--restart"))
    assert done.returncode == 0, done.stderr
    aside = tmp_path / "results.old-1.json"
    assert f"moved the previous {out} to {aside}" in done.stderr
    assert aside.read_bytes() == before
    assert raw(Results.read(out)) == raw(reference)
    finished = out.read_bytes()
    done = _run(_command(suite, spec, out, "--restart", "--episodes", "1"))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "results.old-2.json").read_bytes() == finished and aside.read_bytes() == before


def test_an_existing_out_is_not_overwritten_without_resume_or_restart(setup, tmp_path):
    suite, spec, _ = setup
    out = tmp_path / "results.json"
    out.write_text("earlier work")
    runner = CliRunner()
    result = runner.invoke(cli, ["evaluate", "--suite", str(suite), "--policy", spec, "--out", str(out)])
    assert result.exit_code == 2, result.output
    assert "exists: continue it with --resume, start over with --restart" in result.output
    result = runner.invoke(
        cli, ["evaluate", "--suite", str(suite), "--policy", spec, "--resume", "--restart", "--out", str(out)]
    )
    assert result.exit_code == 2 and "give one of them" in result.output
    assert out.read_text() == "earlier work"


# ---- 2. no orphans -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("backend", "workers", "processes"),
    [("native", 2, 2), ("async", 2, 6), ("async", 1, 2)],  # async: 2 env workers under each pool worker
)
def test_sigkill_of_the_cli_leaves_no_process_behind(setup, tmp_path, backend, workers, processes):
    suite, spec, _ = setup
    out = tmp_path / "results.json"
    cmd = _command(suite, spec, out, "--backend", backend, "--workers", str(workers))
    proc = subprocess.Popen(
        cmd, env={**os.environ, "BZ_SLOW": "0.02"}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    descendants: list[int] = []
    try:
        parent = psutil.Process(proc.pid)
        _wait(lambda: len(parent.children(recursive=True)) >= processes, proc)
        time.sleep(0.5)  # the workers are playing
        descendants = [p.pid for p in parent.children(recursive=True)]
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        deadline = time.monotonic() + 5
        while _alive(descendants) and time.monotonic() < deadline:
            time.sleep(0.1)
        survivors = {pid: psutil.Process(pid).cmdline() for pid in _alive(descendants)}
        assert not survivors
    finally:  # a failed test must not leave its orphans to the next one
        for pid in _alive([proc.pid, *descendants]):
            os.kill(pid, signal.SIGKILL)


# ---- 3. every fault ends with one line and the resume hint ----------------------------------------


@pytest.mark.parametrize("backend", ["native", "async"])
def test_a_killed_pool_worker_ends_the_run_with_one_line(setup, tmp_path, backend):
    suite, spec, reference = setup
    out = tmp_path / "results.json"
    cmd = _command(suite, spec, out, "--backend", backend, "--workers", "2")
    proc = subprocess.Popen(
        cmd, env={**os.environ, "BZ_SLOW": "0.02"}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    _wait(lambda: len(_workers(proc)) == 2 and _episodes_in(out) >= 2, proc)
    victim = _workers(proc)[0].pid
    descendants = [p.pid for p in psutil.Process(proc.pid).children(recursive=True)]
    os.kill(victim, signal.SIGKILL)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 1, stderr
    assert "Traceback" not in stderr and len(_lines(stderr)) == 1, stderr
    assert "a worker process died while playing task" in stderr
    assert f"Finished episodes are kept in {out}; continue with --resume" in stderr
    kept = _episodes_in(out)
    assert kept >= 2
    time.sleep(1)
    assert not _alive(descendants)
    played = []
    results = evaluate(suite, spec, num_envs=3, out=out, resume=True, on_episode=lambda t, o, s: played.append(o))
    assert len(played) == 12 - kept and raw(results) == raw(reference)


def test_a_killed_ray_worker_is_replayed_by_ray(setup, tmp_path):
    """Ray retries a task whose worker died; the share replays from its seeds, so the file is the same."""
    pytest.importorskip("ray", reason="needs Ray (the rllib extra)")
    suite, spec, reference = setup
    out = tmp_path / "results.json"
    cmd = _command(suite, spec, out, "--backend", "ray", "--workers", "2")
    proc = subprocess.Popen(
        cmd, env={**os.environ, "BZ_SLOW": "0.02"}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )

    def playing() -> list[int]:  # Ray titles a worker process after the task it runs
        found = []
        for process in psutil.process_iter(["pid", "cmdline"]):
            if "ray::_run_share" in " ".join(process.info["cmdline"] or ()):
                found.append(process.pid)
        return found

    _wait(lambda: bool(playing()), proc, timeout=240)
    time.sleep(0.5)
    os.kill(playing()[0], signal.SIGKILL)
    stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 0, stderr
    assert "Traceback" not in stdout + stderr
    assert raw(Results.read(out)) == raw(reference)


@pytest.fixture
def full_disk(tmp_path):
    """A 64 KiB tmpfs, and a function that fills it to the last byte."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)], capture_output=True)
    if done.returncode:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")

    def fill() -> Path:
        filler = mount / "filler"
        with filler.open("wb", buffering=0) as handle:
            try:
                while True:
                    handle.write(b"x" * 512)
            except OSError as error:
                assert error.errno == errno.ENOSPC
        return filler

    yield mount, fill
    subprocess.run(["umount", "-l", str(mount)], check=False)


def test_a_full_disk_ends_the_run_with_one_line_and_keeps_the_last_save(setup, full_disk):
    suite, spec, reference = setup
    disk, fill = full_disk
    out = disk / "results.json"
    _partial(reference, spec, out)
    before = out.read_bytes()
    filler = fill()
    done = _run(_command(suite, spec, out, "--resume"))
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and len(_lines(done.stderr)) == 1, done.stderr
    assert f"cannot write the results file {out}: No space left on device" in done.stderr
    assert "continue with --resume" in done.stderr
    assert out.read_bytes() == before
    assert sorted(p.name for p in disk.iterdir()) == ["filler", "results.json"]  # no half-written temporary file
    fresh = disk / "fresh.json"
    done = _run(_command(suite, spec, fresh))
    assert done.returncode == 1 and len(_lines(done.stderr)) == 1 and "No space left" in done.stderr, done.stderr
    assert not fresh.exists()
    filler.unlink()
    done = _run(_command(suite, spec, out, "--resume"))
    assert done.returncode == 0, done.stderr
    assert raw(Results.read(out)) == raw(reference)


def test_leaderboard_add_onto_a_full_disk_is_one_line(setup, full_disk, tmp_path, monkeypatch):
    suite, _, _ = setup
    disk, fill = full_disk
    results = tmp_path / "random.json"
    evaluate(suite, "random", num_envs=2, out=results)
    monkeypatch.setattr("benchmarkzoo.evaluation.suites.SUITES_DIR", suite.parent)
    fill()
    command = ["leaderboard", "add", str(results), "--reference", "--root", str(disk / "board")]
    result = CliRunner().invoke(cli, command)
    assert result.exit_code == 1, result.output
    lines = _lines(result.output)
    assert len(lines) == 1 and lines[0].startswith("Error: cannot write"), result.output
    assert "No space left on device; make room and run the command again." in lines[0]
    assert "Traceback" not in result.output


def test_a_missing_ray_is_one_line_naming_the_extra(setup, tmp_path):
    suite, _, _ = setup
    out = tmp_path / "results.json"
    hide_ray = "import sys; sys.modules['ray'] = None; from benchmarkzoo.cli import main; main(sys.argv[1:])"
    args = ["evaluate", "--suite", str(suite), "--policy", "random", "--backend", "ray", "--out", str(out)]
    done = _run([sys.executable, "-c", hide_ray, *args])
    assert done.returncode == 2, done.stderr
    lines = _lines(done.stderr)
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert "--backend ray needs the Python module 'ray'" in lines[0]
    assert 'pip install "benchmarkzoo[rllib]"' in lines[0]
    assert not out.exists()


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize(
    ("fault", "message"),
    [("exit", "called sys.exit(3); a policy returns actions or raises"), ("raise", "raised RuntimeError: boom")],
)
def test_a_policy_that_exits_or_raises_fails_its_task_and_keeps_its_episodes(setup, tmp_path, fault, message, workers):
    suite, spec, reference = setup
    out = tmp_path / "results.json"
    fault_seed = str(derive_seed(0, "maze-test", 5))
    done = _run(_command(suite, spec, out, "--workers", str(workers)), BZ_FAULT=fault, BZ_FAULT_SEED=fault_seed)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    data = json.loads(out.read_text())
    first, second = data["tasks"]
    assert (first["status"], second["status"]) == ("failed", "ok")  # the run went on
    assert message in first["error"] and ("faulty" in first["error"] or spec in first["error"])
    kept = len(first["episodes"])
    assert 5 not in [e["index"] for e in first["episodes"]]
    if workers == 1:
        assert kept >= 4  # episodes 0-3 ended before episode 5 started
    assert "1 task(s) failed (maze-test); their finished episodes are kept" in done.stderr
    played = []
    results = evaluate(
        suite, spec, num_envs=2, out=out, resume=True, on_episode=lambda t, o, s: played.append((t, o.index))
    )
    assert sorted(played) == sorted(("maze-test", k) for k in set(range(7)) - {e["index"] for e in first["episodes"]})
    assert raw(results) == raw(reference)


# ---- 4a. an incomplete task is named as such ------------------------------------------------------


def test_an_incomplete_task_is_refused_as_incomplete(setup, monkeypatch):
    suite, _, reference = setup
    last = reference.tasks[1]
    interrupted = reference.model_copy(
        update={
            "tasks": [
                reference.tasks[0],
                last.model_copy(update={"status": "incomplete", "episodes": last.episodes[:3], "aggregates": None}),
            ]
        }
    )
    monkeypatch.setattr("benchmarkzoo.evaluation.suites.SUITES_DIR", suite.parent)
    with pytest.raises(SubmissionError, match=r"task maze-ood is incomplete \(3 of 5 episodes\); .* --resume"):
        validate(interrupted)
