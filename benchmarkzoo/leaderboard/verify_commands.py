"""CLI command ``benchmarkzoo leaderboard verify``; mounted by :mod:`benchmarkzoo.leaderboard.commands`.

Exit codes: 0 when every replayed episode matches, 1 at the first mismatch (named), 2 when the file is
refused by validation or cannot be replayed here (the message says why and what to pass).
"""

from __future__ import annotations

import sys
from pathlib import Path

import click
from typing_extensions import override

from benchmarkzoo.leaderboard.options import root_option


class EpisodesType(click.ParamType):
    """``--episodes K`` (a positive integer, per task) or ``--episodes all``; converts to ``int | None``."""

    name = "K|all"

    @override
    def convert(self, value, param, ctx):
        if value is None or isinstance(value, int):
            return value
        if str(value).strip().lower() == "all":
            return None
        try:
            number = int(value)
        except ValueError:
            number = 0
        if number < 1:
            self.fail(f"expected a positive number of episodes per task or 'all'; got {value!r}.", param, ctx)
        return number


EPISODES = click.option(
    "--episodes",
    type=EpisodesType(),
    default="4",
    show_default=True,
    help="Episodes replayed per task, chosen from a seed derived from the file's content; 'all' replays every one.",
)
POLICY = click.option(
    "--policy",
    default=None,
    help="The submission's ONNX model (MODEL.onnx) or bundle (FOLDER/); with --trust-policy-code, a code policy spec "
    "(sb3:MODEL.zip, module:callable). Default: the stored model of the submission's policy hash, or its own spec.",
)
TRUST = click.option(
    "--trust-policy-code",
    is_flag=True,
    help="Replay code policies (module:, file.py:, sb3:, rllib:). They run arbitrary code on this machine: "
    "use only after reviewing the code.",
)


@click.command("verify")
@click.argument("file", type=click.Path(path_type=Path))
@POLICY
@EPISODES
@TRUST
@root_option("The leaderboard folder (its models/ holds submitted ONNX policies).")
def verify_command(file: Path, policy: str | None, episodes: int | None, trust_policy_code: bool, root: Path) -> None:
    """Replay episodes of results FILE with its policy; exit 0 only if every replayed outcome matches."""
    from benchmarkzoo.leaderboard.verify import verify_file

    found = verify_file(file, policy, episodes, trust_policy_code, root)
    if found.verified:
        how = ", ".join(
            f"{task} {'exactly' if found.exact.get(task) else 'within tolerance'}" for task in found.episodes
        )
        click.echo(f"{file}: verified ({found.replayed_episodes} of {found.total_episodes} replayed; {how})")
        return
    click.echo(f"{file}: NOT verified: {found.mismatch}", err=True)
    sys.exit(1)


def add_verified_files(
    files: tuple[Path, ...],
    root: Path,
    policy: str | None,
    episodes: int | None,
    trust_policy_code: bool,
    submitter: str | None = None,
    reference: bool = False,
) -> None:
    """``leaderboard add --verify``: each file is stored only if its replay matches; exit 1 at the first mismatch."""
    from benchmarkzoo.leaderboard.verify import ReplayMismatchError, add_verified

    if policy is not None and len(files) > 1:
        raise click.UsageError("--policy names the model of one submission; add the files one at a time.")
    for file in files:
        try:
            dest, found = add_verified(
                file, root, policy, episodes, trust_policy_code, submitter=submitter, reference=reference
            )
        except ReplayMismatchError as error:
            click.echo(f"{file}: refused: {error}", err=True)
            sys.exit(1)
        click.echo(f"{file}: stored as {dest}, verified ({found.replayed_episodes} of {found.total_episodes} replayed)")
