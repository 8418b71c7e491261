"""The motion of a run as plain arrays, for drawing it (``lgbench animate``, lgbench/plots/animation.py).

A run is integrated with output samples (as ``run_single`` does, untimed use) and every body's pose at
every sample is read from its coordinates: centre of mass, rotation matrix, and the global positions of
the points its joints hold (the points of the ``POINT_PRIMITIVES``, lgbench/mbs/constraints.py). The
drawing sees only these arrays.
"""
from __future__ import annotations

import numpy as np

from lgbench.exceptions import InputError, RunFailed
from lgbench.mbs.codes import (
    BODY_FRAME_COINCIDENT, BODY_FRAME_POINT, COINCIDENT, DISTANCE, POINT_ON_LINE, POINT_ON_PLANE, Status,
)
from lgbench.mbs.pose import body_pose
from lgbench.mbs.system import GROUND, J_BODY1, J_BODY2, J_FIRST, J_SECOND, J_TYPE
from lgbench.runner.single_run import (RunSpec, build_run, engine_errors, failure_message, recorded_samples,
                                       sample_times)
from lgbench.store.motion import Motion

POINT_PRIMITIVES = (COINCIDENT, POINT_ON_LINE, POINT_ON_PLANE, DISTANCE, BODY_FRAME_POINT, BODY_FRAME_COINCIDENT)


def motion_of(spec: RunSpec, frames: int) -> Motion:
    """Integrate ``spec`` with ``frames`` samples and read every body's pose at each (``RunFailed`` when the run
    reached none)."""
    with engine_errors(spec):
        model, integrator, options = build_run(spec)
        system = model.system
        n_bodies = int(system.body_int.shape[0])
        if n_bodies == 0:
            raise InputError(f"model {spec.model} has no bodies in absolute coordinates in formulation "
                             f"{spec.formulation}; animate one of its other formulations", field="--formulation")
        times = sample_times(spec.t_end, frames)
        run = integrator.integrate(system, model.q0, model.v0, options, spec.h, spec.t_end, times)
        reached = recorded_samples(times, run, spec.h)
        if not reached.any():
            raise RunFailed(spec.describe(), Status(run.code).label,
                            failure_message(run.code, run.t_reached, run.steps, system, run.q), note="no frame to draw")
        q_samples = run.q_samples[reached]
        attachments, links = _attachments(system)
        shape = (q_samples.shape[0], n_bodies)
        centres, rotations = np.zeros(shape + (3,)), np.zeros(shape + (3, 3))
        points = np.zeros((q_samples.shape[0], len(attachments), 3))
        for k, q in enumerate(q_samples):
            for body in range(n_bodies):
                R, x = body_pose(system, body, q)
                centres[k, body], rotations[k, body] = x, R
            for j, (body, local) in enumerate(attachments):
                points[k, j] = local if body == GROUND else centres[k, body] + rotations[k, body] @ local
    status = Status(run.code).label
    title = f"{spec.model} {spec.formulation} {spec.integrator} h = {spec.h:g}"
    return Motion(title, status, times[reached], centres, rotations, points,
                  np.array([body for body, _ in attachments], dtype=np.int64),
                  np.array(links, dtype=np.int64).reshape(-1, 2))


def _attachments(system) -> tuple[list[tuple[int, np.ndarray]], list[tuple[int, int]]]:
    """(body, point in its frame, global for ground) of every joint point, and the pairs each joint holds."""
    attachments, links = [], []
    for row, real in zip(system.joint_int, system.joint_real):
        if int(row[J_TYPE]) not in POINT_PRIMITIVES:
            continue
        first = len(attachments)
        attachments.append((int(row[J_BODY1]), real[J_FIRST:J_FIRST + 3].copy()))
        attachments.append((int(row[J_BODY2]), real[J_SECOND:J_SECOND + 3].copy()))
        links.append((first, first + 1))
    return attachments, links
