"""The pygame canvas every native renderer draws on: a window (``human``) or an off-screen surface (``rgb_array``).

A renderer subclasses :class:`PygameCanvas`, paints its world on ``self.screen`` with
``self.pygame``, and ends each frame with ``return self.present()``. pygame is imported when the
first canvas is made (through :func:`~benchmarkzoo.core.extras.require`, which names the ``render``
extra when it is missing), so ``import benchmarkzoo`` stays light. With ``SDL_VIDEODRIVER=dummy``
the ``human`` mode runs headless too.
"""

from __future__ import annotations

import colorsys
from typing import Any

import numpy as np

from benchmarkzoo.core.extras import require


class PygameCanvas:
    """A ``width`` x ``height`` pixel surface shown in a window (``human``) or returned as frames (``rgb_array``).

    Args:
        width: pixels across.
        height: pixels down.
        render_mode: ``"human"`` opens a window and paces :meth:`present` at ``fps``; any other mode
            (the envs pass ``"rgb_array"``) draws off-screen and :meth:`present` returns the frame.
        fps: frames per second in ``human`` mode.
        caption: what is drawn, e.g. ``"Maze"``: the window title, and named in the error when
            pygame is missing.
    """

    def __init__(self, width: int, height: int, render_mode: str, fps: int, caption: str):
        self.pygame = require("pygame", "render", f"{caption} rendering")
        self.render_mode = render_mode
        self.fps = fps
        self.size = (width, height)
        if render_mode == "human":
            self.pygame.display.init()
            self.screen = self.pygame.display.set_mode(self.size)
            self.pygame.display.set_caption(caption)
            self.clock = self.pygame.time.Clock()
        else:
            self.screen = self.pygame.Surface(self.size)

    def font(self, size: int) -> Any:
        """The default pygame font at ``size`` pixels (initialising the font module on first use)."""
        self.pygame.font.init()
        return self.pygame.font.Font(None, size)

    def present(self) -> np.ndarray | None:
        """Show the painted screen (``human``: returns ``None``) or return it as an ``(H, W, 3)`` uint8 frame."""
        pg = self.pygame
        if self.render_mode == "human":
            pg.event.pump()
            pg.display.flip()
            self.clock.tick(self.fps)
            return None
        return np.transpose(pg.surfarray.array3d(self.screen), (1, 0, 2)).copy()  # (H, W, 3) uint8

    def close(self) -> None:
        """Close the window, if there is one."""
        if self.render_mode == "human":
            self.pygame.display.quit()


def agent_colour(index: int, count: int) -> tuple[int, int, int]:
    """Evenly spaced hues, so agent ``index`` of ``count`` and its goal share a colour."""
    r, g, b = colorsys.hsv_to_rgb(index / max(count, 1), 0.75, 0.85)
    return int(r * 255), int(g * 255), int(b * 255)
