"""Robotics on the real PyBullet engine (extra ``robotics``): the Franka Panda manipulation family."""
