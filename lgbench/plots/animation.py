"""A mechanism's motion drawn as an animation: an animated GIF or a self-contained HTML viewer.

Each body is drawn as a stick figure: a line from its centre of mass to every point its joints hold,
a dot at the centre; a body without joint points off its centre as its body-frame triad. Joints are
circles at the points of both bodies (one circle while the constraints hold; a prismatic joint's two
points slide apart along its line), ground points grey squares.
The view is an orthographic projection (``VIEWS``) with the same limits in every frame, so that a
mechanism file can be checked to move as intended before a study trusts it. Input is a ``Motion`` of
plain arrays (lgbench/runner/motion.py); nothing here touches the engine.
"""
from __future__ import annotations

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
FORMATS = (".gif", ".html")
BODY_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf")
JOINT_COLOUR = "#000000"
GROUND_COLOUR = "#7f7f7f"


def project(points: np.ndarray, view: str) -> np.ndarray:
    """Screen coordinates (..., 2) of global points (..., 3)."""
    right, up = VIEWS[view]
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


def limits(motion, view: str) -> tuple[tuple[float, float], tuple[float, float]]:
    """Screen limits that hold every frame, with a margin, the same scale on both axes."""
    every = project(np.concatenate([motion.centres.reshape(-1, 3), motion.points.reshape(-1, 3)]), view)
    low, high = every.min(axis=0), every.max(axis=0)
    half = 0.55 * max(float(np.max(high - low)), 2 * _triad_length(motion))
    middle = 0.5 * (low + high)
    return (middle[0] - half, middle[0] + half), (middle[1] - half, middle[1] + half)


TRIAD_COLOURS = ("#d62728", "#2ca02c", "#1f77b4")
"""Body-frame axes x, y, z when every body's triad is drawn (``draw_frame(..., triads=True)``)."""


def draw_frame(ax, motion, k: int, view: str, triads: bool = False) -> None:
    """Draw frame ``k`` on the axes ``ax`` (cleared first); with ``triads`` every body's body-frame axes at
    its centre too, thin, so that a spin about a stick shows."""
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


def animate(motion, path: str | Path, view: str = "iso", fps: int = 25, dpi: int = 80) -> Path:
    """Write the motion as an animated GIF or a self-contained HTML viewer (by the suffix of ``path``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.animation import FuncAnimation, PillowWriter

    path = Path(path)
    if path.suffix.lower() not in FORMATS:
        raise InputError(f"cannot write an animation as '{path.suffix}'", field="--out", allowed=list(FORMATS))
    if view not in VIEWS:
        raise InputError(f"unknown view '{view}'", field="--view", allowed=list(VIEWS))
    figure, ax = plt.subplots(figsize=(5, 5), dpi=dpi)
    try:
        animation = FuncAnimation(figure, lambda k: draw_frame(ax, motion, k, view), frames=motion.times.shape[0],
                                  interval=1000 / fps)
        if path.suffix.lower() == ".gif":
            animation.save(path, writer=PillowWriter(fps=fps), dpi=dpi)
        else:
            matplotlib.rcParams["animation.embed_limit"] = 200.0
            path.write_text(animation.to_jshtml(fps=fps, default_mode="loop"), encoding="utf-8")
    finally:
        plt.close(figure)
    return path
