"""pygame drawing of one MazeKeys world: the Maze picture plus the key and the door."""

from __future__ import annotations

from typing_extensions import override

from benchmarkzoo.envs.gridworld.maze.render import CELL, MazeRenderer
from benchmarkzoo.envs.gridworld.maze_keys.sim import State

KEY, DOOR = (230, 180, 30), (140, 90, 40)


class MazeKeysRenderer(MazeRenderer[State]):
    """Draws world ``i``: the locked door as a brown block, the key (until picked up) as a gold diamond."""

    caption = "MazeKeys"

    @override
    def paint(self, state: State, world: int) -> None:
        super().paint(state, world)
        pg = self.pygame
        if state.has_key[world]:
            return  # the door is open and the key is carried: neither is drawn
        door_row, door_col = (int(x) for x in state.door[world])
        pg.draw.rect(self.screen, DOOR, (door_col * CELL + 2, door_row * CELL + 2, CELL - 4, CELL - 4))
        key_row, key_col = (int(x) for x in state.key[world])
        x, y, h = key_col * CELL + CELL // 2, key_row * CELL + CELL // 2, CELL // 2 - 4
        pg.draw.polygon(self.screen, KEY, [(x, y - h), (x + h, y), (x, y + h), (x - h, y)])
