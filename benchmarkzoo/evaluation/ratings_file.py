"""The JSON file ``benchmarkzoo ratings --out`` writes, as a model: what the writer checks and the site reads.

:func:`~benchmarkzoo.evaluation.ratings.write_json` validates a round robin's result through
:class:`RatingsFile` before writing, and the leaderboard site reads committed files through
:func:`read_ratings`, so the two cannot drift apart. Beyond the fields' types, a file must hold
together the way :func:`~benchmarkzoo.evaluation.ratings._summarise` makes it: square matrices
over the pool, every pairing played ``matches_per_pairing`` times, wins of one side the losses of
the other, win rates and Wilson intervals that follow from the counts, ratings over the same
pool in rank order with ``ci = mu ± 1.96 sigma``. A hand-edited or truncated file is refused
with the first place it does not hold together. :func:`command` is the command that makes a
file again (the round robin is seeded and bit-for-bit reproducible).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from benchmarkzoo.core.errors import BenchmarkZooError
from benchmarkzoo.evaluation import ratings

#: Largest ratings file read (the 11-policy FightingDuel file is about 25 kB).
MAX_BYTES = 2_000_000


class RatingsFileError(BenchmarkZooError, ValueError):
    """A ratings file that is missing, not JSON, or not what ``benchmarkzoo ratings --out`` writes."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, frozen=True)


class WinRate(_Model):
    """One policy's score against one opponent (draws count half) and its 95% Wilson interval."""

    rate: float = Field(ge=0.0, le=1.0)
    ci: tuple[float, float]


class Rating(_Model):
    """One policy's openskill rating: ``ci`` is ``mu ± 1.96 sigma``; ``win_rate`` over all its matches."""

    policy: str
    mu: float
    sigma: float = Field(gt=0.0)
    ci: tuple[float, float]
    win_rate: float = Field(ge=0.0, le=1.0)


class RatingsFile(_Model):
    """A round robin of ``benchmarkzoo ratings``: counts, win rates and ratings of one pool of policies.

    ``wins[i][j]`` counts the matches ``policies[i]`` won against ``policies[j]``; ``win_rate[a][b]``
    is ``a``'s score against ``b``; ``ratings`` run from the highest ``mu`` down.
    """

    env: Literal["benchmarkzoo/FightingDuel-v0", "benchmarkzoo/RPSSelfPlay-v0"]
    seed: int = Field(ge=0)
    matches_per_pairing: int = Field(ge=2, multiple_of=2)
    rounds_per_match: int | None = Field(default=None, ge=1)
    rating_model: str
    policies: list[str] = Field(min_length=2)
    wins: list[list[int]]
    draws: list[list[int]]
    losses: list[list[int]]
    win_rate: dict[str, dict[str, WinRate]]
    ratings: list[Rating]

    @model_validator(mode="after")
    def _holds_together(self) -> RatingsFile:
        problem = next(_problems(self), None)
        if problem is not None:
            raise ValueError(problem)
        return self

    @property
    def option(self) -> str:
        """The ``--env`` choice of ``benchmarkzoo ratings`` that plays this env."""
        return "rps" if self.env == "benchmarkzoo/RPSSelfPlay-v0" else "fighting"


def _known(env: str) -> tuple[str, ...]:
    return tuple(ratings.RPS_POLICIES) if env == "benchmarkzoo/RPSSelfPlay-v0" else tuple(ratings.known_policies())


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def _problems(f: RatingsFile) -> Iterator[str]:
    """Every way ``f`` departs from what the round robin writes, the first one first (lazily: stops at the first)."""
    pool, m, n = f.policies, f.matches_per_pairing, len(f.policies)
    unknown = [p for p in pool if p not in _known(f.env)]
    if unknown or len(set(pool)) != n:
        yield f"policies: expected distinct names out of {list(_known(f.env))}; got {pool}"
    if (f.rounds_per_match is None) != (f.env != "benchmarkzoo/RPSSelfPlay-v0"):
        yield "rounds_per_match: expected for benchmarkzoo/RPSSelfPlay-v0 files only"
    for name in ("wins", "draws", "losses"):
        matrix = getattr(f, name)
        if len(matrix) != n or any(len(row) != n for row in matrix):
            yield f"{name}: expected a {n} x {n} matrix (one row and column per policy)"
            return  # the checks below index the matrices
        if any(v < 0 for row in matrix for v in row):
            yield f"{name}: expected counts >= 0"
    w, d, lo = f.wins, f.draws, f.losses
    for i in range(n):
        for j in range(n):
            played = w[i][j] + d[i][j] + lo[i][j]
            if played != (0 if i == j else m):
                yield (
                    f"wins + draws + losses [{i}][{j}] ({pool[i]!r} against {pool[j]!r}): {played} matches, "
                    f"expected {0 if i == j else m}"
                )
            if w[i][j] != lo[j][i] or d[i][j] != d[j][i]:
                yield (
                    f"wins[{i}][{j}] ({pool[i]!r} against {pool[j]!r}): expected the losses [{j}][{i}] of the "
                    "other side, and the same draws"
                )
    if set(f.win_rate) != set(pool):
        yield f"win_rate: expected one row per policy {pool}; got {sorted(f.win_rate)}"
        return
    for i, a in enumerate(pool):
        if set(f.win_rate[a]) != set(pool) - {a}:
            yield f"win_rate[{a!r}]: expected one entry per opponent"
            return
        for j, b in enumerate(pool):
            if i == j:
                continue
            score, cell = w[i][j] + 0.5 * d[i][j], f.win_rate[a][b]
            low, high = ratings.wilson(score, m)
            if not (_close(cell.rate, score / m) and _close(cell.ci[0], low) and _close(cell.ci[1], high)):
                yield (
                    f"win_rate[{a!r}][{b!r}]: expected rate {score / m} and Wilson interval [{low}, {high}] "
                    f"from the counts; got {cell.rate} and {list(cell.ci)}"
                )
    if sorted(r.policy for r in f.ratings) != sorted(pool):
        yield f"ratings: expected one rating per policy {pool}; got {[r.policy for r in f.ratings]}"
    if any(a.mu < b.mu for a, b in zip(f.ratings, f.ratings[1:])):
        yield "ratings: expected the highest mu first (the order `benchmarkzoo ratings` writes)"
    for r in f.ratings:
        spread = ratings.Z95 * r.sigma
        if not (_close(r.ci[0], r.mu - spread) and _close(r.ci[1], r.mu + spread)):
            yield f"ratings[{r.policy!r}].ci: expected mu ± 1.96 sigma, [{r.mu - spread}, {r.mu + spread}]"


def command(f: RatingsFile, out: str) -> str:
    """The ``benchmarkzoo ratings`` command line that writes ``f`` again, to ``out``."""
    parts = ["benchmarkzoo ratings"]
    if f.option != "fighting":
        parts.append(f"--env {f.option}")
    if f.rounds_per_match is not None:
        parts.append(f"--rounds {f.rounds_per_match}")
    parts += [f"--policies {','.join(f.policies)}", f"--matches {f.matches_per_pairing}", f"--seed {f.seed}"]
    return " ".join([*parts, f"--out {out}"])


def _first_error(error: ValidationError) -> str:
    first = error.errors(include_url=False)[0]
    where = "".join(f"{p}: " if k == len(first["loc"]) - 1 else f"{p}." for k, p in enumerate(first["loc"]))
    more = f" (and {error.error_count() - 1} more)" if error.error_count() > 1 else ""
    return f"{where}{first['msg'].removeprefix('Value error, ')}{more}"


def read_ratings(path: str | Path) -> RatingsFile:
    """The ratings file at ``path``; raises :class:`RatingsFileError` naming the file, the fault and the way on."""
    from benchmarkzoo.leaderboard.untrusted_json import SubmissionError, parse

    path = Path(path)
    remedy = (
        "write it again with `benchmarkzoo ratings ... --out` (the commands are in the Makefile's leaderboard "
        "target), or remove it to build the site without its ratings"
    )
    try:
        if not path.is_file() or path.is_symlink():
            raise RatingsFileError(f"ratings file {path} is not a regular file; {remedy}.")
        if path.stat().st_size > MAX_BYTES:
            raise RatingsFileError(f"ratings file {path} is larger than {MAX_BYTES} bytes; {remedy}.")
        data = parse(path.read_bytes())
    except OSError as error:
        raise RatingsFileError(f"ratings file {path} cannot be read ({error.strerror}); {remedy}.") from error
    except SubmissionError as error:
        raise RatingsFileError(f"ratings file {path}: {str(error).rstrip('.')}; {remedy}.") from error
    try:
        return RatingsFile.model_validate(data)
    except ValidationError as error:
        raise RatingsFileError(
            f"ratings file {path} is not what `benchmarkzoo ratings --out` writes: {_first_error(error)}; {remedy}."
        ) from error


__all__ = ["Rating", "RatingsFile", "RatingsFileError", "WinRate", "command", "read_ratings"]
