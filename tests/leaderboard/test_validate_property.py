"""Property: whatever a mutation does to a genuine results file, validate refuses it with a reason or accepts it.

A refusal is a :class:`SubmissionError` with a non-empty message that holds no raw control or
format character and is not the safety net's "internal error"; an acceptance means the mutation
changed nothing validate can check (a provenance string, or a plausible forged return: those are
the plausibility and replay layers' job). Anything else raised is a bug. The checks are called
directly, below :func:`validate_file`'s safety net, so a crash in a check fails here.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis", reason="the property tests need hypothesis (dev extra)")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from benchmarkzoo.leaderboard.validate import INTERNAL, SubmissionError, parse_submission, validate  # noqa: E402

from .test_hostile import raw_controls  # noqa: E402

COMMITTED = Path(__file__).resolve().parents[2] / "leaderboard" / "submissions" / "quickstart-v0"
SOURCE = sorted(COMMITTED.glob("random-*.json"))[0]
GENUINE = json.loads(SOURCE.read_text())
GENUINE.pop("submitter")
SETTINGS = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)


def _paths(node, prefix=()):
    """Every path into ``node`` (dict keys and list indices), the root excluded."""
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else []
    for key, value in items:
        yield (*prefix, key)
        yield from _paths(value, (*prefix, key))


# The episodes dominate the paths; sample the rest as often, so every part of the file is mutated.
_ALL = list(_paths(GENUINE))
PATHS = [p for p in _ALL if "episodes" not in p]
PATHS += [p for p in _ALL if "episodes" in p and (len(p) < 4 or p[3] in (0, 1, 49))]

texts = st.text(alphabet=st.characters(exclude_categories=()), max_size=12)  # surrogates and controls included
leaves = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.floats(min_value=-1e6, max_value=1e6)
    | texts
)
values = st.recursive(
    leaves,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(texts, children, max_size=3),
    max_leaves=6,
)


def _parent(data, path):
    node = data
    for key in path[:-1]:
        node = node[key]
    return node


@st.composite
def mutated(draw):
    """A copy of the genuine file with one to three mutations of numbers, strings or structure."""
    data = copy.deepcopy(GENUINE)
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(PATHS))
        try:
            parent = _parent(data, path)
            old = parent[path[-1]]
        except (KeyError, IndexError, TypeError):
            continue  # an earlier mutation removed it
        kind = draw(st.sampled_from(["replace", "delete", "insert", "number", "string", "duplicate"]))
        if kind == "replace":
            parent[path[-1]] = draw(values)
        elif kind == "delete":
            del parent[path[-1]]
        elif kind == "insert" and isinstance(old, dict):
            old[draw(texts)] = draw(values)
        elif kind == "number" and isinstance(old, int | float) and not isinstance(old, bool):
            factor = draw(st.sampled_from([-1, 0, 2, 1 + 1e-12, 1e300, 10**20]))
            parent[path[-1]] = old * factor + draw(st.sampled_from([0, 1, -1, 0.5]))
        elif kind == "string" and isinstance(old, str):
            at = draw(st.integers(0, len(old)))
            parent[path[-1]] = old[:at] + draw(texts) + old[at:]
        elif kind == "duplicate" and isinstance(parent, list):
            parent.insert(path[-1], copy.deepcopy(old))
    return data


def check(raw: bytes) -> None:
    try:
        validate(parse_submission(raw))
    except SubmissionError as error:
        message = str(error)
        assert message and INTERNAL not in message
        assert raw_controls(message) == [], message


def test_the_genuine_file_is_accepted():
    check(json.dumps(GENUINE).encode())
    validate(parse_submission(json.dumps(GENUINE).encode()))


@SETTINGS
@given(mutated())
def test_any_mutation_is_refused_with_a_reason_or_accepted(data):
    check(json.dumps(data, allow_nan=True).encode("utf-8", "surrogatepass"))


RAW = json.dumps(GENUINE).encode()


@SETTINGS
@given(
    st.lists(st.tuples(st.integers(0, len(RAW) - 1), st.binary(max_size=3), st.integers(0, 3)), min_size=1, max_size=4)
)
def test_any_byte_edit_is_refused_with_a_reason_or_accepted(edits):
    raw = bytearray(RAW)
    for at, new, cut in edits:
        raw[at : at + cut] = new
    check(bytes(raw))
