"""``benchmarkzoo/TrafficGrid-v0`` and ``MO-TrafficGrid-v0``: one agent per signal of a SUMO network."""
