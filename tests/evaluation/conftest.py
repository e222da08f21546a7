"""Small suites written to ``tmp_path``, so evaluation tests run in seconds."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

#: Two Maze tasks, few episodes; the episode counts differ so no world count divides both evenly.
TINY_SUITE = {
    "name": "tiny-v0",
    "description": "Two short Maze tasks for the tests.",
    "tasks": [
        {
            "id": "maze-test",
            "env": "benchmarkzoo/Maze-v0",
            "scenario_set": "gridworld/maze",
            "split": "test",
            "episodes": 7,
        },
        {
            "id": "maze-ood",
            "env": "benchmarkzoo/Maze-v0",
            "scenario_set": "gridworld/maze",
            "split": "ood",
            "episodes": 5,
            "env_kwargs": {"max_episode_steps": 150},
        },
    ],
}


def write_suite(folder: Path, data: dict = TINY_SUITE) -> Path:
    path = folder / f"{data['name']}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


@pytest.fixture
def tiny_suite(tmp_path: Path) -> Path:
    """The path of a freshly written copy of :data:`TINY_SUITE` (no references)."""
    return write_suite(tmp_path)


@pytest.fixture(scope="session")
def suite_writer():
    """:func:`write_suite`, for module-scoped fixtures and suites of other shapes."""
    return write_suite
