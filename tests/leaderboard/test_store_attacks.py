"""Attacks on the submissions folder and the site: links, names, copies, hand-committed files, modes.

Every test starts from the committed quickstart-v0 references (genuine files, submitter
``benchmarkzoo``), so nothing here runs an evaluation.
"""

from __future__ import annotations

import json
import os
import shutil
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchmarkzoo.cli import cli
from benchmarkzoo.leaderboard import identity
from benchmarkzoo.leaderboard.store import add, build, collect, write_board
from benchmarkzoo.leaderboard.validate import SubmissionError, validate_file

REPO = Path(__file__).resolve().parents[2]
COMMITTED = REPO / "leaderboard" / "submissions" / "quickstart-v0"
CORPUS = Path(__file__).resolve().parent / "hostile"


def committed(policy: str) -> Path:
    return sorted(COMMITTED.glob(f"{policy}-*.json"))[0]


def as_evaluated(policy: str, folder: Path, **edits) -> Path:
    """The committed ``policy`` file as `evaluate` writes it (no submitter), with top-level ``edits``."""
    data = json.loads(committed(policy).read_text())
    data.pop("submitter")
    for key, value in edits.items():
        node = data
        *head, last = key.split(".")
        for part in head:
            node = node[int(part) if part.isdigit() else part]
        node[last] = value
    path = folder / f"{policy}-{len(list(folder.iterdir()))}.json"
    path.write_text(json.dumps(data))
    return path


@pytest.fixture
def root(tmp_path):
    """A board holding the committed random and baseline references."""
    board = tmp_path / "board"
    (board / "submissions" / "quickstart-v0").mkdir(parents=True)
    for policy in ("random", "baseline"):
        shutil.copy(committed(policy), board / "submissions" / "quickstart-v0")
    return board


def files_under(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*"))


def test_reserved_names_come_from_the_committed_policies():
    policies = REPO / "leaderboard" / "policies"
    models = sorted(
        {p.stem for p in policies.glob("*.zip")} | {p.parent.name for p in policies.glob("*/manifest.json")}
    )
    assert models and identity.reserved_names() == ("random", "baseline", *models)


def test_a_bundle_folder_reserves_its_name(tmp_path):
    (tmp_path / "ppo-x.zip").write_bytes(b"")
    (tmp_path / "my-bundle").mkdir()
    (tmp_path / "my-bundle" / "manifest.json").write_text("{}")
    (tmp_path / "not-a-bundle").mkdir()
    assert identity.reserved_names(tmp_path) == ("random", "baseline", "my-bundle", "ppo-x")


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("baseline", "Baseline", True),
        ("baseline", "BASELINE", True),
        ("baseline", "b\u0430seline", True),
        ("baseline", "baseIine", True),
        ("random", "randorn", True),
        ("ppo-maze", "\uff50\uff50\uff4f-maze", True),
        ("random", "random2", False),
        ("ppo-maze", "ppo-mapf", False),
        ("alice", "bob", False),
    ],
)
def test_names_are_compared_as_people_read_them(a, b, same):
    assert identity.reads_as(a, b) is same and identity.reads_as(b, a) is same


def test_a_submitter_keeps_a_name_and_nobody_else_can_take_it(root, tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    mine = as_evaluated("ppo-maze", src, **{"policy.name": "planner"})
    stored = add(mine, root, submitter="alice")
    entry = validate_file(stored)
    assert entry.submitter == "alice" and entry.policy.name == "planner"
    assert add(mine, root, submitter="alice") == stored  # the same file again: the same entry
    assert oct(stored.stat().st_mode & 0o777) == oct(0o666 & ~_umask())
    for name, submitter, reason in [
        ("planner", "mallory", "held by another submitter"),
        ("PIanner", "mallory", "reads as the existing 'planner'"),
        ("Planner", "alice", "reads as the existing 'planner'"),
        ("renamed-copy", "mallory", "duplicate"),
    ]:
        forged = as_evaluated("ppo-maze", src, **{"policy.name": name})
        before = files_under(root)
        with pytest.raises(SubmissionError, match=reason):
            add(forged, root, submitter=submitter)
        assert files_under(root) == before
    with pytest.raises(SubmissionError, match="reads as the existing submitter 'alice'"):
        add(
            as_evaluated("random", src, **{"policy.name": "other", "tasks.0.wall_time_s": 1.0}), root, submitter="aIice"
        )


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def test_reference_flag_and_submitter_rules(root, tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    plain = as_evaluated("random", src)
    with pytest.raises(SubmissionError, match="needs a submitter"):
        add(plain, root)
    with pytest.raises(SubmissionError, match="reserved reference name 'random'"):
        add(plain, root, submitter="mallory")
    with pytest.raises(SubmissionError, match="--reference entries are submitted by 'benchmarkzoo'"):
        add(plain, root, submitter="mallory", reference=True)
    with pytest.raises(SubmissionError, match="only references added with --reference"):
        add(plain, root, submitter="benchmarkzoo")
    claimed = as_evaluated("random", src, submitter="alice")
    with pytest.raises(SubmissionError, match="the file says it is submitted by 'alice', the command by 'bob'"):
        add(claimed, root, submitter="bob")
    assert add(plain, root, reference=True).parent.name == "quickstart-v0"  # the maintainers' own copy


def test_add_never_writes_through_a_link(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    for linked in ("submissions", "submissions/quickstart-v0"):
        root = tmp_path / f"board-{linked.count('/')}"
        (root / linked).parent.mkdir(parents=True, exist_ok=True)
        (root / linked).symlink_to(outside, target_is_directory=True)
        result = CliRunner().invoke(
            cli, ["leaderboard", "add", str(committed("random")), "--reference", "--root", str(root)]
        )
        assert result.exit_code == 2 and "is a symbolic link" in result.output and "Traceback" not in result.output
        assert list(outside.iterdir()) == []


def test_build_skips_links_and_hand_committed_forgeries_and_the_site_agrees(root, tmp_path):
    pytest.importorskip("jinja2", reason="the site needs the 'eval' extra")
    folder = root / "submissions" / "quickstart-v0"
    outside = tmp_path / "elsewhere.json"
    shutil.copy(committed("ppo-maze"), outside)
    (folder / "ppo-maze-linked.json").symlink_to(outside)
    # committed by hand, never through `add`: the reserved name by someone else, and a copy of a reference
    fake = json.loads(committed("baseline").read_text())
    fake["submitter"] = "mallory"
    (folder / "baseline-mallory.json").write_text(json.dumps(fake))
    copy = json.loads(committed("random").read_text())
    copy.update(submitter="mallory")
    copy["policy"]["name"] = "my-agent"
    (folder / "my-agent-copy.json").write_text(json.dumps(copy))
    no_submitter = json.loads(committed("baseline").read_text())
    no_submitter.pop("submitter")
    no_submitter["policy"]["name"] = "anonymous"
    (folder / "anonymous.json").write_text(json.dumps(no_submitter))
    for file in (
        "int-length-10e400.json",
        "deep-env-spec-900.json",
        "surrogate-policy-kind.json",
        "esc-task-error.json",
        "duplicate-key-return.json",
        "float-return-1e308.json",
    ):
        shutil.copy(CORPUS / file, folder / file)
    (root / "submissions" / "linked-suite").symlink_to(tmp_path, target_is_directory=True)

    result = CliRunner().invoke(cli, ["leaderboard", "build", "--root", str(root)])
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output and "\x1b" not in result.output
    skipped = [line for line in result.output.splitlines() if line.startswith("skipped ")]
    assert len(skipped) == 1 + 3 + 6 + 1, skipped
    assert any("ppo-maze-linked.json" in s and "symbolic link" in s for s in skipped)
    assert any("baseline-mallory.json" in s and "reserved reference name 'baseline'" in s for s in skipped)
    assert any("my-agent-copy.json" in s and "duplicate" in s for s in skipped)
    assert any("anonymous.json" in s and "needs a submitter" in s for s in skipped)
    assert any("linked-suite" in s and "symbolic link" in s for s in skipped)

    board = json.loads((root / "leaderboard.json").read_text())
    entries = board["suites"]["quickstart-v0"]["entries"]
    assert [(e["policy"], e["submitter"]) for e in entries] == [
        ("baseline", "benchmarkzoo"),
        ("random", "benchmarkzoo"),
    ]
    overview = (root / "site" / "quickstart-v0" / "index.html").read_text()
    site_policies = sorted(
        {p.stem.rsplit("-", 1)[0] for p in (root / "site" / "quickstart-v0" / "submissions").glob("*.json")}
    )
    assert site_policies == ["baseline", "random"] and ">baseline</a>" in overview
    for file in (root / "leaderboard.json", root / "site" / "index.html"):
        assert file.stat().st_mode & 0o777 == 0o666 & ~_umask()


def test_the_site_folder_is_never_replaced_through_a_link(root, tmp_path):
    pytest.importorskip("jinja2", reason="the site needs the 'eval' extra")
    target = tmp_path / "precious"
    target.mkdir()
    (target / "keep.txt").write_text("keep")
    (root / "site").symlink_to(target, target_is_directory=True)
    result = CliRunner().invoke(cli, ["leaderboard", "build", "--root", str(root)])
    assert result.exit_code == 2 and "symbolic link" in result.output
    assert files_under(target) == ["keep.txt"]


def test_validate_refuses_special_files_without_reading_them(tmp_path):
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    with pytest.raises(SubmissionError, match="not a regular file"):
        validate_file(fifo)  # a FIFO with no writer would block a plain open() forever
    with pytest.raises(SubmissionError, match="not a regular file"):
        validate_file("/dev/zero")
    link = tmp_path / "link.json"
    link.symlink_to(committed("random"))
    assert validate_file(link).policy.name == "random"  # a user's own path may be a link...
    with pytest.raises(SubmissionError, match="symbolic link"):
        validate_file(link, follow_links=False)  # ...nothing under a leaderboard root is


def test_serve_answers_regular_files_only(root, tmp_path):
    pytest.importorskip("jinja2", reason="the site needs the 'eval' extra")
    from benchmarkzoo.leaderboard.site import serve

    collection = collect(root)
    write_board(root, collection)
    from benchmarkzoo.leaderboard.site.builder import build_site

    site = build_site(collection.board, collection.submissions, root / "site").parent
    secret = tmp_path / "secret.txt"
    secret.write_text("private")
    (site / "planted.txt").symlink_to(secret)
    (site / "planted-dir").symlink_to(tmp_path, target_is_directory=True)
    (site / "static" / "inner").symlink_to(tmp_path, target_is_directory=True)
    server, thread = serve.start(site, port=0)
    base = serve.url(server).removesuffix("index.html")
    try:
        with urllib.request.urlopen(base + "index.html", timeout=10) as response:
            assert response.status == 200 and b">baseline</a>" in response.read()
        with urllib.request.urlopen(base, timeout=10) as response:
            assert response.status == 200  # a folder's index.html
        for path in (
            "planted.txt",
            "planted-dir/secret.txt",
            "static/inner/secret.txt",
            "static/",
            "../secret.txt",
            "%2e%2e/secret.txt",
            "static",
        ):
            with pytest.raises(urllib.error.HTTPError) as error:
                urllib.request.urlopen(base + path, timeout=10)
            assert error.value.code == 404, path
    finally:
        server.shutdown()
        server.server_close()
    thread.join(timeout=10)


def test_build_output_is_unchanged_by_a_refused_add(root, tmp_path):
    out, refused = build(root)
    first = out.read_bytes()
    bad = tmp_path / "bad.json"
    shutil.copy(CORPUS / "add-name-baseIine.json", bad)
    result = CliRunner().invoke(cli, ["leaderboard", "add", str(bad), "--submitter", "mallory", "--root", str(root)])
    assert result.exit_code == 2 and "reserved reference name 'baseline'" in result.output
    assert build(root)[0].read_bytes() == first and refused == []


@pytest.mark.parametrize(
    "content",
    [
        "not json",
        '{"suites": []}',
        '{"suites": {"s": {"entries": [{"rank": "1"}]}}}',
        "link",
    ],
)
def test_site_refuses_a_broken_or_linked_leaderboard_json(root, tmp_path, content):
    pytest.importorskip("jinja2", reason="the site needs the 'eval' extra")
    board = root / "leaderboard.json"
    if content == "link":
        build(root)
        shutil.move(board, tmp_path / "real.json")
        board.symlink_to(tmp_path / "real.json")
    else:
        board.write_text(content)
    result = CliRunner().invoke(cli, ["leaderboard", "site", "--root", str(root)])
    assert result.exit_code == 2 and "run `benchmarkzoo leaderboard build`" in result.output
    assert "Traceback" not in result.output and not (root / "site").exists()
