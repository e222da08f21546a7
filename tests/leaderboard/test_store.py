"""``leaderboard add`` and ``build``: safe storage, a deterministic ranking, corrupt files skipped."""

from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner

from benchmarkzoo.cli import cli
from benchmarkzoo.leaderboard.store import add, build
from benchmarkzoo.leaderboard.validate import SubmissionError, validate_file


def test_add_stores_under_the_suite_with_a_safe_name(quickstart_results, tmp_path):
    root = tmp_path / "board"
    stored = add(quickstart_results["baseline"], root, reference=True)
    assert stored.parent == (root / "submissions" / "quickstart-v0").resolve()
    assert stored.name.startswith("baseline-") and stored.suffix == ".json"
    assert len(stored.stem) == len("baseline-") + 12
    assert validate_file(stored).policy.name == "baseline"
    assert add(quickstart_results["baseline"], root, reference=True) == stored  # the same content, the same name


def test_add_refuses_invalid_and_stores_nothing(quickstart_results, tmp_path):
    data = json.loads(quickstart_results["random"].read_text())
    data["policy"]["name"] = "../../escape"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    root = tmp_path / "board"
    with pytest.raises(SubmissionError, match="policy name"):
        add(bad, root, reference=True)
    assert not root.exists()


def test_build_ranks_and_is_reproducible(quickstart_results, tmp_path):
    root = tmp_path / "board"
    for policy in ("random", "baseline"):
        add(quickstart_results[policy], root, reference=True)
    out, refused = build(root)
    assert refused == [] and out == (root / "leaderboard.json").resolve()
    first = out.read_bytes()
    board = json.loads(first)
    entries = board["suites"]["quickstart-v0"]["entries"]
    assert [(e["rank"], e["policy"]) for e in entries] == [(1, "baseline"), (2, "random")]
    assert entries[0]["iqm"] > entries[1]["iqm"]
    assert entries[0]["tasks"]["maze-test"]["normalized_mean"] == pytest.approx(1.0)
    assert entries[1]["tasks"]["maze-test"]["normalized_mean"] == pytest.approx(0.0, abs=1e-9)
    assert all(not e["submission"].startswith("/") for e in entries)  # no absolute paths in the build
    build(root)
    assert out.read_bytes() == first


def test_build_skips_and_reports_corrupt_submissions(quickstart_results, tmp_path):
    root = tmp_path / "board"
    stored = add(quickstart_results["random"], root, reference=True)
    add(quickstart_results["baseline"], root, reference=True)
    corrupt = stored.parent / "corrupt-000000000000.json"
    shutil.copy(stored, corrupt)
    data = json.loads(corrupt.read_text())
    data["tasks"][0]["aggregates"]["mean"] += 1.0
    corrupt.write_text(json.dumps(data))
    (stored.parent / "truncated-000000000000.json").write_text(stored.read_text()[:100])
    out, refused = build(root)
    assert len(refused) == 2
    assert any(
        r.startswith("submissions/quickstart-v0/corrupt-000000000000.json: ") and "aggregates do not match" in r
        for r in refused
    )
    assert any("truncated-000000000000.json" in r and "not valid JSON" in r for r in refused)
    entries = json.loads(out.read_text())["suites"]["quickstart-v0"]["entries"]
    assert [e["policy"] for e in entries] == ["baseline", "random"]


def test_cli_add_build_schema(quickstart_results, tmp_path):
    root = tmp_path / "board"
    runner = CliRunner()
    args = ["leaderboard", "add", str(quickstart_results["random"]), "--root", str(root), "--reference"]
    result = runner.invoke(cli, args)
    assert result.exit_code == 0 and "stored as" in result.output
    result = runner.invoke(cli, ["leaderboard", "build", "--root", str(root)])
    assert result.exit_code == 0 and "leaderboard.json" in result.output
    result = runner.invoke(cli, ["leaderboard", "schema", "--root", str(root)])
    assert result.exit_code == 0
    schema = json.loads((root / "schema" / "results-v1.json").read_text())
    assert schema["title"] == "Results" and schema["additionalProperties"] is False
    bad = tmp_path / "bad.json"
    bad.write_text("nope")
    result = runner.invoke(cli, ["leaderboard", "add", str(bad), "--root", str(root)])
    assert result.exit_code == 2 and "not valid JSON" in result.output and "Traceback" not in result.output
    assert sorted(p.name for p in (root / "submissions" / "quickstart-v0").iterdir()) == [
        p.name for p in (root / "submissions" / "quickstart-v0").glob("random-*.json")
    ]  # the refused file wrote nothing
