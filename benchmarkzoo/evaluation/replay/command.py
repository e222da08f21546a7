"""CLI command ``benchmarkzoo replay RESULTS.json --task T --episode K [--out FILE] [--policy P]``.

Exit codes: 0 when the replayed episode equals the recorded one, 1 when it differs (the picture is
still written, and a warning names the policies: another policy plays another episode from the
same seed and scenario), 2 on bad input (the message says what was expected and what to pass).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

#: Defaults of the size caps: a 300-frame GIF of 480 x 480 pixels is a few MB at most.
MAX_FRAMES, MAX_SIDE = 300, 480


def _number(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_number(v) for v in value) + "]"
    return f"{value:.6g}" if isinstance(value, float) else str(value)


def _outcome_line(recorded: Any, replayed: Any, policy: Any) -> str:
    episode, outcome = recorded.episode, replayed.outcome
    team = "" if outcome.team_return is None else f", team return {_number(outcome.team_return)}"
    return (
        f"replayed task {recorded.task.id} episode {episode.index} (seed {episode.seed}, scenario seed "
        f"{episode.scenario_seed}) with policy {policy.name!r}: return {_number(outcome.episode_return)}{team}, "
        f"length {outcome.length}, success {outcome.success}"
    )


def _written_line(path: Path, count: int, size: int, replayed: Any, extent: str) -> str:
    length, pictures = replayed.outcome.length, len(replayed.pictures)
    which = f"every state of {length} steps" if replayed.stride == 1 else f"every {replayed.stride}th of {length} steps"
    if count < pictures:  # Pillow merges identical consecutive GIF frames, adding their durations
        which += f"; {pictures - count} identical to the one before merged into it"
    return f"wrote {path}: {count} frames ({which}), {extent}, {size:,} bytes"


@click.command("replay")
@click.argument("results_file", type=click.Path(path_type=Path))
@click.option("--task", "task_id", required=True, help="The task id (as in the results file).")
@click.option("--episode", "index", type=click.IntRange(min=0), required=True, help="The episode index in that task.")
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="FILE.gif, FILE.mp4 (needs PyAV) or FILE.svg (animated; grid worlds). Default: TASK-episode-K.gif.",
)
@click.option(
    "--policy",
    "policy_spec",
    default=None,
    help="Who acts (results files hold no actions): the specs of `evaluate --policy`. Default: the file's own "
    "policy if it is random, baseline or an ONNX model found here with its content hash. Code policies "
    "(module:, file.py:, sb3:, rllib:) run their code: pass only ones you trust.",
)
@click.option(
    "--suite",
    "suite_file",
    type=click.Path(path_type=Path),
    default=None,
    help="The YAML of a custom suite the file was evaluated on (shipped suites are found by name).",
)
@click.option(
    "--max-frames",
    type=click.IntRange(min=2),
    default=MAX_FRAMES,
    show_default=True,
    help="At most this many frames; a longer episode is pictured every few steps (the final state always).",
)
@click.option(
    "--max-side",
    type=click.IntRange(min=16),
    default=MAX_SIDE,
    show_default=True,
    help="GIF/MP4 frames larger than this many pixels on a side are shrunk to it.",
)
def replay_command(
    results_file: Path,
    task_id: str,
    index: int,
    out: Path | None,
    policy_spec: str | None,
    suite_file: Path | None,
    max_frames: int,
    max_side: int,
) -> None:
    """Replay episode K of task T of a results file from its seed and scenario; write it as a GIF, MP4 or SVG."""
    from benchmarkzoo.core.atomic import atomic_write_text
    from benchmarkzoo.evaluation.replay.capture import FrameCamera, SceneCamera
    from benchmarkzoo.evaluation.replay.episode import load_recorded, replay, replay_policy
    from benchmarkzoo.evaluation.replay.svg import animated_svg
    from benchmarkzoo.evaluation.replay.video import require_writer, write_video

    out = Path(f"{task_id}-episode-{index}.gif") if out is None else out
    require_writer(out)
    recorded = load_recorded(results_file, task_id, index, suite_file)
    policy = replay_policy(recorded.results, policy_spec)
    svg = out.suffix.lower() == ".svg"
    camera: Any = SceneCamera() if svg else FrameCamera(max_side)
    replayed = replay(recorded, policy, camera, max_frames)
    click.echo(_outcome_line(recorded, replayed, policy))
    if replayed.mismatch is None:
        how = "exactly" if replayed.exact else "within the continuous-action tolerance"
        click.echo(f"equals the recorded episode ({how})")
    else:
        info, mismatch = recorded.results.policy, replayed.mismatch
        returns = (
            f"return recorded {_number(recorded.episode.episode_return)}, replayed "
            f"{_number(replayed.outcome.episode_return)}"
        )
        if mismatch.field != "return":
            returns += f"; {mismatch.field} recorded {_number(mismatch.claimed)}, replayed {_number(mismatch.replayed)}"
        click.echo(
            f"Warning: the replay differs from the recorded episode ({returns}). The file was evaluated with "
            f"policy {info.name!r} ({info.spec}); this replay used {policy.name!r}: another policy (or one that is "
            "not deterministic) plays another episode from the same seed and scenario.",
            err=True,
        )
    if svg:
        title = f"{recorded.task.env} {recorded.task.id} episode {index}, policy {policy.name}"
        text = animated_svg(replayed.pictures, replayed.fps, title)
        atomic_write_text(out, text)
        height, width = replayed.pictures[0].shape
        count, size, extent = len(replayed.pictures), len(text.encode()), f"{width}x{height} cells"
    else:
        count, size, extent = write_video(out, replayed.pictures, replayed.fps)
    click.echo(_written_line(out, count, size, replayed, extent))
    if replayed.mismatch is not None:
        sys.exit(1)
