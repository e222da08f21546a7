"""MO-Treasure: the deep-sea-treasure family, generated (sim, generator, env, vector_env, render, baseline, pareto)."""
