"""Env families. Each env folder has the same files: sim.py, generator.py, env.py, vector_env.py, render.py."""
