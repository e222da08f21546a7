"""Write the hostile corpus: files a hostile submitter would try, each made from a genuine quickstart-v0 file.

Run from the repository root after the committed references change:

    python tests/leaderboard/hostile/make_corpus.py

Every case is ``(file name, edit, expected refusal fragment)``; an edit changes the parsed JSON or
the text, and ``index.json`` maps each file to its fragment and to the command that must refuse it:
``validate`` (``benchmarkzoo leaderboard validate``), ``add`` (valid, but ``leaderboard add
--submitter mallory`` refuses it beside the committed references), or ``plausibility`` / ``verify``
(consistent forgeries that only the env's bounds or a replay can catch; not refused by validate).
"""

from __future__ import annotations

import copy
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
SOURCE_GLOB = "leaderboard/submissions/quickstart-v0/random-*.json"


def genuine() -> tuple[dict, str]:
    source = sorted(ROOT.glob(SOURCE_GLOB))[0]
    data = json.loads(source.read_text())
    data.pop("submitter", None)  # as `benchmarkzoo evaluate` writes it
    return data, source.relative_to(ROOT).as_posix()


def at(data: dict, path: str) -> tuple[object, object]:
    """The container of a dotted path and its last key (list indices as integers)."""
    *head, last = [int(p) if p.lstrip("-").isdigit() else p for p in path.split(".")]
    node = data
    for part in head:
        node = node[part]
    return node, last


def put(path: str, value: object) -> Callable[[dict], None]:
    def edit(data: dict) -> None:
        node, last = at(data, path)
        node[last] = value(node[last]) if callable(value) else value

    return edit


def nest(depth: int, leaf: object = 1) -> object:
    value = leaf
    for _ in range(depth):
        value = {"k": value}
    return value


def text_edit(old: str, new: str) -> Callable[[str], str]:
    def edit(text: str) -> str:
        assert old in text, old
        return text.replace(old, new, 1)

    return edit


def text_sub(pattern: str, replacement: str) -> Callable[[str], str]:
    """The first match of ``pattern`` replaced (numbers Python cannot print, such as a 5000-digit integer)."""

    def edit(text: str) -> str:
        new, count = re.subn(pattern, lambda _: replacement, text, count=1)
        assert count == 1, pattern
        return new

    return edit


def recomputed(edit: Callable[[dict], None]) -> Callable[[dict], None]:
    """``edit``, then every aggregate recomputed so they match the forged episodes (a careful forger)."""

    def forged(data: dict) -> None:
        sys.path.insert(0, str(ROOT))
        from benchmarkzoo.evaluation.results import Results, recompute

        edit(data)
        data.update(json.loads(recompute(Results.model_validate(data)).model_dump_json(by_alias=True)))

    return forged


def forge_maze_returns(value: float, length: int, success: bool) -> Callable[[dict], None]:
    def edit(data: dict) -> None:
        for episode in data["tasks"][0]["episodes"]:
            episode.update({"return": value, "length": length, "success": success})

    return edit


E0 = "tasks.0.episodes.0"
# (file, JSON edit or None, text edit or None, expected fragment, command)
CASES: list[tuple[str, Callable | None, Callable | None, str, str]] = [
    # --- numbers that overflow, anywhere
    ("float-return-1e308", put(f"{E0}.return", 1e308), None, "the number 1e+308", "validate"),
    ("float-return-1e400", None, text_edit('"return": ', '"return": 1e400, "x": '), "the number 1e400", "validate"),
    ("float-metric-1e300", put(f"{E0}.metrics", {"path_length": 1e300}), None, "the number 1e+300", "validate"),
    (
        "float-wall-time-1e16",
        put("provenance.wall_time_s", 1e16),
        None,
        "provenance.wall_time_s: the number",
        "validate",
    ),
    ("float-iqm-1e20", put("aggregates.iqm", 1e20), None, "aggregates.iqm: the number", "validate"),
    ("float-negative-1e200", put("tasks.1.episodes.3.return", -1e200), None, "the number -1e+200", "validate"),
    ("int-length-10e400", put(f"{E0}.length", 10**400), None, "an integer of 401 digits", "validate"),
    (
        "int-seed-5000-digits",
        None,
        text_sub(r'"seed": \d+', '"seed": ' + "7" * 5000),
        "an integer of 5000 digits",
        "validate",
    ),
    ("int-protocol-seed-negative-huge", put("protocol_seed", -(10**30)), None, "is over 2**64 - 1", "validate"),
    ("int-steps-2e70", put("provenance.steps", 2**70), None, "provenance.steps: the integer", "validate"),
    (
        "int-num-envs-4400-digits",
        None,
        text_sub(r'"num_envs": \d+', '"num_envs": 1' + "0" * 4400),
        "an integer of 4401 digits",
        "validate",
    ),
    ("token-nan", None, text_edit('"return": ', '"return": NaN, "x": '), "contains NaN", "validate"),
    (
        "token-infinity",
        None,
        text_edit('"wall_time_s": ', '"wall_time_s": Infinity, "x": '),
        "contains Infinity",
        "validate",
    ),
    (
        "token-minus-infinity",
        None,
        text_edit('"return": ', '"return": -Infinity, "x": '),
        "contains -Infinity",
        "validate",
    ),
    ("length-negative", put(f"{E0}.length", -1), None, "schema violation at tasks.0.episodes.0.length", "validate"),
    ("length-fraction", put(f"{E0}.length", 1.5), None, "schema violation at tasks.0.episodes.0.length", "validate"),
    # --- nesting, anywhere
    (
        "deep-env-spec-900",
        put("tasks.0.env_spec.kwargs.generator_kwargs", nest(900)),
        None,
        "nesting deeper than 32 levels",
        "validate",
    ),
    ("deep-metrics-40", put(f"{E0}.metrics", nest(40, 1.0)), None, "nesting deeper than 32 levels", "validate"),
    (
        "deep-dependencies-100",
        put("provenance.dependencies", nest(100, "x")),
        None,
        "nesting deeper than 32 levels",
        "validate",
    ),
    (
        "deep-return-lists-50",
        put(f"{E0}.return", json.loads("[" * 50 + "]" * 50)),
        None,
        "nesting deeper than 32 levels",
        "validate",
    ),
    ("deep-brackets-5000", None, lambda text: "[" * 5000 + "]" * 5000, "not valid JSON", "validate"),
    # --- characters no text may hold
    (
        "surrogate-policy-kind",
        None,
        text_edit('"kind": "random"', '"kind": "rand\\ud800om"'),
        "a lone surrogate",
        "validate",
    ),
    ("surrogate-low-cpu", put("provenance.cpu", "AMD \udc00 EPYC"), None, "a lone surrogate", "validate"),
    ("esc-policy-kind", put("policy.kind", "\x1b[2J\x1b[31mrandom"), None, "U+001B", "validate"),
    ("esc-task-error", put("tasks.1.error", "\x1b]0;pwned\x07\x1b[1A"), None, "U+001B", "validate"),
    ("nul-policy-spec", put("policy.spec", "random\x00.py"), None, "U+0000", "validate"),
    ("rtl-override-policy-kind", put("policy.kind", "mod\u202efdp.exe"), None, "U+202E", "validate"),
    ("rtl-isolate-backend", put("provenance.backend", "native\u2067"), None, "U+2067", "validate"),
    ("bel-platform", put("provenance.platform", "Linux\x07"), None, "U+0007", "validate"),
    ("zero-width-policy-name", put("policy.name", "ran\u200bdom"), None, "U+200B", "validate"),
    ("bom-python", put("provenance.python", "\ufeff3.11.7"), None, "U+FEFF", "validate"),
    ("newline-cpu", put("provenance.cpu", "AMD\nEPYC"), None, "U+000A", "validate"),
    ("tab-started-at", put("provenance.started_at", "2026\t11"), None, "U+0009", "validate"),
    ("del-backend", put("provenance.backend", "native\x7f"), None, "U+007F", "validate"),
    ("csi-c1-python", put("provenance.python", "3.11\x9b2J"), None, "U+009B", "validate"),
    ("line-separator-started-at", put("provenance.started_at", "2026\u2028"), None, "U+2028", "validate"),
    ("private-use-policy-kind", put("policy.kind", "random\ue000"), None, "U+E000", "validate"),
    ("esc-in-key-metrics", put(f"{E0}.metrics", {"\x1b[31mred": 1.0}), None, "the key", "validate"),
    ("esc-in-key-dependencies", put("provenance.dependencies", {"numpy\x1b[0m": "2"}), None, "U+001B", "validate"),
    ("long-platform-5000", put("provenance.platform", "L" * 5000), None, "a text of 5000 characters", "validate"),
    ("not-utf8", None, lambda text: text.replace('"AMD', '"\udcff', 1), "not UTF-8", "validate"),
    ("utf16", None, lambda text: text, "not UTF-8", "validate"),  # encoded as UTF-16 below
    # --- not one JSON object
    (
        "duplicate-key-return",
        None,
        text_edit('"return": ', '"return": 0.5, "return": '),
        "the key 'return' appears twice",
        "validate",
    ),
    (
        "duplicate-key-suite",
        None,
        text_edit('"suite": ', '"suite": "quickstart-v0", "suite": '),
        "the key 'suite' appears twice",
        "validate",
    ),
    (
        "duplicate-key-env-kwargs",
        None,
        text_edit('"height": ', '"height": 5, "height": '),
        "the key 'height' appears twice",
        "validate",
    ),
    ("truncated", None, lambda text: text[: len(text) // 2], "not valid JSON", "validate"),
    ("empty", None, lambda text: "", "not valid JSON", "validate"),
    ("top-level-array", None, lambda text: f"[{text}]", "schema violation", "validate"),
    ("trailing-garbage", None, lambda text: text + "{}", "not valid JSON", "validate"),
    # --- names illegal on common file systems
    ("name-con", put("policy.name", "CON"), None, "device name Windows reserves", "validate"),
    ("name-nul-ext", put("policy.name", "nul.json"), None, "device name Windows reserves", "validate"),
    ("name-com1", put("policy.name", "com1"), None, "device name Windows reserves", "validate"),
    ("name-lpt9", put("policy.name", "LPT9.tar.gz"), None, "device name Windows reserves", "validate"),
    ("name-trailing-dot", put("policy.name", "mybot."), None, "starting and ending with a letter or digit", "validate"),
    (
        "name-trailing-space",
        put("policy.name", "mybot "),
        None,
        "starting and ending with a letter or digit",
        "validate",
    ),
    (
        "name-traversal",
        put("policy.name", "../../etc/passwd"),
        None,
        "policy name '../../etc/passwd' is refused",
        "validate",
    ),
    ("name-slash", put("policy.name", "team/agent"), None, "policy name 'team/agent' is refused", "validate"),
    ("name-colon", put("policy.name", "a:b"), None, "policy name 'a:b' is refused", "validate"),
    ("name-65-chars", put("policy.name", "a" * 65), None, "1 to 64 ASCII letters", "validate"),
    ("name-empty", put("policy.name", ""), None, "1 to 64 ASCII letters", "validate"),
    ("name-cyrillic", put("policy.name", "b\u0430seline"), None, "1 to 64 ASCII letters", "validate"),
    ("submitter-aux", put("submitter", "aux"), None, "device name Windows reserves", "validate"),
    ("submitter-slash", put("submitter", "x/y"), None, "submitter 'x/y' is refused", "validate"),
    # --- not what the suite and the registry run
    ("version-999", put("provenance.benchmarkzoo_version", "9.9.9"), None, "made by benchmarkzoo '9.9.9'", "validate"),
    (
        "version-markup",
        put("provenance.benchmarkzoo_version", "<script>"),
        None,
        "made by benchmarkzoo '<script>'",
        "validate",
    ),
    (
        "env-spec-step-limit",
        put("tasks.0.env_spec.max_episode_steps", 10_000),
        None,
        "env_spec max_episode_steps is 10000",
        "validate",
    ),
    (
        "env-spec-generator-kwargs",
        put("tasks.0.env_spec.kwargs.generator_kwargs.height", 5),
        None,
        "env_spec kwargs is",
        "validate",
    ),
    (
        "env-spec-entry-point",
        put("tasks.1.env_spec.entry_point", "os:system"),
        None,
        "env_spec entry_point is 'os:system'",
        "validate",
    ),
    ("env-spec-extra-field", put("tasks.0.env_spec.evil", 1), None, "fields the registry", "validate"),
    (
        "env-spec-id",
        put("tasks.0.env_spec.id", "benchmarkzoo/Other-v0"),
        None,
        "the suite runs benchmarkzoo/Maze-v0",
        "validate",
    ),
    (
        "env-id-unknown",
        put("tasks.0.env_id", "benchmarkzoo/Nope-v0"),
        None,
        "registered as 'benchmarkzoo/Nope-v0'",
        "validate",
    ),
    ("kind-parallel", put("tasks.0.kind", "parallel"), None, "is a 'single' env", "validate"),
    ("schema-version-2", put("schema_version", 2), None, "schema violation at schema_version", "validate"),
    ("suite-unknown", put("suite", "nosuch-v0"), None, "unknown suite", "validate"),
    ("suite-traversal", put("suite", "../../../etc/passwd"), None, "unknown suite", "validate"),
    ("protocol-seed-7", put("protocol_seed", 7), None, "protocol seed 0; the file used 7", "validate"),
    ("extra-top-level-key", put("surprise", 1), None, "schema violation at surprise", "validate"),
    (
        "failed-task",
        put("tasks.1", lambda t: {**t, "status": "failed", "error": "boom", "episodes": [], "aggregates": None}),
        None,
        "failed ('boom')",
        "validate",
    ),
    (
        "missing-episode",
        lambda d: d["tasks"][0]["episodes"].pop(),
        None,
        "plays 50 episodes; the file has 49",
        "validate",
    ),
    (
        "episode-seed",
        put("tasks.0.episodes.4.seed", 12345),
        None,
        "episode 4: the protocol (seed 0) prescribes",
        "validate",
    ),
    (
        "scenario-hash",
        put("tasks.1.episodes.5.scenario_hash", "ab" * 32),
        None,
        "scenario hash abababababab",
        "validate",
    ),
    ("references", put("tasks.0.references.baseline", 100.0), None, "normalization references differ", "validate"),
    ("tasks-swapped", lambda d: d["tasks"].reverse(), None, "suite quickstart-v0 has tasks", "validate"),
    (
        "fronts-on-single",
        put("tasks.0.pareto_fronts", {"ab" * 32: [[1.0]]}),
        None,
        "recorded Pareto fronts",
        "validate",
    ),
    ("team-return-on-single", put(f"{E0}.team_return", 1.0), None, "not shaped as a 'single' env's", "validate"),
    ("vector-return-on-single", put(f"{E0}.return", [1.0, 2.0]), None, "not shaped as a 'single' env's", "validate"),
    (
        "task-mean",
        put("tasks.0.aggregates.mean", lambda m: m + 0.1),
        None,
        "task maze-test: the aggregates do not match",
        "validate",
    ),
    ("suite-iqm", put("aggregates.iqm", lambda m: m + 0.05), None, "suite aggregates do not match", "validate"),
    ("raw-return", put("tasks.1.episodes.3.return", lambda r: r + 1.0), None, "is outside", "validate"),
    # --- valid files that `add` must refuse beside the committed references
    ("add-name-baseline", put("policy.name", "baseline"), None, "reserved reference name 'baseline'", "add"),
    ("add-name-Baseline", put("policy.name", "Baseline"), None, "reserved reference name 'baseline'", "add"),
    ("add-name-baseIine", put("policy.name", "baseIine"), None, "reserved reference name 'baseline'", "add"),
    ("add-name-RANDOM", put("policy.name", "RANDOM"), None, "reserved reference name 'random'", "add"),
    ("add-name-randorn", put("policy.name", "randorn"), None, "reserved reference name 'random'", "add"),
    ("add-name-ppo-maze", put("policy.name", "PPO-Maze"), None, "reserved reference name 'ppo-maze'", "add"),
    ("add-duplicate-outcomes", put("policy.name", "my-new-agent"), None, "duplicate", "add"),
    ("add-submitter-reads-as-maintainer", put("submitter", "BenchMarkZoo"), None, "the maintainers' name", "add"),
    (
        "add-submitter-maintainer",
        put("submitter", "benchmarkzoo"),
        None,
        "only references added with --reference",
        "add",
    ),
    ("add-submitter-confusable", put("submitter", "benchrnarkzoo"), None, "the maintainers' name", "add"),
    # --- consistent forgeries: the env's bounds or a replay catch them, not validate
    ("forged-return-1e6", recomputed(forge_maze_returns(1e6, 2, True)), None, "return", "plausibility"),
    ("forged-length-over-limit", recomputed(forge_maze_returns(0.5, 5000, True)), None, "length", "plausibility"),
    ("forged-plausible", recomputed(forge_maze_returns(0.99, 2, True)), None, "mismatch", "verify"),
]


def main() -> None:
    data, source = genuine()
    text = json.dumps(data)
    index = {"source": source, "cases": {}}
    for stale in HERE.glob("*.json"):
        stale.unlink()
    for name, edit, edit_text, fragment, command in CASES:
        case = copy.deepcopy(data)
        if edit is not None:
            edit(case)
            body = json.dumps(case)
        else:
            body = edit_text(text)
        raw = body.encode("utf-16") if name == "utf16" else body.encode("utf-8", "surrogatepass")
        if name == "not-utf8":
            raw = raw.replace("\udcff".encode("utf-8", "surrogatepass"), b"\xff")
        file = f"{name}.json"
        (HERE / file).write_bytes(raw)
        index["cases"][file] = {"refusal": fragment, "command": command}
    (HERE / "index.json").write_text(json.dumps(index, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(CASES)} files and index.json under {HERE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
