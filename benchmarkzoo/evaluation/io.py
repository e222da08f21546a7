"""Kept for importers of ``benchmarkzoo.evaluation.io``: the writer lives in :mod:`benchmarkzoo.core.atomic`."""

from __future__ import annotations

from benchmarkzoo.core.atomic import atomic_write, atomic_write_text

__all__ = ["atomic_write", "atomic_write_text"]
