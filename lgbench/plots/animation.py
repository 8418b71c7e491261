"""A mechanism's motion drawn as an animation: an animated GIF or a self-contained HTML viewer.

Each body is drawn as a stick figure: a line from its centre of mass to every point its joints hold,
a dot at the centre; a body without joint points off its centre as its body-frame triad. Joints are
circles at the points of both bodies (one circle while the constraints hold; a prismatic joint's two
points slide apart along its line), ground points grey squares.
The view is an orthographic projection (``VIEWS``, or ``auto``: face-on to the plane of the motion,
``plane_axes``) with the same limits in every frame, so that a mechanism file can be checked to move as
intended before a study trusts it. The HTML viewer draws its buttons as inline SVG, so it needs no network
connection. Input is a ``Motion`` of plain arrays (lgbench/runner/motion.py); nothing here touches the engine.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from lgbench.exceptions import InputError

_ISO = np.array([1.0, 1.0, 1.0]) / np.sqrt(3.0)
_ISO_RIGHT = np.cross([0.0, 0.0, 1.0], _ISO) / np.linalg.norm(np.cross([0.0, 0.0, 1.0], _ISO))
VIEWS = {
    "iso": (_ISO_RIGHT, np.cross(_ISO, _ISO_RIGHT)),     # seen from (1, 1, 1), z up
    "xz": (np.array([1.0, 0.0, 0.0]), np.array([0.0, 0.0, 1.0])),
    "yz": (np.array([0.0, 1.0, 0.0]), np.array([0.0, 0.0, 1.0])),
    "xy": (np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0])),
}
"""Screen axes (right, up) of each view, in global coordinates."""
VIEW_NAMES = ("auto", *VIEWS)
"""The views a command or a study may name: ``auto`` (``plane_axes``) or a fixed one of ``VIEWS``."""
PLANAR_SPREAD = 0.1
"""A motion is drawn face-on to its plane when its points' spread (standard deviation) along their smallest
principal direction is at most this fraction of the spread along the middle one; otherwise ``auto`` is iso."""
FORMATS = (".gif", ".html")
BODY_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf")
JOINT_COLOUR = "#000000"
GROUND_COLOUR = "#7f7f7f"


def plane_axes(motion) -> tuple[np.ndarray, np.ndarray]:
    """Screen axes (right, up) of the ``auto`` view: the viewer looks along the smallest principal direction
    n of the spread of every centre and joint point over all frames, up is global z projected onto the
    screen (y when n is along z), right = up x n. n points to the side where n . (1, -1, 1) > 0, so that a
    mechanism moving in the xz, yz or xy plane is drawn as the named view of that plane. A motion that is not
    planar (``PLANAR_SPREAD``) or spans less than a plane is drawn iso."""
    every = np.concatenate([motion.centres.reshape(-1, 3), motion.points.reshape(-1, 3)])
    if every.shape[0] < 3:
        return VIEWS["iso"]
    _, spread, directions = np.linalg.svd(every - every.mean(axis=0), full_matrices=False)
    if spread.shape[0] < 3 or spread[1] <= 1e-9 * spread[0] or spread[2] > PLANAR_SPREAD * spread[1]:
        return VIEWS["iso"]
    normal = directions[2] if directions[2] @ [1.0, -1.0, 1.0] >= 0 else -directions[2]
    up = np.array([0.0, 0.0, 1.0]) if abs(normal[2]) < 0.9 else np.array([0.0, 1.0, 0.0])
    up = up - (up @ normal) * normal
    up /= np.linalg.norm(up)
    return np.cross(up, normal), up


def screen_axes(motion, view: str | tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Screen axes (right, up) of ``view``: a name of ``VIEW_NAMES`` or the axes themselves."""
    if not isinstance(view, str):
        return view
    return plane_axes(motion) if view == "auto" else VIEWS[view]


def project(points: np.ndarray, view: str | tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Screen coordinates (..., 2) of global points (..., 3) in a fixed view (a name of ``VIEWS``) or on
    screen axes (right, up)."""
    right, up = VIEWS[view] if isinstance(view, str) else view
    return np.stack([points @ right, points @ up], axis=-1)


def _triad_length(motion) -> float:
    every = np.concatenate([motion.centres.reshape(-1, 3), motion.points.reshape(-1, 3)])
    extent = float(np.max(np.ptp(every, axis=0))) if every.shape[0] > 1 else 0.0
    return 0.15 * extent if extent > 0 else 0.1


def frame_geometry(motion, k: int) -> tuple[list[tuple[int, np.ndarray, np.ndarray]], np.ndarray, np.ndarray]:
    """Frame ``k`` in global coordinates: (body, start, end) of every stick, the joints' points (both of
    each joint), the ground points."""
    sticks = []
    length = _triad_length(motion)
    for body in range(motion.centres.shape[1]):
        centre = motion.centres[k, body]
        ends = [motion.points[k, j] for j in np.flatnonzero(motion.point_body == body)]
        ends = [end for end in ends if np.linalg.norm(end - centre) > 1e-3 * length]
        if ends:
            sticks.extend((body, centre, end) for end in ends)
        else:     # no joint point off its centre (a free body, a slider held at its centre): its triad
            sticks.extend((body, centre, centre + length * motion.rotations[k, body][:, a]) for a in range(3))
    joints = motion.points[k, motion.links.ravel()] if motion.links.size else np.zeros((0, 3))
    ground = motion.points[k, motion.point_body < 0]
    return sticks, joints, ground


def limits(motion, view: str | tuple[np.ndarray, np.ndarray]) -> tuple[tuple[float, float], tuple[float, float]]:
    """Screen limits that hold every frame, with a margin, the same scale on both axes."""
    every = project(np.concatenate([motion.centres.reshape(-1, 3), motion.points.reshape(-1, 3)]),
                    screen_axes(motion, view))
    low, high = every.min(axis=0), every.max(axis=0)
    half = 0.55 * max(float(np.max(high - low)), 2 * _triad_length(motion))
    middle = 0.5 * (low + high)
    return (middle[0] - half, middle[0] + half), (middle[1] - half, middle[1] + half)


TRIAD_COLOURS = ("#d62728", "#2ca02c", "#1f77b4")
"""Body-frame axes x, y, z when every body's triad is drawn (``draw_frame(..., triads=True)``)."""


def draw_frame(ax, motion, k: int, view: str | tuple[np.ndarray, np.ndarray], triads: bool = False) -> None:
    """Draw frame ``k`` on the axes ``ax`` (cleared first) in ``view`` (``screen_axes``); with ``triads``
    every body's body-frame axes at its centre too, thin, so that a spin about a stick shows."""
    view = screen_axes(motion, view)
    ax.clear()
    (x0, x1), (y0, y1) = limits(motion, view)
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    sticks, joints, ground = frame_geometry(motion, k)
    for body, start, end in sticks:
        (a, b), (c, d) = project(start, view), project(end, view)
        ax.plot([a, c], [b, d], color=BODY_COLOURS[body % len(BODY_COLOURS)], linewidth=3, solid_capstyle="round")
    if triads:
        length = 0.6 * _triad_length(motion)
        for body in range(motion.centres.shape[1]):
            centre = motion.centres[k, body]
            for axis, colour in enumerate(TRIAD_COLOURS):
                tip = centre + length * motion.rotations[k, body][:, axis]
                (a, b), (c, d) = project(centre, view), project(tip, view)
                ax.plot([a, c], [b, d], color=colour, linewidth=1.2, zorder=4)
    centres = project(motion.centres[k], view)
    ax.scatter(centres[:, 0], centres[:, 1], s=30, zorder=3,
               c=[BODY_COLOURS[b % len(BODY_COLOURS)] for b in range(centres.shape[0])])
    if ground.size:
        flat = project(ground, view)
        ax.scatter(flat[:, 0], flat[:, 1], marker="s", s=60, color=GROUND_COLOUR, zorder=4)
    if joints.size:
        flat = project(joints, view)
        ax.scatter(flat[:, 0], flat[:, 1], marker="o", s=40, facecolors="white", edgecolors=JOINT_COLOUR,
                   linewidths=1.5, zorder=5)
    ax.set_title(f"{motion.title}   t = {motion.times[k]:.3f} s", fontsize=9)


def motion_sequence(motion, path: Path, fmt: str = "png", view: str = "iso", per_row: int = 4) -> Path:
    """Every frame of the motion side by side, ``per_row`` to a row, the same limits in each, every body's
    body-frame axes drawn (x red, y green, z blue), into ``path`` + ``.fmt``: a sequence of the motion
    (paper 001 Fig. 2, "sequence of the motion animation")."""
    from matplotlib.figure import Figure

    from lgbench.plots.style import literal_text, save

    frames = motion.times.shape[0]
    view = screen_axes(motion, view)
    columns = min(per_row, frames)
    rows = -(-frames // columns)
    figure = Figure(figsize=(2.6 * columns, 2.6 * rows + 0.4), layout="constrained")
    axes = figure.subplots(rows, columns, squeeze=False).ravel()
    for k, ax in enumerate(axes[:frames]):
        draw_frame(ax, motion, k, view, triads=True)
        ax.set_title(f"t = {motion.times[k]:.3g} s", fontsize=9)
    for ax in axes[frames:]:
        ax.set_visible(False)
    status = "" if motion.status == "ok" else f" ({motion.status})"
    figure.suptitle(literal_text(f"{motion.title}{status}"), fontsize=10)
    return save(figure, Path(path), fmt)


def animate(motion, path: str | Path, view: str = "auto", fps: int = 25, dpi: int = 80) -> Path:
    """Write the motion as an animated GIF or a self-contained HTML viewer (by the suffix of ``path``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.animation import FuncAnimation, PillowWriter

    path = Path(path)
    if path.suffix.lower() not in FORMATS:
        raise InputError(f"cannot write an animation as '{path.suffix}'", field="--out", allowed=list(FORMATS))
    if view not in VIEW_NAMES:
        raise InputError(f"unknown view '{view}'", field="--view", allowed=list(VIEW_NAMES))
    axes = screen_axes(motion, view)
    figure, ax = plt.subplots(figsize=(5, 5), dpi=dpi)
    try:
        animation = FuncAnimation(figure, lambda k: draw_frame(ax, motion, k, axes), frames=motion.times.shape[0],
                                  interval=1000 / fps)
        if path.suffix.lower() == ".gif":
            animation.save(path, writer=PillowWriter(fps=fps), dpi=dpi)
        else:
            matplotlib.rcParams["animation.embed_limit"] = 200.0
            path.write_text(offline_viewer(animation.to_jshtml(fps=fps, default_mode="loop")), encoding="utf-8")
    finally:
        plt.close(figure)
    return path


_ICON = '<svg width="14" height="14" viewBox="0 0 16 16" aria-hidden="true"><path fill="currentColor" d="{}"/></svg>'
ICONS = {
    "play": "M4 2L14 8L4 14Z",
    "play fa-flip-horizontal": "M12 2L2 8L12 14Z",
    "pause": "M3 2h4v12H3zM9 2h4v12H9z",
    "step-forward": "M2 2L10 8L2 14ZM11 2h3v12h-3z",
    "step-backward": "M14 2L6 8L14 14ZM2 2h3v12H2z",
    "fast-forward": "M1 2L8 8L1 14ZM8 2L15 8L8 14Z",
    "fast-backward": "M15 2L8 8L15 14ZM8 2L1 8L8 14Z",
    "plus": "M7 2h2v5h5v2H9v5H7V9H2V7h5z",
    "minus": "M2 7h12v2H2z",
}
"""The buttons of matplotlib's HTML viewer (its Font Awesome names) as SVG paths in a 16 x 16 box."""


def offline_viewer(html: str) -> str:
    """matplotlib's HTML viewer without its one network resource: the web-font stylesheet its buttons' icons
    come from is dropped and each icon (``<i class="fa fa-NAME">``) drawn as inline SVG (``ICONS``; an icon
    not there as its name in text)."""
    html = re.sub(r"<link\b[^>]*>", "", html)

    def icon(match: re.Match) -> str:
        name = match.group(1).replace("fa-", "", 1)
        return _ICON.format(ICONS[name]) if name in ICONS else name
    return re.sub(r'<i class="fa ([^"]*)"></i>', icon, html)
