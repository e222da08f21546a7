"""A task page's replay: the median-score episode of its best replay-verified entry, or why there is none.

The entry is the first of the task page's ranking that the leaderboard marks replay-verified and
whose policy is data the site can rebuild without running submitted code (``random``,
``baseline``, an ONNX model or bundle stored under ``ROOT/models/``); each entry above it is
listed with the reason it is passed over. The episode is that entry's median by the task's score
(the lower median of an even count; ties by episode index). Envs of families not in
``families`` are not replayed (default :data:`DEFAULT_FAMILIES`; SUMO and PyBullet are the slow ones).
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection
from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np

from benchmarkzoo import registration
from benchmarkzoo.evaluation.policies import BUILTINS
from benchmarkzoo.leaderboard.site import animations
from benchmarkzoo.leaderboard.site.files import write
from benchmarkzoo.leaderboard.validate import SubmissionError, read_bytes
from benchmarkzoo.leaderboard.verify import bundle_path, model_path

#: Env families animated by default. Every family renders; these replay one episode in well under a
#: second, while a SUMO (``traffic``) or PyBullet (``robotics``) replay costs seconds each, cold.
DEFAULT_FAMILIES = frozenset({"gridworld", "control", "multiagent"})
#: The size caps of the site's animations.
CAPS = animations.Caps()


def median_episode(result: Any, scores: np.ndarray) -> int:
    """The index of ``result``'s median episode by ``scores`` (aligned with its episodes).

    The lower median of an even count; equal scores are ordered by episode index.
    """
    order = sorted(range(len(result.episodes)), key=lambda i: (float(scores[i]), result.episodes[i].index))
    return int(result.episodes[order[(len(order) - 1) // 2]].index)


def passed_over(entry: dict[str, Any], root: Path) -> str | None:
    """Why ``entry``'s episodes are not animated, or ``None`` if they can be."""
    if not entry.get("verified"):
        return "self-reported (not replay-verified)"
    info = entry["results"].policy
    if info.kind in BUILTINS:
        return None
    if info.kind == "onnx":
        stored = info.content_hash is not None and (
            bundle_path(root, info.content_hash).is_dir() or model_path(root, info.content_hash).is_file()
        )
        return None if stored else "its ONNX model is not stored with the leaderboard"
    return f"a code policy (kind {info.kind}): the site runs no submitted code"


def animation_view(
    task_id: str,
    rows: list[dict[str, Any]],
    out: Path,
    root: Path,
    families: Collection[str] | None = None,
    caps: animations.Caps | None = None,
) -> dict[str, Any]:
    """The replay section of a task page (``rows`` ranked as the page shows them), its file written under ``out``.

    Returns ``{"src", "caption", "skipped", "note"}``: ``src`` is the site path of the animation
    (``None``: there is none, and ``note`` says why); ``skipped`` lists ``(policy, reason)`` of the
    entries ranked above the one shown.
    """
    view: dict[str, Any] = {"src": None, "caption": None, "skipped": [], "note": None}
    if rows:
        family = registration.spec(rows[0]["result"].env_id).family
        if family not in (DEFAULT_FAMILIES if families is None else families):
            view["note"] = f"replays of {family} envs are off here (`leaderboard build --animate` turns them on)."
            return view
    for row in rows:
        entry = row["entry"]
        reason = passed_over(entry, root)
        if reason is not None:
            view["skipped"].append((entry["policy"], reason))
            continue
        result = row["result"]
        index = median_episode(result, row["scores"])
        where = root.joinpath(*PurePosixPath(entry["submission"]).parts)
        try:
            data = read_bytes(where, follow_links=False)
        except SubmissionError as error:
            view["note"] = f"Episode {index} of {entry['policy']} is not shown: its file cannot be read ({error})."
            return view
        made = animations.animation(where, data, task_id, index, root, CAPS if caps is None else caps)
        if made.suffix is None:
            view["note"] = f"Episode {index} of {entry['policy']} is not shown: {str(made.note).rstrip('.')}."
            return view
        # Named by content: a task every version of a suite plays keeps one file, not one per suite.
        view["src"] = f"animations/{hashlib.sha256(made.data).hexdigest()[:16]}{made.suffix}"
        write(out / view["src"], made.data)
        episode = next(e for e in result.episodes if e.index == index)
        steps = f"every {made.stride}th of its {made.length} steps" if made.stride > 1 else f"its {made.length} steps"
        view["caption"] = (
            f"Episode {index} (seed {episode.seed}) of {entry['policy']}, the best-ranked replay-verified entry: its "
            f"median episode by score ({float(row['scores'][list(result.episodes).index(episode)]):.4g}), replayed "
            f"from its seed ({steps}, {made.frames} frames; it loops)."
        )
        view["episode"] = index
        return view
    view["note"] = "No entry is replay-verified with a policy the site can rebuild without running code."
    return view
