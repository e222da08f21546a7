"""Build the static leaderboard site from leaderboard JSON and the parsed submissions it ranks.

Layout of the site (every link relative, so it works from ``file://`` and any static host)::

    index.html                         every suite's ranking
    static/style.css
    <suite>/index.html                 the suite overview: ranking, intervals, profiles, P(X > Y)
    <suite>/tasks/<task>.html          per-episode distributions, success rates, domain metrics
    <suite>/submissions/<entry>.html   provenance; <entry>.json is the submission as validated
    <suite>/plots/*.svg

File names are slugs made by the builder (never a submission's text), the numbers of the ranking
come from leaderboard JSON, and nothing depends on the clock or absolute paths: the same inputs
give the same bytes.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np

from benchmarkzoo.evaluation.results import Results, episode_scores
from benchmarkzoo.evaluation.suites import SuiteError, load_suite, suite_path
from benchmarkzoo.leaderboard.site import plots, stats
from benchmarkzoo.leaderboard.site.templating import environment
from benchmarkzoo.leaderboard.store import safe_folder
from benchmarkzoo.leaderboard.text import shown
from benchmarkzoo.leaderboard.validate import SubmissionError, read_bytes, validate_file

SITE_DIR = "site"
#: Written into every built site, so a rebuild only ever replaces a folder this module made.
MARKER = ".benchmarkzoo-site"
#: Entries compared pairwise in the probability-of-improvement plot.
TOP_ENTRIES = 4
#: Domain metrics plotted per task (all of them are in the table).
MAX_METRIC_PLOTS = 6
#: Scenarios drawn with their exact fronts on a multi-objective task's page (the first, by scenario seed).
FRONT_SCENARIOS = 6
STATIC = Path(__file__).parent / "static"


_PLAIN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")


def slug(text: str) -> str:
    """A file name for ``text``: itself when plain lower-case ``[a-z0-9_-]``, else a cleaned form plus a hash.

    The hash keeps distinct texts apart on case-insensitive file systems (``Maze`` and ``maze``),
    and the cleaning keeps a submission's text out of paths (no ``/``, ``..`` or markup).
    """
    text = str(text)
    if _PLAIN.match(text) and not re.search(r"-h[0-9a-f]{8}$", text):
        return text
    readable = re.sub(r"[^a-z0-9_-]+", "-", text.lower()).strip("-")[:48] or "x"
    return f"{readable}-h{hashlib.sha256(text.encode()).hexdigest()[:8]}"


def _suite_meta(name: str, entries: list[dict[str, Any]]) -> dict[str, Any]:
    """Description and task list of a suite: from the shipped suite file, else from the first entry."""
    try:
        suite = load_suite(suite_path(name))
        return {"description": suite.description, "tasks": [t.id for t in suite.tasks]}
    except SuiteError:
        tasks = [t.id for t in entries[0]["results"].tasks] if entries else []
        return {"description": "", "tasks": tasks}


def _entry_view(entry: dict[str, Any], results: Results, suite_slug: str) -> dict[str, Any]:
    page = f"{suite_slug}/submissions/{slug(PurePosixPath(str(entry['submission'])).stem)}"
    return {**entry, "href": f"{page}.html", "json_href": f"{page}.json", "results": results}


def _write(path: Path, content: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, str):
        content = content.encode()
    path.write_bytes(content)


def _suite_plots(suite_slug: str, entries: list[dict[str, Any]], out: Path) -> dict[str, Any]:
    """Write the suite's plots; returns their site paths and the probability-of-improvement table."""
    scored = [(e, stats.normalized_scores(e["results"])) for e in entries]
    scored = [(e, s) for e, s in scored if s]
    views: dict[str, Any] = {"intervals": None, "profile": None, "improvement": None, "pairs": []}
    if not scored:
        return views
    panels: dict[str, list[plots.Interval]] = {"IQM": [], "Mean": [], "Optimality gap": []}
    for e, _ in scored:
        agg = e["results"].aggregates
        if agg is None:
            continue
        panels["IQM"].append(plots.Interval(e["policy"], agg.iqm, *agg.iqm_ci))
        panels["Mean"].append(plots.Interval(e["policy"], agg.mean, *agg.mean_ci))
        panels["Optimality gap"].append(plots.Interval(e["policy"], agg.optimality_gap, *agg.optimality_gap_ci))
    views["intervals"] = f"{suite_slug}/plots/intervals.svg"
    _write(out / views["intervals"], plots.interval_plot(panels))

    pooled = np.concatenate([np.concatenate(s) for _, s in scored])  # (all episodes of all entries,)
    lo, hi = min(0.0, float(pooled.min())), max(1.0, float(pooled.max()))
    taus = np.linspace(lo, hi, 121)  # (num_taus,)
    curves = [
        (e["policy"], stats.performance_profile(s, taus), *stats.performance_profile_ci(s, taus)) for e, s in scored
    ]
    views["profile"] = f"{suite_slug}/plots/profile.svg"
    _write(out / views["profile"], plots.profile_plot(taus, curves))

    top = scored[:TOP_ENTRIES]
    pairs = []
    for i, (x, xs) in enumerate(top):
        for y, ys in top[i + 1 :]:
            if len(xs) != len(ys):
                continue
            p = stats.probability_of_improvement(xs, ys)
            pairs.append({"x": x, "y": y, "p": p, "ci": stats.probability_of_improvement_ci(xs, ys)})
    views["pairs"] = pairs
    if pairs:
        views["improvement"] = f"{suite_slug}/plots/improvement.svg"
        rows = [
            plots.Interval(f"{plots.short(p['x']['policy'])} > {plots.short(p['y']['policy'])}", p["p"], *p["ci"])
            for p in pairs
        ]
        _write(out / views["improvement"], plots.improvement_plot(rows))
    return views


def _mo_view(task_slug: str, suite_slug: str, rows: list[dict[str, Any]], out: Path) -> dict[str, Any] | None:
    """A multi-objective task's Pareto plots (written) and table rows; ``None`` for a single-objective task.

    Each episode plays its own scenario, with its own exact front, so no single front fits all the
    points. The page shows (1) every episode's return with each entry's non-dominated set, the point
    set the aggregates are taken of; (2) small multiples of the first scenarios by seed, each with
    its exact front and every entry's return on it; (3) every episode's distance to its own
    scenario's front, which compares across scenarios. (2) and (3) need recorded fronts.
    """
    vectors = [stats.vector_returns(r["result"].episodes) for r in rows]
    info = rows[0]["result"] if rows else None
    if info is None or not (info.kind == "mo" or info.multi_objective is not None):
        return None
    if any(v is None for v in vectors):
        return None
    labels = [r["entry"]["policy"] for r in rows]
    fronts: dict[str, np.ndarray] = {}
    for r in rows:
        for key, front in sorted((r["result"].pareto_fronts or {}).items()):
            fronts.setdefault(key, np.asarray(front, dtype=np.float64))
    m = vectors[0].shape[1]
    more = f" (objectives 1 and 2 of {m})" if m > 2 else ""
    plot_paths = []
    settings = info.multi_objective
    reference = list(settings.reference_point[:2]) if settings is not None and m >= 2 else None
    scenarios = sorted({(e.scenario_seed, e.scenario_hash) for r in rows for e in r["result"].episodes})
    name = f"{suite_slug}/plots/task-{task_slug}-pareto-all.svg"
    panel = plots.FrontPanel(f"all {len(scenarios)} scenarios", None, vectors)
    _write(out / name, plots.pareto_plot([panel], labels, reference_point=reference, own_fronts=True))
    plot_paths.append(
        {
            "src": name,
            "caption": (
                f"Return vector of every episode{more}, one point per episode over all {len(scenarios)} "
                "scenarios played; each entry's staircase joins its non-dominated points, the point set whose "
                "hypervolume (against the reference point, ×), expected utility and sparsity the table "
                "reports. Episodes play different "
                "scenarios with different exact fronts, so no exact front is drawn here: see the scenarios below."
            ),
        }
    )
    distances: list[np.ndarray | None] = [None] * len(rows)
    if fronts:
        shown = [(seed, key) for seed, key in scenarios if key in fronts][:FRONT_SCENARIOS]
        panels = []
        for seed, key in shown:
            points = [v[[e.scenario_hash == key for e in r["result"].episodes]] for r, v in zip(rows, vectors)]
            panels.append(
                plots.FrontPanel(f"scenario seed {seed} ({len(fronts[key])} front points)", fronts[key], points)
            )
        name = f"{suite_slug}/plots/task-{task_slug}-pareto-scenarios.svg"
        _write(out / name, plots.pareto_plot(panels, labels))
        plot_paths.append(
            {
                "src": name,
                "caption": (
                    f"The exact Pareto front{more} (grey staircase: undiscounted, within the task's time limit) of the "
                    f"first {len(shown)} of the {len(scenarios)} scenarios played, by scenario seed, with "
                    "every entry's return on that scenario; a return on the staircase's corners is Pareto-optimal."
                ),
            }
        )
        for k, (r, v) in enumerate(zip(rows, vectors)):
            keys = [e.scenario_hash for e in r["result"].episodes]
            if all(key in fronts for key in keys):
                distances[k] = np.array([stats.front_distance(p, fronts[key]) for p, key in zip(v, keys)])
        name = f"{suite_slug}/plots/task-{task_slug}-front-distance.svg"
        data = [(label, d if d is not None else np.array([])) for label, d in zip(labels, distances)]
        _write(
            out / name,
            plots.distribution_plot(
                data, "distance to the scenario's exact front (additive ε, in units of the front's range)"
            ),
        )
        plot_paths.append(
            {
                "src": name,
                "caption": (
                    "Every episode's distance to its own scenario's exact front: the least ε such that raising each "
                    "objective by ε times that objective's range over the front reaches the front (0: Pareto-optimal). "
                    "Unlike raw returns it compares across scenarios whose fronts differ in scale."
                ),
            }
        )
    table = []
    for r, d in zip(rows, distances):
        agg = r["result"].aggregates
        table.append(
            {
                "entry": r["entry"],
                "mo": agg.multi_objective if agg else None,
                "mean_distance": float(d.mean()) if d is not None and d.size else None,
            }
        )
    return {"plots": plot_paths, "rows": table, "fronts": bool(fronts), "scenarios": len(scenarios), "objectives": m}


def _score_words(score: Any) -> str:
    """What a task's :class:`~benchmarkzoo.evaluation.suites.Score` takes of an episode, in words."""
    if score.kind == "utility":
        return f"the utility (weights {', '.join(f'{w:g}' for w in score.weights)}) of its vector return"
    if score.kind == "metric":
        return f"its {score.metric} metric"
    return "its return (the team return of a multi-agent task)"


def _task_view(task_id: str, suite_slug: str, entries: list[dict[str, Any]], out: Path) -> dict[str, Any]:
    """One task's page data, with its distribution plots written."""
    task_slug = slug(task_id)
    rows, info = [], None
    for e in entries:
        result = next((t for t in e["results"].tasks if t.id == task_id), None)
        if result is None:
            continue
        if info is None:
            info = result
        metric_values: dict[str, list[float]] = {}
        for episode in result.episodes:
            for name, value in episode.metrics.items():
                metric_values.setdefault(name, []).append(value)
        lengths = np.array([ep.length for ep in result.episodes], dtype=np.float64)  # (num_episodes,)
        rows.append(
            {
                "entry": e,
                "board": e["tasks"].get(task_id, {}),
                "result": result,
                "scores": episode_scores(result.episodes, result.score),
                "lengths": lengths,
                "mean_length": float(lengths.mean()) if lengths.size else None,
                "metrics": {k: float(np.mean(v)) for k, v in metric_values.items()},
                "metric_values": metric_values,
            }
        )
    metric_names = sorted({name for row in rows for name in row["metrics"]})
    plot_paths = []
    if rows:
        labels = [r["entry"]["policy"] for r in rows]
        name = f"{suite_slug}/plots/task-{task_slug}-returns.svg"
        _write(out / name, plots.distribution_plot(list(zip(labels, [r["scores"] for r in rows])), "episode score"))
        plot_paths.append(
            {
                "src": name,
                "caption": (
                    f"Score of every episode: {_score_words(info.score)}, the value the task's mean and the suite's "
                    "IQM are taken of (box: quartiles; dots: episodes)."
                ),
            }
        )
        name = f"{suite_slug}/plots/task-{task_slug}-lengths.svg"
        _write(out / name, plots.distribution_plot(list(zip(labels, [r["lengths"] for r in rows])), "episode length"))
        plot_paths.append({"src": name, "caption": "Length of every episode, in steps."})
        for k, metric in enumerate(metric_names[:MAX_METRIC_PLOTS]):
            name = f"{suite_slug}/plots/task-{task_slug}-metric-{k}.svg"
            data = [(r["entry"]["policy"], np.array(r["metric_values"].get(metric, []))) for r in rows]
            _write(out / name, plots.distribution_plot(data, plots.short(metric, 60)))
            plot_paths.append({"src": name, "caption": f"Domain metric {metric} of every episode."})
    return {
        "id": task_id,
        "href": f"{suite_slug}/tasks/{task_slug}.html",
        "info": info,
        "rows": rows,
        "metric_names": metric_names,
        "plots": plot_paths,
        "mo": _mo_view(task_slug, suite_slug, rows, out),
    }


def build_site(board: Mapping[str, Any], submissions: Mapping[str, Results], out: str | Path) -> Path:
    """Write the site for ``board`` (leaderboard JSON) into ``out``; returns the path of its index page.

    Args:
        board: the parsed ``leaderboard.json``; entries whose submission is not in ``submissions`` are left out.
        submissions: parsed results by the entry's ``submission`` path (as in leaderboard JSON).
        out: the site folder; replaced as a whole, but only if it is empty or a site this function wrote.
    """
    out = Path(out).parent.resolve() / Path(out).name  # the folder itself is never followed if it is a link
    if out.is_symlink():
        raise FileExistsError(f"{out} is a symbolic link; refusing to replace what it points to.")
    if out.exists() and any(out.iterdir()) and not (out / MARKER).is_file():
        raise FileExistsError(f"{out} exists and is not a leaderboard site; refusing to replace it.")
    tmp = out.with_name(f".{out.name}.building")
    if tmp.is_symlink():
        tmp.unlink()
    elif tmp.exists():
        shutil.rmtree(tmp)
    env = environment()
    suites = []
    for suite_name, suite in sorted(board.get("suites", {}).items()):
        suite_slug = slug(suite_name)
        entries = [
            _entry_view(e, submissions[e["submission"]], suite_slug)
            for e in sorted(suite.get("entries", []), key=lambda e: e["rank"])
            if e["submission"] in submissions
        ]
        meta = _suite_meta(suite_name, entries)
        view = {
            "name": suite_name,
            "href": f"{suite_slug}/index.html",
            "description": meta["description"],
            "entries": entries,
        }
        view["tasks"] = [_task_view(t, suite_slug, entries, tmp) for t in meta["tasks"]]
        view["task_hrefs"] = {t["id"]: t["href"] for t in view["tasks"]}
        view.update(_suite_plots(suite_slug, entries, tmp))
        suites.append(view)
        _write(tmp / view["href"], env.get_template("suite.html").render(root="../", suite=view))
        for task in view["tasks"]:
            _write(tmp / task["href"], env.get_template("task.html").render(root="../../", suite=view, task=task))
        for entry in entries:
            _write(
                tmp / entry["href"],
                env.get_template("submission.html").render(
                    root="../../",
                    suite=view,
                    entry=entry,
                    dependencies=sorted(entry["results"].provenance.dependencies.items()),
                ),
            )
            _write(tmp / entry["json_href"], entry["results"].model_dump_json(indent=1, by_alias=True) + "\n")
    _write(tmp / "index.html", env.get_template("index.html").render(root="", suites=suites))
    for asset in ("style.css", "favicon.svg"):
        _write(tmp / "static" / asset, (STATIC / asset).read_bytes())
    _write(tmp / MARKER, "Built by `benchmarkzoo leaderboard build`; replaced by every build.\n")
    if out.exists():
        shutil.rmtree(out)
    tmp.rename(out)
    return out / "index.html"


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


def build_site_from_root(root: str | Path = "leaderboard", out: str | Path | None = None) -> tuple[Path, list[str]]:
    """Build ``root/site`` (or ``out``) from ``root/leaderboard.json``; returns the index page and the refusals.

    The site lists what leaderboard JSON lists, or is not built: if an entry no longer validates
    (edited after ``build``), this raises :class:`SubmissionError` and the old site stays; ``build``
    re-ranks without it.
    """
    root = Path(root)
    board, submissions, refused = load_board(root)
    if refused:
        raise SubmissionError(
            f"leaderboard.json lists {len(refused)} entr{'y' if len(refused) == 1 else 'ies'} that no longer "
            f"validate ({'; '.join(refused)}); run `benchmarkzoo leaderboard build` to rank without them."
        )
    return build_site(board, submissions, out if out is not None else root / SITE_DIR), refused
