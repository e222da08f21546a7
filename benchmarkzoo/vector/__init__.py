"""Native vector envs: many worlds of one batched simulator behind Gymnasium's VectorEnv API."""

from benchmarkzoo.vector.base import NativeVectorEnv

__all__ = ["NativeVectorEnv"]
