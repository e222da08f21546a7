"""RPS population: repeated rock-paper-scissors against a population of scripted bots, and a self-play form.

``sim.py`` holds the rules and every bot (once, batched over worlds), ``generator.py`` the
scenarios (which bot, its noise and its random stream), ``env.py`` the Gymnasium env against a
bot, ``vector_env.py`` its native multi-world form, ``baseline.py`` a pattern-matching best
responder and the population metrics (average and per-bot return, exploitability).
"""
