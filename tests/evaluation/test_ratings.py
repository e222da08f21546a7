"""Round-robin ratings on FightingDuel-v0: real matches, small counts."""

from __future__ import annotations

import json

import numpy as np
import pytest

from benchmarkzoo.evaluation.ratings import RatingsError, round_robin, wilson, write_json

POOL = ["passive", "masher", "rushdown", "champion"]


@pytest.fixture(scope="module")
def result():
    return round_robin(POOL, matches=6, seed=0)


def test_strongest_above_passive_with_disjoint_intervals(result):
    by = {r["policy"]: r for r in result["ratings"]}
    assert by["champion"]["mu"] > by["passive"]["mu"]
    assert by["champion"]["ci"][0] > by["passive"]["ci"][1]
    assert result["ratings"][-1]["policy"] == "passive"
    assert by["champion"]["ci"] == pytest.approx(
        [by["champion"]["mu"] - 1.96 * by["champion"]["sigma"], by["champion"]["mu"] + 1.96 * by["champion"]["sigma"]],
        abs=1e-3,
    )


def test_same_seed_same_result_bit_for_bit(result):
    again = round_robin(POOL, matches=6, seed=0)
    assert json.dumps(again) == json.dumps(result)


def test_win_matrix_antisymmetric_and_complete(result):
    w, d, lo = (np.array(result[k]) for k in ("wins", "draws", "losses"))
    assert (w == lo.T).all()
    assert (d == d.T).all()
    off = ~np.eye(len(POOL), dtype=bool)
    assert ((w + d + lo)[off] == 6).all()
    assert (np.diag(w + d + lo) == 0).all()


def test_wilson_interval():
    low, high = wilson(5, 10)
    assert low == pytest.approx(0.2366, abs=1e-4) and high == pytest.approx(0.7634, abs=1e-4)


def test_json_written(result, tmp_path):
    path = tmp_path / "r.json"
    write_json(result, path)
    assert json.loads(path.read_text())["ratings"] == result["ratings"]


@pytest.mark.parametrize(
    ("pool", "matches", "message"),
    [
        (["passive", "nobot"], 2, "unknown FightingDuel policy 'nobot'; expected one of"),
        (["passive", "champion"], 0, "matches must be an even integer >= 2"),
        (["passive", "champion"], 3, "matches must be an even integer >= 2"),
        (["passive"], 2, "at least 2 distinct policies"),
    ],
)
def test_bad_input(pool, matches, message):
    with pytest.raises(RatingsError, match=message):
        round_robin(pool, matches=matches)


def test_rps_round_robin_orders_and_reproduces():
    from benchmarkzoo.evaluation.ratings import rps_round_robin

    result = rps_round_robin(matches=10, rounds=100, seed=0)
    assert json.dumps(rps_round_robin(matches=10, rounds=100, seed=0)) == json.dumps(result)
    by = {r["policy"]: r for r in result["ratings"]}
    assert result["ratings"][0]["policy"] == "baseline"
    assert by["baseline"]["ci"][0] > by["rock"]["ci"][1]  # the pattern matcher beats rock every match
    w, lo = np.array(result["wins"]), np.array(result["losses"])
    assert (w == lo.T).all()
    pool = result["policies"]
    assert w[pool.index("baseline"), pool.index("rock")] == 10


def test_rps_bad_input():
    from benchmarkzoo.evaluation.ratings import rps_round_robin

    with pytest.raises(RatingsError, match="unknown RPSSelfPlay policy 'paper'; expected one of"):
        rps_round_robin(["rock", "paper"])
    with pytest.raises(RatingsError, match="rounds must be an integer >= 1"):
        rps_round_robin(["rock", "cycle"], rounds=0)
    with pytest.raises(RatingsError, match="matches must be an even integer"):
        rps_round_robin(["rock", "cycle"], matches=0)


def test_cli_ratings(tmp_path):
    from click.testing import CliRunner

    from benchmarkzoo.cli import cli

    out = tmp_path / "rps.json"
    run = CliRunner().invoke(cli, ["ratings", "--env", "rps", "--matches", "4", "--out", str(out)])
    assert run.exit_code == 0, run.output
    assert "baseline" in run.output and json.loads(out.read_text())["env"] == "benchmarkzoo/RPSSelfPlay-v0"
    bad = CliRunner().invoke(cli, ["ratings", "--policies", "passive,nobot", "--matches", "2"])
    assert bad.exit_code == 2 and "unknown FightingDuel policy 'nobot'" in bad.output
