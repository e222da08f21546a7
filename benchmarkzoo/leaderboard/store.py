"""The submissions folder and the aggregate leaderboard JSON built from it.

``add`` stores a validated submission re-serialized from the parsed model (so nothing but
schema fields survives) under ``submissions/<suite>/<policy>-<hash>.json``; ``build`` ranks the
entries of every suite by normalized IQM and writes ``leaderboard.json``. The build has no
timestamps or absolute paths in it: the same submissions give the same bytes.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from benchmarkzoo.core.atomic import atomic_write_text
from benchmarkzoo.evaluation.results import Results
from benchmarkzoo.leaderboard.validate import SubmissionError, validate_file

LEADERBOARD_VERSION = 1


def submission_path(root: Path, results: Results) -> Path:
    """Where a submission is stored: named by suite, policy name and content hash, never by user paths."""
    body = results.model_dump_json(by_alias=True)
    digest = hashlib.sha256(body.encode()).hexdigest()[:12]
    folder = (root / "submissions" / results.suite).resolve()
    path = (folder / f"{results.policy.name}-{digest}.json").resolve()
    if folder not in path.parents:  # belt and braces: validation already restricts the names
        raise SubmissionError(f"submission name {path.name!r} would escape {folder}.")
    return path


def add(path: str | Path, root: str | Path = "leaderboard") -> Path:
    """Validate ``path`` and store it; returns where it was stored."""
    results = validate_file(path)
    dest = submission_path(Path(root), results)
    atomic_write_text(dest, results.model_dump_json(indent=1, by_alias=True) + "\n")
    return dest


def _entry(results: Results, file: Path, root: Path) -> dict[str, Any]:
    agg = results.aggregates
    return {
        "policy": results.policy.name,
        "policy_kind": results.policy.kind,
        "policy_hash": results.policy.content_hash,
        "submission": file.relative_to(root).as_posix(),
        "iqm": agg.iqm if agg else None,
        "iqm_ci": list(agg.iqm_ci) if agg else None,
        "mean": agg.mean if agg else None,
        "mean_ci": list(agg.mean_ci) if agg else None,
        "optimality_gap": agg.optimality_gap if agg else None,
        "backend": results.provenance.backend,
        "steps_per_s": results.provenance.steps_per_s,
        "benchmarkzoo_version": results.provenance.benchmarkzoo_version,
        "tasks": {
            t.id: {
                "status": t.status,
                "mean": t.aggregates.mean if t.aggregates else None,
                "ci": [t.aggregates.ci_low, t.aggregates.ci_high] if t.aggregates else None,
                "success_rate": t.aggregates.success_rate if t.aggregates else None,
                "normalized_mean": t.aggregates.normalized_mean if t.aggregates else None,
            }
            for t in results.tasks
        },
    }


def build(root: str | Path = "leaderboard") -> tuple[Path, list[str]]:
    """Write ``<root>/leaderboard.json`` from every valid submission; returns its path and the refusals."""
    root = Path(root).resolve()
    suites: dict[str, list[dict[str, Any]]] = {}
    refused: list[str] = []
    for file in sorted((root / "submissions").glob("*/*.json")):
        try:
            results = validate_file(file)
        except SubmissionError as error:
            refused.append(f"{file.relative_to(root)}: {error}")
            continue
        suites.setdefault(results.suite, []).append(_entry(results, file, root))
    board = {"leaderboard_version": LEADERBOARD_VERSION, "suites": {}}
    for suite, entries in sorted(suites.items()):
        entries.sort(
            key=lambda e: (-(e["iqm"] if e["iqm"] is not None else float("-inf")), e["policy"], e["submission"])
        )
        for rank, entry in enumerate(entries, start=1):
            entry["rank"] = rank
        board["suites"][suite] = {"entries": entries}
    out = root / "leaderboard.json"
    atomic_write_text(out, json.dumps(board, indent=1, sort_keys=True) + "\n")
    return out, refused
