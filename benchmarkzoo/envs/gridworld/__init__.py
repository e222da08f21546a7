"""Grid worlds: the Maze family."""
