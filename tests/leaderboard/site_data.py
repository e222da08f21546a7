"""Leaderboards for the site tests: real quickstart-v0 submissions, and hostile ones that skip validation.

The hostile entries never pass ``validate`` (their names are refused), so they are put straight into
the data :func:`benchmarkzoo.leaderboard.site.build_site` renders: the site must be safe without
relying on validation.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from benchmarkzoo.evaluation.results import Results
from benchmarkzoo.leaderboard.site.builder import load_board
from benchmarkzoo.leaderboard.store import add, build

SCRIPT_NAME = "<script>alert(1)</script>"
IMG_KIND = '<img src=x onerror="alert(2)">'
JS_URL = "javascript:alert(3)"
QUOTES = "\"'><svg onload=alert(4)>"
LONG = "W" * 3000
MATH = r"$\frac{1}{0}$ {{ 7*7 }}"
HTTP_URL = "https://example.org/policy?a=1&b=2"
HOSTILE_SUITE = "<i>evil-suite</i>"


def mo_results(folder: Path) -> dict[str, Path]:
    """Real mo-v0 results (MO-Treasure, with exact fronts) of the random and baseline policies."""
    from benchmarkzoo.evaluation.protocol import evaluate

    files = {}
    for policy in ("random", "baseline"):
        files[policy] = folder / f"mo-{policy}.json"
        evaluate("mo-v0", policy, num_envs=16, out=files[policy])
    return files


def real_board(quickstart_results: dict[str, Path], root: Path, mo: dict[str, Path] | None = None) -> Path:
    """A leaderboard folder with the real random and baseline quickstart-v0 (and mo-v0) runs added and built."""
    for policy in ("random", "baseline"):
        add(quickstart_results[policy], root, reference=True)
        if mo is not None:
            add(mo[policy], root, reference=True)
    out, refused = build(root)
    assert refused == []
    return out


def _hostile(results: Results, name: str, kind: str, spec: str) -> Results:
    provenance = results.provenance.model_copy(
        update={
            "cpu": QUOTES,
            "platform": LONG,
            "backend": IMG_KIND,
            "dependencies": {**results.provenance.dependencies, SCRIPT_NAME: JS_URL},
        }
    )
    tasks = []
    for task in results.tasks:
        metrics = [{SCRIPT_NAME: float(e.length), "plain": 1.0} for e in task.episodes]
        episodes = [e.model_copy(update={"metrics": m}) for e, m in zip(task.episodes, metrics)]
        tasks.append(task.model_copy(update={"episodes": episodes}))
    policy = results.policy.model_copy(update={"name": name, "kind": kind, "spec": spec})
    return results.model_copy(update={"policy": policy, "provenance": provenance, "tasks": tasks})


def hostile_board(root: Path) -> tuple[dict[str, Any], dict[str, Results]]:
    """The real board of ``root`` plus hostile copies of its best entry, in its suite and in a hostile suite."""
    board, submissions, refused = load_board(root)
    assert refused == []
    board = copy.deepcopy(board)
    entries = board["suites"]["quickstart-v0"]["entries"]
    best = entries[0]
    cases = [
        (SCRIPT_NAME, IMG_KIND, JS_URL, "submissions/quickstart-v0/<script>x</script>.json"),
        (LONG + QUOTES, QUOTES, HTTP_URL, f"submissions/quickstart-v0/../../{QUOTES}.json"),
        (MATH, "java\tscript:alert(5)", " javascript:alert(6)", "submissions/quickstart-v0/math.json"),
    ]
    for name, kind, spec, where in cases:
        submissions[where] = _hostile(submissions[best["submission"]], name, kind, spec)
        entries.append({**best, "policy": name, "policy_kind": kind, "submission": where, "rank": len(entries) + 1})
    evil = {**best, "policy": SCRIPT_NAME, "policy_kind": IMG_KIND, "submission": cases[0][3], "rank": 1}
    board["suites"][HOSTILE_SUITE] = {"entries": [evil]}
    return board, submissions


#: The committed leaderboard folder.
COMMITTED = Path(__file__).resolve().parents[2] / "leaderboard"
#: The committed suite whose tasks play both rated envs (FightingDuel-v0 and RPSSelfPlay-v0).
COMPETITIVE = "competitive-v2"


def competitive_site(out: Path, with_ratings: bool = True) -> Path:
    """The site of the committed competitive-v2 entries, with the committed ``leaderboard/ratings/`` files or none.

    The entries are read, not validated again (test_committed does that); returns the site folder.
    """
    from benchmarkzoo.leaderboard.site import build_site
    from benchmarkzoo.leaderboard.site.builder import load_ratings

    suites = {COMPETITIVE: board_json(COMMITTED)["suites"][COMPETITIVE]}
    submissions = {e["submission"]: Results.read(COMMITTED / e["submission"]) for e in suites[COMPETITIVE]["entries"]}
    ratings = load_ratings(COMMITTED) if with_ratings else []
    return build_site({"suites": suites}, submissions, out, ratings).parent


def board_json(root: Path) -> dict[str, Any]:
    return json.loads((root / "leaderboard.json").read_text())
