"""Acceptances remembered by content: a rebuild skips the checks of unchanged files only, and builds the same bytes."""

from __future__ import annotations

import filecmp
import shutil
import types

import pytest
from click.testing import CliRunner

import benchmarkzoo.evaluation.suites as suites_module
from benchmarkzoo.cli import cli
from benchmarkzoo.leaderboard import accepted
from benchmarkzoo.leaderboard.store import add, collect
from benchmarkzoo.leaderboard.validate import SubmissionError, validate_file


@pytest.fixture
def checked(tmp_path, monkeypatch):
    """The number of files the protocol checks ran on, with the cache in an empty folder."""
    monkeypatch.setenv("BENCHMARKZOO_CACHE", str(tmp_path / "cache"))
    count = [0]
    check = accepted.validate

    def counting(results, suite=None):
        count[0] += 1
        return check(results, suite)

    monkeypatch.setattr(accepted, "validate", counting)
    return count


@pytest.fixture
def board(quickstart_results, tmp_path):
    root = tmp_path / "board"
    for policy in ("random", "baseline"):
        add(quickstart_results[policy], root, reference=True)
    return root


def _stored(root):
    return sorted((root / "submissions" / "quickstart-v0").glob("*.json"))


def test_a_rebuild_checks_nothing_unchanged_and_collects_the_same(board, checked):
    first = collect(board)
    assert checked[0] == 2 and not first.refused
    second = collect(board)
    assert checked[0] == 2  # both remembered
    assert second.board == first.board and second.submissions == first.submissions
    assert accepted.validate_stored(_stored(board)[0], b"another validator") and checked[0] == 3


def test_a_changed_byte_is_checked_again_and_refused_as_without_the_cache(board, checked, tmp_path):
    collect(board)
    stored = _stored(board)[0]
    text = stored.read_text()
    assert '"return": 0.9,' in text  # the baseline solves the first maze in 11 steps
    stored.write_text(text.replace('"return": 0.9,', '"return": 0.8,', 1))  # one byte: a forged episode
    with pytest.raises(SubmissionError) as plain:
        validate_file(stored, follow_links=False)
    collection = collect(board)
    assert checked[0] == 3  # the changed file, checked in full
    assert collection.refused == [f"submissions/quickstart-v0/{stored.name}: {plain.value}"]
    assert "return 0.8 with success=True and length 11 should be 0.9" in str(plain.value)


def test_a_changed_suite_is_checked_again_and_refused(board, checked, tmp_path, monkeypatch):
    suites = tmp_path / "suites"
    shutil.copytree(suites_module.SUITES_DIR, suites)
    monkeypatch.setattr(suites_module, "SUITES_DIR", suites)  # where the validator reads suites
    monkeypatch.setattr(accepted, "SUITES_DIR", suites)
    assert not collect(board).refused and checked[0] == 2
    path = suites / "quickstart-v0.yaml"
    path.write_text(path.read_text().replace("episodes: 50\n", "episodes: 49\n", 1))  # one byte of the suite
    collection = collect(board)
    assert checked[0] == 4 and len(collection.refused) == 2 and not collection.submissions


def test_the_version_follows_every_source_suite_and_scenario_byte(tmp_path, monkeypatch):
    package = tmp_path / "pkg"
    (package / "leaderboard").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    check = package / "leaderboard" / "checks.py"
    check.write_text("LIMIT = 1\n")
    monkeypatch.setattr(accepted, "benchmarkzoo", types.SimpleNamespace(__file__=str(package / "__init__.py")))
    scenarios = tmp_path / "scenarios"
    shutil.copytree(accepted.scenarios_root(), scenarios)
    monkeypatch.setenv("BENCHMARKZOO_SCENARIOS", str(scenarios))
    suites = tmp_path / "suites"
    shutil.copytree(suites_module.SUITES_DIR, suites)
    monkeypatch.setattr(accepted, "SUITES_DIR", suites)
    versions = [accepted.validator_version()]
    assert accepted.validator_version() == versions[0]  # the same inputs, the same version
    check.write_text("LIMIT = 2\n")
    versions.append(accepted.validator_version())
    maze = scenarios / "gridworld" / "maze.yaml"
    maze.write_bytes(maze.read_bytes() + b"\n")
    versions.append(accepted.validator_version())
    suite = suites / "quickstart-v0.yaml"
    suite.write_bytes(suite.read_bytes() + b"\n")
    versions.append(accepted.validator_version())
    assert len(set(versions)) == 4


def test_cold_warm_and_uncached_builds_write_the_same_bytes(board, tmp_path, monkeypatch):
    def build(cache):
        monkeypatch.setenv("BENCHMARKZOO_CACHE", str(cache))
        result = CliRunner().invoke(cli, ["leaderboard", "build", "--root", str(board), "--animate", "none"])
        assert result.exit_code == 0, result.output
        copy = tmp_path / f"built-{len(list(tmp_path.glob('built-*')))}"
        shutil.copytree(board, copy, ignore=shutil.ignore_patterns("submissions"))
        return copy

    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    builds = [build(tmp_path / "cache"), build(tmp_path / "cache"), build(blocker)]  # cold, warm, no cache
    assert (builds[0] / "site" / "quickstart-v0" / "plots" / "generalization.svg").is_file()
    for other in builds[1:]:
        _, mismatch, errors = filecmp.cmpfiles(builds[0], other, _files(builds[0]), shallow=False)
        assert not mismatch and not errors and _files(other) == _files(builds[0])
    assert list((tmp_path / "cache" / "leaderboard" / "accepted").iterdir())
    assert list((tmp_path / "cache" / "site" / "stats").iterdir())


def _files(folder):
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())
