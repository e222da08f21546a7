"""The built site in a real browser: Debian's Chromium driven headless by Playwright for Python.

No browser is downloaded: Playwright launches ``/usr/bin/chromium`` (Debian's ``chromium``
package). The tests skip, saying so, only when that binary is missing. With
``BENCHMARKZOO_UPDATE_SCREENSHOT=1`` the run also rewrites the README's screenshot,
``docs/leaderboard-overview.png`` (its steps/s figures change from run to run, so an ordinary
test run writes it to a temporary folder instead of dirtying the checkout).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from benchmarkzoo.leaderboard.site import build_site, build_site_from_root, serve

from .site_data import (
    COMMITTED,
    HOSTILE_SUITE,
    IMG_KIND,
    LONG,
    MATH,
    QUOTES,
    SCRIPT_NAME,
    board_json,
    competitive_site,
    hostile_board,
    mo_results,
    real_board,
)

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
README_SCREENSHOT = Path(__file__).resolve().parents[2] / "docs" / "leaderboard-overview.png"

pytestmark = pytest.mark.skipif(
    not CHROMIUM.is_file(), reason="browser tests need Debian's chromium: apt-get install chromium"
)
sync_api = pytest.importorskip("playwright.sync_api", reason="browser tests need playwright (pip install playwright)")
pytest.importorskip("matplotlib", reason="the site's plots need the 'eval' extra (matplotlib)")


@pytest.fixture(scope="module")
def sites(quickstart_results, tmp_path_factory):
    """``(root, real site index, hostile site index)``: both built from the same real submissions."""
    root = tmp_path_factory.mktemp("board")
    real_board(quickstart_results, root, mo_results(tmp_path_factory.mktemp("mo")))
    index, refused = build_site_from_root(root)
    assert refused == []
    board, submissions = hostile_board(root)
    hostile = build_site(board, submissions, tmp_path_factory.mktemp("hostile") / "site")
    return root, index, hostile


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    """A fresh page that records every dialog, console error and uncaught script error."""
    context = browser.new_context(viewport={"width": 1200, "height": 1000}, device_scale_factor=1)
    page = context.new_page()
    page.events = []  # (kind, text)

    def on_dialog(dialog):
        page.events.append(("dialog", dialog.message))
        dialog.dismiss()

    page.on("dialog", on_dialog)
    page.on("console", lambda m: page.events.append(("console", m.text)) if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda error: page.events.append(("pageerror", str(error))))
    yield page
    context.close()


def _images_loaded(page) -> bool:
    page.wait_for_load_state("load")  # a click starts a navigation; "load" waits for its images
    return page.evaluate("[...document.images].every(i => i.complete && i.naturalWidth > 0)")


def test_overview_ranking_matches_leaderboard_json(sites, page, tmp_path):
    root, index, _ = sites
    entries = board_json(root)["suites"]["quickstart-v0"]["entries"]
    page.goto(index.as_uri())
    page.click("h2 >> text=quickstart-v0")
    assert page.url.endswith("/quickstart-v0/index.html")
    rows = page.locator("table.ranking tr.entry")
    assert rows.count() == len(entries) == 2
    for k, entry in enumerate(entries):
        row = rows.nth(k)
        assert row.locator("td.rank").inner_text().startswith(str(entry["rank"]))
        assert row.locator("td.policy").inner_text() == entry["policy"]
        assert row.locator("td.iqm").inner_text() == f"{entry['iqm']:.3f}"
        assert float(row.locator("td.iqm").get_attribute("data-value")) == entry["iqm"]
        low, high = entry["iqm_ci"]
        assert row.locator("td.iqm-ci").inner_text() == f"[{low:.3f}, {high:.3f}]"
        assert row.locator("td.mean").inner_text() == f"{entry['mean']:.3f}"
        assert row.locator("td.optimality-gap").inner_text() == f"{entry['optimality_gap']:.3f}"
    assert [rows.nth(k).locator("td.policy").inner_text() for k in range(2)] == ["baseline", "random"]
    assert page.locator("figure img").count() == 3 and _images_loaded(page)
    assert page.events == []
    update_readme = os.environ.get("BENCHMARKZOO_UPDATE_SCREENSHOT") == "1"
    screenshot = README_SCREENSHOT if update_readme else tmp_path / "overview.png"
    screenshot.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(screenshot))
    assert screenshot.stat().st_size > 10_000


def test_click_through_to_task_and_submission_pages(sites, page):
    root, index, _ = sites
    entries = board_json(root)["suites"]["quickstart-v0"]["entries"]
    page.goto(index.with_name("quickstart-v0").joinpath("index.html").as_uri())
    page.click("a.task-link >> text=maze-test")
    assert page.url.endswith("/quickstart-v0/tasks/maze-test.html")
    assert page.locator("h1").inner_text() == "maze-test"
    rows = page.locator("table.task-results tr.entry")
    for k, entry in enumerate(entries):
        task = entry["tasks"]["maze-test"]
        assert rows.nth(k).locator("td.policy").inner_text() == entry["policy"]
        assert rows.nth(k).locator("td.success").inner_text() == f"{100 * task['success_rate']:.0f}%"
        assert rows.nth(k).locator("td.task-mean").inner_text() == f"{task['mean']:.3f}"
        assert rows.nth(k).locator("td.normalized").inner_text() == f"{task['normalized_mean']:.3f}"
    assert page.locator("figure img").count() >= 2 and _images_loaded(page)

    page.click("table.task-results td.policy a >> text=baseline")
    assert "/quickstart-v0/submissions/baseline-" in page.url
    assert page.locator("h1").inner_text() == "baseline"
    assert page.locator("span.iqm").inner_text() == f"{entries[0]['iqm']:.3f}"
    assert page.locator("dd.steps-per-s").inner_text() == f"{entries[0]['steps_per_s']:.0f}"
    assert page.locator("dd.policy-kind").inner_text() == "baseline"
    page.click("header a.crumb")
    assert page.url.endswith("/quickstart-v0/index.html")
    assert page.events == []


def test_multi_objective_task_page_shows_its_pareto_plots(sites, page):
    root, index, _ = sites
    entries = board_json(root)["suites"]["mo-v0"]["entries"]
    page.goto(index.with_name("mo-v0").joinpath("index.html").as_uri())
    page.click("a.task-link >> text=treasure-test")
    assert page.url.endswith("/mo-v0/tasks/treasure-test.html")
    figures = page.locator("figure img[src*='pareto'], figure img[src*='front-distance']")
    assert figures.count() == 3 and _images_loaded(page)
    for k in range(3):  # drawn at a readable size, not a broken-image box
        assert figures.nth(k).evaluate("img => img.naturalWidth > 300 && img.getBoundingClientRect().width > 300")
    rows = page.locator("table.mo-results tr.entry")
    assert rows.count() == len(entries)
    for k, entry in enumerate(entries):
        results = json.loads((root / entry["submission"]).read_text())
        mo = next(t for t in results["tasks"] if t["id"] == "treasure-test")["aggregates"]["multi_objective"]
        assert rows.nth(k).locator("td.policy").inner_text() == entry["policy"]
        assert rows.nth(k).locator("td.mo-hypervolume").inner_text() == f"{mo['hypervolume']:.3f}"
        assert rows.nth(k).locator("td.mo-pareto-optimal-rate").inner_text() == f"{mo['pareto_optimal_rate']:.3f}"
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.goto(index.with_name("quickstart-v0").joinpath("tasks", "maze-test.html").as_uri())
    assert page.locator("table.mo-results").count() == 0 and page.locator("img[src*='pareto']").count() == 0
    assert page.events == []


def test_served_site_works_under_its_csp_header(sites, page):
    _, index, _ = sites
    server, thread = serve.start(index.parent, port=0)
    try:
        page.goto(serve.url(server))
        page.click("text=Plots, tasks and comparisons of quickstart-v0 →")
        assert page.locator("table.ranking tr.entry").count() == 2
        assert _images_loaded(page)
        assert page.evaluate("getComputedStyle(document.querySelector('header.top')).display") == "flex"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
    assert page.events == []


def _assert_inert(page):
    """Nothing injected runs or exists: no script, no handler attribute, no javascript: link, no dialog."""
    assert page.evaluate("document.scripts.length") == 0
    assert page.locator("[onerror], [onload], [onmouseover]").count() == 0
    assert page.locator("body svg, body i, iframe, object, embed, form").count() == 0
    hrefs = page.evaluate("[...document.links].map(a => a.getAttribute('href'))")
    assert not [h for h in hrefs if h.strip().lower().startswith(("javascript", "data", "vbscript"))], hrefs
    # The layout holds: nothing is wider than the window.
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_hostile_submissions_are_shown_inert(sites, page):
    _, _, hostile = sites
    page.goto(hostile.with_name("quickstart-v0").joinpath("index.html").as_uri())
    _assert_inert(page)
    names = page.locator("table.ranking td.policy").evaluate_all("cells => cells.map(c => c.title)")
    assert names[:2] == ["baseline", "random"] and SCRIPT_NAME in names and MATH in names and LONG + QUOTES in names
    cell = page.locator("table.ranking td.policy", has_text="<script>")
    assert cell.inner_text() == SCRIPT_NAME
    kind = page.locator("table.ranking td.kind").nth(2)
    assert kind.get_attribute("title") == IMG_KIND and kind.inner_text() == IMG_KIND[:23] + "…"  # shortened text
    assert _images_loaded(page)

    for name in (SCRIPT_NAME, MATH, LONG[:10]):
        page.goto(hostile.with_name("quickstart-v0").joinpath("index.html").as_uri())
        page.locator("table.ranking td.policy a", has_text=name).click()
        _assert_inert(page)
        assert page.locator("h1.policy-name").inner_text().startswith(name)
        spec = page.locator("dd.policy-spec")
        links = spec.locator("a")
        if name == LONG[:10]:
            assert links.count() == 1 and links.get_attribute("href") == "https://example.org/policy?a=1&b=2"
            assert links.get_attribute("rel") == "nofollow noopener noreferrer"
        else:
            assert links.count() == 0 and "javascript:" in spec.inner_text()
        assert page.locator("dt:text-is('CPU') + dd").inner_text() == QUOTES  # as text
        assert _images_loaded(page)

    page.goto(hostile.with_name("quickstart-v0").joinpath("index.html").as_uri())
    page.click("a.task-link >> text=maze-ood")
    _assert_inert(page)
    assert page.locator("th.metric", has_text=SCRIPT_NAME).count() == 1
    assert _images_loaded(page)

    page.goto(hostile.as_uri())
    _assert_inert(page)
    page.locator("h2 a", has_text=HOSTILE_SUITE).click()
    _assert_inert(page)
    assert page.locator("h1").inner_text() == HOSTILE_SUITE
    assert page.events == []


@pytest.fixture(scope="module")
def ratings_site(tmp_path_factory):
    """The committed competitive-v2 entries with the committed ratings files: its index page."""
    return competitive_site(tmp_path_factory.mktemp("ratings") / "site") / "index.html"


def test_ratings_page_renders_its_tables_and_a_visible_heat_map(ratings_site, page):
    fighting = json.loads((COMMITTED / "ratings" / "fighting.json").read_text())
    page.goto(ratings_site.as_uri())
    page.click("section.ratings-link h2 a")
    assert page.url.endswith("/ratings.html")
    assert page.locator("h1").inner_text() == "Ratings of the competitive envs"
    section = page.locator("section#fighting")
    rows = section.locator("table.ratings-table tr.rating")
    assert rows.count() == len(fighting["ratings"]) == 11
    for k, rating in enumerate(fighting["ratings"]):
        assert rows.nth(k).locator("td.policy").inner_text() == rating["policy"]
        assert rows.nth(k).locator("td.mu").inner_text() == f"{rating['mu']:.2f}"
        assert rows.nth(k).locator("td.conservative").inner_text() == f"{rating['ci'][0]:.2f}"
    heat_map = section.locator("figure img[src='ratings.fighting.svg']")
    assert heat_map.is_visible() and _images_loaded(page)
    heat_map.scroll_into_view_if_needed()
    box = heat_map.bounding_box()
    assert box["width"] > 400 and box["height"] > 300  # drawn at a readable size, inside the window
    assert heat_map.evaluate("img => img.naturalWidth > 400")
    top, second = (r["policy"] for r in fighting["ratings"][:2])
    cell = section.locator(f"table.win-matrix tr[data-policy='{top}'] td[data-opponent='{second}']")
    rate, (low, high) = fighting["win_rate"][top][second]["rate"], fighting["win_rate"][top][second]["ci"]
    assert cell.inner_text() == f"{rate:.2f}"
    assert f"95% Wilson interval [{low:.3f}, {high:.3f}]" in cell.get_attribute("title")
    assert section.locator("table.win-matrix td.pairing").count() == 11 * 10
    assert page.locator("section#rps figure img").is_visible()
    assert page.evaluate("document.scripts.length") == 0
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert page.events == []


def test_competitive_suite_page_links_to_its_envs_ratings(ratings_site, page):
    page.goto(ratings_site.with_name("competitive-v2").joinpath("index.html").as_uri())
    page.click("a.ratings >> text=FightingDuel-v0")
    assert page.url.endswith("/ratings.html#fighting")
    assert page.locator("section#fighting h2").is_visible()
    page.click("section#fighting a.suite-link >> text=competitive-v2")
    assert page.url.endswith("/competitive-v2/index.html")
    assert page.events == []


@pytest.fixture(scope="module")
def animated_site(quickstart_results, tmp_path_factory):
    """The site of a board whose random entry is replay-verified: its task pages show a replay."""
    from benchmarkzoo.leaderboard.store import build
    from benchmarkzoo.leaderboard.verify import add_verified

    root = tmp_path_factory.mktemp("verified")
    add_verified(quickstart_results["random"], root, reference=True)
    build(root)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("BENCHMARKZOO_CACHE", str(tmp_path_factory.mktemp("cache")))
        index, _ = build_site_from_root(root)
    return index


def test_task_page_plays_its_replay_animation(animated_site, page):
    page.goto(animated_site.with_name("quickstart-v0").joinpath("tasks", "maze-test.html").as_uri())
    replay = page.locator("figure.replay img")
    assert replay.is_visible() and re.search(r"/animations/[0-9a-f]{16}\.svg$", replay.get_attribute("src"))
    assert replay.evaluate("i => i.complete && i.naturalWidth") > 0 and replay.bounding_box()["width"] == 240
    assert "Episode" in page.locator("figure.replay figcaption").inner_text()
    assert page.events == []
