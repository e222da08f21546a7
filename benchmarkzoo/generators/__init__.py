"""Scenario generators: a seed in, a complete scenario out. See :class:`Generator`."""

from benchmarkzoo.generators.base import Generator

__all__ = ["Generator"]
