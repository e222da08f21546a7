"""``benchmarkzoo/TrafficSignal-v0`` and ``MO-TrafficSignal-v0``: one signalized intersection."""
