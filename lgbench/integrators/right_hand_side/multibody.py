"""The explicit stage of any unconstrained system: ``rigid_bodies``' fused stage when ``rigid``, otherwise
``update_coordinates``, ``kinematic_rates`` and ``state_accelerations`` with the ``SystemArrays`` tuple;
``lgbench.integrators.right_hand_side`` describes the functions."""
from numba import njit

from lgbench.integrators.right_hand_side import rigid_bodies
from lgbench.mbs.codes import OK
from lgbench.mbs.coordinate_update import kinematic_rates, update_coordinates
from lgbench.mbs.dynamics import state_accelerations


@njit(inline="always")
def stage_start(sys, rigid, q, work):
    if rigid:
        rigid_bodies.stage_start(sys, rigid, q, work)


@njit(inline="always")
def stage(sys, rigid, q, dq, vs, t, qs, work):
    if rigid:
        return rigid_bodies.stage(sys, rigid, q, dq, vs, t, qs, work)
    update_coordinates(sys, q, dq, qs)
    status = kinematic_rates(sys, qs, dq, vs, work.rate)
    if status != OK:
        return status
    return state_accelerations(sys, qs, vs, t, work, work.acc)


@njit(inline="always")
def compose(sys, rigid, q, dq, q_out, work):
    if rigid:
        rigid_bodies.compose(sys, rigid, q, dq, q_out, work)
    else:
        update_coordinates(sys, q, dq, q_out)
