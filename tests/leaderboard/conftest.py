"""Real quickstart-v0 results of the random and baseline policies, made once per session."""

from __future__ import annotations

import pytest

from benchmarkzoo.evaluation.protocol import evaluate


@pytest.fixture(scope="session")
def quickstart_results(tmp_path_factory):
    """``{"random": path, "baseline": path}`` of untouched results files (copy before editing)."""
    folder = tmp_path_factory.mktemp("quickstart")
    files = {}
    for policy in ("random", "baseline"):
        files[policy] = folder / f"{policy}.json"
        evaluate("quickstart-v0", policy, num_envs=16, out=files[policy])
    return files
