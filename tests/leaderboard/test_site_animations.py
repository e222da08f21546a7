"""Task pages replay the median episode of their best replay-verified entry, capped in size and cached."""

from __future__ import annotations

import copy
import hashlib
import io
import re

import numpy as np
import pytest

from benchmarkzoo.evaluation.results import Results, task_scores
from benchmarkzoo.leaderboard.site import animation_view, animations, build_site
from benchmarkzoo.leaderboard.site.builder import load_board
from benchmarkzoo.leaderboard.store import add, build
from benchmarkzoo.leaderboard.verify import add_verified

from .site_data import COMMITTED

pytest.importorskip("matplotlib", reason="the site's plots need the 'eval' extra (matplotlib)")

TASK = "maze-test"
CODE_POLICY = "code-copy"


class Replays:
    """``animations.render`` counted: each call is one episode replayed and filmed."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch):
        self.made: list[tuple[str, int, animations.Animation]] = []
        render = animations.render

        def counted(path, task_id, index, root, caps):
            made = render(path, task_id, index, root, caps)
            self.made.append((task_id, index, made))
            return made

        monkeypatch.setattr(animations, "render", counted)


@pytest.fixture(scope="module")
def board(quickstart_results, tmp_path_factory):
    """``(root, board, submissions)``: random replay-verified, baseline self-reported, and a verified code policy.

    The code entry is a copy of baseline's scores under a ``module:`` policy, ranked first, put straight
    into the board data (as the hostile site tests do): a verified code policy is still never run.
    """
    root = tmp_path_factory.mktemp("board")
    add_verified(quickstart_results["random"], root, reference=True)
    add(quickstart_results["baseline"], root, reference=True)
    build(root)
    board, submissions, refused = load_board(root)
    assert refused == []
    board = copy.deepcopy(board)
    entries = board["suites"]["quickstart-v0"]["entries"]
    baseline = next(e for e in entries if e["policy"] == "baseline")
    assert not baseline["verified"] and next(e for e in entries if e["policy"] == "random")["verified"]
    where = "submissions/quickstart-v0/code-copy.json"
    results = submissions[baseline["submission"]]
    policy = results.policy.model_copy(update={"name": CODE_POLICY, "kind": "module", "spec": "module:x:y"})
    submissions[where] = results.model_copy(update={"policy": policy})
    entries.append({**baseline, "policy": CODE_POLICY, "policy_kind": "module", "submission": where, "verified": True})
    for rank, entry in enumerate(sorted(entries, key=lambda e: e["policy"] != CODE_POLICY), start=1):
        entry["rank"] = rank
    return root, board, submissions


def _median(result):
    """The recorded episode whose score is the lower median, ties broken by the lower index."""
    scores = task_scores(result)
    order = np.lexsort(([e.index for e in result.episodes], scores))
    middle = order[(len(order) - 1) // 2]
    assert scores[middle] == np.sort(scores)[(len(scores) - 1) // 2]
    return result.episodes[middle]


def _site(board, tmp_path, monkeypatch, name="site"):
    root, data, submissions = board
    replays = Replays(monkeypatch)
    index = build_site(data, submissions, tmp_path / name, root=root)
    return index.parent, replays


def _replay_html(site) -> str:
    page = (site / "quickstart-v0" / "tasks" / f"{TASK}.html").read_text()
    return page[page.index('<h2 id="replay">') :]


def test_task_page_shows_the_median_episode_of_the_best_verified_entry(board, tmp_path, monkeypatch):
    monkeypatch.setenv("BENCHMARKZOO_CACHE", str(tmp_path / "cache"))
    site, replays = _site(board, tmp_path, monkeypatch)
    html = _replay_html(site)
    [src] = re.findall(r'<img class="replay" src="\.\./\.\./([^"]+)"', html)
    svg = (site / src).read_text()
    # named by content, so the versions of a suite that share a task share its file
    assert src == f"animations/{hashlib.sha256(svg.encode()).hexdigest()[:16]}.svg"
    assert svg.startswith("<svg") and "<animate" in svg
    assert "<script" not in svg.lower() and "onload" not in svg.lower()

    # the random entry (the only verified data policy), episode = its lower median by score, ties by index
    random = next(r for r in board[2].values() if r.policy.name == "random")
    median = {t.id: _median(t) for t in random.tasks}
    made = {(task, index): m for task, index, m in replays.made}
    assert set(made) == {(t, e.index) for t, e in median.items()}
    median = median[TASK]
    replayed = made[(TASK, median.index)]
    assert replayed.replayed_return == median.episode_return and replayed.length == median.length
    assert f"Episode {median.index} (seed {median.seed}) of random" in html
    # a picture before every stride-th action, and one of the final state: at most max_frames
    caps = animation_view.CAPS
    assert replayed.stride == max(1, -(-median.length // (caps.max_frames - 1)))
    assert replayed.frames == -(-median.length // replayed.stride) + 1 <= caps.max_frames
    assert svg.count("<rect") >= 2 and f'dur="{replayed.frames / 8:g}s"' in svg  # Maze plays at 8 frames/s
    assert len(svg.encode()) <= animation_view.CAPS.max_bytes


def test_entries_passed_over_say_why(board, tmp_path, monkeypatch):
    monkeypatch.setenv("BENCHMARKZOO_CACHE", str(tmp_path / "cache"))
    site, _ = _site(board, tmp_path, monkeypatch)
    html = _replay_html(site)
    assert f"{CODE_POLICY}</span>, a code policy (kind module): the site runs no submitted code" in html
    assert "baseline</span>, self-reported (not replay-verified)" in html
    assert html.index(f"{CODE_POLICY}</span>") < html.index("baseline</span>")  # in the page's ranking order

    root, data, submissions = board
    unverified = copy.deepcopy(data)
    for entry in unverified["suites"]["quickstart-v0"]["entries"]:
        entry["verified"] = entry["policy"] == CODE_POLICY
    site = build_site(unverified, submissions, tmp_path / "unverified", root=root).parent
    html = _replay_html(site)
    assert "No replay: No entry is replay-verified with a policy the site can rebuild" in html
    assert "random</span>, self-reported" in html
    assert not (site / "animations").exists()


def test_a_file_over_the_byte_cap_is_not_shown_and_the_page_says_so(board, tmp_path, monkeypatch):
    monkeypatch.setenv("BENCHMARKZOO_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(animation_view, "CAPS", animations.Caps(max_bytes=500))
    site, _ = _site(board, tmp_path, monkeypatch)
    html = _replay_html(site)
    assert re.search(
        r"No replay: Episode \d+ of random is not shown: its SVG of \d+ frames is [\d,]+ bytes, over", html
    )
    assert "cap of 500" in html and '<img class="replay"' not in html
    assert not (site / "animations").exists()


def test_a_rebuild_replays_nothing(board, tmp_path, monkeypatch):
    monkeypatch.setenv("BENCHMARKZOO_CACHE", str(tmp_path / "cache"))
    first, replays = _site(board, tmp_path, monkeypatch, "first")
    assert sorted(t for t, _, _ in replays.made) == ["maze-ood", "maze-test"]
    second, again = _site(board, tmp_path, monkeypatch, "second")
    assert again.made == []
    files = sorted(p.name for p in (first / "animations").iterdir())
    assert len(files) == 2 and sorted(p.name for p in (second / "animations").iterdir()) == files
    for name in files:
        assert (second / "animations" / name).read_bytes() == (first / "animations" / name).read_bytes()
    # other caps are another key: replayed again
    monkeypatch.setattr(animation_view, "CAPS", animations.Caps(max_frames=10))
    _, capped = _site(board, tmp_path, monkeypatch, "third")
    assert sorted(t for t, _, _ in capped.made) == ["maze-ood", "maze-test"]
    assert all(m.frames <= 10 for _, _, m in capped.made)


def test_other_envs_are_a_gif_within_the_caps(tmp_path, monkeypatch):
    """A control env (Quadrotor, 500 steps) from the committed core-v0 random entry: strided and shrunk."""
    from PIL import Image

    monkeypatch.setenv("BENCHMARKZOO_CACHE", str(tmp_path))
    [path] = (COMMITTED / "submissions" / "core-v0").glob("random-*.json")
    results = Results.read(path)
    task = next(t for t in results.tasks if t.id == "quadrotor-hover-test")
    episode = task.episodes[0]
    caps = animations.Caps(max_frames=12, max_side=64, max_bytes=200_000)
    made = animations.render(path, task.id, episode.index, COMMITTED, caps)
    assert made.suffix == ".gif" and made.note is None
    assert made.replayed_return == pytest.approx(episode.episode_return, rel=1e-6, abs=1e-6)
    image = Image.open(io.BytesIO(made.data))
    assert 2 <= image.n_frames == made.frames <= caps.max_frames
    width, height = image.size
    assert max(width, height - 3) <= caps.max_side  # the progress strip below the frame is 3 px
    assert len(made.data) <= caps.max_bytes
    assert made.stride == -(-episode.length // (caps.max_frames - 1))


def test_animate_picks_env_families_and_refuses_unknown_ones(board, tmp_path, monkeypatch):
    from click.testing import CliRunner

    from benchmarkzoo.cli import cli

    monkeypatch.setenv("BENCHMARKZOO_CACHE", str(tmp_path / "cache"))
    root = board[0]
    refused = CliRunner().invoke(cli, ["leaderboard", "site", "--root", str(root), "--animate", "gridworld,mazes"])
    assert refused.exit_code == 2 and "got mazes" in refused.output and "gridworld" in refused.output
    replays = Replays(monkeypatch)
    done = CliRunner().invoke(cli, ["leaderboard", "site", "--root", str(root), "--animate", "control,robotics"])
    assert done.exit_code == 0, done.output
    html = _replay_html(root / "site")
    assert "No replay: replays of gridworld envs are off here (`leaderboard build --animate` turns them on)." in html
    assert replays.made == []
    done = CliRunner().invoke(cli, ["leaderboard", "build", "--root", str(root), "--animate", "all"])
    assert done.exit_code == 0, done.output
    assert '<img class="replay"' in _replay_html(root / "site") and len(replays.made) == 2
