"""Grid worlds: MazeKeys-v0, the Maze with a locked door and its key."""
