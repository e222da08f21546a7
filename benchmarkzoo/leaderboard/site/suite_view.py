"""A suite's overview page data: its description and tasks, the entries' links, and the suite-level plots."""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np

from benchmarkzoo.evaluation.results import Results
from benchmarkzoo.evaluation.suites import SuiteError, load_suite, suite_path
from benchmarkzoo.leaderboard.site import plot_cache, plots, stats
from benchmarkzoo.leaderboard.site.files import slug, write

#: Entries compared pairwise in the probability-of-improvement plot.
TOP_ENTRIES = 4


def suite_meta(name: str, entries: list[dict[str, Any]]) -> dict[str, Any]:
    """Description and task list of a suite: from the shipped suite file, else from the first entry."""
    try:
        suite = load_suite(suite_path(name))
        return {"description": suite.description, "tasks": [t.id for t in suite.tasks]}
    except SuiteError:
        tasks = [t.id for t in entries[0]["results"].tasks] if entries else []
        return {"description": "", "tasks": tasks}


def entry_view(entry: dict[str, Any], results: Results, suite_slug: str) -> dict[str, Any]:
    """A ranked entry with its results and the site paths of its page and its validated JSON."""
    page = f"{suite_slug}/submissions/{slug(PurePosixPath(str(entry['submission'])).stem)}"
    return {**entry, "href": f"{page}.html", "json_href": f"{page}.json", "results": results}


def suite_plots(suite_slug: str, entries: list[dict[str, Any]], out: Path) -> dict[str, Any]:
    """Write the suite's plots; returns their site paths and the probability-of-improvement table."""
    scored = [(e, stats.normalized_scores(e["results"])) for e in entries]
    scored = [(e, s) for e, s in scored if s]
    views: dict[str, Any] = {"intervals": None, "profile": None, "improvement": None, "pairs": []}
    if not scored:
        return views
    views["intervals"] = f"{suite_slug}/plots/intervals.svg"
    write(out / views["intervals"], plots.interval_plot(_interval_panels(scored)))
    views["profile"] = f"{suite_slug}/plots/profile.svg"
    write(out / views["profile"], _profile_plot(scored))
    views["pairs"] = pairs = _improvement_pairs(scored[:TOP_ENTRIES])
    if pairs:
        views["improvement"] = f"{suite_slug}/plots/improvement.svg"
        rows = [
            plots.Interval(f"{plots.short(p['x']['policy'])} > {plots.short(p['y']['policy'])}", p["p"], *p["ci"])
            for p in pairs
        ]
        write(out / views["improvement"], plots.improvement_plot(rows))
    return views


def _interval_panels(scored: list[tuple[dict[str, Any], Any]]) -> dict[str, list[plots.Interval]]:
    """IQM, mean and optimality gap with their intervals, one row per entry that has aggregates."""
    panels: dict[str, list[plots.Interval]] = {"IQM": [], "Mean": [], "Optimality gap": []}
    for e, _ in scored:
        agg = e["results"].aggregates
        if agg is None:
            continue
        panels["IQM"].append(plots.Interval(e["policy"], agg.iqm, *agg.iqm_ci))
        panels["Mean"].append(plots.Interval(e["policy"], agg.mean, *agg.mean_ci))
        panels["Optimality gap"].append(plots.Interval(e["policy"], agg.optimality_gap, *agg.optimality_gap_ci))
    return panels


def _profile_plot(scored: list[tuple[dict[str, Any], Any]]) -> bytes:
    """Every entry's performance profile over thresholds spanning ``[0, 1]`` and every score seen."""
    pooled = np.concatenate([np.concatenate(s) for _, s in scored])  # (all episodes of all entries,)
    lo, hi = min(0.0, float(pooled.min())), max(1.0, float(pooled.max()))
    taus = np.linspace(lo, hi, 121)  # (num_taus,)
    curves = [(e["policy"], stats.performance_profile(s, taus), *_profile_band(s, taus)) for e, s in scored]
    return plots.profile_plot(taus, curves)


#: The bootstrap intervals and bands cost as much as the drawing; kept by their inputs like the plots.
_improvement_ci = plot_cache.cached_numbers(stats.probability_of_improvement_ci)
_profile_band = plot_cache.cached_numbers(stats.performance_profile_ci)


def _improvement_pairs(top: list[tuple[dict[str, Any], Any]]) -> list[dict[str, Any]]:
    """P(X > Y) with its interval for every pair of the top entries that played the same tasks."""
    pairs = []
    for i, (x, xs) in enumerate(top):
        for y, ys in top[i + 1 :]:
            if len(xs) != len(ys):
                continue
            p = stats.probability_of_improvement(xs, ys)
            pairs.append({"x": x, "y": y, "p": p, "ci": _improvement_ci(xs, ys)})
    return pairs
