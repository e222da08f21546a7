"""The generalization page: train beside test beside ood per scenario set, numbers recomputed from the files."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from benchmarkzoo.evaluation import metrics
from benchmarkzoo.evaluation.results import Results, task_scores
from benchmarkzoo.leaderboard.site import build_site
from benchmarkzoo.leaderboard.site.generalization_view import families

pytest.importorskip("matplotlib", reason="the site's plots need the 'eval' extra (matplotlib)")
pytest.importorskip("jinja2", reason="the site's templates need the 'eval' extra (jinja2)")

ROOT = Path(__file__).resolve().parents[2] / "leaderboard"
SUITE = "generalization-v1"


#: The family the built site keeps (one of five: the build draws distribution plots for every task).
KEPT = ("gridworld/maze",)


def _trimmed(results: Results) -> Results:
    return results.model_copy(update={"tasks": [t for t in results.tasks if t.scenario_set in KEPT]})


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site of the committed generalization-v1 entries (read, not validated again: test_committed does that)."""
    board = json.loads((ROOT / "leaderboard.json").read_text())
    suites = {SUITE: board["suites"][SUITE]}
    submissions = {e["submission"]: _trimmed(Results.read(ROOT / e["submission"])) for e in suites[SUITE]["entries"]}
    out = tmp_path_factory.mktemp("site") / "site"
    build_site({"suites": suites}, submissions, out)
    return out, suites, submissions


def _cells(html: str, family: str) -> dict[str, dict[str, float]]:
    """``{policy: {split: value}}`` of the page's table for ``family``."""
    table = re.search(rf'<table class="generalization" data-family="{re.escape(family)}">(.*?)</table>', html, re.S)
    assert table, family
    rows = {}
    for policy, body in re.findall(r'<tr data-policy="([^"]+)">(.*?)</tr>', table.group(1), re.S):
        rows[policy] = {
            s: float(v) for s, v in re.findall(r'class="num score" data-split="(\w+)" data-value="([^"]+)"', body)
        }
    return rows


def test_the_page_shows_every_family_on_every_split_with_recomputed_scores(site):
    out, suites, submissions = site
    html = (out / SUITE / "generalization.html").read_text()
    entries = suites[SUITE]["entries"]
    first = submissions[entries[0]["submission"]]
    groups = families(first)
    assert set(groups) == set(KEPT)
    assert list(groups["gridworld/maze"]) == ["train", "test", "ood"]
    for family, splits in groups.items():
        shown = _cells(html, family)
        assert set(shown) == {e["policy"] for e in entries}
        for entry in entries:
            results = submissions[entry["submission"]]
            for split, task_id in splits.items():
                task = next(t for t in results.tasks if t.id == task_id)
                scores = metrics.normalize(task_scores(task), task.references["random"], task.references["baseline"])
                assert shown[entry["policy"]][split] == pytest.approx(float(np.mean(scores)), abs=1e-12)
    drops = re.findall(
        r'<tr data-policy="([^"]+)">.*?class="num drop" data-split="ood" data-value="([^"]+)"', html, re.S
    )
    maze = _cells(html, "gridworld/maze")
    assert len(drops) == len(entries)
    for policy, drop in drops:
        assert float(drop) == pytest.approx(maze[policy]["ood"] - maze[policy]["test"], abs=1e-12)
    # out-of-sample references: near, not exactly on, 0 and 1 for random and baseline
    assert 0.5 < _cells(html, "gridworld/maze")["baseline"]["ood"] < 1.5
    assert abs(_cells(html, "gridworld/maze")["random"]["train"]) < 0.5


def test_the_plot_is_a_static_svg_and_pages_link_to_it(site):
    out, _, _ = site
    svg = (out / SUITE / "plots" / "generalization.svg").read_text()
    assert svg.lstrip().startswith("<?xml") and "<script" not in svg
    html = (out / SUITE / "generalization.html").read_text()
    assert 'src="../generalization-v1/plots/generalization.svg"' in html or "plots/generalization.svg" in html
    assert "<script" not in html
    index = (out / "index.html").read_text()
    assert 'href="generalization-v1/generalization.html"' in index
    assert 'href="../generalization-v1/generalization.html"' in (out / SUITE / "index.html").read_text()


def test_families_are_the_scenario_sets_played_on_several_splits():
    board = json.loads((ROOT / "leaderboard.json").read_text())
    full = Results.read(ROOT / board["suites"][SUITE]["entries"][0]["submission"])
    assert families(full) == {
        name: {split: f"{prefix}-{split}" for split in ("train", "test", "ood")}
        for name, prefix in [
            ("gridworld/maze", "maze"),
            ("gridworld/maze-rooms", "maze-rooms"),
            ("gridworld/maze-keys", "maze-keys"),
            ("control/quadrotor-hover", "quadrotor-hover"),
            ("control/quadrotor-goal", "quadrotor-goal"),
        ]
    }
    # single-agent-v1 plays each scenario set on its test split only: no generalization page
    entry = board["suites"]["single-agent-v1"]["entries"][0]
    assert families(Results.read(ROOT / entry["submission"])) == {}
