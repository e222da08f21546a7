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
