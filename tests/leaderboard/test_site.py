"""The static site: escaping at the templating layer, deterministic bytes, statistics, serving, the CLI."""

from __future__ import annotations

import json
import re
import shutil
import unicodedata
import urllib.request

import numpy as np
import pytest
from click.testing import CliRunner

from benchmarkzoo.evaluation import metrics
from benchmarkzoo.leaderboard.site import build_site, build_site_from_root, serve, stats
from benchmarkzoo.leaderboard.site.builder import MARKER, load_board, slug
from benchmarkzoo.leaderboard.site.commands import serve_command, site_command
from benchmarkzoo.leaderboard.site.templating import environment, is_http_url, link, render
from benchmarkzoo.leaderboard.store import collect
from benchmarkzoo.leaderboard.validate import SubmissionError

from .site_data import (
    HOSTILE_SUITE,
    HTTP_URL,
    IMG_KIND,
    JS_URL,
    MATH,
    QUOTES,
    SCRIPT_NAME,
    board_json,
    hostile_board,
    mo_results,
    real_board,
)

pytest.importorskip("matplotlib", reason="the site's plots need the 'eval' extra (matplotlib)")
pytest.importorskip("jinja2", reason="the site's templates need the 'eval' extra (jinja2)")


@pytest.fixture(scope="module")
def board_root(quickstart_results, tmp_path_factory):
    """A leaderboard folder with real random and baseline quickstart-v0 entries and its built site."""
    root = tmp_path_factory.mktemp("board")
    real_board(quickstart_results, root, mo_results(tmp_path_factory.mktemp("mo")))
    build_site_from_root(root)
    return root


def _all_files(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# --- the templating layer, fed hostile strings directly ---------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        "JavaScript:alert(1)",
        " javascript:alert(1)",
        "java\tscript:alert(1)",
        "data:text/html,<script>alert(1)</script>",
        "vbscript:msgbox(1)",
        "//evil.example/x",
        "/etc/passwd",
        "file:///etc/passwd",
        "https://",
        'https://example.org/"onmouseover="alert(1)',
        "https://ex ample.org",
        "http://example.org/<script>",
        "",
        None,
        42,
    ],
)
def test_only_http_urls_become_links(url):
    assert not is_http_url(url)
    html = str(link(url))
    assert "<a" not in html and "<script" not in html and 'onmouseover="' not in html


def test_http_links_are_escaped_and_inert():
    assert is_http_url(HTTP_URL) and is_http_url("http://localhost:8000/x")
    html = str(link(HTTP_URL))
    assert html == (
        '<a href="https://example.org/policy?a=1&amp;b=2" rel="nofollow noopener noreferrer">'
        "https://example.org/policy?a=1&amp;b=2</a>"
    )
    assert str(link(HTTP_URL, SCRIPT_NAME)).endswith(">&lt;script&gt;alert(1)&lt;/script&gt;</a>")


def _suite_of(hostile: str) -> dict:
    """A suite page's data whose every submitter-controlled string is ``hostile``."""
    entry = {
        "rank": 1,
        "policy": hostile,
        "policy_kind": hostile,
        "href": "s/submissions/x.html",
        "iqm": 1.0,
        "iqm_ci": [0.5, 1.5],
        "mean": 1.0,
        "optimality_gap": 0.0,
        "steps_per_s": 10.0,
        "tasks": {},
    }
    return {
        "name": hostile,
        "description": hostile,
        "href": "s/index.html",
        "entries": [entry],
        "tasks": [],
        "intervals": None,
        "profile": None,
        "improvement": None,
        "pairs": [],
        "task_hrefs": {"t-test": "s/tasks/t-test.html", "t-ood": "s/tasks/t-ood.html"},
        "ratings": [],
        "generalization": {
            "href": "s/generalization.html",
            "plot": "s/generalization.svg",
            "families": [
                {
                    "name": "set/x",
                    "splits": ["test", "ood"],
                    "tasks": {"test": "t-test", "ood": "t-ood"},
                    "rows": [{"entry": entry, "cells": {"test": None, "ood": None}, "drops": {}}],
                }
            ],
        },
    }


def _pages(suite: dict) -> str:
    """Every page that shows a suite's submitter-controlled strings, rendered from ``suite``."""
    return (
        render("index.html", root="", suites=[suite], ratings=None)
        + render("suite.html", root="../", suite=suite)
        + render("generalization.html", root="../", suite=suite)
    )


@pytest.mark.parametrize("hostile", [SCRIPT_NAME, IMG_KIND, QUOTES, MATH, JS_URL])
def test_every_template_escapes_submission_strings(hostile):
    env = environment()
    assert env.autoescape is True
    suite = _suite_of(hostile)
    html = _pages(suite)
    assert "<script>alert" not in html and "<img src=x" not in html and "<svg onload" not in html
    assert 'href="javascript' not in html.lower()
    assert "&lt;" in html or hostile in (MATH, JS_URL)
    assert html.count("<script") == 0


@pytest.mark.parametrize("hostile", ["\x1b[2J\x1b[31mred", "mod\u202efdp.exe", "nul\x00byte", "lone\ud800", "\u200bzw"])
def test_control_and_format_characters_never_reach_a_page(hostile):
    """Validation refuses them; the pages do not rely on it (every value goes through ``visible``)."""
    suite = _suite_of(hostile)
    html = _pages(suite)
    html += str(link(hostile))
    assert [c for c in html if c not in "\n\t" and unicodedata.category(c).startswith("C")] == []
    assert f"\\u{ord(next(c for c in hostile if unicodedata.category(c).startswith('C'))):04x}" in html


def test_hostile_submissions_render_as_text(board_root, tmp_path):
    board, submissions = hostile_board(board_root)
    index = build_site(board, submissions, tmp_path / "site")
    files = _all_files(index.parent)
    pages = {name: data.decode() for name, data in files.items() if name.endswith(".html")}
    for name, html in pages.items():
        assert "<script" not in html, name
        assert "<img src=x" not in html and "<svg onload" not in html and "<i>evil" not in html, name
        assert 'href="javascript' not in html.lower() and "href=' javascript" not in html.lower(), name
        for href in re.findall(r'href="([^"]*)"', html):  # only our relative links and the one http(s) URL
            assert ":" not in href or href == "https://example.org/policy?a=1&amp;b=2", (name, href)
    overview = pages["quickstart-v0/index.html"]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in overview
    anchor = '<a href="https://example.org/policy?a=1&amp;b=2" rel="nofollow noopener noreferrer">'
    assert anchor in "".join(pages.values())
    assert "{{ 7*7 }}" in "".join(pages.values())  # template syntax in data is data, not template
    # File names come from the builder, never from a submission's text.
    assert all(set(name) <= set("abcdefghijklmnopqrstuvwxyz0123456789-_./") for name in files if name != MARKER), files
    assert any(name.startswith(slug(HOSTILE_SUITE) + "/") for name in files)
    for name, data in files.items():
        if name.endswith(".svg"):
            assert b"<script" not in data and b"onload" not in data and b"onerror" not in data, name


# --- builds from real submissions -----------------------------------------------------------


def test_site_pages_and_numbers(board_root):
    site = board_root / "site"
    board = board_json(board_root)
    entries = board["suites"]["quickstart-v0"]["entries"]
    overview = (site / "quickstart-v0" / "index.html").read_text()
    assert overview.index(">baseline</a>") < overview.index(">random</a>")
    for entry in entries:
        assert f'data-value="{entry["iqm"]}">{entry["iqm"]:.3f}<' in overview
        assert f"[{entry['iqm_ci'][0]:.3f}, {entry['iqm_ci'][1]:.3f}]" in overview
        page = site / "quickstart-v0" / "submissions" / (entry["submission"].rsplit("/", 1)[1][:-5] + ".html")
        html = page.read_text()
        results = json.loads((board_root / entry["submission"]).read_text())
        assert (results["policy"]["content_hash"] or "—") in html and results["provenance"]["cpu"] in html
        assert f"{results['provenance']['steps_per_s']:.0f}" in html
        assert json.loads(page.with_suffix(".json").read_text()) == results
    for task in ("maze-test", "maze-ood"):
        html = (site / "quickstart-v0" / "tasks" / f"{task}.html").read_text()
        for entry in entries:
            assert f"{entry['tasks'][task]['success_rate'] * 100:.0f}%" in html
        assert f"plots/task-{task}-returns.svg" in html
    for plot in ("intervals", "profile", "improvement"):
        assert (site / "quickstart-v0" / "plots" / f"{plot}.svg").read_bytes().startswith(b"<?xml")


def test_pareto_plots_and_table_on_multi_objective_tasks_only(board_root):
    site = board_root / "site"
    board = board_json(board_root)
    for task in ("maze-test", "maze-ood"):  # single-objective: no Pareto plot, no multi-objective table
        html = (site / "quickstart-v0" / "tasks" / f"{task}.html").read_text()
        assert "pareto" not in html.lower() and "mo-results" not in html and "front-distance" not in html
    assert not list((site / "quickstart-v0" / "plots").glob("*pareto*"))
    entries = board["suites"]["mo-v0"]["entries"]
    assert [e["policy"] for e in entries] == ["baseline", "random"]
    for task in ("treasure-test", "treasure-ood"):
        html = (site / "mo-v0" / "tasks" / f"{task}.html").read_text()
        for plot in ("pareto-all", "pareto-scenarios", "front-distance"):
            src = f"plots/task-{task}-{plot}.svg"
            assert f'src="../../mo-v0/{src}"' in html, (task, plot)
            data = (site / "mo-v0" / src).read_bytes()
            assert data.startswith(b"<?xml") and b"<script" not in data
        assert "exact Pareto front" in html and "first 6 of the 100 scenarios" in html
        table = html[html.index('<table class="mo-results">') :]
        table = table[: table.index("</table>")]
        rows = table.split('<tr class="entry"')[1:]
        assert len(rows) == len(entries)
        for entry, row in zip(entries, rows):
            assert f'data-policy="{entry["policy"]}"' in row
            results = json.loads((board_root / entry["submission"]).read_text())
            result = next(t for t in results["tasks"] if t["id"] == task)
            assert result["pareto_fronts"], "MO-Treasure records exact fronts"
            mo = result["aggregates"]["multi_objective"]
            for key in ("hypervolume", "expected_utility", "sparsity", "pareto_optimal_rate", "front_coverage"):
                cell = f'class="num mo-{key.replace("_", "-")}" data-value="{mo[key]}">{mo[key]:.3f}</td>'
                assert cell in row, (task, entry["policy"], key)
            distance = re.search(r'class="num mo-front-distance" data-value="([^"]+)"', row)
            assert distance is not None and float(distance.group(1)) >= 0.0
            if mo["pareto_optimal_rate"] == 1.0:  # every episode on its front: distance 0
                assert float(distance.group(1)) == pytest.approx(0.0, abs=1e-6)


def test_front_distance_is_zero_on_the_front_and_scale_free():
    front = np.array([[1.0, -1.0], [14.7, -2.0], [124.0, -20.0]])  # (P, 2), maximized
    for point in front:
        assert stats.front_distance(point, front) == 0.0
    assert stats.front_distance(np.array([130.0, -1.0]), front) == 0.0  # dominates the front: no shortfall
    behind = stats.front_distance(np.array([0.0, -100.0]), front)
    shortfalls = [max(1.0 / 123.0, 99.0 / 19.0), max(14.7 / 123, 98 / 19), max(124 / 123, 80 / 19)]  # per front point
    assert behind == pytest.approx(min(shortfalls))
    assert stats.front_distance(np.array([0.0, -200.0]), front * 2) == pytest.approx(behind)  # scale-free
    assert stats.front_distance(np.array([0.0, 0.0]), np.array([[2.0, 3.0]])) == pytest.approx(1.0)  # flat: own size


def test_site_is_byte_identical_across_builds_and_folders(board_root, tmp_path):
    first = _all_files(board_root / "site")
    build_site_from_root(board_root)
    assert _all_files(board_root / "site") == first
    board, submissions, _ = load_board(board_root)
    elsewhere = build_site(board, submissions, tmp_path / "copy", root=board_root).parent
    assert _all_files(elsewhere) == first


def test_forged_and_edited_submissions_never_reach_the_site(board_root, tmp_path):
    root = tmp_path / "board"
    shutil.copytree(board_root, root, ignore=shutil.ignore_patterns("site"))
    stored = sorted((root / "submissions" / "quickstart-v0").glob("random-*.json"))[0]
    data = json.loads(stored.read_text())
    data["tasks"][0]["aggregates"]["mean"] += 10.0  # forged after `build`: the site validates again
    stored.write_text(json.dumps(data))
    # The site lists what leaderboard JSON lists or is not built: `site` refuses, `build` re-ranks without it.
    with pytest.raises(SubmissionError, match=r"aggregates do not match.*run `benchmarkzoo leaderboard build`"):
        build_site_from_root(root)
    assert not (root / "site").exists()
    collection = collect(root)
    assert len(collection.refused) == 1 and "aggregates do not match" in collection.refused[0]
    index = build_site(collection.board, collection.submissions, root / "site")
    overview = (index.parent / "quickstart-v0" / "index.html").read_text()
    assert ">baseline</a>" in overview and ">random</a>" not in overview
    assert [e["policy"] for e in collection.board["suites"]["quickstart-v0"]["entries"]] == ["baseline"]


def test_build_refuses_to_replace_a_folder_it_did_not_make(board_root, tmp_path):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me")
    board, submissions, _ = load_board(board_root)
    with pytest.raises(FileExistsError, match="not a leaderboard site"):
        build_site(board, submissions, tmp_path / "mine")
    assert (tmp_path / "mine" / "notes.txt").read_text() == "keep me"


# --- statistics, against rliable -------------------------------------------------------------


def test_probability_of_improvement_and_profiles_match_rliable():
    rliable_metrics = pytest.importorskip("rliable.metrics", reason="rliable (dev extra) is the reference")
    rng = np.random.default_rng(3)
    x = rng.normal(1.0, 0.5, size=(30, 4))  # (num_runs, num_tasks)
    y = rng.normal(0.8, 0.5, size=(30, 4))
    y[:5] = x[:5]  # ties count half
    ours = stats.probability_of_improvement(list(x.T), list(y.T))
    assert ours == pytest.approx(rliable_metrics.probability_of_improvement(x, y))
    taus = np.linspace(-1, 3, 41)
    profile = stats.performance_profile(list(x.T), taus)
    assert profile == pytest.approx(np.array([np.mean(x > tau) for tau in taus]))
    low, high = stats.performance_profile_ci(list(x.T), taus, reps=200)
    assert np.all(low <= profile + 1e-12) and np.all(profile <= high + 1e-12)
    low, high = stats.probability_of_improvement_ci(list(x.T), list(y.T), reps=200)
    assert low <= ours <= high
    assert stats.probability_of_improvement_ci(list(x.T), list(y.T), reps=200) == (low, high)
    assert metrics.RANDOM_STATE == 0


# --- serving and the CLI --------------------------------------------------------------------


def test_serve_answers_a_real_request(board_root):
    server, thread = serve.start(board_root / "site", port=0)
    try:
        with urllib.request.urlopen(serve.url(server), timeout=10) as response:
            assert response.status == 200
            assert "default-src 'none'" in response.headers["Content-Security-Policy"]
            assert b">baseline</a>" in response.read()
        with urllib.request.urlopen(serve.url(server).replace("index.html", "static/style.css"), timeout=10) as r:
            assert r.headers["Content-Type"].startswith("text/css")
        assert server.server_address[0] == "127.0.0.1"
    finally:
        server.shutdown()
        server.server_close()
    thread.join(timeout=10)
    assert not thread.is_alive()


def test_cli_site_and_serve_errors(board_root, tmp_path):
    runner = CliRunner()
    result = runner.invoke(site_command, ["--root", str(board_root)])
    assert result.exit_code == 0 and "wrote site" in result.output
    assert (board_root / "site" / "index.html").is_file()
    result = runner.invoke(site_command, ["--root", str(tmp_path)])
    assert result.exit_code != 0 and "leaderboard build" in str(result.exception or result.output)
    result = runner.invoke(serve_command, ["--root", str(tmp_path), "--port", "0"])
    assert result.exit_code != 0 and "no index.html" in str(result.exception or result.output)
