"""Exact comparison of nested env outputs, with a message that says where they differ."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np


def snapshot(value: Any) -> Any:
    """A deep copy, so later steps (or a buffer an env reuses) cannot change what was recorded."""
    return copy.deepcopy(value)


def assert_same(expected: Any, actual: Any, where: str) -> None:
    """Raise ``AssertionError`` unless ``expected`` and ``actual`` are exactly equal.

    Exact means: same container types and keys, arrays of the same shape and dtype with equal
    elements (NaN equals NaN), scalars of the same type and value. Dict key *order* is ignored.

    Args:
        expected: the reference value (dicts, tuples, lists, numpy arrays, scalars, ``None``).
        actual: the value under test.
        where: a path for the message, e.g. ``"step 17: info['final_obs'][3]"``.
    """
    if isinstance(expected, dict) or isinstance(actual, dict):
        _assert_same_dict(expected, actual, where)
        return
    if isinstance(expected, tuple | list) or isinstance(actual, tuple | list):
        _assert_same_sequence(expected, actual, where)
        return
    if isinstance(expected, np.ndarray) or isinstance(actual, np.ndarray):
        _assert_same_array(expected, actual, where)
        return
    if type(expected) is not type(actual):
        raise AssertionError(
            f"{where}: types differ, {type(expected).__name__} {expected!r} != {type(actual).__name__} {actual!r}"
        )
    if isinstance(expected, float | np.floating) and np.isnan(expected) and np.isnan(actual):
        return
    if expected != actual:
        raise AssertionError(f"{where}: {expected!r} != {actual!r}")


def _assert_same_dict(expected: Any, actual: Any, where: str) -> None:
    if not (isinstance(expected, dict) and isinstance(actual, dict)):
        raise AssertionError(f"{where}: expected a {type(expected).__name__}, got a {type(actual).__name__}")
    if set(expected) != set(actual):
        only_e = ", ".join(sorted(map(repr, set(expected) - set(actual))))
        only_a = ", ".join(sorted(map(repr, set(actual) - set(expected))))
        raise AssertionError(f"{where}: keys differ; only in expected [{only_e}], only in actual [{only_a}]")
    for key in expected:
        assert_same(expected[key], actual[key], f"{where}[{key!r}]")


def _assert_same_sequence(expected: Any, actual: Any, where: str) -> None:
    if type(expected) is not type(actual):
        raise AssertionError(f"{where}: expected a {type(expected).__name__}, got a {type(actual).__name__}")
    if len(expected) != len(actual):
        raise AssertionError(f"{where}: lengths differ, {len(expected)} != {len(actual)}")
    for i, (e, a) in enumerate(zip(expected, actual)):
        assert_same(e, a, f"{where}[{i}]")


def _assert_same_array(expected: Any, actual: Any, where: str) -> None:
    if not (isinstance(expected, np.ndarray) and isinstance(actual, np.ndarray)):
        raise AssertionError(f"{where}: expected a {type(expected).__name__}, got a {type(actual).__name__}")
    if expected.shape != actual.shape or expected.dtype != actual.dtype:
        raise AssertionError(
            f"{where}: array layout differs, shape {expected.shape} dtype {expected.dtype} != "
            f"shape {actual.shape} dtype {actual.dtype}"
        )
    if expected.dtype == object:
        for index in np.ndindex(expected.shape):
            assert_same(expected[index], actual[index], f"{where}[{', '.join(map(str, index))}]")
        return
    equal_nan = expected.dtype.kind in "fc"
    if not np.array_equal(expected, actual, equal_nan=equal_nan):
        differ = np.argwhere(
            ~((expected == actual) | (np.isnan(expected) & np.isnan(actual)) if equal_nan else expected == actual)
        )
        first = tuple(int(i) for i in differ[0]) if differ.size else ()
        raise AssertionError(
            f"{where}: arrays differ at {len(differ)} position(s); first at index {first}: "
            f"{expected[first]!r} != {actual[first]!r}"
        )
