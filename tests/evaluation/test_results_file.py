"""The results file: atomic writes, a lossless round trip, and a JSON Schema that matches the models."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarkzoo.evaluation.protocol import evaluate
from benchmarkzoo.evaluation.results import Results, export_schema, recompute

jsonschema = pytest.importorskip("jsonschema", reason="needs the eval extra")

SCHEMA_FILE = Path(__file__).parents[2] / "leaderboard" / "schema" / "results-v1.json"


@pytest.fixture
def results_file(tmp_path, tiny_suite):
    out = tmp_path / "out" / "results.json"
    snapshots = []

    def on_task(task):
        snapshots.append(out.read_text() if out.exists() else None)

    # No timed mid-task saves (every second by default; a loaded machine takes longer than that over a
    # task): the snapshots then show exactly the after-task writes.
    results = evaluate(tiny_suite, "random", num_envs=3, out=out, on_task=on_task, save_every=1e9)
    return out, results, snapshots


def test_written_atomically_after_each_task(results_file):
    out, _, snapshots = results_file
    # on_task runs before the write of its task: the first sees no file, the second the first task's file.
    assert snapshots[0] is None
    partial = json.loads(snapshots[1])
    assert [t["id"] for t in partial["tasks"]] == ["maze-test"] and partial["aggregates"] is None
    assert sorted(p.name for p in out.parent.iterdir()) == ["results.json"]  # no temporary file left behind
    assert json.loads(out.read_text())["tasks"][1]["id"] == "maze-ood"


def test_round_trip(results_file):
    out, results, _ = results_file
    read = Results.read(out)
    assert read == results
    assert read.model_dump(by_alias=True) == json.loads(out.read_text())
    assert "return" in json.loads(out.read_text())["tasks"][0]["episodes"][0]  # the alias is what is written
    assert recompute(read) == read  # the aggregates are exactly those of the raw episodes


def test_schema_validates_a_real_results_file(results_file, tmp_path):
    out, _, _ = results_file
    schema_path = tmp_path / "schema.json"
    export_schema(schema_path)
    schema = json.loads(schema_path.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    data = json.loads(out.read_text())
    jsonschema.validate(data, schema)
    data["tasks"][0]["episodes"][0]["surprise"] = 1
    with pytest.raises(jsonschema.ValidationError, match="surprise"):
        jsonschema.validate(data, schema)


def test_committed_schema_is_the_exported_one(tmp_path):
    exported = tmp_path / "schema.json"
    export_schema(exported)
    assert SCHEMA_FILE.read_text() == exported.read_text(), (
        "leaderboard/schema/results-v1.json is stale: run `benchmarkzoo leaderboard schema`."
    )
