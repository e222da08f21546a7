"""An animated SVG of a grid world's episode: rects for the map, SMIL ``<animate>`` for what moves.

No script and no raster: the walls of the first scene are drawn once (one rect per horizontal run
of wall cells), and each mark (agent, goal, key) is one element whose position and visibility
change with ``calcMode="discrete"`` animations that list only the scenes where they change. So the
file grows with the moves made, not with the episode's length times the map's size: a 14-step
Maze episode is about 2 KB. Browsers play SMIL natively; the animation loops.
"""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

from benchmarkzoo.evaluation.replay.scenes import Colour, Mark, Scene

#: Pixels per cell of the SVG's own coordinates (it scales to any size).
CELL = 24
#: Height of the progress strip below the map, in pixels.
STRIP = 4


def _rgb(colour: Colour) -> str:
    return "#{:02x}{:02x}{:02x}".format(*colour)


def _fmt(value: float) -> str:
    return f"{value:g}"


def _animate(attribute: str, changes: list[tuple[int, str]], frames: int, duration: float) -> str:
    """A discrete ``<animate>`` of ``attribute`` taking each ``(frame, value)`` of ``changes`` from that frame on."""
    times = ";".join(_fmt(round(frame / frames, 6)) for frame, _ in changes)
    values = ";".join(value for _, value in changes)
    return (
        f'<animate attributeName="{attribute}" values="{values}" keyTimes="{times}" dur="{_fmt(duration)}s" '
        'calcMode="discrete" repeatCount="indefinite"/>'
    )


def _changes(values: list[str | None]) -> list[tuple[int, str]]:
    """``(frame, value)`` where ``values`` changes (from frame 0; a missing value keeps the last one)."""
    out: list[tuple[int, str]] = []
    for frame, value in enumerate(values):
        if value is not None and (not out or out[-1][1] != value):
            out.append((frame, value))
    return out


def _geometry(mark: Mark) -> dict[str, float]:
    """The position attributes of ``mark``'s element on its cell."""
    x, y = mark.col * CELL, mark.row * CELL
    if mark.shape == "circle":
        return {"cx": x + CELL / 2, "cy": y + CELL / 2}
    inset = 3 if mark.shape == "square" else 5
    return {"x": x + inset, "y": y + inset}


def _element(mark: Mark, animations: list[str], hidden: bool) -> str:
    colour = _rgb(mark.colour)
    attributes = " ".join(f'{k}="{_fmt(v)}"' for k, v in _geometry(mark).items())
    if hidden:
        attributes += ' visibility="hidden"'
    if mark.shape == "circle":
        radius = CELL / 2 - (3 if mark.key.startswith(("agent", "submarine")) else 6)
        head = f'<circle id={quoteattr(mark.key)} {attributes} r="{_fmt(radius)}" fill="{colour}">'
        return head + "".join(animations) + "</circle>"
    inset = 3 if mark.shape == "square" else 5
    side = CELL - 2 * inset
    paint = f'fill="{colour}"' if mark.shape == "square" else f'fill="none" stroke="{colour}" stroke-width="2"'
    head = f'<rect id={quoteattr(mark.key)} {attributes} width="{side}" height="{side}" {paint}>'
    return head + "".join(animations) + "</rect>"


def _label(mark: Mark, animations: list[str], hidden: bool) -> str:
    x, y = mark.col * CELL + CELL / 2, mark.row * CELL + CELL / 2
    visibility = ' visibility="hidden"' if hidden else ""
    size = min(CELL / 2, round(1.7 * CELL / max(len(mark.label or ""), 1), 1))  # a long value still fits its cell
    return (
        f'<text x="{_fmt(x)}" y="{_fmt(y)}" font-size="{_fmt(size)}" text-anchor="middle" '
        f'dominant-baseline="central" font-family="sans-serif"{visibility}>{escape(mark.label or "")}'
        + "".join(animations)
        + "</text>"
    )


def _map(scene: Scene) -> list[str]:
    """The floor (one rect per run of rows of one colour) and the walls (one rect per run of wall cells in a row)."""
    height, width = scene.shape
    parts, start = [], 0
    for i in range(1, height + 1):
        if i == height or scene.floor[i] != scene.floor[start]:
            parts.append(
                f'<rect y="{start * CELL}" width="{width * CELL}" height="{(i - start) * CELL}" '
                f'fill="{_rgb(scene.floor[start])}"/>'
            )
            start = i
    walls = []
    for i in range(height):
        j = 0
        while j < width:
            if not scene.walls[i, j]:
                j += 1
                continue
            run = j
            while j < width and scene.walls[i, j]:
                j += 1
            walls.append(f'<rect x="{run * CELL}" y="{i * CELL}" width="{(j - run) * CELL}" height="{CELL}"/>')
    parts.append(f'<g fill="{_rgb(scene.wall)}">' + "".join(walls) + "</g>")
    return parts


def _marks(scenes: list[Scene], duration: float) -> list[str]:
    """Every mark of every scene as one element, animated where it moves, appears or disappears."""
    frames = len(scenes)
    first: dict[str, Mark] = {}
    for scene in scenes:
        for mark in scene.marks:
            first.setdefault(mark.key, mark)
    parts = []
    for key, mark in first.items():
        track = [next((m for m in scene.marks if m.key == key), None) for scene in scenes]
        present = [m is not None for m in track]
        seen = [m if m is not None else mark for m in track]  # a hidden mark keeps its last place
        animations = []
        for attribute in _geometry(mark):
            moves = _changes([_fmt(_geometry(m)[attribute]) for m in seen])
            if len(moves) > 1:
                animations.append(_animate(attribute, moves, frames, duration))
        shown = _changes(["visible" if p else "hidden" for p in present])
        if len(shown) > 1:
            animations.append(_animate("visibility", shown, frames, duration))
        parts.append(_element(mark, animations, hidden=not present[0]))
        if mark.label:
            label_moves = []
            for attribute, offset in (("x", "col"), ("y", "row")):
                moves = _changes([_fmt(getattr(m, offset) * CELL + CELL / 2) for m in seen])
                if len(moves) > 1:
                    label_moves.append(_animate(attribute, moves, frames, duration))
            if len(shown) > 1:
                label_moves.append(_animate("visibility", shown, frames, duration))
            parts.append(_label(mark, label_moves, hidden=not present[0]))
    return parts


def animated_svg(scenes: list[Scene], fps: float, title: str) -> str:
    """The SVG document of ``scenes`` (one per frame, at ``fps``), titled ``title``."""
    if not scenes:
        raise ValueError("an animation needs at least one scene.")
    height, width = scenes[0].shape
    duration = len(scenes) / fps
    w, h = width * CELL, height * CELL
    strip = (
        f'<rect y="{h}" width="{w}" height="{STRIP}" fill="#ffffff"/>'
        f'<rect y="{h}" width="0" height="{STRIP}" fill="#d64541">'
        f'<animate attributeName="width" values="0;{w}" dur="{_fmt(duration)}s" repeatCount="indefinite"/></rect>'
    )
    body = [*_map(scenes[0]), *_marks(scenes, duration), strip]
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h + STRIP}" viewBox="0 0 {w} {h + STRIP}">'
        f"<title>{escape(title)}</title>" + "".join(body) + "</svg>\n"
    )
