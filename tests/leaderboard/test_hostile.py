"""The hostile corpus (tests/leaderboard/hostile/, made by its make_corpus.py): every file is refused, with its reason.

``validate`` cases go through the real CLI in a subprocess (exit 2, the reason, no traceback, no
raw control character in what reaches the terminal); ``add`` cases are valid files that
``leaderboard add`` refuses beside the committed quickstart-v0 references, writing nothing.
``plausibility`` and ``verify`` cases are consistent forgeries those layers own; here they must
only never crash validate.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchmarkzoo.cli import cli
from benchmarkzoo.leaderboard.text import REFUSED_CATEGORIES
from benchmarkzoo.leaderboard.validate import INTERNAL, SubmissionError, validate_file

REPO = Path(__file__).resolve().parents[2]
CORPUS = Path(__file__).resolve().parent / "hostile"
INDEX = json.loads((CORPUS / "index.json").read_text())["cases"]


def _cases(command: str) -> list[str]:
    return sorted(f for f, case in INDEX.items() if case["command"] == command)


def raw_controls(text: str) -> list[str]:
    """The characters of ``text`` a terminal could act on (the newlines between lines excepted)."""
    import unicodedata

    return [f"U+{ord(c):04X}" for c in text if c != "\n" and unicodedata.category(c) in REFUSED_CATEGORIES]


def test_corpus_is_large_and_indexed():
    files = sorted(p.name for p in CORPUS.glob("*.json") if p.name != "index.json")
    assert files == sorted(INDEX), "regenerate with tests/leaderboard/hostile/make_corpus.py"
    assert len(_cases("validate")) + len(_cases("add")) >= 60
    assert all(case["refusal"] for case in INDEX.values())


def test_cli_validate_refuses_every_corpus_file_with_its_reason():
    files = _cases("validate")
    done = subprocess.run(
        [sys.executable, "-m", "benchmarkzoo", "leaderboard", "validate", *files],
        cwd=CORPUS,
        capture_output=True,
        text=True,
        errors="surrogateescape",
        timeout=900,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr + done.stdout
    assert done.stdout == ""  # not one file is reported valid
    assert raw_controls(done.stderr) == []
    lines = {line.split(": refused: ", 1)[0]: line for line in done.stderr.splitlines()}
    wrong = {
        f: lines.get(f, "no refusal")
        for f in files
        if INDEX[f]["refusal"] not in lines.get(f, "") or INTERNAL in lines.get(f, "")
    }
    assert wrong == {}
    assert len(lines) == len(files)


@pytest.fixture(scope="module")
def reference_root(tmp_path_factory):
    """A leaderboard folder holding the committed quickstart-v0 references (submitter benchmarkzoo)."""
    root = tmp_path_factory.mktemp("references")
    shutil.copytree(REPO / "leaderboard" / "submissions" / "quickstart-v0", root / "submissions" / "quickstart-v0")
    return root


def _tree(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))


@pytest.mark.parametrize("file", _cases("add"))
def test_cli_add_refuses_names_and_copies(reference_root, file):
    before = _tree(reference_root)
    data = json.loads((CORPUS / file).read_text())
    args = ["leaderboard", "add", str(CORPUS / file), "--root", str(reference_root)]
    if data.get("submitter") is None:
        args += ["--submitter", "mallory"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2, result.output
    assert INDEX[file]["refusal"] in result.output and "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert _tree(reference_root) == before  # a refused add writes nothing


@pytest.mark.parametrize("file", _cases("plausibility") + _cases("verify"))
def test_consistent_forgeries_never_crash_validate(file):
    """Owned by the plausibility bounds and replay; validate must accept them or refuse with a reason."""
    try:
        validate_file(CORPUS / file)
    except SubmissionError as error:
        assert str(error) and INTERNAL not in str(error) and raw_controls(str(error)) == []
