"""Prescribed joint motions, evaluated as continuous functions of time at every stage and iterate.

Paper 000 Sect. 4.4, Table 9 and eq. (45): point-to-point motion with a constant angular
acceleration a up to t_switch and -a after it, phi(t) from phi_init; at 2 t_switch the joint is at
rest at phi_init + a t_switch^2.
"""

from lgbench._compiled import kernel
from lgbench.mbs.codes import CONSTANT

TRAJECTORY_WIDTH = 4    # kind + 3 parameters


@kernel
def prescribed_motion(kind, p0, p1, p2, t):
    """(angle, rate, acceleration) of a prescribed motion at time t."""
    if kind == CONSTANT:
        return p0, 0.0, 0.0
    phi0, acc, ts = p0, p1, p2
    if t <= ts:
        return phi0 + 0.5 * acc * t * t, acc * t, acc
    if t <= 2.0 * ts:
        s = t - ts
        return phi0 + 0.5 * acc * ts * ts + acc * ts * s - 0.5 * acc * s * s, acc * ts - acc * s, -acc
    return phi0 + acc * ts * ts, 0.0, 0.0
