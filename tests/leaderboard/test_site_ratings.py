"""The ratings page: leaderboard/ratings/'s round robins as tables and heat maps; bad ratings files refused."""

from __future__ import annotations

import itertools
import json
import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchmarkzoo.evaluation import ratings
from benchmarkzoo.evaluation.ratings_file import RatingsFile, RatingsFileError, command, read_ratings
from benchmarkzoo.leaderboard.site import build_site_from_root
from benchmarkzoo.leaderboard.site.ratings_view import CMAP, load_ratings, transitivity

from .site_data import COMMITTED, competitive_site

matplotlib = pytest.importorskip("matplotlib", reason="the site's plots need the 'eval' extra (matplotlib)")
pytest.importorskip("jinja2", reason="the site's templates need the 'eval' extra (jinja2)")

RATINGS = COMMITTED / "ratings"
MAKEFILE = COMMITTED.parent / "Makefile"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    return competitive_site(tmp_path_factory.mktemp("site") / "site")


def _committed() -> dict[str, dict]:
    return {p.name: json.loads(p.read_text()) for p in sorted(RATINGS.glob("*.json"))}


def _section(html: str, env: str) -> str:
    found = re.search(rf'<section class="ratings" id="\w+" data-env="{re.escape(env)}">(.*?)</section>', html, re.S)
    assert found, env
    return found.group(1)


def _rows(section: str) -> list[dict[str, str]]:
    """The rating table's rows as ``{policy, rank, mu, sigma, conservative, low, high, win_rate, text}``."""
    rows = []
    for policy, rank, body in re.findall(
        r'<tr class="rating" data-policy="(\w+)" data-rank="(\d+)">(.*?)</tr>', section, re.S
    ):
        values = dict(re.findall(r'class="num ([\w-]+)" data-value="([^"]+)"', body))
        low, high = re.search(r'class="num ci" data-low="([^"]+)" data-high="([^"]+)">([^<]*)<', body).groups()[:2]
        text = re.findall(r">([^<>]+)</td>", body)
        rows.append({"policy": policy, "rank": rank, **values, "low": low, "high": high, "text": text})
    return rows


def test_committed_files_are_the_two_competitive_envs():
    files = _committed()
    assert sorted(files) == ["fighting.json", "rps.json"]
    assert files["fighting.json"]["env"] == "benchmarkzoo/FightingDuel-v0"
    assert files["fighting.json"]["policies"] == [*ratings.known_policies()]  # the 10 ladder bots and random
    assert len(files["fighting.json"]["policies"]) == 11
    assert files["rps.json"]["env"] == "benchmarkzoo/RPSSelfPlay-v0"
    assert files["rps.json"]["policies"] == list(ratings.RPS_POLICIES)


def test_the_rating_tables_hold_the_files_numbers(site):
    html = (site / "ratings.html").read_text()
    for data in _committed().values():
        rows = _rows(_section(html, data["env"]))
        assert [r["policy"] for r in rows] == [r["policy"] for r in data["ratings"]]
        for k, (row, rating) in enumerate(zip(rows, data["ratings"])):
            assert int(row["rank"]) == k + 1
            assert float(row["mu"]) == rating["mu"] and float(row["sigma"]) == rating["sigma"]
            assert (
                float(row["conservative"])
                == rating["ci"][0]
                == pytest.approx(rating["mu"] - 1.96 * rating["sigma"], abs=1e-3)
            )
            assert [float(row["low"]), float(row["high"])] == rating["ci"]
            assert float(row["win-rate"]) == rating["win_rate"]
            lo, hi = rating["ci"]
            shown = [str(k + 1), rating["policy"], f"{rating['mu']:.2f}", f"{rating['sigma']:.2f}", f"{lo:.2f}"]
            assert row["text"] == [*shown, f"[{lo:.2f}, {hi:.2f}]", f"{rating['win_rate']:.3f}"]


def test_the_heat_map_has_one_cell_per_ordered_pairing_coloured_by_its_win_rate(site):
    cmap = matplotlib.colormaps[CMAP]
    for name, data in _committed().items():
        order = [r["policy"] for r in data["ratings"]]
        svg = (site / f"ratings.{'rps' if 'rps' in name else 'fighting'}.svg").read_text()
        assert svg.lstrip().startswith("<?xml") and "<script" not in svg
        fills = {
            (int(i), int(j)): fill
            for i, j, fill in re.findall(
                r'<g id="cell-(\d+)-(\d+)">\s*<path d="[^"]*"[^>]*style="fill: (#[0-9a-f]{6})', svg
            )
        }
        n = len(order)
        assert set(fills) == {(i, j) for i in range(n) for j in range(n) if i != j}  # n(n-1): both sides of a pairing
        for (i, j), fill in fills.items():
            rate = data["win_rate"][order[i]][order[j]]["rate"]
            assert fill == matplotlib.colors.to_hex(cmap(rate)), (order[i], order[j])


def test_the_win_matrix_table_gives_every_rate_with_its_wilson_interval(site):
    html = (site / "ratings.html").read_text()
    for data in _committed().values():
        section = _section(html, data["env"])
        assert f'src="ratings.{"rps" if data["env"].endswith("RPSSelfPlay-v0") else "fighting"}.svg"' in section
        matrix = re.search(r'<table class="win-matrix"[^>]*>(.*?)</table>', section, re.S).group(1)
        cells = {}
        for policy, body in re.findall(r'<tr data-policy="(\w+)">(.*?)</tr>', matrix, re.S):
            for opponent, rate, low, high, title in re.findall(
                r'data-opponent="(\w+)" data-rate="([^"]+)" data-low="([^"]+)" data-high="([^"]+)" title="([^"]+)"',
                body,
            ):
                cells[policy, opponent] = (float(rate), [float(low), float(high)], title)
        n = len(data["policies"])
        assert len(cells) == n * (n - 1)
        pool = data["policies"]
        for (a, b), (rate, ci, title) in cells.items():
            expected = data["win_rate"][a][b]
            assert rate == expected["rate"] and ci == expected["ci"]
            i, j = pool.index(a), pool.index(b)
            assert title == (
                f"{a} against {b}: win rate {rate:.3f}, 95% Wilson interval [{ci[0]:.3f}, {ci[1]:.3f}]; "
                f"{data['wins'][i][j]} won, {data['draws'][i][j]} drawn, {data['losses'][i][j]} lost"
            )


def _makefile_commands() -> dict[str, str]:
    lines = [line.strip() for line in MAKEFILE.read_text().splitlines() if "benchmarkzoo ratings " in line]
    commands = {line.removeprefix("$(BIN)/").split("--out ")[-1]: line.removeprefix("$(BIN)/") for line in lines}
    assert len(commands) == 2, lines
    return commands


def test_the_page_states_what_was_played_and_the_makefiles_command(site):
    html = (site / "ratings.html").read_text()
    makefile = _makefile_commands()
    for name, data in _committed().items():
        section = _section(html, data["env"])
        m = data["matches_per_pairing"]
        assert f'<span class="matches" data-value="{m}">{m}</span> matches' in section
        assert f'seed <span class="seed" data-value="{data["seed"]}">' in section
        n = len(data["policies"])
        assert f"{n * (n - 1) // 2 * m} matches in all" in section
        shown = re.search(r'<pre class="command"><code>([^<]+)</code></pre>', section).group(1)
        assert (
            shown
            == makefile[f"leaderboard/ratings/{name}"]
            == command(RatingsFile(**data), f"leaderboard/ratings/{name}")
        )


@pytest.mark.parametrize("name", ["rps.json", "fighting.json"])
def test_the_recorded_command_makes_the_committed_file_bit_for_bit(name, tmp_path):
    from benchmarkzoo.cli import cli

    line = _makefile_commands()[f"leaderboard/ratings/{name}"]
    args = shlex.split(line)[1:]
    args[-1] = str(tmp_path / name)
    run = CliRunner().invoke(cli, args)
    assert run.exit_code == 0, run.output
    assert (tmp_path / name).read_bytes() == (RATINGS / name).read_bytes()


def _brute_force_cycles(data: dict) -> int:
    rate = {(a, b): c["rate"] for a, row in data["win_rate"].items() for b, c in row.items()}
    cyclic = [
        t
        for t in itertools.permutations(data["policies"], 3)
        if all(rate[x, y] > 0.5 for x, y in zip(t, t[1:] + t[:1]))
    ]
    return len(cyclic) // 3  # each cycle counted once per starting policy


def test_transitivity_is_read_from_the_matrix(site):
    html = (site / "ratings.html").read_text()
    fighting, rps = _committed()["fighting.json"], _committed()["rps.json"]
    found = transitivity(RatingsFile(**fighting))
    assert len(found["cycles"]) == _brute_force_cycles(fighting) > 0
    for a, b, c in found["clear_cycles"]:
        assert all(fighting["win_rate"][x][y]["ci"][0] > 0.5 for x, y in ((a, b), (b, c), (c, a)))
    section = _section(html, fighting["env"])
    assert f'data-cycles="{len(found["cycles"])}" data-clear-cycles="{len(found["clear_cycles"])}"' in section
    assert "The matrix is not transitive" in section
    order = [r["policy"] for r in fighting["ratings"]]
    in_cycles = {p for c in found["clear_cycles"] for p in c}
    # what the committed data shows: clear cycles, none through the top- or the bottom-rated bot
    assert found["clear_cycles"] and order[0] not in in_cycles and order[-1] not in in_cycles and found["middle"]
    assert "the\nmiddle of the ranking is not transitive" in section
    assert len(re.findall(r'<li class="cycle">', section)) == min(6, len(found["clear_cycles"]))
    # RPS: baseline > frequency > {random, rock, cycle}; no triple is cyclic
    assert _brute_force_cycles(rps) == 0 == len(transitivity(RatingsFile(**rps))["cycles"])
    assert "No three policies form a cycle" in _section(html, rps["env"])


def test_a_transitive_round_robin_has_no_cycles_and_no_upsets():
    result = ratings.rps_round_robin(["rock", "frequency", "baseline"], matches=4, rounds=50, seed=0)
    found = transitivity(RatingsFile(**result))
    assert [r["policy"] for r in result["ratings"]] == ["baseline", "frequency", "rock"]
    assert found["cycles"] == [] and found["upsets"] == []


def test_suite_pages_and_the_index_link_to_the_sections_of_the_envs_they_play(site):
    index = (site / "index.html").read_text()
    assert 'href="ratings.html"' in index
    suite = (site / "competitive-v2" / "index.html").read_text()  # plays both rated envs
    assert 'href="../ratings.html#fighting"' in suite and 'href="../ratings.html#rps"' in suite
    page = (site / "ratings.html").read_text()
    assert 'href="competitive-v2/index.html"' in page


def test_without_ratings_files_there_is_no_page_and_no_link(tmp_path):
    out = competitive_site(tmp_path / "site", with_ratings=False)
    assert not (out / "ratings.html").exists() and not list(out.glob("ratings.*"))
    for page in out.rglob("*.html"):
        assert "ratings.html" not in page.read_text(), page


# --- bad files: one line naming the file, never a traceback ---------------------------------------


def _root(tmp_path: Path, rps: str | bytes | None = None) -> Path:
    """A leaderboard root with no suites and the committed ratings files (``rps.json`` replaced by ``rps``)."""
    (tmp_path / "leaderboard.json").write_text(json.dumps({"leaderboard_version": 1, "suites": {}}))
    (tmp_path / "ratings").mkdir()
    for name in ("fighting.json", "rps.json"):
        (tmp_path / "ratings" / name).write_bytes((RATINGS / name).read_bytes())
    if rps is not None:
        (tmp_path / "ratings" / "rps.json").write_bytes(rps.encode() if isinstance(rps, str) else rps)
    return tmp_path


def _edited(edit) -> str:
    data = json.loads((RATINGS / "rps.json").read_text())
    edit(data)
    return json.dumps(data)


BAD = [
    ("not json", '{"env": ', "rps.json: not valid JSON (Expecting value at line 1, column 9)"),
    ("duplicate key", '{"seed": 0, "seed": 1}', "rps.json: the key 'seed' appears twice in one object"),
    ("missing field", _edited(lambda d: d.pop("ratings")), "ratings: Field required"),
    ("extra field", _edited(lambda d: d.update(note="x")), "note: Extra inputs are not permitted"),
    ("wrong type", _edited(lambda d: d.update(seed="zero")), "seed: Input should be a valid integer"),
    ("other env", _edited(lambda d: d.update(env="benchmarkzoo/Maze-v0")), "env: Input should be"),
    (
        "counts",
        _edited(lambda d: d["wins"][0].__setitem__(1, d["wins"][0][1] + 1)),
        "wins + draws + losses [0][1] ('rock' against 'cycle'): 41 matches, expected 40",
    ),
    (
        "rate",
        _edited(lambda d: d["win_rate"]["rock"]["cycle"].update(rate=0.9)),
        "win_rate['rock']['cycle']: expected rate 0.5 and Wilson interval",
    ),
    (
        "opponent missing",
        _edited(lambda d: d["win_rate"]["rock"].pop("cycle")),
        "win_rate['rock']: expected one entry per opponent",
    ),
    (
        "unknown policy",
        _edited(lambda d: d["policies"].__setitem__(0, "paper")),
        "policies: expected distinct names out of",
    ),
    ("ratings order", _edited(lambda d: d["ratings"].reverse()), "ratings: expected the highest mu first"),
    (
        "rating interval",
        _edited(lambda d: d["ratings"][0].update(ci=[0.0, 1.0])),
        "ratings['baseline'].ci: expected mu ± 1.96 sigma",
    ),
    (
        "no rounds",
        _edited(lambda d: d.pop("rounds_per_match")),
        "rounds_per_match: expected for benchmarkzoo/RPSSelfPlay-v0",
    ),
]


@pytest.mark.parametrize(("case", "content", "message"), BAD, ids=[b[0] for b in BAD])
def test_a_malformed_file_is_one_clear_error_naming_it(case, content, message, tmp_path):
    root = _root(tmp_path, content)
    path = root / "ratings" / "rps.json"
    with pytest.raises(RatingsFileError) as raised:
        build_site_from_root(root)
    text = str(raised.value)
    assert text.startswith(f"ratings file {path}") and message in text, text
    assert "benchmarkzoo ratings" in text and "remove it" in text  # the way on
    assert not (root / "site").exists()


def test_the_cli_reports_a_bad_file_in_one_line_and_writes_nothing(tmp_path):
    from benchmarkzoo.cli import cli

    root = _root(tmp_path, _edited(lambda d: d.pop("wins")))
    expected = f"Error: ratings file {root / 'ratings' / 'rps.json'} is not what `benchmarkzoo ratings --out` writes"
    run = CliRunner().invoke(cli, ["leaderboard", "site", "--root", str(root)])
    assert run.exit_code == 2 and run.output.startswith(f"{expected}: wins: Field required;"), run.output
    assert len(run.output.splitlines()) == 1 and not (root / "site").exists()
    (root / "leaderboard.json").unlink()
    run = CliRunner().invoke(cli, ["leaderboard", "build", "--root", str(root)])
    assert run.exit_code == 2 and run.output.startswith(expected), run.output
    assert not (root / "leaderboard.json").exists() and not (root / "site").exists()  # refused before writing


def test_two_files_for_one_env_are_refused(tmp_path):
    root = _root(tmp_path)
    (root / "ratings" / "rps-again.json").write_bytes((RATINGS / "rps.json").read_bytes())
    with pytest.raises(RatingsFileError, match=r"rps-again.json and .*rps.json both rate benchmarkzoo/RPSSelfPlay-v0"):
        load_ratings(root)


def test_a_ratings_folder_without_files_builds_without_the_page(tmp_path):
    root = _root(tmp_path)
    for path in (root / "ratings").iterdir():
        path.unlink()
    index, refused = build_site_from_root(root)
    assert refused == [] and not (index.parent / "ratings.html").exists()
    assert "ratings.html" not in index.read_text()


def test_the_writer_refuses_what_the_reader_would(tmp_path):
    data = json.loads((RATINGS / "rps.json").read_text())
    data["draws"][0][1] += 1
    with pytest.raises(ValueError, match="matches, expected 40"):
        ratings.write_json(data, tmp_path / "r.json")
    assert not (tmp_path / "r.json").exists()
    assert read_ratings(RATINGS / "rps.json").matches_per_pairing == 40
