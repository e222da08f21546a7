"""CLI commands of the evaluation protocol: ``evaluate`` and ``suites``. Mounted by :mod:`benchmarkzoo.cli`."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from benchmarkzoo.console import console as _console
from benchmarkzoo.console import table as _table
from benchmarkzoo.evaluation.runner import BACKENDS


def _fmt(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def print_results(results) -> None:
    """Per-task table and suite aggregates of a results file."""
    table = _table(
        f"{results.suite}: policy {results.policy.name}",
        "task",
        "env",
        "split",
        "episodes",
        "mean return [95% CI]",
        "success",
        "normalized",
        "status",
        wrap=("status",),
    )
    for task in results.tasks:
        agg = task.aggregates
        ci = f"{agg.mean:.3f} [{agg.ci_low:.3f}, {agg.ci_high:.3f}]" if agg else "-"
        table.add_row(
            task.id,
            task.env_id,
            task.split,
            str(len(task.episodes)),
            ci,
            _fmt(agg.success_rate, 2) if agg else "-",
            _fmt(agg.normalized_mean) if agg else "-",
            "ok" if task.status == "ok" else f"failed: {task.error}",
        )
    console = _console()
    console.print(table)
    mo = [t for t in results.tasks if t.aggregates is not None and t.aggregates.multi_objective is not None]
    if mo:
        mo_table = _table(
            "multi-objective", "task", "hypervolume", "expected utility", "sparsity", "Pareto-optimal", "front covered"
        )
        for task in mo:
            m = task.aggregates.multi_objective
            mo_table.add_row(
                task.id,
                _fmt(m.hypervolume, 1),
                _fmt(m.expected_utility),
                _fmt(m.sparsity),
                _fmt(m.pareto_optimal_rate, 2),
                _fmt(m.front_coverage, 2),
            )
        console.print(mo_table)
    agg = results.aggregates
    if agg is not None:
        console.print(
            f"normalized IQM {agg.iqm:.3f} [{agg.iqm_ci[0]:.3f}, {agg.iqm_ci[1]:.3f}]  "
            f"mean {agg.mean:.3f}  optimality gap {agg.optimality_gap:.3f}  over {agg.tasks} tasks"
        )
    prov = results.provenance
    line = f"{prov.steps} steps in {prov.wall_time_s:.1f} s ({prov.steps_per_s:,.0f} steps/s), backend {prov.backend}"
    if prov.resumed_episodes:
        line += f"; {prov.resumed_episodes} episodes kept from the resumed file (timed by the run that played them)"
    console.print(line)


class _Progress:
    """A rich progress bar of episodes per task with steps/s; silent when stderr is not a terminal."""

    def __init__(self, suite, episodes: int | None):
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        console = Console(stderr=True)
        self.enabled = console.is_terminal
        self.steps = 0
        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}"),
            TimeRemainingColumn(),
            console=console,
            disable=not self.enabled,
        )
        self.bars = {t.id: self.progress.add_task(t.id, total=episodes or t.episodes, rate="") for t in suite.tasks}

    def __enter__(self):
        import time

        self.started = time.perf_counter()
        self.progress.__enter__()
        return self

    def __exit__(self, *exc):
        self.progress.__exit__(*exc)

    def start(self, finished: dict[str, int]) -> None:
        """Start each task's bar at its episodes already finished (kept by ``--resume``), not at 0."""
        for task_id, count in finished.items():
            self.progress.update(self.bars[task_id], completed=count)

    def episode(self, task_id: str, outcome, steps: int) -> None:
        """Advance a bar; steps/s counts only the episodes this invocation plays, over its own time."""
        import time

        self.steps += steps
        rate = self.steps / max(time.perf_counter() - self.started, 1e-9)
        self.progress.update(self.bars[task_id], advance=1, rate=f"{rate:,.0f} steps/s")


def move_aside(path: Path) -> Path:
    """Rename ``path`` to the first free ``<stem>.old-<n><suffix>`` beside it (never over another file)."""
    n = 1
    while True:
        target = path.with_name(f"{path.stem}.old-{n}{path.suffix}")
        try:
            os.link(path, target)  # fails if target exists, where a rename would replace it
        except FileExistsError:
            n += 1
            continue
        except OSError:  # a file system without hard links: check, then rename
            if target.exists():
                n += 1
                continue
            path.rename(target)
            return target
        path.unlink()
        return target


def _prepare_out(out: Path | None, resume: bool, restart: bool) -> None:
    """Refuse to overwrite an earlier run's file unless told what to do with it."""
    if restart and resume:
        raise click.UsageError("--restart starts over and --resume continues: give one of them.")
    if (restart or resume) and out is None:
        raise click.UsageError(f"--{'restart' if restart else 'resume'} needs --out FILE.")
    if out is None or resume or not out.exists():
        return
    if restart:
        click.echo(f"moved the previous {out} to {move_aside(out)}", err=True)
        return
    raise click.UsageError(
        f"{out} exists: continue it with --resume, start over with --restart (the old file is moved aside), "
        "or pick another --out."
    )


def _stopped(error, out: Path | None) -> str:
    """The line that ends a run a fault stopped: what happened and how to go on."""
    if out is None:
        return f"Error: {error}. Nothing was kept (no --out)."
    if error.saved:
        return f"Error: {error}. Finished episodes are kept in {out}; continue with --resume."
    return f"Error: {error}. {out} keeps its last save (if any); make room, then continue with --resume."


@click.command("evaluate")
@click.option("--suite", "suite_name", required=True, help="Suite name (benchmarkzoo suites list) or YAML path.")
@click.option(
    "--policy",
    "policy_spec",
    required=True,
    help="random | baseline | onnx:MODEL.onnx | onnx:BUNDLE/ (one model per env) | module:callable | "
    "file.py:callable | sb3:MODEL.zip | rllib:CHECKPOINT_DIR. "
    "onnx: is data (run by onnxruntime), the kind a leaderboard can replay. "
    "WARNING: sb3: and rllib: load pickled Python objects, which runs code from the file; "
    "load only models you trust, never one that came with a leaderboard submission.",
)
@click.option("--episodes", type=click.IntRange(min=1), default=None, help="Override every task's episode count.")
@click.option("--num-envs", type=click.IntRange(min=1), default=8, show_default=True, help="Worlds per vector env.")
@click.option(
    "--backend",
    type=click.Choice(BACKENDS),
    default="native",
    show_default=True,
    help="Vector env backend, or ray: shares of episodes on Ray workers (native there).",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Worker processes (with --backend ray: shares in flight; 1 = the cluster's CPUs).",
)
@click.option("--ray-address", default=None, help="With --backend ray: the cluster to join (default: a local Ray).")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True, help="Protocol seed.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Results JSON file.")
@click.option("--resume", is_flag=True, help="Continue the interrupted run in --out: play only its missing episodes.")
@click.option(
    "--restart", is_flag=True, help="Start over although --out exists: the old file is moved aside to FILE.old-N first."
)
def evaluate_command(
    suite_name, policy_spec, episodes, num_envs, backend, workers, ray_address, seed, out, resume, restart
) -> None:
    """Evaluate a policy on every task of a suite; raw outcomes are identical for any backend and sizes."""
    from benchmarkzoo.core.lifetime import children_die_with_me
    from benchmarkzoo.evaluation.protocol import RunAbortedError, evaluate
    from benchmarkzoo.evaluation.suites import load_suite

    if ray_address is not None and backend != "ray":
        raise click.UsageError("--ray-address needs --backend ray.")
    suite = load_suite(suite_name)
    _prepare_out(out, resume, restart)
    children_die_with_me()  # async env workers and simulator processes of this run end with it
    try:
        with _Progress(suite, episodes) as progress:
            results = evaluate(
                suite,
                policy_spec,
                backend=backend,
                num_envs=num_envs,
                workers=workers,
                seed=seed,
                episodes=episodes,
                out=out,
                on_episode=progress.episode,
                on_start=progress.start,
                resume=resume,
                ray_address=ray_address,
            )
    except KeyboardInterrupt:
        kept = f"finished episodes kept in {out}; continue with --resume" if out else "nothing kept (no --out)"
        click.echo(f"interrupted: {kept}.", err=True)
        sys.exit(130)
    except RunAbortedError as error:
        click.echo(_stopped(error, out), err=True)
        sys.exit(1)
    print_results(results)
    if out is not None:
        click.echo(f"results written to {out}")
    failed = [t.id for t in results.tasks if t.status == "failed"]
    if failed:
        if out is not None:
            click.echo(
                f"{len(failed)} task(s) failed ({', '.join(failed)}); their finished episodes are kept in {out}: "
                "fix the cause, then --resume plays only the missing ones.",
                err=True,
            )
        sys.exit(1)


@click.group("suites")
def suites_group() -> None:
    """List, show and calibrate evaluation suites."""


@suites_group.command("list")
@click.option("--names", is_flag=True, help="Only the names, one per line (for scripts).")
def suites_list(names: bool) -> None:
    """Every shipped suite with its task count."""
    from benchmarkzoo.evaluation.suites import list_suites, load_suite

    for name in list_suites():
        if names:
            click.echo(name)
            continue
        suite = load_suite(name)
        click.echo(f"{name:24s} {len(suite.tasks):3d} tasks  {suite.description}")


@suites_group.command("show")
@click.argument("name")
def suites_show(name: str) -> None:
    """The tasks of a suite and their normalization references."""
    from benchmarkzoo.evaluation.suites import load_suite

    suite = load_suite(name)
    table = _table(f"{suite.name}: {suite.description}", "task", "env", "scenarios", "episodes", "random", "baseline")
    for task in suite.tasks:
        ref = task.references
        table.add_row(
            task.id,
            task.env,
            f"{task.scenario_set}:{task.split}",
            str(task.episodes),
            _fmt(ref.random if ref else None),
            _fmt(ref.baseline if ref else None),
        )
    _console().print(table)


@suites_group.command("calibrate")
@click.argument("name")
@click.option("--num-envs", type=click.IntRange(min=1), default=16, show_default=True)
@click.option(
    "--seed",
    type=click.IntRange(min=0),
    default=None,
    help="Calibration protocol seed (default 1; never the leaderboard's 0).",
)
@click.option("--task", "task_ids", multiple=True, help="Only this task (repeatable); the others are kept.")
@click.option(
    "--check",
    "check_only",
    is_flag=True,
    help="Play the tasks again and compare with the recorded calibration bit for bit; write nothing.",
)
def suites_calibrate(name: str, num_envs: int, seed: int | None, task_ids: tuple[str, ...], check_only: bool) -> None:
    """Measure the random and baseline references of every task and store them in the suite file.

    NAME is a shipped suite (its file in the package is rewritten) or a suite YAML path. Every
    calibration episode's score is written beside it to NAME.calibration.json.
    """
    from benchmarkzoo.evaluation.calibration import CALIBRATION_SEED, CalibrationError, calibrate, check, discrimination
    from benchmarkzoo.evaluation.suites import SuiteError

    try:
        if check_only:
            problems = check(name, task_ids, num_envs=None)
            for problem in problems:
                click.echo(problem, err=True)
            if problems:
                sys.exit(1)
            click.echo("the recorded calibration reproduces bit for bit")
            return

        def report(task, calibration) -> None:
            d = discrimination(calibration)
            r, b = calibration.random, calibration.baseline
            click.echo(
                f"{task.id:28s} random {sum(r.scores) / len(r.scores):10.4f} [{d.random_ci[0]:.4f}, "
                f"{d.random_ci[1]:.4f}]  baseline {sum(b.scores) / len(b.scores):10.4f} [{d.baseline_ci[0]:.4f}, "
                f"{d.baseline_ci[1]:.4f}]  wins {d.paired_wins:.2f} of {d.scenarios}  "
                f"{'ok' if d.ok else 'DOES NOT DISCRIMINATE'}  ({r.wall_time_s:.1f} s / {b.wall_time_s:.1f} s)"
            )

        calibrate(
            name,
            num_envs=num_envs,
            seed=CALIBRATION_SEED if seed is None else seed,
            task_ids=task_ids or None,
            on_task=report,
        )
    except (CalibrationError, SuiteError) as error:
        raise click.ClickException(str(error)) from error


@click.command("ratings")
@click.option(
    "--env",
    "env",
    type=click.Choice(["fighting", "rps"]),
    default="fighting",
    show_default=True,
    help="FightingDuel-v0 or RPSSelfPlay-v0.",
)
@click.option("--rounds", type=click.IntRange(min=1), default=100, show_default=True, help="RPS rounds per match.")
@click.option(
    "--policies",
    default=None,
    help="Comma-separated pool. fighting: ladder bots, 'random' (default: the 10 bots); "
    "rps: rock, cycle, random, frequency, baseline (default: all).",
)
@click.option(
    "--matches", type=click.IntRange(min=1), default=20, show_default=True, help="Matches per pairing (even)."
)
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True)
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Results JSON file.")
def ratings_command(env: str, rounds: int, policies: str | None, matches: int, seed: int, out: Path | None) -> None:
    """Round-robin FightingDuel-v0 or RPSSelfPlay-v0 policies: Wilson win-rate intervals, openskill ratings."""
    from benchmarkzoo.envs.multiagent.fighting.bots import BOTS
    from benchmarkzoo.evaluation.ratings import RPS_POLICIES, RatingsError, round_robin, rps_round_robin, write_json

    default = BOTS if env == "fighting" else RPS_POLICIES
    pool = default if policies is None else [p.strip() for p in policies.split(",") if p.strip()]
    try:
        if env == "fighting":
            result = round_robin(pool, matches=matches, seed=seed)
        else:
            result = rps_round_robin(pool, matches=matches, rounds=rounds, seed=seed)
    except RatingsError as error:
        raise click.UsageError(str(error)) from error
    table = _table(
        f"{result['env']}: {matches} matches per pairing, seed {seed}",
        "policy",
        "mu",
        "sigma",
        "95% interval",
        "win rate",
    )
    for r in result["ratings"]:
        table.add_row(
            r["policy"],
            f"{r['mu']:.2f}",
            f"{r['sigma']:.2f}",
            f"[{r['ci'][0]:.2f}, {r['ci'][1]:.2f}]",
            f"{r['win_rate']:.3f}",
        )
    _console().print(table)
    if out is not None:
        write_json(result, out)
        click.echo(f"results written to {out}")
