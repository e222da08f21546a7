"""CLI commands ``benchmarkzoo leaderboard validate|add|verify|build|compare|schema`` (mounted by the CLI).

``verify`` (and the options of ``add --verify``) live in :mod:`benchmarkzoo.leaderboard.verify_commands`.
A refused submission exits with code 2 (bad input, as every benchmarkzoo error), with the reason
and never a traceback; untrusted text in a reason is escaped (:func:`~benchmarkzoo.leaderboard.text.shown`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import click

from benchmarkzoo.leaderboard.options import animate_option, root_option
from benchmarkzoo.leaderboard.verify_commands import EPISODES as VERIFY_EPISODES
from benchmarkzoo.leaderboard.verify_commands import POLICY as VERIFY_POLICY
from benchmarkzoo.leaderboard.verify_commands import TRUST as VERIFY_TRUST

_ROOT = root_option("The leaderboard folder.")


def _each_file(files: tuple[Path, ...], outcome: Callable[[Path], str]) -> None:
    """Echo ``FILE: outcome(FILE)`` for every file, or its refusal on stderr; exit 2 if any was refused."""
    from benchmarkzoo.leaderboard.text import printable
    from benchmarkzoo.leaderboard.validate import SubmissionError

    failed = False
    for file in files:
        try:
            click.echo(f"{printable(str(file))}: {outcome(file)}")
        except SubmissionError as error:
            click.echo(f"{printable(str(file))}: refused: {error}", err=True)
            failed = True
    if failed:
        sys.exit(2)


@click.group("leaderboard")
def leaderboard_group() -> None:
    """Validate, add and build leaderboard submissions (results files are untrusted input)."""


@leaderboard_group.command("validate")
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--suite",
    "suite_file",
    type=click.Path(path_type=Path),
    default=None,
    help="A custom suite's YAML file to validate against (default: the shipped suite each file names).",
)
def validate_command(files: tuple[Path, ...], suite_file: Path | None) -> None:
    """Check results files against the schema and the protocol; exit 2 if any is refused."""
    from benchmarkzoo.evaluation.suites import SuiteError
    from benchmarkzoo.leaderboard.validate import load_custom_suite, validate_file

    suite = None
    if suite_file is not None:
        try:
            suite = load_custom_suite(suite_file)
        except SuiteError as error:
            raise click.BadParameter(str(error), param_hint="'--suite'") from error

    def valid(file: Path) -> str:
        validate_file(file, suite=suite)
        return "valid"

    _each_file(files, valid)


@leaderboard_group.command("add")
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@_ROOT
@click.option("--submitter", default=None, help="Who submits the files (a name like a policy name); kept in the entry.")
@click.option(
    "--reference",
    is_flag=True,
    help="Maintainers only: add reference entries (submitter 'benchmarkzoo'; reserved names such as baseline).",
)
@click.option("--verify", is_flag=True, help="Replay episodes first (see `leaderboard verify`); store only on a match.")
@VERIFY_POLICY
@VERIFY_EPISODES
@VERIFY_TRUST
def add_command(
    files: tuple[Path, ...],
    root: Path,
    submitter: str | None,
    reference: bool,
    verify: bool,
    policy: str | None,
    episodes: int | None,
    trust_policy_code: bool,
) -> None:
    """Validate results files, check their names, and store them under ROOT/submissions/<suite>/.

    Each file is stored whole or not at all; the command exits 2 if any is refused (1 if a replay
    with --verify does not match).
    """
    from benchmarkzoo.leaderboard.store import add

    if verify:
        from benchmarkzoo.leaderboard.verify_commands import add_verified_files

        add_verified_files(files, root, policy, episodes, trust_policy_code, submitter, reference)
        return
    if policy is not None or trust_policy_code:
        raise click.UsageError("--policy and --trust-policy-code go with --verify.")
    _each_file(files, lambda file: f"stored as {add(file, root, submitter, reference)}")


@leaderboard_group.command("build")
@_ROOT
@animate_option()
def build_command(root: Path, families: frozenset[str]) -> None:
    """Rank every valid submission per suite; write ROOT/leaderboard.json and the static site ROOT/site.

    The site has a ratings page when ROOT/ratings/ holds `benchmarkzoo ratings --out` files.
    """
    from benchmarkzoo.leaderboard.site.builder import load_ratings
    from benchmarkzoo.leaderboard.site.commands import write_collection_site
    from benchmarkzoo.leaderboard.store import collect, write_board

    ratings = load_ratings(root)  # a bad ratings file stops the build before anything is written
    collection = collect(root)  # one list of accepted entries for the JSON and the site
    for reason in collection.refused:
        click.echo(f"skipped {reason}", err=True)
    click.echo(f"wrote {write_board(root, collection)}")
    write_collection_site(root, collection, ratings, families)


@leaderboard_group.command("compare")
@click.argument("a", type=click.Path(path_type=Path))
@click.argument("b", type=click.Path(path_type=Path))
def compare_command(a: Path, b: Path) -> None:
    """Probability that results A improve on results B, with its 95% stratified bootstrap interval."""
    from benchmarkzoo.leaderboard.compare import compare_files

    result = compare_files(a, b)
    for task, probability in result.per_task.items():
        click.echo(f"  {task:28s} P(A > B) = {probability:.3f}")
    click.echo(
        f"{result.suite}: P({result.a} > {result.b}) = {result.probability:.3f} "
        f"[{result.ci[0]:.3f}, {result.ci[1]:.3f}] over {len(result.per_task)} tasks"
    )


@leaderboard_group.command("schema")
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Where to write the JSON Schema of results files. [default: ROOT/schema/results-v<N>.json]",
)
@_ROOT
def schema_command(out: Path | None, root: Path) -> None:
    """Export the JSON Schema of results files (re-run after any change to the results models)."""
    from benchmarkzoo.evaluation.results import SCHEMA_VERSION, export_schema

    out = out if out is not None else root / "schema" / f"results-v{SCHEMA_VERSION}.json"
    export_schema(out)
    click.echo(f"wrote {out}")


def _mount_site_commands() -> None:
    from benchmarkzoo.leaderboard.site.commands import serve_command, site_command
    from benchmarkzoo.leaderboard.verify_commands import verify_command

    leaderboard_group.add_command(site_command)
    leaderboard_group.add_command(serve_command)
    leaderboard_group.add_command(verify_command)


_mount_site_commands()
