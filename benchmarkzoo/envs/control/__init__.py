"""Continuous control: the Quadrotor family (hover and go-to-goal), in the spirit of QuadSwarm."""
