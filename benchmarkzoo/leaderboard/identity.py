"""Who may use a name on the leaderboard: reserved reference names, confusable names, duplicate outcomes.

Names are compared as people read them: after Unicode NFKC, case folding and the confusables of
Unicode's UTS #39 data (``confusables.is_confusable``: Cyrillic ``а`` is Latin ``a``, ``rn`` is
``m``, ``I`` is ``l``). A policy name is refused when it reads as a reserved name (``random``,
``baseline``, each committed reference policy, unless the maintainers add it as a reference) or
as a name another submitter holds, or reads as an existing name without being it. The same raw
outcomes under another name are a copy of that entry and refused as a duplicate.
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from benchmarkzoo.core.extras import require
from benchmarkzoo.evaluation.results import Results
from benchmarkzoo.leaderboard.text import shown

#: The submitter of the maintainers' reference entries.
MAINTAINER = "benchmarkzoo"
#: The built-in policies every suite ranks.
BUILTIN_REFERENCES = ("random", "baseline")
#: Committed reference policies: every model file here names one (``ppo-maze.zip`` reserves ``ppo-maze``), and
#: so does every ONNX bundle folder (``ppo-single-agent/manifest.json`` reserves ``ppo-single-agent``).
POLICIES_DIR = Path(__file__).resolve().parents[2] / "leaderboard" / "policies"
MODEL_SUFFIXES = (".zip", ".onnx")


def reserved_names(policies_dir: Path = POLICIES_DIR) -> tuple[str, ...]:
    """``random``, ``baseline`` and the stem of every committed reference model, sorted after the built-ins."""
    models = sorted(
        {p.stem for p in policies_dir.glob("*") if p.suffix in MODEL_SUFFIXES and p.is_file()}
        | {p.parent.name for p in policies_dir.glob("*/manifest.json") if p.is_file()}
    )
    return (*BUILTIN_REFERENCES, *(m for m in models if m not in BUILTIN_REFERENCES))


def _folded(name: str) -> str:
    return unicodedata.normalize("NFKC", name).casefold()


def reads_as(a: str, b: str) -> bool:
    """Whether a reader could take ``a`` for ``b``: equal after NFKC and case folding, or confusable."""
    confusables = require("confusables", "eval", "comparing leaderboard names")
    fa, fb = _folded(a), _folded(b)
    return fa == fb or confusables.is_confusable(fa, fb)


def fingerprint(results: Results) -> str:
    """sha256 of the raw outcomes (every task's episodes: returns, lengths, success, metrics, seeds)."""
    body = [[t.id, [e.model_dump(mode="json", by_alias=True) for e in t.episodes]] for t in results.tasks]
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


@dataclass(frozen=True)
class Held:
    """A name already on the leaderboard: who holds it and the outcomes it was stored with."""

    name: str
    submitter: str
    fingerprint: str
    where: str  # the stored file, relative to the root


def held(results: Results, where: str) -> Held:
    """What identity checks need of the stored file ``where`` (``results``, read from it)."""
    return Held(results.policy.name, results.submitter or "", fingerprint(results), where)


def identity_problem(results: Results, existing: Iterable[Held], reference: bool = False) -> str | None:
    """Why ``results`` may not be stored beside ``existing`` (same suite), or ``None``.

    Args:
        results: the submission, with its ``submitter`` set.
        existing: the names already stored in its suite.
        reference: the maintainers add it as a reference (``add --reference``), so reserved names are allowed.
    """
    name, submitter = results.policy.name, results.submitter
    if not submitter:
        return "a submission needs a submitter: `benchmarkzoo leaderboard add --submitter NAME`."
    is_maintainer = submitter == MAINTAINER
    if reference != is_maintainer:
        return (
            f"submitter {shown(submitter)}: only references added with --reference are submitted by "
            f"{MAINTAINER!r}, and every reference is."
        )
    if not reference and reads_as(submitter, MAINTAINER):
        return f"submitter {shown(submitter)} reads as {MAINTAINER!r}, the maintainers' name; choose another."
    if not reference:
        for reserved in reserved_names():
            if reads_as(name, reserved):
                return (
                    f"policy name {shown(name)} reads as the reserved reference name {reserved!r}; choose another "
                    "name (references are added by the maintainers with --reference)."
                )
    existing = list(existing)
    for other in existing:
        if other.name == name and other.submitter != submitter:
            return f"policy name {shown(name)} is held by another submitter ({other.where}); choose another."
        if other.name != name and reads_as(name, other.name):
            return (
                f"policy name {shown(name)} reads as the existing {shown(other.name)} ({other.where}); choose a "
                "distinct name, or use exactly that one if it is yours."
            )
        if other.submitter != submitter and reads_as(submitter, other.submitter):
            return f"submitter {shown(submitter)} reads as the existing submitter {shown(other.submitter)}."
    own = fingerprint(results)
    for other in existing:
        if other.fingerprint == own:
            return (
                f"duplicate: {other.where} (policy {shown(other.name)} by {shown(other.submitter)}) has the same "
                "raw outcomes; the same episodes are stored once, under one name."
            )
    return None
