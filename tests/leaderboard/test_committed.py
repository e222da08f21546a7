"""The committed leaderboard: its reference entries stay valid as the code changes.

A change to a suite, a scenario set or an env that invalidates them fails here: regenerate them
with `make leaderboard` (random and baseline on every suite) in the same commit.
"""

from __future__ import annotations

import json
from pathlib import Path

from benchmarkzoo.evaluation.suites import list_suites
from benchmarkzoo.leaderboard.validate import validate_file

ROOT = Path(__file__).resolve().parents[2] / "leaderboard"


def test_every_committed_submission_validates():
    files = sorted((ROOT / "submissions").glob("*/*.json"))
    assert files, "the leaderboard ships reference entries"
    for file in files:
        validate_file(file)


def test_every_suite_has_random_and_baseline_entries_ranked():
    """Random and baseline on every suite; reference policies (leaderboard/policies/) may rank between."""
    board = json.loads((ROOT / "leaderboard.json").read_text())
    assert sorted(board["suites"]) == list_suites()
    for suite, body in board["suites"].items():
        entries = body["entries"]
        policies = [e["policy"] for e in entries]
        assert {"baseline", "random"} <= set(policies), suite
        assert [e["rank"] for e in entries] == list(range(1, len(entries) + 1)), suite
        iqms = [e["iqm"] for e in entries]
        assert iqms == sorted(iqms, reverse=True), suite


def test_every_committed_entry_is_replay_verified():
    """`make leaderboard` adds every entry with --verify; its record still matches the committed bytes."""
    from benchmarkzoo.leaderboard.verify import read_record

    board = json.loads((ROOT / "leaderboard.json").read_text())
    for suite, body in board["suites"].items():
        for entry in body["entries"]:
            record = read_record(ROOT, ROOT / entry["submission"])
            assert record is not None, f"{suite}: {entry['submission']} has no matching verification record"
            assert entry["verified"] is True and entry["replayed_episodes"] == record["replayed_episodes"] > 0
            if entry["policy_kind"] == "onnx":  # the model (or bundle) travels with the entry, stored by its hash
                stored = ROOT / "models" / entry["policy_hash"]
                assert stored.with_suffix(".onnx").is_file() or (stored / "manifest.json").is_file(), entry["policy"]


def test_committed_entries_pass_the_identity_rules_as_references():
    from benchmarkzoo.leaderboard.identity import MAINTAINER
    from benchmarkzoo.leaderboard.store import collect

    collection = collect(ROOT)
    assert collection.refused == []
    board = json.loads((ROOT / "leaderboard.json").read_text())
    listed = sorted(e["submission"] for s in board["suites"].values() for e in s["entries"])
    assert sorted(collection.submissions) == listed  # leaderboard.json lists exactly what `build` accepts
    assert {r.submitter for r in collection.submissions.values()} == {MAINTAINER}


def test_site_pages_of_every_kind_of_task_build(tmp_path):
    """A task page per env kind: its score plot takes the task's own score (team return, utility of a moma
    team's vector return), which a page built from raw returns got wrong (moma returns are per agent and objective)."""
    from benchmarkzoo.leaderboard.site import build_site
    from benchmarkzoo.leaderboard.store import collect

    collection = collect(ROOT)
    kinds = {"single-agent-v1": "single", "marl-v1": "parallel", "moma-v1": "moma", "mo-v2": "mo"}
    board = {**collection.board, "suites": {s: collection.board["suites"][s] for s in kinds}}
    for suite, body in board["suites"].items():
        board["suites"][suite] = {**body, "entries": [e for e in body["entries"] if e["policy"] == "random"]}
    index = build_site(board, collection.submissions, tmp_path / "site")
    for suite, kind in kinds.items():
        page = (tmp_path / "site" / suite / "index.html").read_text()
        assert "random" in page, (suite, kind)
        plots = sorted((tmp_path / "site" / suite / "plots").glob("task-*-returns.svg"))
        assert plots, f"{suite} ({kind}) has no score plots"
    assert index.is_file()
