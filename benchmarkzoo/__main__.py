"""``python -m benchmarkzoo``: the same command as the ``benchmarkzoo`` console script."""

from benchmarkzoo.cli import main

if __name__ == "__main__":  # pytest's doctest collection imports this module; only run as a script
    main()
