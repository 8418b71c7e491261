"""Pure Lie group math (layer 1): SO(3) and rotation parameterisations, compiled with numba."""
from lgbench.lie.so3 import (
    hat,
    vee,
    exp_so3,
    log_so3,
    tangent_operator_so3,
    tangent_operator_inverse_so3,
    tangent_coefficients,
    compose_rotation_vectors,
)
from lgbench.lie.euler_parameters import (
    rotation_matrix_ep,
    body_ep_matrix,
    global_ep_matrix,
    ep_from_rotation_vector,
    rotation_vector_from_ep,
    ep_product,
    ep_from_rotation_matrix,
)
from lgbench.lie.tait_bryan import (
    rotation_matrix_rxyz,
    body_rate_matrix_rxyz,
    body_rate_matrix_dot_rxyz,
    rxyz_from_rotation_matrix,
    rxyz_is_singular,
)

__all__ = [
    "hat", "vee", "exp_so3", "log_so3", "tangent_operator_so3", "tangent_operator_inverse_so3",
    "tangent_coefficients", "compose_rotation_vectors",
    "rotation_matrix_ep", "body_ep_matrix", "global_ep_matrix", "ep_from_rotation_vector",
    "rotation_vector_from_ep", "ep_product", "ep_from_rotation_matrix",
    "rotation_matrix_rxyz", "body_rate_matrix_rxyz", "body_rate_matrix_dot_rxyz",
    "rxyz_from_rotation_matrix", "rxyz_is_singular",
]
