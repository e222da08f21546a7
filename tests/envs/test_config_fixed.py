"""Arguments a variant fixes: ClassVar constants, left out of the signature, refused with the value played."""

from __future__ import annotations

import inspect
from typing import ClassVar

import pytest

from benchmarkzoo.core.config import EnvConfig, arg, bind_arguments, config_signature, number
from benchmarkzoo.envs.control.quadrotor.mo_env import MOQuadrotorEnv


class ToyConfig(EnvConfig):
    generator: str = "maze/dfs"
    speed: float = arg(1.0, number())
    mode: str = "a"


class ToyVariantConfig(ToyConfig):
    mode: ClassVar[str] = "b"


class ToyVariantOfVariantConfig(ToyVariantConfig):
    speed: ClassVar[float] = 2.0


def test_fixed_arguments_are_the_base_fields_a_config_turns_into_constants():
    assert ToyConfig.fixed_arguments() == {}
    assert ToyVariantConfig.fixed_arguments() == {"mode": "b"}
    assert ToyVariantOfVariantConfig.fixed_arguments() == {"mode": "b", "speed": 2.0}
    assert [p.name for p in ToyVariantOfVariantConfig.parameters()] == ["generator", "generator_kwargs"]


def test_a_fixed_argument_is_refused_with_the_value_it_is_played_at():
    signature = config_signature(ToyVariantConfig)
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'mode'\. Toy plays mode='b', fixed by this"):
        bind_arguments("Toy", signature, (), {"mode": "c"}, ToyVariantConfig.fixed_arguments())
    with pytest.raises(TypeError, match=r"'sped'\. Did you mean 'speed'\? Its arguments are: generator"):
        bind_arguments("Toy", signature, (), {"sped": 2.0}, ToyVariantConfig.fixed_arguments())
    assert bind_arguments("Toy", signature, (), {"speed": 3.0}, ToyVariantConfig.fixed_arguments())["speed"] == 3.0


def test_a_view_of_a_variant_names_the_value_it_plays():
    assert "pos_weight" not in inspect.signature(MOQuadrotorEnv).parameters
    with pytest.raises(TypeError, match=r"'pos_weight'\. MOQuadrotorEnv plays pos_weight=0\.0, fixed by this variant"):
        MOQuadrotorEnv(pos_weight=1.0)
