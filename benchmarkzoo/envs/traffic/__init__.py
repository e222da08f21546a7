"""SUMO traffic envs: signal control (one intersection, networks, RESCO) and route choice."""
