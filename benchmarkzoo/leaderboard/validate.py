"""Validation of untrusted results files. Nothing in a submission is executed.

A submission is refused, with the reason, when it is too large, is not JSON, contains NaN or
infinite numbers, violates the schema, names an unknown suite, task, env or version, has a
failed task (suite aggregates skip failed tasks, so a partial run could hide its worst ones), played
other episodes or seeds than the protocol prescribes, cites scenario hashes the suite's
scenario sets do not record, carries aggregates that differ from those recomputed from its raw
episodes, or has names that could escape the submissions folder.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from benchmarkzoo import registration
from benchmarkzoo.core.errors import BenchmarkZooError, UnknownEnvError
from benchmarkzoo.core.seeding import derive_seed
from benchmarkzoo.evaluation.fronts import pareto_fronts
from benchmarkzoo.evaluation.results import Results, ScoreError, recompute
from benchmarkzoo.evaluation.suites import SuiteError, load_suite, suite_path
from benchmarkzoo.scenario_sets import load_set

LEADERBOARD_SEED = 0
MAX_BYTES = 20 * 1024 * 1024
SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:+-]{0,99}$")


class SubmissionError(BenchmarkZooError, ValueError):
    """A submission that is refused; the message is the reason."""


def _reject_constant(token: str) -> Any:
    raise SubmissionError(f"the file contains {token}: only finite numbers are allowed.")


def _close(a: Any, b: Any) -> bool:
    """Exact equality for everything but floats, which may differ in the last bits across platforms."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        numbers = isinstance(a, int | float) and isinstance(b, int | float)
        return numbers and math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    return a == b


def load_submission(path: str | Path, max_bytes: int = MAX_BYTES) -> Results:
    """Parse and schema-check a results file, refusing oversize, non-JSON and non-finite input."""
    path = Path(path)
    if not path.is_file():
        raise SubmissionError(f"{path}: no such file.")
    size = path.stat().st_size
    if size > max_bytes:
        raise SubmissionError(f"{path}: {size} bytes is over the {max_bytes}-byte limit.")
    try:
        data = json.loads(path.read_bytes(), parse_constant=_reject_constant)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as error:
        raise SubmissionError(f"{path}: not valid JSON ({error}).") from error
    try:
        return Results.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise SubmissionError(f"{path}: schema violation at {where}: {first['msg']}.") from error


def validate(results: Results) -> None:
    """Check a parsed results file against the protocol; raise :class:`SubmissionError` with the reason."""
    if results.protocol_seed != LEADERBOARD_SEED:
        # One fixed seed for everyone: otherwise a submitter could shop for a lucky seed.
        raise SubmissionError(
            f"leaderboard entries are evaluated with the protocol seed {LEADERBOARD_SEED}; the file used "
            f"{results.protocol_seed}. Re-run `benchmarkzoo evaluate` without --seed."
        )
    if not SAFE_NAME.match(results.policy.name):
        raise SubmissionError(f"policy name {results.policy.name!r} must match {SAFE_NAME.pattern}.")
    try:
        suite = load_suite(suite_path(results.suite))  # by name only: a submission never names a file
    except SuiteError as error:
        raise SubmissionError(f"unknown suite: {error}") from error
    if suite.name != results.suite:
        raise SubmissionError(f"unknown suite: the file names {results.suite!r}, the suite file is {suite.name!r}.")
    if [t.id for t in results.tasks] != [t.id for t in suite.tasks]:
        raise SubmissionError(
            f"suite {suite.name} has tasks {[t.id for t in suite.tasks]}; the file has {[t.id for t in results.tasks]}."
        )
    for task, result in zip(suite.tasks, results.tasks):
        where = f"task {task.id}"
        try:
            spec = registration.spec(result.env_id)
        except UnknownEnvError as error:
            raise SubmissionError(f"{where}: {error}") from error
        if spec.id != task.env or result.env_spec.get("id") != task.env:
            raise SubmissionError(f"{where}: the suite runs {task.env}; the file ran {result.env_id}.")
        if (result.scenario_set, result.split) != (task.scenario_set, task.split):
            raise SubmissionError(f"{where}: the suite plays {task.scenario_set}:{task.split}.")
        if result.status == "incomplete":
            raise SubmissionError(
                f"{where} is incomplete ({len(result.episodes)} of {task.episodes} episodes); finish the run with "
                "`benchmarkzoo evaluate --resume --out FILE`: the leaderboard takes complete runs only."
            )
        if result.status != "ok":
            # Suite aggregates skip failed tasks, so a partial run could hide its worst tasks.
            raise SubmissionError(f"{where} failed ({result.error}); the leaderboard takes complete runs only.")
        if len(result.episodes) != task.episodes:
            raise SubmissionError(
                f"{where}: the protocol plays {task.episodes} episodes; the file has {len(result.episodes)}."
            )
        split = load_set(task.scenario_set).split(task.split)
        seeds = list(split.seeds)
        for k, episode in enumerate(result.episodes):
            expected_seed = derive_seed(results.protocol_seed, task.id, k)
            expected_scenario = seeds[k % len(seeds)]
            if (episode.index, episode.seed, episode.scenario_seed) != (k, expected_seed, expected_scenario):
                raise SubmissionError(
                    f"{where}, episode {k}: the protocol (seed {results.protocol_seed}) prescribes "
                    f"seed {expected_seed} on scenario {expected_scenario}; the file has index {episode.index}, "
                    f"seed {episode.seed}, scenario {episode.scenario_seed}."
                )
            if split.hashes.get(episode.scenario_seed) != episode.scenario_hash:
                raise SubmissionError(
                    f"{where}, episode {k}: scenario hash {episode.scenario_hash[:12]} is not the recorded one."
                )
        expected_refs = None
        if task.references is not None:
            expected_refs = {"random": task.references.random, "baseline": task.references.baseline}
        if result.references != expected_refs:
            raise SubmissionError(f"{where}: normalization references differ from the suite's.")
        if result.kind != spec.kind:
            raise SubmissionError(f"{where}: {spec.id} is a {spec.kind!r} env; the file says {result.kind!r}.")
        if (result.score, result.multi_objective) != (task.score, task.multi_objective):
            raise SubmissionError(f"{where}: the score or multi-objective settings differ from the suite's.")
        _check_returns(where, spec, result.episodes)
        from benchmarkzoo.leaderboard.plausibility import check_plausible  # it imports SubmissionError from here

        check_plausible(where, task, spec, result, split)
        fronts = pareto_fronts(task, split, [e.scenario_seed for e in result.episodes])
        if not _close(result.pareto_fronts, fronts):
            raise SubmissionError(f"{where}: the recorded Pareto fronts are not the env's exact fronts.")
    try:
        recomputed = recompute(results)
    except ScoreError as error:
        raise SubmissionError(f"the episodes cannot be scored: {error}") from error
    if not _close(recomputed.model_dump(mode="json"), results.model_dump(mode="json")):
        raise SubmissionError("the aggregates do not match those recomputed from the raw episodes.")


def _check_returns(where: str, spec: registration.EnvSpec, episodes: list) -> None:
    """Returns shaped as the env's kind: a number, one per objective, one per agent summing to the team return,
    or one list per agent with an entry per objective (moma)."""
    for episode in episodes:
        ret, team = episode.episode_return, episode.team_return
        if spec.kind == "parallel":
            ok = isinstance(ret, list) and all(isinstance(r, int | float) for r in ret) and team is not None
            ok = ok and math.isclose(math.fsum(ret), team, rel_tol=1e-9, abs_tol=1e-9)
        elif spec.kind == "mo":
            ok = isinstance(ret, list) and all(isinstance(r, int | float) for r in ret) and team is None
        elif spec.kind == "single":
            ok = isinstance(ret, int | float) and team is None
        elif spec.kind == "moma":
            ok = isinstance(ret, list) and bool(ret) and team is None and all(
                isinstance(r, list) and len(r) == len(ret[0]) and all(isinstance(v, int | float) for v in r)
                for r in ret
            )
        else:
            ok = True
        if not ok:
            raise SubmissionError(
                f"{where}, episode {episode.index}: return {ret!r} (team return {team!r}) is not shaped as a "
                f"{spec.kind!r} env's."
            )


def validate_file(path: str | Path, max_bytes: int = MAX_BYTES) -> Results:
    """Load and validate ``path``; returns the results when they are accepted."""
    results = load_submission(path, max_bytes)
    validate(results)
    return results
