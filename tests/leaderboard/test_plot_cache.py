"""Rendered plots are kept by their inputs: a second build draws nothing and writes the same bytes."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("matplotlib", reason="needs the eval extra: pip install 'benchmarkzoo[eval]'")

from benchmarkzoo.leaderboard.site import plot_cache, plots


@pytest.fixture
def drawn(tmp_path, monkeypatch):
    """The number of figures matplotlib has written, with the cache in an empty folder."""
    monkeypatch.setenv("BENCHMARKZOO_CACHE", str(tmp_path))
    count = [0]
    draw = plots._svg

    def counting(fig):
        count[0] += 1
        return draw(fig)

    monkeypatch.setattr(plots, "_svg", counting)
    return count


def test_a_plot_is_drawn_once_per_distinct_input_and_kept_byte_for_byte(drawn, tmp_path):
    rows = [("random", np.array([0.1, -0.2, 0.3])), ("baseline", np.array([0.9, 1.0, 1.1]))]
    first = plots.distribution_plot(rows, "episode score")
    assert drawn[0] == 1 and first.startswith(b"<?xml")
    assert plots.distribution_plot(rows, "episode score") == first and drawn[0] == 1  # kept
    assert plots.distribution_plot.__wrapped__(rows, "episode score") == first  # what drawing gives (drawn: 2)
    assert len(list((tmp_path / "site" / "plots").glob("*.svg"))) == 1
    one_bit = [("random", np.array([0.1, -0.2, 0.30000000000000004])), rows[1]]  # one bit of one episode
    plots.distribution_plot(one_bit, "episode score")
    assert drawn[0] == 3  # drawn again (its SVG happens to round to the same coordinates)
    moved = [("random", np.array([0.1, -0.2, 0.8])), rows[1]]
    assert plots.distribution_plot(moved, "episode score") != first and drawn[0] == 4
    plots.distribution_plot(rows, "score")  # another label
    plots.distribution_plot([(rows[0][0], rows[0][1].astype(np.float32)), rows[1]], "episode score")  # dtype
    assert drawn[0] == 6


def test_keys_tell_types_and_orders_apart():
    render = plots.interval_plot.__wrapped__
    a = plots.Interval("x", 1.0, 0.0, 2.0)
    keys = {
        plot_cache.key(render, ({"iqm": [a]},), {}),
        plot_cache.key(render, ({"iqm": [plots.Interval("x", 1, 0.0, 2.0)]},), {}),  # int, not float
        plot_cache.key(render, ({"iqm": [a, a]},), {}),
        plot_cache.key(render, ({"mean": [a]},), {}),
        plot_cache.key(render, ({"iqm": [a], "mean": []},), {}),
        plot_cache.key(render, ({"mean": [], "iqm": [a]},), {}),  # panel order is drawn order
    }
    assert len(keys) == 6
    with pytest.raises(TypeError):
        plot_cache.key(render, (object(),), {})


def test_an_unwritable_cache_still_draws(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("BENCHMARKZOO_CACHE", str(blocker))
    svg = plots.improvement_plot([plots.Interval("a > b", 0.6, 0.5, 0.7)])
    assert svg == plots.improvement_plot.__wrapped__([plots.Interval("a > b", 0.6, 0.5, 0.7)])


def test_the_generalization_plot_is_kept_by_what_it_draws(drawn, quickstart_results, tmp_path):
    from benchmarkzoo.leaderboard.site.generalization_view import generalization_plot, generalization_view
    from benchmarkzoo.leaderboard.validate import load_submission

    entries = [{"policy": p, "results": load_submission(quickstart_results[p])} for p in ("random", "baseline")]
    page = generalization_view("quickstart-v0", entries, tmp_path / "out")
    svg = (tmp_path / "out" / page["plot"]).read_bytes()
    assert drawn[0] == 1 and page["families"][0]["splits"] == ["test", "ood"]
    generalization_view("quickstart-v0", entries, tmp_path / "again")
    assert drawn[0] == 1 and (tmp_path / "again" / page["plot"]).read_bytes() == svg  # kept: entries hold models
    panels = [
        {"name": f["name"], "splits": f["splits"], "rows": [{"policy": r["entry"]["policy"], "cells": r["cells"]}]}
        for f in page["families"]
        for r in f["rows"][:1]
    ]
    assert generalization_plot.__wrapped__(panels, ["random"]) != svg  # one entry fewer draws another plot


def test_improvement_intervals_are_kept_exactly(quickstart_results, tmp_path, monkeypatch):
    from benchmarkzoo.leaderboard.site import stats, suite_view
    from benchmarkzoo.leaderboard.validate import load_submission

    monkeypatch.setenv("BENCHMARKZOO_CACHE", str(tmp_path))
    x, y = (stats.normalized_scores(load_submission(quickstart_results[p])) for p in ("baseline", "random"))
    exact = stats.probability_of_improvement_ci(x, y)
    assert suite_view._improvement_ci(x, y) == exact  # computed, then stored
    (stored,) = (tmp_path / "site" / "stats").glob("*.json")
    assert suite_view._improvement_ci(x, y) == exact  # read back bit for bit (repr round-trips)
    assert suite_view._improvement_ci(x, y, reps=200) == stats.probability_of_improvement_ci(x, y, reps=200)
    assert len(list((tmp_path / "site" / "stats").glob("*.json"))) == 2  # a default is part of the key
    stored.write_text("[0.5,")  # a torn file: computed again
    assert suite_view._improvement_ci(x, y) == exact
    assert suite_view._improvement_ci(y, x) != exact


def test_profile_bands_are_kept_bit_for_bit(quickstart_results, tmp_path, monkeypatch):
    from benchmarkzoo.leaderboard.site import stats, suite_view
    from benchmarkzoo.leaderboard.validate import load_submission

    monkeypatch.setenv("BENCHMARKZOO_CACHE", str(tmp_path))
    per_task = stats.normalized_scores(load_submission(quickstart_results["random"]))
    taus = np.linspace(-0.5, 1.0, 121)
    exact = stats.performance_profile_ci(per_task, taus)
    for _ in range(2):  # computed and stored, then read back
        band = suite_view._profile_band(per_task, taus)
        assert all(b.dtype == np.float64 and b.tobytes() == e.tobytes() for b, e in zip(band, exact, strict=True))
    assert len(list((tmp_path / "site" / "stats").glob("*.json"))) == 1
    assert suite_view._profile_band(per_task, taus[:-1])[0].shape == (120,)  # other thresholds, another entry
