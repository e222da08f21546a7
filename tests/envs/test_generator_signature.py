"""A generator subclass states only what it adds or re-defaults; its signature and kwargs still list every argument."""

from __future__ import annotations

import inspect
import pydoc
from typing import Any

import numpy as np
import pytest

from benchmarkzoo.envs.gridworld.maze.generator import DFSMazeGenerator
from benchmarkzoo.generators.base import Generator


class Base(Generator):
    def __init__(self, size: int = 3, speed: float = 1.0, noise: float = 0.0):
        self.size, self.speed, self.noise = size, speed, noise

    def __call__(self, rng: np.random.Generator) -> Any:
        raise NotImplementedError


class Middle(Base):
    def __init__(self, walls: bool = False, **kwargs: Any):
        super().__init__(**kwargs)
        self.walls = walls


class Leaf(Middle):
    def __init__(self, size: int = 5, goals: int = 1, **kwargs: Any):  # re-defaults ``size``
        super().__init__(size=size, **kwargs)
        self.goals = goals


def test_the_signature_spells_out_forwarded_arguments_with_the_leaf_defaults():
    parameters = inspect.signature(Leaf).parameters
    assert list(parameters) == ["size", "goals", "walls", "speed", "noise"]
    assert parameters["size"].default == 5 and parameters["speed"].default == 1.0
    assert parameters["size"].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    assert parameters["walls"].kind is parameters["noise"].kind is inspect.Parameter.KEYWORD_ONLY
    assert "speed: 'float' = 1.0, noise: 'float' = 0.0)" in pydoc.render_doc(Leaf, renderer=pydoc.plaintext)
    assert list(Leaf(speed=2.0).kwargs) == list(parameters) and Leaf(speed=2.0).kwargs["speed"] == 2.0


def test_classes_that_forward_nothing_and_instances_keep_pythons_signature():
    assert list(inspect.signature(Base).parameters) == ["size", "speed", "noise"]
    assert list(inspect.signature(DFSMazeGenerator).parameters) == ["height", "width", "min_goal_distance"]
    assert list(inspect.signature(Leaf()).parameters) == ["rng"]  # an instance is called with its rng


def test_a_forwarded_argument_is_still_checked_by_its_owner():
    with pytest.raises(TypeError, match="unexpected keyword argument 'sped'"):
        Leaf(sped=2.0)
