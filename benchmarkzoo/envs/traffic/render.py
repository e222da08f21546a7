"""The top-down view every SUMO env renders: lanes, junctions, vehicles, queues and signal states.

One renderer for TrafficSignal-v0, TrafficGrid-v0 (and MO), the RESCO envs and Routing-v0:
:class:`TrafficRenderer` draws a :class:`~benchmarkzoo.envs.traffic.geometry.NetworkGeometry`
(read once per network) and a :class:`~benchmarkzoo.envs.traffic.snapshot.Snapshot` (read from
SUMO per frame, only when the view renders). The network is fitted into a fixed frame whose
aspect is the first network's, so every frame of an env has one shape; the lanes and junctions
are painted once per network onto a background surface that each frame copies.

What a frame shows: every vehicle as a rectangle at its SUMO position and heading (queued ones,
slower than SUMO's halting threshold, in :data:`QUEUED`; Routing-v0's agents in :data:`AGENT`),
and at the end of every signal-controlled lane its stop line, one piece per link, in the colour
of that link's character of the light's state string (SUMO-gui's colours, :data:`SIGNAL_COLOURS`).
Stop lines are drawn last, just past the lane's end, so a queue never hides them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from benchmarkzoo.core.rendering import PygameCanvas
from benchmarkzoo.envs.traffic.geometry import NetworkGeometry, StopLine
from benchmarkzoo.envs.traffic.snapshot import Snapshot

#: The ``metadata`` entries of every rendering traffic view (declared once, here).
RENDER_METADATA: dict[str, Any] = {"render_modes": ["rgb_array", "human"], "render_fps": 8}

BACKGROUND, JUNCTION, LANE, TEXT = (28, 32, 38), (72, 76, 84), (96, 100, 108), (230, 230, 230)
MOVING, QUEUED, AGENT = (236, 236, 236), (214, 39, 40), (66, 165, 245)
#: SUMO-gui's link colours by state character; another character draws grey.
SIGNAL_COLOURS: dict[str, tuple[int, int, int]] = {
    "G": (0, 255, 0),
    "g": (0, 179, 0),
    "r": (255, 0, 0),
    "R": (255, 0, 0),
    "y": (255, 255, 0),
    "Y": (255, 255, 0),
    "u": (255, 128, 0),
    "o": (128, 64, 0),
    "O": (0, 255, 255),
    "s": (128, 0, 128),
}
UNKNOWN_SIGNAL = (160, 160, 160)
LONG_SIDE, SHORT_SIDE_MIN, MARGIN, HUD = 720, 360, 12, 24  # pixels
VEHICLE_WIDTH = 1.8  # metres (SUMO's default passenger car)
MIN_VEHICLE_PX, STOP_LINE_PX = 3.0, 3.0  # the smallest a vehicle is drawn; a stop line's thickness


def frame_size(bounds: tuple[float, float, float, float]) -> tuple[int, int]:
    """``(width, height)`` pixels of a frame for a network of ``bounds``: the long side :data:`LONG_SIDE`."""
    dx, dy = max(bounds[2] - bounds[0], 1.0), max(bounds[3] - bounds[1], 1.0)
    if dx >= dy:
        return LONG_SIDE, max(SHORT_SIDE_MIN, round(LONG_SIDE * dy / dx)) + HUD
    return max(SHORT_SIDE_MIN, round(LONG_SIDE * dx / dy)), LONG_SIDE + HUD


class Viewport:
    """Network metres to frame pixels: ``bounds`` fitted (aspect kept, centred) below the text strip."""

    def __init__(self, bounds: tuple[float, float, float, float], size: tuple[int, int]):
        width, height = size
        dx, dy = max(bounds[2] - bounds[0], 1.0), max(bounds[3] - bounds[1], 1.0)
        self.scale = min((width - 2 * MARGIN) / dx, (height - HUD - 2 * MARGIN) / dy)  # pixels per metre
        self.x0 = bounds[0] - ((width - 2 * MARGIN) / self.scale - dx) / 2 - MARGIN / self.scale
        self.y0 = bounds[1] - ((height - HUD - 2 * MARGIN) / self.scale - dy) / 2 - MARGIN / self.scale
        self.height = height

    def pixels(self, points: np.ndarray) -> np.ndarray:
        """``(..., 2)`` metres as ``(..., 2)`` float pixels (x right, y down)."""
        x = (points[..., 0] - self.x0) * self.scale
        y = self.height - (points[..., 1] - self.y0) * self.scale
        return np.stack([x, y], axis=-1)


class TrafficRenderer(PygameCanvas):
    """Draws a network and a snapshot of its traffic; see the module docstring.

    Args:
        geometry: the first network drawn; it sets the frame's shape.
        render_mode: ``"rgb_array"`` or ``"human"``.
        fps: frames per second in ``human`` mode.
        caption: the window title (the env id).
    """

    def __init__(self, geometry: NetworkGeometry, render_mode: str, fps: int, caption: str):
        width, height = frame_size(geometry.bounds)
        super().__init__(width, height, render_mode, fps, caption)
        self._geometry: NetworkGeometry | None = None
        self._background: Any = None
        self._font: Any = None
        self.viewport = Viewport(geometry.bounds, self.size)
        #: Per stop-line piece of the last frame, the pixel ``(x, y)`` at its centre (what tests sample).
        self.stop_pixels: list[tuple[StopLine, tuple[int, int]]] = []

    def draw(self, geometry: NetworkGeometry, snapshot: Snapshot, agent_prefix: str | None = None) -> np.ndarray | None:
        """Paint ``snapshot`` on ``geometry``'s network; return the ``(H, W, 3)`` uint8 frame (``human``: ``None``).

        Args:
            geometry: the network (a new one is fitted into the frame, and its background painted once).
            snapshot: the vehicles and signal states to draw.
            agent_prefix: vehicles whose ids start with it are agents (drawn in :data:`AGENT` while moving).
        """
        if geometry is not self._geometry:
            self._paint_background(geometry)
        self.screen.blit(self._background, (0, 0))
        self._paint_vehicles(snapshot, agent_prefix)
        self._paint_stop_lines(geometry, snapshot.signals)
        queued = int(snapshot.halted.sum())
        text = f"t = {snapshot.time:.0f} s    vehicles {len(snapshot.vehicles)}    queued {queued}"
        if self._font is None:
            self._font = self.font(20)
        self.screen.blit(self._font.render(text, True, TEXT), (MARGIN, 5))
        return self.present()

    def vehicle_centres(self, snapshot: Snapshot) -> np.ndarray:
        """``(V, 2)`` float pixels of each vehicle's centre (half its length behind its front)."""
        return self.viewport.pixels(snapshot.position - _heading(snapshot.angle) * snapshot.length[:, None] / 2)

    def _paint_background(self, geometry: NetworkGeometry) -> None:
        pg = self.pygame
        self._geometry = geometry
        self.viewport = view = Viewport(geometry.bounds, self.size)
        background = pg.Surface(self.size)
        background.fill(BACKGROUND)
        for outline in geometry.junctions:
            pg.draw.polygon(background, JUNCTION, view.pixels(outline).tolist())
        for shape, width in zip(geometry.lanes, geometry.lane_width.tolist()):
            if width * view.scale >= 3:  # a one-pixel gap between neighbouring lanes, where they are wide enough
                width -= 1 / view.scale
            along = np.diff(shape, axis=0)  # (K-1, 2)
            length = np.maximum(np.hypot(along[:, 0], along[:, 1]), 1e-9)[:, None]
            side = np.stack([-along[:, 1], along[:, 0]], axis=1) / length * (width / 2)
            for a, b, s in zip(shape[:-1], shape[1:], side):
                pg.draw.polygon(background, LANE, view.pixels(np.array([a + s, b + s, b - s, a - s])).tolist())
            radius = width / 2 * view.scale
            if radius >= 1.5:
                for joint in view.pixels(shape[1:-1]).tolist():
                    pg.draw.circle(background, LANE, joint, radius)
        self._background = background

    def _paint_vehicles(self, snapshot: Snapshot, agent_prefix: str | None) -> None:
        pg, view = self.pygame, self.viewport
        heading = _heading(snapshot.angle)  # (V, 2)
        side = np.stack([heading[:, 1], -heading[:, 0]], axis=1)  # (V, 2) to the vehicle's right
        length = np.maximum(snapshot.length, MIN_VEHICLE_PX / view.scale)[:, None]
        half_width = max(VEHICLE_WIDTH, MIN_VEHICLE_PX / view.scale) / 2
        front = snapshot.position
        back = front - heading * length
        corners = np.stack(
            [front + side * half_width, back + side * half_width, back - side * half_width, front - side * half_width],
            axis=1,
        )  # (V, 4, 2)
        pixels = view.pixels(corners)
        agents = np.array(
            [agent_prefix is not None and v.startswith(agent_prefix) for v in snapshot.vehicles], dtype=bool
        )
        # queued vehicles last, so a vehicle passing beside a queue never covers it
        for i in np.argsort(snapshot.halted, kind="stable").tolist():
            colour = QUEUED if snapshot.halted[i] else (AGENT if agents[i] else MOVING)
            pg.draw.polygon(self.screen, colour, pixels[i].tolist())

    def _paint_stop_lines(self, geometry: NetworkGeometry, signals: dict[str, str]) -> None:
        pg, view = self.pygame, self.viewport
        depth = STOP_LINE_PX / view.scale  # metres past the lane's end
        self.stop_pixels = []
        for line in geometry.stop_lines:
            state = signals.get(line.tls, "")
            colour = SIGNAL_COLOURS.get(state[line.link], UNKNOWN_SIGNAL) if line.link < len(state) else UNKNOWN_SIGNAL
            ahead = line.direction * depth
            quad = np.array([line.start, line.end, line.end + ahead, line.start + ahead])
            pg.draw.polygon(self.screen, colour, view.pixels(quad).tolist())
            centre = view.pixels((line.start + line.end) / 2 + ahead / 2)
            self.stop_pixels.append((line, (int(centre[0]), int(centre[1]))))


def _heading(angle: np.ndarray) -> np.ndarray:
    """``(V, 2)`` unit vectors of SUMO headings (degrees, 0 north, clockwise) in the network's x, y."""
    radians = np.radians(angle)
    return np.stack([np.sin(radians), np.cos(radians)], axis=-1).reshape(-1, 2)
