"""Generators that build their scenarios unchecked build exactly what the checked constructor would."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from benchmarkzoo.envs.control.quadrotor.generator import GoalGenerator, HoverGenerator
from benchmarkzoo.envs.gridworld.maze.generator import DFSMazeGenerator, ObstacleMapGenerator, RoomsGenerator
from benchmarkzoo.envs.multiagent.beach.generator import BeachGenerator

GENERATORS = [
    DFSMazeGenerator(11, 11, 4),
    ObstacleMapGenerator(9, 9, 0.3, 3),
    RoomsGenerator(13, 13, 2, 2, 1, 6),
    HoverGenerator(),
    HoverGenerator(hover_height=3, mass=(1, 2)),  # ints in: the scenario must still hold floats
    GoalGenerator(),
    BeachGenerator(),
    BeachGenerator(num_agents=7, num_sections=3, type_distribution=(0.5, 0.25, 0.25), position_distribution=(1, 0, 0)),
]


def _field_types(value):
    if isinstance(value, np.ndarray):
        return ("array", value.dtype.str, value.shape, value.flags.writeable)
    if isinstance(value, tuple):
        return tuple(_field_types(v) for v in value)
    return type(value)


@pytest.mark.parametrize("generator", GENERATORS, ids=lambda g: type(g).__name__)
def test_unchecked_scenarios_are_what_the_checked_constructor_builds(generator):
    for seed in range(100):
        scenario = generator(np.random.default_rng(seed))
        fields = {f.name: getattr(scenario, f.name) for f in dataclasses.fields(scenario)}
        checked = type(scenario)(**fields)  # runs __post_init__: refuses, or normalizes, what is not in checked form
        assert checked.content_hash == scenario.content_hash
        for name, value in fields.items():
            assert _field_types(getattr(checked, name)) == _field_types(value), (seed, name)
