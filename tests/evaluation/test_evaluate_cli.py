"""``benchmarkzoo evaluate`` and ``benchmarkzoo suites`` end to end, through click."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from benchmarkzoo.cli import cli
from benchmarkzoo.evaluation.calibration import CALIBRATION_SEED, calibrate
from benchmarkzoo.evaluation.protocol import evaluate
from benchmarkzoo.evaluation.suites import SUITES_DIR, load_suite
from benchmarkzoo.scenario_sets import CALIBRATION_SUFFIX


@pytest.fixture
def shipped_suites():
    """The shipped suite files' bytes, to prove the tests never write into the package."""
    before = {p.name: p.read_bytes() for p in SUITES_DIR.glob("*.yaml")}
    yield
    assert {p.name: p.read_bytes() for p in SUITES_DIR.glob("*.yaml")} == before


def test_evaluate_then_validate(tmp_path, tiny_suite, monkeypatch):
    out = tmp_path / "baseline.json"
    runner = CliRunner()
    result = runner.invoke(
        cli, ["evaluate", "--suite", str(tiny_suite), "--policy", "baseline", "--num-envs", "3", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert f"results written to {out}" in result.output
    data = json.loads(out.read_text())
    assert data["suite"] == "tiny-v0" and data["policy"]["name"] == "baseline"
    assert [len(t["episodes"]) for t in data["tasks"]] == [7, 5]
    assert data["provenance"]["backend"] == "native" and data["provenance"]["num_envs"] == 3
    assert data["provenance"]["steps"] == sum(e["length"] for t in data["tasks"] for e in t["episodes"]) > 0
    # validate looks suites up by name among the shipped ones: ship the tmp suite for the test.
    monkeypatch.setattr("benchmarkzoo.evaluation.suites.SUITES_DIR", tiny_suite.parent)
    result = runner.invoke(cli, ["leaderboard", "validate", str(out)])
    assert result.exit_code == 0, result.output
    assert f"{out}: valid" in result.output


def test_evaluate_unknown_suite_exit_2(tmp_path):
    result = CliRunner().invoke(cli, ["evaluate", "--suite", "no-such-suite-v0", "--policy", "random"])
    assert result.exit_code == 2 and "No suite named 'no-such-suite-v0'" in result.output
    assert "Traceback" not in result.output
    typo = tmp_path / "typo.yaml"
    typo.write_text(
        "name: typo-v0\ndescription: x\ntasks:\n- id: a\n  env: benchmarkzoo/Maze-v0\n  scenario_set: "
        "gridworld/maze\n  split: test\n  episods: 3\n"
    )
    result = CliRunner().invoke(cli, ["evaluate", "--suite", str(typo), "--policy", "random"])
    assert result.exit_code == 2 and "episods" in result.output


def test_suites_list_and_show():
    result = CliRunner().invoke(cli, ["suites", "list"])
    assert result.exit_code == 0
    line = next(line for line in result.output.splitlines() if line.startswith("quickstart-v0"))
    assert "2 tasks" in line
    result = CliRunner(env={"COLUMNS": "200"}).invoke(cli, ["suites", "show", "quickstart-v0"])  # rich wraps to width
    assert result.exit_code == 0 and "maze-ood" in result.output


def test_calibrate_rewrites_a_copy_reproducibly(tmp_path, tiny_suite, shipped_suites):
    assert all(t.references is None for t in load_suite(tiny_suite).tasks)
    result = CliRunner().invoke(cli, ["suites", "calibrate", str(tiny_suite), "--num-envs", "3"])
    assert result.exit_code == 0, result.output
    first = tiny_suite.read_bytes()
    suite = load_suite(tiny_suite)
    for task in suite.tasks:
        ref = task.references
        # Out of sample: measured with the calibration seed, never the leaderboard's protocol seed 0.
        assert ref.seed == CALIBRATION_SEED != 0 and ref.episodes == task.episodes
        assert ref.baseline > ref.random
    # The references are the policies' mean returns under the protocol at the calibration seed on
    # the splits' calibration twins, whatever the number of worlds; at seed 0 on the splits
    # themselves the same policies land near, not on, 0 and 1.
    twins = suite.model_copy(
        update={"tasks": tuple(t.model_copy(update={"split": t.split + CALIBRATION_SUFFIX}) for t in suite.tasks)}
    )
    for policy in ("random", "baseline"):
        run = evaluate(twins, policy, num_envs=5, seed=CALIBRATION_SEED)
        assert [getattr(t.references, policy) for t in suite.tasks] == [t.aggregates.mean for t in run.tasks]
        assert all(t.aggregates.normalized_mean == pytest.approx(float(policy == "baseline")) for t in run.tasks)
    leaderboard_run = evaluate(suite, "random", num_envs=5, seed=0)
    assert [t.aggregates.normalized_mean for t in leaderboard_run.tasks] != pytest.approx([0.0, 0.0])
    calibrate(tiny_suite, num_envs=8)
    assert tiny_suite.read_bytes() == first
