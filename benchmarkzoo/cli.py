"""The ``benchmarkzoo`` command: list envs, inspect one, manage scenario sets, roll out baselines.

Every command reads the env list from :mod:`benchmarkzoo.registration`. Errors benchmarkzoo
raises on purpose (unknown ids, malformed scenario sets, missing extras) print their message and
exit with code 2, without a traceback. ``rich`` and the scenario-set module are imported inside
the commands, so ``import benchmarkzoo.cli`` costs no more than ``import benchmarkzoo``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import inspect
import json
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click

from benchmarkzoo import registration
from benchmarkzoo.console import console as _console
from benchmarkzoo.console import table as _table
from benchmarkzoo.core.errors import BenchmarkZooError
from benchmarkzoo.core.extras import missing_modules

#: Safety net for envs without a time limit: an episode this long is reported as an error.
MAX_ROLLOUT_STEPS = 100_000


class UserError(click.ClickException):
    """A :class:`BenchmarkZooError` shown as ``Error: <message>`` with exit code 2 (bad input, not a crash)."""

    exit_code = 2


class StorageError(click.ClickException):
    """A write the machine refused (full disk, quota, read-only mount): one line, exit code 1."""

    #: errno values that say where a file goes is out of room or read-only, not that the program is wrong.
    ERRNOS = {errno.ENOSPC: "make room", errno.EDQUOT: "make room", errno.EROFS: "pick another folder"}

    exit_code = 1

    @classmethod
    def of(cls, error: OSError) -> StorageError | None:
        """The error to show for ``error``, or ``None`` if it is not a storage fault."""
        if error.errno not in cls.ERRNOS:
            return None
        where = f" in {Path(error.filename).parent}" if error.filename else ""  # a failed write() names no file
        return cls(f"cannot write{where}: {error.strerror}; {cls.ERRNOS[error.errno]} and run the command again.")


@dataclasses.dataclass(frozen=True)
class LazyCommand:
    """A command imported only when run, so ``--help`` and the core install never import its stack.

    Attributes:
        target: ``"module:attr"`` of the click command.
        extra: the extra its imports need (``eval``: pydantic, scipy, matplotlib, jinja2).
        summary: its one-line help, shown by the group's ``--help`` without importing it.
    """

    target: str
    extra: str
    summary: str

    def install_line(self) -> str:
        """The ``pip`` command that installs :attr:`extra`, from a clone and from PyPI."""
        return f'pip install -e ".[{self.extra}]" in a clone (or pip install "benchmarkzoo[{self.extra}]")'

    def missing_command(self, name: str, missing: list[str]) -> click.Command:
        """A stand-in for the command while its extra is missing: ``--help`` says so, running it is one error line."""
        needs = f'needs the "{self.extra}" extra ({", ".join(missing)} not installed): {self.install_line()}'

        def refuse(args: tuple[str, ...]) -> None:
            raise UserError(f"benchmarkzoo {name} {needs}")

        return click.Command(
            name,
            callback=refuse,
            params=[click.Argument(["args"], nargs=-1, type=click.UNPROCESSED)],
            help=f"{self.summary} It {needs}.",
            short_help=f"{self.summary} (needs the {self.extra} extra)",
            context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
        )


class _Group(click.Group):
    """A click group that turns benchmarkzoo's own errors into :class:`UserError`.

    ``lazy_commands`` maps command names to :class:`LazyCommand`; they are imported only when run
    (``--help`` lists them by their summary), so the evaluation stack (pydantic, scipy) stays out
    of ``list`` and ``--help``, and a core install without the extra gets one line naming it.
    """

    lazy_commands: dict[str, LazyCommand] = {}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(self.lazy_commands))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        lazy = self.lazy_commands.get(name)
        if lazy is None:
            return super().get_command(ctx, name)
        missing = missing_modules(lazy.extra)
        if missing:
            return lazy.missing_command(name, missing)
        command = registration.load(lazy.target)
        if not isinstance(command, click.Command):
            raise TypeError(f"Lazy command {name!r} ({lazy.target}) is not a click command.")
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The commands table of ``--help``: lazy commands by their summary, so listing imports none of them."""
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max((len(name) for name in names), default=0)
        rows = []
        for name in names:
            lazy = self.lazy_commands.get(name)
            if lazy is not None:
                needs = f"(needs the {lazy.extra} extra) " if missing_modules(lazy.extra) else ""
                rows.append((name, click.Command(name, help=needs + lazy.summary).get_short_help_str(limit)))
                continue
            command = super().get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except BenchmarkZooError as error:
            raise UserError(str(error)) from error
        except OSError as error:  # e.g. `leaderboard add` onto a full disk: one line, not a traceback
            storage = StorageError.of(error)
            if storage is None:
                raise
            raise storage from error


def _echo_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, sort_keys=False, default=str))


@contextlib.contextmanager
def _plugin_warnings_as_lines() -> Iterator[None]:
    """Show a broken plugin as one ``Warning: ...`` line on stderr, not as a source location and a code line."""
    from benchmarkzoo.plugins import PluginWarning

    show = warnings.showwarning

    def show_plugin_warnings(message: Any, category: type[Warning], *args: Any, **kwargs: Any) -> None:
        if issubclass(category, PluginWarning):
            click.echo(f"Warning: {message}", err=True)
        else:
            show(message, category, *args, **kwargs)

    with warnings.catch_warnings():  # restores showwarning on the way out
        warnings.showwarning = show_plugin_warnings
        yield


class _TopGroup(_Group):
    lazy_commands = {
        "evaluate": LazyCommand(
            "benchmarkzoo.evaluation.commands:evaluate_command",
            "eval",
            "Evaluate a policy on every task of a suite; raw outcomes are identical for any backend and sizes.",
        ),
        "suites": LazyCommand(
            "benchmarkzoo.evaluation.commands:suites_group", "eval", "List, show and calibrate evaluation suites."
        ),
        "ratings": LazyCommand(
            "benchmarkzoo.evaluation.commands:ratings_command",
            "eval",
            "Round-robin FightingDuel-v0 or RPSSelfPlay-v0 policies: Wilson win-rate intervals, openskill ratings.",
        ),
        "leaderboard": LazyCommand(
            "benchmarkzoo.leaderboard.commands:leaderboard_group",
            "eval",
            "Validate, add and build leaderboard submissions (results files are untrusted input).",
        ),
        "replay": LazyCommand(
            "benchmarkzoo.evaluation.replay.command:replay_command",
            "eval",
            "Replay episode K of task T of a results file from its seed and scenario; write it as a GIF, MP4 or SVG.",
        ),
        "export-onnx": LazyCommand(
            "benchmarkzoo.adapters.onnx_export:export_onnx_command",
            "sb3",
            "Export the SB3 model zip MODEL (PPO, A2C, DQN, SAC, TD3, DDPG) to OUT.onnx, for `--policy onnx:OUT.onnx`.",
        ),
    }

    def invoke(self, ctx: click.Context) -> Any:
        with _plugin_warnings_as_lines():
            return super().invoke(ctx)


@click.group(cls=_TopGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="benchmarkzoo", prog_name="benchmarkzoo")
def cli() -> None:
    """benchmarkzoo: seeded, batched RL environments with scenario splits."""


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``benchmarkzoo`` console script and ``python -m benchmarkzoo``."""
    cli.main(args=argv, prog_name="benchmarkzoo")


# ---- list / info --------------------------------------------------------------------------------


def _known_family(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """``--family``: any family with registered envs, plugins' included (so not a fixed ``click.Choice``)."""
    if value is not None:
        try:
            registration.list_envs(family=value)
        except ValueError as error:
            raise click.BadParameter(str(error), ctx, param) from error
    return value


_family_option = click.option(
    "--family", callback=_known_family, help="Only envs of this family (any family `benchmarkzoo list` shows)."
)


def _extras_cell(spec: registration.EnvSpec) -> str:
    missing = set(spec.missing_extras)
    return ", ".join(f"{e} (missing)" if e in missing else f"{e} (installed)" for e in spec.extras) or "-"


@cli.command("list")
@click.option("--kind", type=click.Choice(registration.KINDS), help="Only envs of this kind.")
@_family_option
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of env specs instead of a table.")
def list_command(kind: str | None, family: str | None, as_json: bool) -> None:
    """List every registered env."""
    specs = registration.list_envs(kind=kind, family=family)
    if as_json:
        _echo_json([s.to_dict() for s in specs])
        return
    table = _table(None, "id", "kind", "family", "extras", "vector", "description", wrap=("description",))
    for s in specs:
        table.add_row(s.id, s.kind, s.family, _extras_cell(s), "yes" if s.has_native_vector else "no", s.description)
    _console().print(table)


def doc_section(doc: str | None, title: str) -> str | None:
    r"""The body of the ``## <title>`` section of a markdown-style docstring, or ``None``.

    >>> doc_section("Intro.\n\n## Version History\n\n* v0: Initial version.\n\n## Example", "Version History")
    '* v0: Initial version.'
    """
    lines = inspect.cleandoc(doc or "").splitlines()
    heading = f"## {title}".lower()
    for i, line in enumerate(lines):
        if line.strip().lower() == heading:
            body = []
            for following in lines[i + 1 :]:
                if following.startswith("## "):
                    break
                body.append(following)
            return "\n".join(body).strip() or None
    return None


def _env_details(spec: registration.EnvSpec) -> dict[str, Any]:
    """Spaces, reward range and version history, read from a freshly made env (extras permitting)."""
    missing = spec.missing_extras
    if missing:
        extras = ",".join(missing)
        return {"unavailable": f'needs the extra {extras!r}: pip install "benchmarkzoo[{extras}]"'}
    history = doc_section(inspect.getdoc(spec.load_entry_point()), "Version History")
    details: dict[str, Any] = {"version_history": history}
    if spec.kind in ("single", "mo"):
        env = registration.make(spec.id)
        try:
            base = env.unwrapped
            details["observation_space"] = str(env.observation_space)
            details["action_space"] = str(env.action_space)
            reward_range = getattr(base, "reward_range", None)
            details["reward_range"] = list(reward_range) if reward_range is not None else None
            if hasattr(base, "reward_space"):
                details["reward_space"] = str(base.reward_space)
        finally:
            env.close()
    else:
        env = registration.make_parallel(spec.id)
        try:
            agents = list(env.possible_agents)
            details["observation_space"] = {a: str(env.observation_space(a)) for a in agents}
            details["action_space"] = {a: str(env.action_space(a)) for a in agents}
            reward_range = getattr(env, "reward_range", None)
            details["reward_range"] = list(reward_range) if reward_range is not None else None
        finally:
            env.close()
    return details


def _outcome_bounds(spec: registration.EnvSpec) -> tuple[dict[str, Any] | None, list[str]]:
    """The spec's outcome bounds as JSON and as lines of text (what the leaderboard checks every episode against)."""
    if spec.outcome_bounds is None:
        return None, ["none declared"]
    try:
        bounds = spec.bounds()
    except (ImportError, BenchmarkZooError, ValueError) as error:  # info about the env is still useful without them
        return {"error": str(error)}, [f"unavailable: {error}"]
    return bounds.to_json(), bounds.describe()


def _scenario_set_summaries(spec: registration.EnvSpec) -> dict[str, Any]:
    from benchmarkzoo import scenario_sets

    summaries: dict[str, Any] = {}
    for name in spec.scenario_sets:
        try:
            loaded = scenario_sets.load_set(name)
        except BenchmarkZooError as error:  # info about the env is still useful without its scenarios
            summaries[name] = {"error": str(error)}
            continue
        summaries[name] = {
            "version": loaded.version,
            "splits": {
                s.name: {"generator": s.generator, "kwargs": dict(s.kwargs), "size": len(s)}
                for s in loaded.splits.values()
            },
        }
    return summaries


@cli.command("info")
@click.argument("env_id")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of tables.")
def info_command(env_id: str, as_json: bool) -> None:
    """Show an env: its spec, spaces, reward range, outcome bounds, scenario sets and its documentation page."""
    spec = registration.spec(env_id)
    details = _env_details(spec)
    sets = _scenario_set_summaries(spec)
    bounds, bounds_text = _outcome_bounds(spec)
    plugin = registration.provider(spec.id)
    origin = {} if plugin is None else {"plugin": {"distribution": plugin.distribution, "entry_point": plugin.value}}
    page = None if "unavailable" in details else inspect.getdoc(spec.load_entry_point())
    # Gymnasium 1.x dropped Env.reward_range; an env that does not declare one gets the per-step
    # range its declared outcome bounds imply (the same reward code), with infinite ends as unbounded.
    source = "env" if details.get("reward_range") is not None else None
    if source is None and "unavailable" not in details and isinstance(bounds, dict) and "error" not in bounds:
        ranges = spec.bounds().step_rewards()
        details["reward_range"] = (
            next(iter(ranges.values())).to_json()
            if len(ranges) == 1
            else {name: r.to_json() for name, r in ranges.items()}
        )
        source, shown = "outcome_bounds", {name: str(r) for name, r in ranges.items()}
    if as_json:
        _echo_json(
            {
                "spec": spec.to_dict(),
                **origin,
                **details,
                "reward_range_source": source,
                "outcome_bounds": bounds,
                "scenario_sets": sets,
                "doc": page,
            }
        )
        return
    console = _console()
    table = _table(spec.id, "field", "value", wrap=("value",))
    for key, value in spec.to_dict().items():
        table.add_row(key, json.dumps(value) if isinstance(value, dict | list) else str(value))
    if plugin is not None:
        table.add_row("plugin", f"{plugin.distribution} ({plugin.value})")
    if source == "outcome_bounds":
        per = "per agent, " if spec.kind in ("parallel", "moma") else ""
        details["reward_range"] = "\n".join(
            f"{'' if len(shown) == 1 else name + ': '}{text} "
            f"({'unbounded; ' if 'inf' in text else ''}{per}one step, from the outcome bounds)"
            for name, text in shown.items()
        )
    for key in ("observation_space", "action_space", "reward_range", "reward_space", "unavailable"):
        if key in details:
            value = details[key]  # per-agent spaces of parallel kinds come as a dict
            text = "\n".join(f"{a}: {v}" for a, v in value.items()) if isinstance(value, dict) else str(value)
            table.add_row(key, text)
    table.add_row("outcome_bounds", "\n".join(bounds_text))
    console.print(table)
    if sets:
        split_table = _table(
            "scenario sets", "set", "version", "split", "generator", "kwargs", "scenarios", wrap=("kwargs",)
        )
        for name, summary in sets.items():
            if "error" in summary:
                split_table.add_row(name, "-", "-", "-", summary["error"], "-")
                continue
            for split_name, split in summary["splits"].items():
                split_table.add_row(
                    name,
                    str(summary["version"]),
                    split_name,
                    split["generator"],
                    json.dumps(split["kwargs"]),
                    str(split["size"]),
                )
        console.print(split_table)
    # The env's docstring is its documentation page (Gymnasium's form): print all of it.
    console.print(page or ("(extra not installed)" if "unavailable" in details else "(not documented)"))


# ---- scenarios ----------------------------------------------------------------------------------


@cli.group("scenarios", cls=_Group)
def scenarios_group() -> None:
    """Scenario sets: named generator + kwargs + seed splits, with recorded hashes."""


@scenarios_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def scenarios_list(as_json: bool) -> None:
    """List every scenario set with its env and split sizes."""
    from benchmarkzoo import scenario_sets

    # What a file declares; its generators are constructed by `show`, `verify` and the evaluation.
    loaded = [scenario_sets.load_set(name, check_generators=False) for name in scenario_sets.list_sets()]
    if as_json:
        _echo_json([s.to_dict(hashes=False) for s in loaded])
        return
    table = _table(None, "name", "version", "env", "splits", "description", wrap=("splits", "description"))
    for s in loaded:
        sizes = ", ".join(f"{split.name} {len(split)}" for split in s.splits.values())
        table.add_row(s.name, str(s.version), s.env, sizes, s.description)
    _console().print(table)


@scenarios_group.command("show")
@click.argument("name")
@click.option("--split", "split_name", help="Only this split (train, test, ood, ...).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (with every recorded hash) instead of tables.")
@click.option("--hashes", "num_hashes", default=3, show_default=True, help="Recorded hashes to show per split.")
def scenarios_show(name: str, split_name: str | None, as_json: bool, num_hashes: int) -> None:
    """Show a scenario set: its splits, generators, kwargs, seeds and first recorded hashes."""
    from benchmarkzoo import scenario_sets

    loaded = scenario_sets.load_set(name)
    splits = [loaded.split(split_name)] if split_name else list(loaded.splits.values())
    if as_json:
        data = loaded.to_dict(hashes=False)
        data["splits"] = {
            s.name: {**s.to_dict(), "size": len(s), "hashes": {str(k): v for k, v in s.hashes.items()}} for s in splits
        }
        data["path"] = str(loaded.path)
        _echo_json(data)
        return
    console = _console()
    console.print(f"{loaded.name} v{loaded.version}: {loaded.description}")
    console.print(f"env {loaded.env}, file {loaded.path}")
    for s in splits:  # one key/value table per split reads well at any terminal width
        table = _table(f"split {s.name}", "field", "value", wrap=("value",))
        table.add_row("generator", s.generator)
        table.add_row("kwargs", json.dumps(dict(s.kwargs)))
        table.add_row("seeds", f"{s.seeds.start}..{s.seeds.stop - 1} ({len(s)} scenarios)")
        table.add_row("recorded hashes", str(len(s.hashes)))
        for seed, digest in list(s.hashes.items())[:num_hashes]:
            table.add_row(f"seed {seed}", digest)
        console.print(table)


def _seed_list(seeds: list[int], limit: int = 10) -> str:
    shown = ", ".join(map(str, seeds[:limit]))
    return shown + (f" and {len(seeds) - limit} more" if len(seeds) > limit else "")


@scenarios_group.command("verify")
@click.argument("names", nargs=-1)
def scenarios_verify(names: tuple[str, ...]) -> None:
    """Regenerate every scenario of the named sets (default: all) and compare with the recorded hashes.

    Exits with code 1 if any scenario changed: a generator change that alters a recorded
    scenario is a version bump.
    """
    from benchmarkzoo import scenario_sets

    loaded = [scenario_sets.load_set(name) for name in (names or scenario_sets.list_sets())]
    table = _table(None, "set", "split", "scenarios", "status")
    failed: dict[tuple[str, str], list[int]] = {}
    for s in loaded:
        mismatches = scenario_sets.verify(s)
        for split in s.splits.values():
            seeds = [m.seed for m in mismatches if m.split == split.name]
            status = "OK" if not seeds else f"FAIL ({len(seeds)} mismatches)"
            table.add_row(s.name, split.name, str(len(split)), status)
            if seeds:
                failed[s.name, split.name] = seeds
    _console().print(table)
    if failed:
        err = _console(stderr=True)
        for (set_name, split_name), seeds in failed.items():
            err.print(f"{set_name} {split_name}: hashes differ for seeds {_seed_list(seeds)}")
        err.print(
            "A scenario changed. If the generator change is intended it is a version bump: run "
            "`benchmarkzoo scenarios record NAME` (which bumps the set's version) and bump the env's -vN "
            "if its default scenarios changed. Otherwise revert the generator change."
        )
        sys.exit(1)
    click.echo(f"All {sum(s.num_scenarios for s in loaded)} scenarios match their recorded hashes.")


@scenarios_group.command("record")
@click.argument("name")
def scenarios_record(name: str) -> None:
    """Recompute and rewrite every hash of a scenario set.

    This is a version bump: if any previously recorded hash changes, the set's version goes up
    by one, and results computed on the old scenarios no longer compare. Bump the env's -vN too
    if its default scenarios changed. Run `benchmarkzoo scenarios verify` first to see what changes.
    """
    from benchmarkzoo import scenario_sets

    result = scenario_sets.record(name)
    new = result.scenario_set
    click.echo(f"Recorded {new.num_scenarios} hashes of {new.name} in {new.path}.")
    if result.bumped:
        click.echo(f"{len(result.changed)} seeds changed: version {result.previous_version} -> {new.version}.")
    elif result.changed:
        click.echo(f"First recording of {len(result.changed)} seeds; version stays {new.version}.")
    else:
        click.echo(f"No hash changed; version stays {new.version}.")


# ---- rollout ------------------------------------------------------------------------------------


def rollout_baseline(spec: registration.EnvSpec, episodes: int, seed: int) -> dict[str, Any]:
    """Roll out ``spec.baseline`` for ``episodes`` episodes, episode ``k`` seeded with ``seed + k``.

    Returns:
        ``returns`` (per episode; summed over agents for parallel kinds, vectors for
        multi-objective kinds), ``lengths``, and ``successes`` (``info["is_success"]`` at the end
        of each episode, ``None`` where the env does not report it).

    Raises:
        ValueError: the spec names no baseline.
    """
    if spec.baseline is None:
        raise ValueError(f"{spec.id} has no baseline policy to roll out; pick an env whose spec names one.")
    policy = registration.load(spec.baseline)()
    returns, lengths, successes = [], [], []
    if spec.kind in ("single", "mo"):
        env = registration.make(spec.id)
        run_episode = _single_episode
    else:
        env = registration.make_parallel(spec.id)
        run_episode = _parallel_episode
    try:
        for k in range(episodes):
            total, length, success = run_episode(env, policy, seed + k, spec.id)
            returns.append(total)
            lengths.append(length)
            successes.append(success)
    finally:
        env.close()
    return {"returns": returns, "lengths": lengths, "successes": successes}


def _single_episode(env: Any, policy: Any, seed: int, env_id: str) -> tuple[Any, int, bool | None]:
    import numpy as np

    from benchmarkzoo import baselines

    observation, info = env.reset(seed=seed)
    total: Any = 0.0
    for length in range(1, MAX_ROLLOUT_STEPS + 1):
        observation, reward, terminated, truncated, info = env.step(baselines.act(policy, env, observation))
        total = total + np.asarray(reward, dtype=np.float64)
        if terminated or truncated:
            return total, length, info.get("is_success")
    raise RuntimeError(f"{env_id}: an episode ran {MAX_ROLLOUT_STEPS} steps without ending; give it a time limit.")


def _parallel_episode(env: Any, policy: Any, seed: int, env_id: str) -> tuple[Any, int, bool | None]:
    import numpy as np

    from benchmarkzoo import baselines

    observations, _ = env.reset(seed=seed)
    total: Any = 0.0
    infos: dict[str, Any] = {}
    for length in range(1, MAX_ROLLOUT_STEPS + 1):
        observations, rewards, _, _, infos = env.step(baselines.act(policy, env, observations))
        total = total + sum(np.asarray(r, dtype=np.float64) for r in rewards.values())
        if not env.agents:
            flags = [i.get("is_success") for i in infos.values()]
            return total, length, None if None in flags or not flags else all(flags)
    raise RuntimeError(f"{env_id}: an episode ran {MAX_ROLLOUT_STEPS} steps without ending; give it max_cycles.")


def _fmt(value: Any) -> str:
    import numpy as np

    arr = np.asarray(value, dtype=np.float64)
    return f"{float(arr):.3f}" if arr.ndim == 0 else "[" + ", ".join(f"{v:.3f}" for v in arr.ravel()) + "]"


def summarize(outcome: dict[str, Any]) -> dict[str, Any]:
    """Mean/min/max return (per objective for vector rewards), mean length and success rate."""
    import numpy as np

    returns = np.asarray(outcome["returns"], dtype=np.float64)  # (episodes,) or (episodes, objectives)
    successes = outcome["successes"]
    return {
        "episodes": len(outcome["lengths"]),
        "mean_return": returns.mean(axis=0).tolist(),
        "min_return": returns.min(axis=0).tolist(),
        "max_return": returns.max(axis=0).tolist(),
        "mean_length": float(np.mean(outcome["lengths"])),
        "success_rate": None if None in successes else float(np.mean(successes)),
    }


@cli.command("rollout")
@click.option("--episodes", "-n", default=5, show_default=True, type=click.IntRange(min=1), help="Episodes per env.")
@click.option(
    "--seed", "-s", default=0, show_default=True, type=click.IntRange(min=0), help="Episode k is seeded with SEED + k."
)
@click.option("--id", "env_ids", multiple=True, help="Only this env (repeatable). Default: every registered env.")
@_family_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON results instead of a table.")
def rollout_command(episodes: int, seed: int, env_ids: tuple[str, ...], family: str | None, as_json: bool) -> None:
    """Roll out every env's baseline policy and report returns, lengths and success rate.

    Envs whose extras are not installed are skipped (the extra is named). Exits with code 1 if
    any env raises.
    """
    specs = [registration.spec(i) for i in env_ids] if env_ids else registration.list_envs()
    specs = [spec for spec in specs if family is None or spec.family == family]
    rows: list[dict[str, Any]] = []
    for spec in specs:
        row: dict[str, Any] = {"id": spec.id}
        if spec.missing_extras:
            extras = ",".join(spec.missing_extras)
            row.update(status="skipped", reason=f'needs extra {extras!r}: pip install "benchmarkzoo[{extras}]"')
        elif spec.baseline is None:
            row.update(status="skipped", reason="no baseline policy registered")
        else:
            try:
                row.update(status="ok", **summarize(rollout_baseline(spec, episodes, seed)))
            except Exception as error:  # one broken env must not hide the others' results
                row.update(status="error", reason=f"{type(error).__name__}: {error}")
        rows.append(row)
    if as_json:
        _echo_json(rows)
    else:
        console = _console()
        table = _table(
            f"baseline rollouts: {episodes} episodes, seeds {seed}..{seed + episodes - 1}",
            "id",
            "status",
            "return",
            "min",
            "max",
            "length",
            "success",
        )
        for row in rows:
            if row["status"] != "ok":
                table.add_row(row["id"], row["status"], "", "", "", "", "")
                continue
            rate = "-" if row["success_rate"] is None else f"{row['success_rate']:.2f}"
            table.add_row(
                row["id"],
                "ok",
                _fmt(row["mean_return"]),
                _fmt(row["min_return"]),
                _fmt(row["max_return"]),
                f"{row['mean_length']:.1f}",
                rate,
            )
        console.print(table)
        console.print("return: mean episode return; length: mean episode length; success: rate of info['is_success'].")
        for row in rows:  # reasons below the table: they are long and would squeeze the numbers
            if row["status"] != "ok":
                console.print(f"{row['id']} {row['status']}: {row['reason']}")
    if any(row["status"] == "error" for row in rows):
        sys.exit(1)
