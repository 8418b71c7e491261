"""The explicit stage of a system of rigid bodies under elementary loads (``mbs.dynamics.rigid_body_stage``,
the system's arrays passed one by one); ``lgbench.integrators.right_hand_side`` describes the functions."""
from numba import njit

from lgbench.mbs.coordinate_update import rigid_base_rotations, rigid_stage_coordinates
from lgbench.mbs.dynamics import rigid_body_stage


@njit(inline="always")
def stage_start(sys, rigid, q, work):
    rigid_base_rotations(sys.body_int, q, work.base)


@njit(inline="always")
def stage(sys, rigid, q, dq, vs, t, qs, work):
    return rigid_body_stage(sys.body_int, sys.body_real, sys.force_int, sys.force_real, work.base, q, dq, vs, qs,
                            work.rate, work.rotation, work.force, work.torque, work.rate_map, work.mass, work.piv,
                            work.rhs, work.acc)


@njit(inline="always")
def compose(sys, rigid, q, dq, q_out, work):
    rigid_stage_coordinates(sys.body_int, work.base, q, dq, q_out, work.rotation)
