"""The submissions folder and the aggregate leaderboard JSON built from it.

``add`` stores a validated submission re-serialized from the parsed model (so nothing but
schema fields survives), with its submitter, under ``submissions/<suite>/<policy>-<hash>.json``,
after the identity checks of :mod:`~benchmarkzoo.leaderboard.identity`; a refused ``add`` writes
nothing. ``collect`` validates every stored file again (a file may have been committed by hand)
and ranks the entries of every suite by normalized IQM, replay-verified entries first (see
:mod:`benchmarkzoo.leaderboard.verify`); ``build`` writes them as ``leaderboard.json``, and the
site is built from the same in-memory list, so the two never disagree. Nothing under the root is
followed through a symbolic link. The build has no
timestamps or absolute paths in it: the same submissions give the same bytes.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarkzoo.core.atomic import atomic_write_text
from benchmarkzoo.evaluation.results import Results
from benchmarkzoo.leaderboard import accepted, checks, identity
from benchmarkzoo.leaderboard.text import shown
from benchmarkzoo.leaderboard.validate import SubmissionError, validate_file
from benchmarkzoo.leaderboard.verify import read_record

LEADERBOARD_VERSION = 1
SUBMISSIONS = "submissions"


def safe_folder(root: Path, *parts: str, create: bool = False) -> Path:
    """``root/parts...``, refusing any part that is a symbolic link or not a folder; made if ``create``."""
    folder = root
    for part in parts:
        folder = folder / part
        try:
            info = os.lstat(folder)
        except FileNotFoundError:
            if not create:
                return root.joinpath(*parts)  # not there (yet): nothing below it can be a link
            folder.mkdir()
            info = os.lstat(folder)
        if stat.S_ISLNK(info.st_mode):
            raise SubmissionError(
                f"{shown(str(folder))} is a symbolic link; the leaderboard never follows links under its root."
            )
        if not stat.S_ISDIR(info.st_mode):
            raise SubmissionError(f"{shown(str(folder))} is not a folder.")
    return folder


def _body(results: Results) -> str:
    return results.model_dump_json(indent=1, by_alias=True) + "\n"


def submission_path(root: Path, results: Results) -> Path:
    """Where a submission is stored: named by suite, policy name and content hash, never by user paths."""
    digest = hashlib.sha256(results.model_dump_json(by_alias=True).encode()).hexdigest()[:12]
    return Path(root) / SUBMISSIONS / results.suite / f"{results.policy.name}-{digest}.json"


def add(
    path: str | Path, root: str | Path = "leaderboard", submitter: str | None = None, reference: bool = False
) -> Path:
    """Validate ``path``, check its identity against the suite's entries and store it; returns where it was stored.

    Args:
        path: a results file.
        root: the leaderboard folder.
        submitter: who submits it; the file's own ``submitter`` is used when ``None``, and the two must agree.
        reference: a maintainers' reference entry (submitter :data:`~benchmarkzoo.leaderboard.identity.MAINTAINER`,
            reserved names allowed).

    Raises:
        SubmissionError: the reason it is refused; nothing is written then.
    """
    results = validate_file(path)
    if reference:
        if submitter not in (None, identity.MAINTAINER):
            raise SubmissionError(
                f"--reference entries are submitted by {identity.MAINTAINER!r}, not {shown(submitter)}."
            )
        submitter = identity.MAINTAINER
    if submitter is not None and results.submitter not in (None, submitter):
        raise SubmissionError(
            f"the file says it is submitted by {shown(results.submitter)}, the command by {shown(submitter)}."
        )
    results = results.model_copy(update={"submitter": submitter or results.submitter})
    problem = checks.submitter_name(results)
    if problem:
        raise SubmissionError(problem)
    problem = identity.identity_problem(results, [], reference)  # the rules that need no other entry
    if problem:
        raise SubmissionError(problem)
    root = Path(root).resolve()
    dest = submission_path(root, results)
    folder = safe_folder(root, SUBMISSIONS, results.suite)
    if dest.is_file() and not dest.is_symlink() and dest.read_text(encoding="utf-8") == _body(results):
        return dest  # the same content: already stored, under the same name
    existing, _ = _stored_identities(root, results.suite)
    problem = identity.identity_problem(results, existing, reference)
    if problem:
        raise SubmissionError(problem)
    root.mkdir(parents=True, exist_ok=True)  # the root is the caller's choice; below it, nothing is a link
    safe_folder(root, SUBMISSIONS, results.suite, create=True)
    atomic_write_text(folder / dest.name, _body(results))
    return dest


def _stored_files(root: Path, suite: str | None = None) -> tuple[list[tuple[str, Path]], list[str]]:
    """``(relative path, path)`` of every stored ``*.json`` (of ``suite``, or all), and the refusals of links."""
    files, refused = [], []
    try:
        top = safe_folder(root, SUBMISSIONS)
    except SubmissionError as error:
        return [], [str(error)]
    if not top.is_dir():
        return [], []
    suites = [suite] if suite is not None else sorted(e.name for e in os.scandir(top))
    for name in suites:
        try:
            folder = safe_folder(root, SUBMISSIONS, name)
        except SubmissionError as error:
            refused.append(f"{SUBMISSIONS}/{shown(name)}: {error}")
            continue
        if not folder.is_dir():
            continue
        for entry in sorted(os.scandir(folder), key=lambda e: e.name):
            if not entry.name.endswith(".json"):
                continue
            where = f"{SUBMISSIONS}/{name}/{entry.name}"
            if entry.is_symlink():
                refused.append(f"{shown(where)}: a symbolic link, which the leaderboard never follows.")
            elif entry.is_file(follow_symlinks=False):
                files.append((where, Path(entry.path)))
    return files, refused


def _validated(files: list[tuple[str, Path]], refused: list[str]) -> Iterator[tuple[str, Results]]:
    """``(relative path, results)`` of each of ``files`` that validates; the others' refusals go to ``refused``.

    Acceptances are remembered by content (:mod:`~benchmarkzoo.leaderboard.accepted`): a file and
    validator seen before skip the protocol checks, anything changed is checked in full.
    """
    version = accepted.validator_version() if files else b""
    for where, file in files:
        try:
            yield where, accepted.validate_stored(file, version)
        except SubmissionError as error:
            refused.append(f"{where}: {error}")


def _stored_identities(root: Path, suite: str) -> tuple[list[identity.Held], list[str]]:
    files, refused = _stored_files(root, suite)
    return [identity.held(results, where) for where, results in _validated(files, refused)], refused


def _entry(results: Results, where: str, root: Path) -> dict[str, Any]:
    agg = results.aggregates
    record = read_record(root, root / where)  # None: never verified, or verified other bytes than these
    return {
        "verified": record is not None,
        "replayed_episodes": record["replayed_episodes"] if record is not None else 0,
        "total_episodes": sum(len(t.episodes) for t in results.tasks),
        "policy": results.policy.name,
        "policy_kind": results.policy.kind,
        "policy_hash": results.policy.content_hash,
        "submitter": results.submitter,
        "submission": where,
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


@dataclass
class Collection:
    """What ``build`` publishes: the board (leaderboard JSON), its submissions by entry path, and what was skipped."""

    board: dict[str, Any]
    submissions: dict[str, Results] = field(default_factory=dict)
    refused: list[str] = field(default_factory=list)


def _identity_filter(accepted: list[tuple[str, Results]], refused: list[str]) -> list[tuple[str, Results]]:
    """Drop stored entries ``add`` would have refused.

    Maintainers' entries are judged among themselves, everyone else's against all, so a copy of a
    reference removes the copy, and two colliding names both go.
    """
    held = {where: identity.held(results, where) for where, results in accepted}
    kept = []
    for where, results in accepted:
        reference = results.submitter == identity.MAINTAINER
        others = [h for w, h in held.items() if w != where and (not reference or h.submitter == identity.MAINTAINER)]
        problem = identity.identity_problem(results, others, reference)
        if problem:
            refused.append(f"{where}: {problem}")
        else:
            kept.append((where, results))
    return kept


def collect(root: str | Path = "leaderboard") -> Collection:
    """Validate every stored submission, apply the identity rules, and rank each suite's entries by normalized IQM."""
    root = Path(root).resolve()
    files, refused = _stored_files(root)
    by_suite: dict[str, list[tuple[str, Results]]] = {}
    for where, results in _validated(files, refused):
        if Path(where).parent.name != results.suite:
            refused.append(f"{where}: a {shown(results.suite)} submission stored in another suite's folder.")
            continue
        by_suite.setdefault(results.suite, []).append((where, results))
    collection = Collection({"leaderboard_version": LEADERBOARD_VERSION, "suites": {}}, refused=refused)
    for suite, stored in sorted(by_suite.items()):
        kept = _identity_filter(stored, refused)
        entries = [_entry(results, where, root) for where, results in kept]
        entries.sort(  # replay-verified entries first, then self-reported ones; each by IQM
            key=lambda e: (
                not e["verified"],
                -(e["iqm"] if e["iqm"] is not None else float("-inf")),
                e["policy"],
                e["submission"],
            )
        )
        for rank, entry in enumerate(entries, start=1):
            entry["rank"] = rank
        if entries:
            collection.board["suites"][suite] = {"entries": entries}
        collection.submissions.update(kept)
    return collection


def write_board(root: str | Path, collection: Collection) -> Path:
    """Write ``collection``'s board as ``root/leaderboard.json``; returns its path."""
    out = Path(root).resolve() / "leaderboard.json"
    atomic_write_text(out, json.dumps(collection.board, indent=1, sort_keys=True) + "\n")
    return out


def build(root: str | Path = "leaderboard") -> tuple[Path, list[str]]:
    """Write ``<root>/leaderboard.json`` from every valid submission; returns its path and the refusals."""
    collection = collect(root)
    return write_board(root, collection), collection.refused
