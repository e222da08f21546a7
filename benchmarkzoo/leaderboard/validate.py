"""Validation of untrusted results files. Nothing in a submission is executed.

A submission is refused, with the reason, when it is not a regular file, is too large, is not
strict JSON (:mod:`~benchmarkzoo.leaderboard.untrusted_json`: duplicate keys, out-of-range numbers,
deep nesting, control or format characters anywhere), violates the schema, or fails a check of
:mod:`~benchmarkzoo.leaderboard.checks`: an unknown suite, task, env, env spec or package version,
a failed task (suite aggregates skip failed tasks, so a partial run could hide its worst ones),
other episodes or seeds than the protocol prescribes, scenario hashes the suite's scenario sets do
not record, aggregates that differ from those recomputed from its raw episodes, or names that could
not be file names. Who may use a name is the store's question (:mod:`~benchmarkzoo.leaderboard.identity`).

:func:`validate_file` is total: whatever the bytes, it returns the results or raises
:class:`SubmissionError`.
"""

from __future__ import annotations

import contextlib
import functools
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from benchmarkzoo import registration
from benchmarkzoo.core.errors import BenchmarkZooError, UnknownEnvError
from benchmarkzoo.evaluation.results import Results, ScoreError, aggregates_of, as_claimed, suite_aggregates
from benchmarkzoo.evaluation.suites import Suite, SuiteError, load_suite, suite_path
from benchmarkzoo.leaderboard import checks
from benchmarkzoo.leaderboard.checks import LEADERBOARD_SEED, TaskCase
from benchmarkzoo.leaderboard.text import shown
from benchmarkzoo.leaderboard.untrusted_json import SubmissionError, parse
from benchmarkzoo.scenario_sets import Split, load_set

__all__ = [
    "LEADERBOARD_SEED",
    "MAX_BYTES",
    "SubmissionError",
    "load_custom_suite",
    "load_submission",
    "validate",
    "validate_file",
]

MAX_BYTES = 20 * 1024 * 1024
#: Prefix of a refusal caused by a bug in a check rather than by the file; the tests look for it.
INTERNAL = "internal error while checking the file"


def read_bytes(path: str | Path, max_bytes: int = MAX_BYTES, follow_links: bool = True) -> bytes:
    """The bytes of the regular file ``path``, at most ``max_bytes`` (a FIFO or ``/dev/zero`` is refused, not read).

    Messages do not repeat the path: every caller prints it before the reason.

    With ``follow_links=False`` a symbolic link at ``path`` is refused (``O_NOFOLLOW``).
    """
    flags = os.O_RDONLY | (0 if follow_links else getattr(os, "O_NOFOLLOW", 0)) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError as error:
        raise SubmissionError("no such file.") from error
    except OSError as error:
        link = not follow_links and os.path.islink(path)
        reason = "a symbolic link, which the leaderboard never follows" if link else error.strerror
        raise SubmissionError(f"cannot be read ({reason}).") from error
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise SubmissionError("not a regular file.")
        if info.st_size > max_bytes:
            raise SubmissionError(f"{info.st_size} bytes is over the {max_bytes}-byte limit.")
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise SubmissionError(f"over the {max_bytes}-byte limit.")
    return data


def parse_submission(data: bytes, walk: bool = True) -> Results:
    """Strict JSON, then the schema; raises :class:`SubmissionError` naming the first violation.

    ``walk``: as :func:`~benchmarkzoo.leaderboard.untrusted_json.parse`'s (only for bytes accepted before).
    """
    value = parse(data, walk)
    try:
        return Results.model_validate(value)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(shown(p, 40) if isinstance(p, str) and not p.isidentifier() else str(p) for p in first["loc"])
        raise SubmissionError(f"schema violation at {where}: {first['msg']}.") from error


def load_submission(path: str | Path, max_bytes: int = MAX_BYTES, follow_links: bool = True) -> Results:
    """Read, parse and schema-check a results file."""
    return parse_submission(read_bytes(path, max_bytes, follow_links))


@functools.lru_cache(maxsize=64)
def _split(scenario_set: str, split: str) -> Split:
    """A suite's split, read once per process: ``build`` validates many files of the same suites."""
    return load_set(scenario_set).split(split)


def _task_cases(results: Results, suite: Suite) -> list[TaskCase]:
    cases = []
    for task, result in zip(suite.tasks, results.tasks):
        where = f"task {task.id}"
        try:
            spec = registration.spec(result.env_id)
        except UnknownEnvError as error:
            raise SubmissionError(f"{where}: {error}") from error
        split = _split(task.scenario_set, task.split)
        cases.append(TaskCase(where, task, result, spec, split, results.protocol_seed))
    return cases


def load_custom_suite(path: str | Path) -> Suite:
    """A suite file given by the person validating (``leaderboard validate --suite PATH``), checked whole.

    The file has the shipped suites' format; every task's env must be registered and its scenario
    split must exist, so that a bad suite fails here, once, and not as a refusal of every submission.

    Raises:
        SuiteError: the file is missing, not a ``.yaml``/``.yml`` file, not valid YAML, not a suite,
            or names an unknown env or scenario split; the message names the file and the problem.
    """
    path = Path(path)
    if path.suffix not in (".yaml", ".yml") or not path.is_file():
        what = "no such file" if not path.exists() else "not a .yaml or .yml file"
        raise SuiteError(f"suite file {path}: {what}; give the path of a suite YAML (the format of the shipped ones).")
    suite = load_suite(path)
    for task in suite.tasks:
        try:
            registration.spec(task.env)
            _split(task.scenario_set, task.split)
        except (BenchmarkZooError, KeyError) as error:  # an unknown env, scenario set or split
            raise SuiteError(f"suite file {path}: task {task.id}: {error}") from error
    return suite


def validate(results: Results, suite: Suite | None = None) -> None:
    """Check a parsed results file against the protocol; raise :class:`SubmissionError` with the reason.

    Args:
        results: the parsed (untrusted) file.
        suite: the suite to check it against (:func:`load_custom_suite`); by default the shipped
            suite the file names, looked up by name only: a submission never names a file.
    """
    for file_check in checks.FILE_CHECKS:
        _refuse(file_check(results))
    if suite is None:
        try:
            suite = load_suite(suite_path(results.suite))
        except SuiteError as error:
            hint = " (a custom suite: give its file, `leaderboard validate --suite PATH`)"
            raise SubmissionError(f"unknown suite: {error}{hint}") from error
    if suite.name != results.suite:
        raise SubmissionError(
            f"unknown suite: the file names {shown(results.suite)}, the suite file is {suite.name!r}."
        )
    _refuse(checks.task_ids(results, suite))
    for case in _task_cases(results, suite):
        for task_check in checks.TASK_CHECKS:
            _refuse(task_check(case))
    _check_aggregates(results)


def _dump(model: Any) -> Any:
    return None if model is None else model.model_dump(mode="json")


def _check_aggregates(results: Results) -> None:
    """Every aggregate equals the one recomputed from the raw episodes (as :func:`recompute` would give).

    Task by task first: the suite's stratified bootstraps cost the most, so a forged task is refused before them.
    """
    try:
        for task in results.tasks:
            if not checks.close(_dump(as_claimed(aggregates_of(task), task.aggregates)), _dump(task.aggregates)):
                raise SubmissionError(
                    f"task {task.id}: the aggregates do not match those recomputed from the raw episodes."
                )
        if not checks.close(_dump(suite_aggregates(results.tasks)), _dump(results.aggregates)):
            raise SubmissionError("the suite aggregates do not match those recomputed from the raw episodes.")
    except ScoreError as error:
        raise SubmissionError(f"the episodes cannot be scored: {error}") from error
    except (ValidationError, OverflowError, FloatingPointError, ValueError) as error:
        if isinstance(error, SubmissionError):
            raise
        raise SubmissionError(f"the episodes cannot be scored: {type(error).__name__}: {shown(str(error))}.") from error


def _check_returns(where: str, spec: registration.EnvSpec, episodes: list) -> None:
    """Raise :class:`SubmissionError` unless every return is shaped as ``spec``'s kind (see :mod:`.checks`)."""
    _refuse(checks.return_shape_problem(where, spec.kind, episodes))


def _refuse(message: str | None) -> None:
    if message is not None:
        raise SubmissionError(message)


def validate_file(
    path: str | Path, max_bytes: int = MAX_BYTES, follow_links: bool = True, suite: Suite | None = None
) -> Results:
    """Load and validate ``path``; returns the results when they are accepted, else raises :class:`SubmissionError`.

    ``suite``: as :func:`validate`'s (default: the shipped suite the file names).

    Any other exception would be a bug in a check; it is still reported as a refusal (starting with
    :data:`INTERNAL`), never as a traceback, so ``build`` survives any stored file.
    """
    with refusals():
        results = load_submission(path, max_bytes, follow_links)
        validate(results, suite)
    return results


@contextlib.contextmanager
def refusals() -> Iterator[None]:
    """Turn any exception but a :class:`SubmissionError` into one starting with :data:`INTERNAL`."""
    try:
        yield
    except SubmissionError:
        raise
    except Exception as error:  # the one place every failure becomes a refusal
        raise SubmissionError(f"{INTERNAL} ({type(error).__name__}: {shown(str(error))}); please report it.") from error
