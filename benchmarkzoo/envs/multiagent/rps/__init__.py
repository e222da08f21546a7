"""RPS population: repeated rock-paper-scissors against a population of scripted bots, and a self-play form.

``sim.py`` holds the rules, every bot and the self-play trembles (once, batched over worlds),
``generator.py`` the scenarios (a bot, its noise and its random stream; or a self-play match's
tremble rate and stream), ``env.py`` the Gymnasium env against a bot (``RPSPopulation-v0``) and
the two-player ParallelEnv (``RPSSelfPlay-v0``), ``vector_env.py`` their native multi-world
forms, ``render.py`` the pygame scoreboard both draw, ``responders.py`` the online n-gram best
responders whose score is a player's exploitability, ``best_response.py`` a tabular best
response trained within a fixed budget, ``baseline.py`` a pattern-matching best responder (for
either seat) and the population metrics (average and per-bot return, exploitability).
"""
