"""Build the static leaderboard site from leaderboard JSON and the parsed submissions it ranks.

Layout of the site (every link relative, so it works from ``file://`` and any static host)::

    index.html                         every suite's ranking
    static/style.css
    <suite>/index.html                 the suite overview: ranking, intervals, profiles, P(X > Y)
    <suite>/generalization.html        train beside test beside ood (suites that play a scenario set on several splits)
    <suite>/tasks/<task>.html          per-episode distributions, success rates, domain metrics
    <suite>/submissions/<entry>.html   provenance; <entry>.json is the submission as validated
    <suite>/plots/*.svg
    animations/<sha256>.svg|gif        replays of tasks' median episodes, named by content (built with the root)
    ratings.html                       competitive envs' round robins (from ROOT/ratings/*.json, when there are any)
    ratings.<env>.svg                  their win-rate heat maps (dotted names: no suite's folder can be one)

File names are slugs made by the builder (never a submission's text), the numbers of the ranking
come from leaderboard JSON, and nothing depends on the clock or absolute paths: the same inputs
give the same bytes.

This module orchestrates; each page's data and plots come from its own module: ``suite_view``
(the overview and its suite-level plots), ``task_view`` (a task's table and distributions),
``mo_view`` (a multi-objective task's Pareto plots), ``animation_view`` (a task's replayed median
episode, rendered and cached by ``animations``), ``generalization_view`` (train, test and ood side by
side), ``ratings_view`` (the ratings page of the competitive envs), with ``files`` for slugs and writes.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from benchmarkzoo.evaluation.results import Results
from benchmarkzoo.leaderboard.site.files import slug, write
from benchmarkzoo.leaderboard.site.generalization_view import generalization_view
from benchmarkzoo.leaderboard.site.ratings_view import RatingsSource, links, load_ratings, ratings_view
from benchmarkzoo.leaderboard.site.suite_view import entry_view, suite_meta, suite_plots
from benchmarkzoo.leaderboard.site.task_view import task_view
from benchmarkzoo.leaderboard.site.templating import environment
from benchmarkzoo.leaderboard.store import safe_folder
from benchmarkzoo.leaderboard.text import shown
from benchmarkzoo.leaderboard.validate import SubmissionError, read_bytes, validate_file

__all__ = ["MARKER", "SITE_DIR", "build_site", "build_site_from_root", "load_board", "load_ratings", "slug"]

SITE_DIR = "site"
#: Written into every built site, so a rebuild only ever replaces a folder this module made.
MARKER = ".benchmarkzoo-site"
STATIC = Path(__file__).parent / "static"


def build_site(
    board: Mapping[str, Any],
    submissions: Mapping[str, Results],
    out: str | Path,
    ratings: Sequence[RatingsSource] = (),
    root: str | Path | None = None,
    families: Collection[str] | None = None,
) -> Path:
    """Write the site for ``board`` (leaderboard JSON) into ``out``; returns the path of its index page.

    Args:
        board: the parsed ``leaderboard.json``; entries whose submission is not in ``submissions`` are left out.
        submissions: parsed results by the entry's ``submission`` path (as in leaderboard JSON).
        out: the site folder; replaced as a whole, but only if it is empty or a site this function wrote.
        ratings: round robins of competitive envs (:func:`load_ratings`); none, no ratings page.
        root: the leaderboard folder the submissions (and ONNX models) are stored in; given, each task page
            shows a replay of its best verified entry's median episode (``animation_view``); ``None``, none.
        families: the env families replayed (default ``animation_view.DEFAULT_FAMILIES``).
    """
    out = Path(out).parent.resolve() / Path(out).name  # the folder itself is never followed if it is a link
    tmp = _building_folder(out)
    env = environment()
    suites = []
    for suite_name, suite in sorted(board.get("suites", {}).items()):
        replays = None if root is None else (Path(root).resolve(), families)
        suites.append(_suite_view(suite_name, suite, submissions, tmp, replays))
    page = ratings_view(ratings, suites, tmp)
    for view in suites:
        view["ratings"] = links(page, view["envs"])
        _write_suite_pages(env, view, tmp)
    if page is not None:
        write(tmp / page["href"], env.get_template("ratings.html").render(root="", ratings=page))
    write(tmp / "index.html", env.get_template("index.html").render(root="", suites=suites, ratings=page))
    for asset in ("style.css", "favicon.svg"):
        write(tmp / "static" / asset, (STATIC / asset).read_bytes())
    write(tmp / MARKER, "Built by `benchmarkzoo leaderboard build`; replaced by every build.\n")
    if out.exists():
        shutil.rmtree(out)
    tmp.rename(out)
    return out / "index.html"


def _building_folder(out: Path) -> Path:
    """The empty folder the site is built in before it replaces ``out``; refuses an ``out`` it did not make."""
    if out.is_symlink():
        raise FileExistsError(f"{out} is a symbolic link; refusing to replace what it points to.")
    if out.exists() and any(out.iterdir()) and not (out / MARKER).is_file():
        raise FileExistsError(f"{out} exists and is not a leaderboard site; refusing to replace it.")
    tmp = out.with_name(f".{out.name}.building")
    if tmp.is_symlink():
        tmp.unlink()
    elif tmp.exists():
        shutil.rmtree(tmp)
    return tmp


def _suite_view(
    suite_name: str,
    suite: Mapping[str, Any],
    submissions: Mapping[str, Results],
    tmp: Path,
    replays: tuple[Path, Collection[str] | None] | None,
) -> dict:
    """A suite's page data, with its task and suite-level plots written under ``tmp``."""
    suite_slug = slug(suite_name)
    entries = [
        entry_view(e, submissions[e["submission"]], suite_slug)
        for e in sorted(suite.get("entries", []), key=lambda e: e["rank"])
        if e["submission"] in submissions
    ]
    meta = suite_meta(suite_name, entries)
    view = {
        "name": suite_name,
        "href": f"{suite_slug}/index.html",
        "description": meta["description"],
        "entries": entries,
        "envs": sorted({t.env_id for e in entries for t in e["results"].tasks}),
    }
    view["tasks"] = [task_view(t, suite_slug, entries, tmp, replays) for t in meta["tasks"]]
    view["task_hrefs"] = {t["id"]: t["href"] for t in view["tasks"]}
    view.update(suite_plots(suite_slug, entries, tmp))
    view["generalization"] = generalization_view(suite_slug, entries, tmp)
    return view


def _write_suite_pages(env: Any, view: dict[str, Any], tmp: Path) -> None:
    """The suite's overview, its task pages, and every entry's page and validated JSON."""
    write(tmp / view["href"], env.get_template("suite.html").render(root="../", suite=view))
    if view["generalization"]:
        page = env.get_template("generalization.html").render(root="../", suite=view)
        write(tmp / view["generalization"]["href"], page)
    for task in view["tasks"]:
        write(tmp / task["href"], env.get_template("task.html").render(root="../../", suite=view, task=task))
    for entry in view["entries"]:
        write(
            tmp / entry["href"],
            env.get_template("submission.html").render(
                root="../../",
                suite=view,
                entry=entry,
                dependencies=sorted(entry["results"].provenance.dependencies.items()),
            ),
        )
        write(tmp / entry["json_href"], entry["results"].model_dump_json(indent=1, by_alias=True) + "\n")


def _board_shaped(board: Any) -> bool:
    """Suites of entries, each with a ``submission`` path and an integer ``rank`` (what the builder reads first)."""
    suites = board.get("suites") if isinstance(board, dict) else None
    return isinstance(suites, dict) and all(
        isinstance(suite, dict)
        and isinstance(suite.get("entries", []), list)
        and all(
            isinstance(e, dict) and isinstance(e.get("submission"), str) and type(e.get("rank")) is int
            for e in suite.get("entries", [])
        )
        for suite in suites.values()
    )


def load_board(root: str | Path) -> tuple[dict[str, Any], dict[str, Results], list[str]]:
    """``root/leaderboard.json`` and its submissions, each validated again; returns the board, results, refusals.

    Validating again costs little and means a file edited after ``build`` is refused, not shown.
    Entries are read as ``build`` wrote them: ``submissions/<suite>/<file>.json``, never through a link.
    """
    root = Path(root).resolve()
    try:
        board = json.loads(read_bytes(root / "leaderboard.json", follow_links=False))
    except (SubmissionError, json.JSONDecodeError, UnicodeDecodeError, RecursionError) as error:
        raise SubmissionError(
            f"{root / 'leaderboard.json'} cannot be read ({error}); run `benchmarkzoo leaderboard build`."
        ) from error
    if not _board_shaped(board):
        raise SubmissionError(
            f"{root / 'leaderboard.json'} is not leaderboard JSON as `build` writes it; run `benchmarkzoo leaderboard "
            "build`."
        )
    submissions: dict[str, Results] = {}
    refused: list[str] = []
    for suite in board.get("suites", {}).values():
        for entry in suite.get("entries", []):
            where = str(entry.get("submission"))
            parts = PurePosixPath(where).parts
            if len(parts) != 3 or parts[0] != "submissions" or any(p in ("", ".", "..") for p in parts):
                refused.append(f"{shown(where)}: not a file of {root / 'submissions'}.")
                continue
            try:
                safe_folder(root, *parts[:2])
                submissions[where] = validate_file(root.joinpath(*parts), follow_links=False)
            except SubmissionError as error:
                refused.append(f"{shown(where)}: {error}")
    return board, submissions, refused


def build_site_from_root(
    root: str | Path = "leaderboard", out: str | Path | None = None, families: Collection[str] | None = None
) -> tuple[Path, list[str]]:
    """Build ``root/site`` (or ``out``) from ``root/leaderboard.json``; returns the index page and the refusals.

    The ratings page comes from ``root/ratings/*.json`` (:func:`load_ratings`), read first. The
    site lists what leaderboard JSON lists, or is not built: if an entry no longer validates
    (edited after ``build``), this raises :class:`SubmissionError` and the old site stays; ``build``
    re-ranks without it.
    """
    root = Path(root)
    ratings = load_ratings(root)  # before anything is built: a bad ratings file stops the build
    board, submissions, refused = load_board(root)
    if refused:
        raise SubmissionError(
            f"leaderboard.json lists {len(refused)} entr{'y' if len(refused) == 1 else 'ies'} that no longer "
            f"validate ({'; '.join(refused)}); run `benchmarkzoo leaderboard build` to rank without them."
        )
    site = build_site(board, submissions, out if out is not None else root / SITE_DIR, ratings, root, families)
    return site, refused
