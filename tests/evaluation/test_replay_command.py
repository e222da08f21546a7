"""``benchmarkzoo replay``: a recorded episode played again from its seed and scenario, and written out.

One tiny Maze suite is evaluated once (baseline, two episodes); every test replays from its file.
"""

from __future__ import annotations

import importlib.util
import io
import itertools
import json
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from click.testing import CliRunner
from PIL import Image

from benchmarkzoo import registration
from benchmarkzoo.cli import cli
from benchmarkzoo.envs.gridworld.maze.env import MazeEnv
from benchmarkzoo.evaluation.protocol import evaluate
from benchmarkzoo.evaluation.replay.capture import FrameCamera, ReplayError, SceneCamera, stride_for
from benchmarkzoo.evaluation.replay.episode import load_recorded, replay, replay_policy
from benchmarkzoo.evaluation.replay.svg import CELL, animated_svg
from benchmarkzoo.scenario_sets import load_set

SVG = "{http://www.w3.org/2000/svg}"
SUITE = {
    "name": "replay-v0",
    "description": "One short Maze task for the replay tests.",
    "tasks": [
        {"id": "maze", "env": "benchmarkzoo/Maze-v0", "scenario_set": "gridworld/maze", "split": "test", "episodes": 2}
    ],
}


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory, suite_writer):
    """``(suite YAML, results file, results)`` of the baseline on :data:`SUITE`."""
    folder = tmp_path_factory.mktemp("replay")
    suite = suite_writer(folder, SUITE)
    out = folder / "baseline.json"
    results = evaluate(suite, "baseline", num_envs=2, out=out)
    return suite, out, results


def run(*args: str):
    return CliRunner().invoke(cli, ["replay", *args])


def test_gif_replays_the_recorded_episode_frame_by_frame(evaluated, tmp_path):
    suite, results_file, results = evaluated
    episode = results.tasks[0].episodes[1]
    out = tmp_path / "episode.gif"
    result = run(str(results_file), "--task", "maze", "--episode", "1", "--suite", str(suite), "--out", str(out))
    assert result.exit_code == 0, result.output
    assert f"return {episode.episode_return:.6g}, length {episode.length}, success True" in result.output
    assert "equals the recorded episode (exactly)" in result.output
    frames = episode.length + 1  # the reset state, then one per step
    assert f"wrote {out}: {frames} frames (every state of {episode.length} steps), 264x268 px" in result.output
    size = int(re.search(r"px, ([\d,]+) bytes", result.output).group(1).replace(",", ""))
    assert size == out.stat().st_size
    gif = Image.open(out)
    assert gif.n_frames == frames and gif.size == (264, 264 + 4)  # 11x11 cells of 24 px, and the progress strip
    assert not list(tmp_path.glob(".*.tmp"))  # written through the atomic writer


def test_first_and_last_pictures_are_the_episodes_start_and_end(evaluated):
    suite, results_file, _ = evaluated
    recorded = load_recorded(results_file, "maze", 0, suite)
    episode = recorded.episode
    replayed = replay(recorded, replay_policy(recorded.results, None), FrameCamera(480), 300)
    assert replayed.mismatch is None and replayed.exact
    assert replayed.outcome.episode_return == episode.episode_return and replayed.outcome.length == episode.length
    assert len(replayed.pictures) == episode.length + 1
    # The first frame is the single env's render after reset with the episode's seed and scenario.
    scenario = load_set("gridworld/maze").split("test").make_generator().sample(episode.scenario_seed)
    env = MazeEnv(render_mode="rgb_array")
    env.reset(seed=episode.seed, options={"scenario": scenario})
    np.testing.assert_array_equal(replayed.pictures[0], env.render())
    env.close()
    scenes = replay(recorded, replay_policy(recorded.results, None), SceneCamera(), 300)
    goal = next(m for m in scenes.pictures[-1].marks if m.key == "goal")
    agent = [next(m for m in s.marks if m.key == "agent") for s in scenes.pictures]
    assert (agent[-1].row, agent[-1].col) == (goal.row, goal.col)  # the baseline reached the goal
    assert (agent[0].row, agent[0].col) == tuple(int(x) for x in scenario.start)
    # one move of one cell per step
    assert all(abs(a.row - b.row) + abs(a.col - b.col) == 1 for a, b in itertools.pairwise(agent))


def test_svg_is_xml_with_the_agent_animated(evaluated, tmp_path):
    suite, results_file, results = evaluated
    episode = results.tasks[0].episodes[0]
    out = tmp_path / "episode.svg"
    result = run(str(results_file), "--task", "maze", "--episode", "0", "--suite", str(suite), "--out", str(out))
    assert result.exit_code == 0, result.output
    assert f"{episode.length + 1} frames" in result.output and "11x11 cells" in result.output
    text = out.read_text()
    assert "<script" not in text and len(text.encode()) < 8_000
    root = ET.fromstring(text)
    agent = root.find(f".//{SVG}circle[@id='agent']")
    goal = root.find(f".//{SVG}rect[@id='goal']")
    moves = {a.get("attributeName"): a for a in agent.findall(f"{SVG}animate")}
    assert set(moves) == {"cx", "cy"}
    duration = (episode.length + 1) / MazeEnv.metadata["render_fps"]
    assert all(a.get("dur") == f"{duration:g}s" and a.get("calcMode") == "discrete" for a in moves.values())
    # the last position of the animation is the goal cell's centre
    goal_x, goal_y = float(goal.get("x")) - 3, float(goal.get("y")) - 3
    assert float(moves["cx"].get("values").split(";")[-1]) == goal_x + CELL / 2
    assert float(moves["cy"].get("values").split(";")[-1]) == goal_y + CELL / 2
    times = [float(t) for a in moves.values() for t in a.get("keyTimes").split(";")]
    assert min(times) == 0 and max(times) == pytest.approx(episode.length / (episode.length + 1), abs=1e-6)


def test_another_policy_is_reported_as_a_mismatch(evaluated, tmp_path):
    suite, results_file, results = evaluated
    episode = results.tasks[0].episodes[0]
    out = tmp_path / "random.gif"
    args = ["--task", "maze", "--episode", "0", "--suite", str(suite), "--policy", "random", "--out", str(out)]
    result = run(str(results_file), *args)
    assert result.exit_code == 1
    assert "Warning: the replay differs from the recorded episode" in result.output
    assert f"return recorded {episode.episode_return:.6g}, replayed" in result.output
    assert "policy 'baseline' (baseline); this replay used 'random'" in result.output
    assert out.is_file()  # the picture is still written


def test_max_frames_keeps_every_kth_state_and_the_last(evaluated, tmp_path):
    suite, results_file, results = evaluated
    episode = results.tasks[0].episodes[0]
    stride = stride_for(episode.length, 5)
    out = tmp_path / "short.gif"
    args = ["--task", "maze", "--episode", "0", "--suite", str(suite), "--max-frames", "5", "--out", str(out)]
    result = run(str(results_file), *args)
    assert result.exit_code == 0, result.output
    count = -(-episode.length // stride) + 1
    assert count <= 5 and Image.open(out).n_frames == count
    assert f"{count} frames (every {stride}th of {episode.length} steps)" in result.output


def test_a_code_policy_in_the_file_needs_policy(evaluated, tmp_path):
    suite, results_file, _ = evaluated
    data = json.loads(results_file.read_text())
    data["policy"] = {"name": "mine", "kind": "callable", "spec": "mypolicy.py:act", "content_hash": "0" * 64}
    coded = tmp_path / "coded.json"
    coded.write_text(json.dumps(data))
    result = run(
        str(coded), "--task", "maze", "--episode", "0", "--suite", str(suite), "--out", str(tmp_path / "x.gif")
    )
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "policy 'mine' is code (kind 'callable')" in result.output and "--policy mypolicy.py:act" in result.output
    # with --policy it replays (here another policy, so the outcome differs and says so)
    result = run(str(coded), "--task", "maze", "--episode", "0", "--suite", str(suite), "--policy", "baseline",
                 "--out", str(tmp_path / "x.gif"))  # fmt: skip
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--task", "nope", "--episode", "0"], "has no task 'nope'; its tasks: maze. Pass one with --task."),
        (["--task", "maze", "--episode", "2"], "records episodes 0 to 1; got --episode 2."),
        (
            ["--task", "maze", "--episode", "0", "--out", "e.png"],
            "expected a file ending in .gif, .mp4, .svg; got '.png'",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(evaluated, args, expected):
    suite, results_file, _ = evaluated
    result = run(str(results_file), *args, "--suite", str(suite))
    assert result.exit_code == 2, result.output
    assert expected in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_wrong_or_missing_file_and_suite(evaluated, tmp_path):
    suite, results_file, _ = evaluated
    for path, reason in ((suite, "not valid JSON"), (tmp_path / "none.json", "no such file")):
        result = run(str(path), "--task", "maze", "--episode", "0")
        assert result.exit_code == 2 and "expected a results file written by `benchmarkzoo evaluate" in result.output
        assert reason in result.output, result.output
    (tmp_path / "empty.json").write_text("{}")
    result = run(str(tmp_path / "empty.json"), "--task", "maze", "--episode", "0")
    assert result.exit_code == 2 and "schema violation" in result.output
    result = run(str(results_file), "--task", "maze", "--episode", "0")  # a custom suite, not given
    assert result.exit_code == 2
    assert "suite 'replay-v0', which is not a shipped suite; pass its YAML with --suite PATH" in result.output


def test_env_without_rgb_array_is_refused(evaluated, monkeypatch, tmp_path):
    suite, results_file, _ = evaluated
    monkeypatch.setattr(MazeEnv, "metadata", {"render_modes": []})
    result = run(
        str(results_file), "--task", "maze", "--episode", "0", "--suite", str(suite), "--out", str(tmp_path / "a.gif")
    )
    assert (
        result.exit_code == 2 and "benchmarkzoo/Maze-v0 has no rgb_array render mode (its modes: [])" in result.output
    )


def test_svg_only_for_grid_worlds():
    spec = registration.spec("benchmarkzoo/Navigation-v0")
    env = registration.make_vec(spec.id, 1)
    with pytest.raises(ReplayError, match=r"--out \.svg draws grid worlds .*Navigation-v0 is not one"):
        SceneCamera().aim(env, spec)
    env.close()


@pytest.mark.skipif(importlib.util.find_spec("av") is not None, reason="PyAV is installed: MP4 can be written")
def test_mp4_without_pyav_names_the_install(evaluated, tmp_path):
    suite, results_file, _ = evaluated
    result = run(
        str(results_file), "--task", "maze", "--episode", "0", "--suite", str(suite), "--out", str(tmp_path / "e.mp4")
    )
    assert result.exit_code == 2 and "MP4 output needs PyAV" in result.output and "pip install av" in result.output
    assert not (tmp_path / "e.mp4").exists()


def test_gif_frame_is_the_render_it_was_made_from():
    """The GIF's palette holds the few colours of a grid frame exactly, so a decoded frame equals its source."""
    from benchmarkzoo.evaluation.replay.video import gif_bytes

    frame = np.zeros((24, 24, 3), dtype=np.uint8)
    frame[:12] = (214, 69, 65)
    decoded = np.asarray(Image.open(io.BytesIO(gif_bytes([frame, frame[::-1]], 8))).convert("RGB"))
    np.testing.assert_array_equal(decoded, frame)


def test_listed_by_help():
    result = CliRunner().invoke(cli, ["--help"])
    assert result.exit_code == 0 and re.search(r"^\s+replay\s+Replay episode K of task T", result.output, re.M)


def test_an_onnx_policy_is_rebuilt_from_its_file_when_the_hash_matches(tmp_path, suite_writer):
    from .onnx_models import constant_model  # needs onnx (the eval extra)

    model = tmp_path / "right.onnx"
    model.write_bytes(constant_model("benchmarkzoo/Maze-v0", 1))
    suite = suite_writer(tmp_path, {**SUITE, "tasks": [{**SUITE["tasks"][0], "episodes": 1}]})
    results_file = tmp_path / "onnx.json"
    evaluate(suite, f"onnx:{model}", num_envs=1, out=results_file)
    args = ["--task", "maze", "--episode", "0", "--suite", str(suite), "--out", str(tmp_path / "o.svg")]
    result = run(str(results_file), *args)
    assert result.exit_code == 0, result.output
    assert "equals the recorded episode (exactly)" in result.output
    model.write_bytes(constant_model("benchmarkzoo/Maze-v0", 2))  # another model under the file's name
    result = run(str(results_file), *args)
    assert result.exit_code == 2 and "cannot rebuild the file's policy" in result.output
    assert "Pass the model the results were made with." in result.output


def test_mp4_with_pyav(evaluated, tmp_path):
    av = pytest.importorskip("av", reason="MP4 output needs PyAV (pip install av)")
    suite, results_file, results = evaluated
    episode = results.tasks[0].episodes[1]
    out = tmp_path / "episode.mp4"
    result = run(str(results_file), "--task", "maze", "--episode", "1", "--suite", str(suite), "--out", str(out))
    assert result.exit_code == 0, result.output
    assert f"{episode.length + 1} frames" in result.output and "264x268 px" in result.output
    with av.open(str(out)) as container:
        frames = [f.to_ndarray(format="rgb24") for f in container.decode(container.streams.video[0])]
    assert len(frames) == episode.length + 1 and frames[0].shape == (268, 264, 3)


def test_a_shipped_suite_is_found_by_name_and_another_suite_file_is_refused(
    evaluated, monkeypatch, tmp_path, suite_writer
):
    suite, results_file, _ = evaluated
    monkeypatch.setattr("benchmarkzoo.evaluation.suites.SUITES_DIR", suite.parent)  # "ship" the test suite
    out = tmp_path / "e.svg"
    result = run(str(results_file), "--task", "maze", "--episode", "0", "--out", str(out))
    assert result.exit_code == 0 and "equals the recorded episode" in result.output, result.output
    other = suite_writer(tmp_path, {**SUITE, "tasks": [{**SUITE["tasks"][0], "split": "ood"}]})
    result = run(str(results_file), "--task", "maze", "--episode", "0", "--suite", str(other), "--out", str(out))
    assert result.exit_code == 2
    assert "plays benchmarkzoo/Maze-v0 on gridworld/maze:ood" in result.output
    assert "records benchmarkzoo/Maze-v0 on gridworld/maze:test" in result.output


MULTIAGENT = {
    "name": "replay-marl-v0",
    "description": "One episode each of two PettingZoo parallel envs.",
    "tasks": [
        {
            "id": "mapf",
            "env": "benchmarkzoo/MAPF-v0",
            "scenario_set": "multiagent/mapf",
            "split": "test",
            "episodes": 1,
        },
        {
            "id": "nav",
            "env": "benchmarkzoo/Navigation-v0",
            "scenario_set": "multiagent/navigation",
            "split": "test",
            "episodes": 1,
        },
    ],
}


@pytest.fixture(scope="module")
def multiagent(tmp_path_factory, suite_writer):
    folder = tmp_path_factory.mktemp("replay-marl")
    suite = suite_writer(folder, MULTIAGENT)
    out = folder / "baseline.json"
    return suite, out, evaluate(suite, "baseline", num_envs=1, out=out)


def test_parallel_envs_replay_with_every_agent(multiagent, tmp_path):
    suite, results_file, results = multiagent
    for task, suffix in (("mapf", "svg"), ("mapf", "gif"), ("nav", "gif")):
        episode = next(t for t in results.tasks if t.id == task).episodes[0]
        out = tmp_path / f"{task}.{suffix}"
        result = run(str(results_file), "--task", task, "--episode", "0", "--suite", str(suite), "--out", str(out))
        assert result.exit_code == 0, result.output
        assert "equals the recorded episode" in result.output
        assert f"team return {episode.team_return:.6g}" in result.output
        assert f"{episode.length + 1} frames" in result.output
    root = ET.parse(tmp_path / "mapf.svg").getroot()
    agents = registration.make_parallel("benchmarkzoo/MAPF-v0").possible_agents
    circles = root.findall(f".//{SVG}circle")
    assert [c.get("id") for c in circles] == [f"agent_{k}" for k in range(len(agents))]
    # the baseline brings every agent home: each leaves the grid (is hidden) when it arrives
    for circle in circles:
        visibility = next(a for a in circle.findall(f"{SVG}animate") if a.get("attributeName") == "visibility")
        assert visibility.get("values") == "visible;hidden"
    assert Image.open(tmp_path / "nav.gif").n_frames == results.tasks[1].episodes[0].length + 1


@pytest.mark.parametrize("env_id", ["benchmarkzoo/Maze-v0", "benchmarkzoo/MazeKeys-v0", "benchmarkzoo/MO-Treasure-v0"])
def test_every_grid_world_named_in_the_message_draws(env_id):
    """The single-agent grid worlds the SVG documents (MAPF is replayed above): a scene of the env's own state."""
    env = registration.make_vec(env_id, 1, vectorization_mode="vector_entry_point")
    env.reset(seed=3)
    camera = SceneCamera()
    camera.aim(env, registration.spec(env_id))
    scene = camera.take(env)
    walls = np.asarray(scene.walls)
    assert walls.shape == scene.shape and 0 < walls.sum() < walls.size
    mover = scene.marks[-1]  # the agent (or submarine) is drawn last, on top
    assert mover.shape == "circle" and not scene.walls[mover.row, mover.col]
    root = ET.fromstring(animated_svg([scene, scene], 8, env_id))
    assert root.find(f".//{SVG}circle[@id='{mover.key}']") is not None
    env.close()
