"""MOMAland 0.2.0 on Gymnasium 1.x, for the tests that run MOMAland's own checks (never benchmarkzoo).

The one incompatibility: ``momaland.utils.aec_wrappers`` (and so ``momaland.test.wrapper_test``)
imports ``RunningMeanStd`` from ``gymnasium.wrappers.normalize``, a module Gymnasium 1.0 removed
(the class moved to ``gymnasium.wrappers.utils``, where MOMAland's own ``parallel_wrappers``
already looks). :func:`import_momaland` puts a module of that name holding only that class in
``sys.modules`` before MOMAland is imported; everything else of MOMAland 0.2.0 imports and runs
as shipped (``api_test``, ``mo_parallel_to_aec``, the wrappers), checked against
gymnasium 1.2.2 and pettingzoo 1.27.
"""

from __future__ import annotations

import sys
import types

import pytest

LEGACY_MODULE = "gymnasium.wrappers.normalize"


def install_shim() -> None:
    """Make ``from gymnasium.wrappers.normalize import RunningMeanStd`` work on Gymnasium 1.x."""
    try:
        import gymnasium.wrappers.normalize  # noqa: F401  (Gymnasium 0.x still has it)
    except ModuleNotFoundError:
        from gymnasium.wrappers.utils import RunningMeanStd

        legacy = types.ModuleType(LEGACY_MODULE, "Gymnasium 0.x's location of RunningMeanStd (tests' shim).")
        legacy.RunningMeanStd = RunningMeanStd  # type: ignore[attr-defined]
        sys.modules[LEGACY_MODULE] = legacy


def import_momaland() -> types.ModuleType:
    """MOMAland with the shim installed, or a skip naming how to install it (CI installs it: Makefile)."""
    install_shim()
    return pytest.importorskip(
        "momaland", minversion="0.2.0", reason="MOMAland's own checks need `pip install --no-deps momaland==0.2.0`"
    )
