"""Tiny real ONNX models for the tests of ONNX policies and bundles (no torch, no training)."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from benchmarkzoo import registration


def constant_model(env_id: str, action: int) -> bytes:
    """An ONNX model for ``env_id``'s Dict observations whose logits always pick ``action`` (a real graph, tiny)."""
    env = registration.make_vec(env_id, 1, vectorization_mode="vector_entry_point")
    space, n = env.single_observation_space, int(env.single_action_space.n)
    env.close()
    inputs = [
        helper.make_tensor_value_info(key, TensorProto.FLOAT, ["B", *sub.shape]) for key, sub in space.spaces.items()
    ]
    first = next(iter(space.spaces))
    width = int(np.prod(space[first].shape))
    bias = np.zeros(n, np.float32)
    bias[action] = 1.0
    nodes = [
        helper.make_node("Flatten", [first], ["flat"], axis=1),
        helper.make_node("MatMul", ["flat", "zeros"], ["scaled"]),
        helper.make_node("Add", ["scaled", "bias"], ["logits"]),
    ]
    weights = [
        numpy_helper.from_array(np.zeros((width, n), np.float32), "zeros"),
        numpy_helper.from_array(bias, "bias"),
    ]
    out = helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["B", n])
    graph = helper.make_graph(nodes, "constant", inputs, [out], initializer=weights)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.checker.check_model(model)
    return model.SerializeToString()
