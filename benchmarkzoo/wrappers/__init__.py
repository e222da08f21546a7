"""Wrappers over benchmarkzoo envs: per-agent linear scalarization of ``moma`` envs (:mod:`.multiagent`)."""

from benchmarkzoo.wrappers.multiagent import LinearScalarization, LinearScalarizationVector

__all__ = ["LinearScalarization", "LinearScalarizationVector"]
