"""A run's motion as plain arrays (``Motion``) and its file in a result folder (``motion.npz``).

The runner reads the poses from a run (lgbench/runner/motion.py); ``lgbench animate`` and the study
figure ``motion`` (lgbench/plots/animation.py) draw them. The file is numpy's ``.npz`` of the arrays, with
the title and the run's status as 0-d string arrays, written atomically.
"""
from __future__ import annotations

import io
from dataclasses import dataclass, fields
from pathlib import Path

import numpy as np

from lgbench.store import atomic

MOTION_FILE = "motion.npz"


@dataclass(frozen=True)
class Motion:
    """Poses over time. ``centres`` (frames, bodies, 3), ``rotations`` (frames, bodies, 3, 3);
    ``points`` (frames, points, 3) the joints' points, ``point_body`` (points,) the body holding each
    (-1: ground); ``links`` (joints, 2) the indices of the two points a joint holds together."""

    title: str
    status: str
    times: np.ndarray
    centres: np.ndarray
    rotations: np.ndarray
    points: np.ndarray
    point_body: np.ndarray
    links: np.ndarray


def write_motion(path: str | Path, motion: Motion) -> Path:
    """Write ``motion`` to ``path`` (``.npz``) atomically."""
    buffer = io.BytesIO()
    np.savez(buffer, **{field.name: np.asarray(getattr(motion, field.name)) for field in fields(Motion)})
    return atomic.write_bytes(path, buffer.getvalue())


def read_motion(path: str | Path) -> Motion:
    """The motion ``write_motion`` wrote to ``path``."""
    with np.load(path, allow_pickle=False) as arrays:
        values = {field.name: arrays[field.name] for field in fields(Motion)}
    return Motion(**{**values, "title": str(values["title"]), "status": str(values["status"])})
