"""Coordinates of one rigid body in each formulation from its pose and velocity (Python side)."""
from __future__ import annotations

import numpy as np

from lgbench.lie.euler_parameters import body_ep_matrix, ep_from_rotation_matrix
from lgbench.lie.so3 import log_so3
from lgbench.lie.tait_bryan import body_rate_matrix_rxyz, rxyz_from_rotation_matrix


def rotation_coordinates(formulation: str, R: np.ndarray, omega_body: np.ndarray):
    """(rotation coordinates, rotational velocity coordinates) of orientation R, body rate omega."""
    R = np.asarray(R, dtype=float)
    omega_body = np.asarray(omega_body, dtype=float)
    if formulation in ("RV", "SE3"):
        return log_so3(R), omega_body.copy()
    if formulation in ("Rxyz", "F1"):
        theta = rxyz_from_rotation_matrix(R)
        if formulation == "F1":
            return theta, omega_body.copy()
        return theta, np.linalg.solve(body_rate_matrix_rxyz(theta), omega_body)
    e = ep_from_rotation_matrix(R)
    if e[0] < 0:
        e = -e
    if formulation == "EP-F1":
        return e, omega_body.copy()
    if formulation == "EP":
        return e, 0.5 * body_ep_matrix(e).T @ omega_body
    raise ValueError(f"unknown formulation {formulation}")


def free_body_coordinates(formulation: str, x, R, u, omega_body):
    """q and v blocks of a FREE body: [x, rotation], [u, rotational velocity]; u is the global
    velocity x', stored as U = R^T u for SE3 nodes (paper 002 eq. 3)."""
    rotation, rates = rotation_coordinates(formulation, R, omega_body)
    u = np.asarray(u, dtype=float)
    if formulation == "SE3":
        u = np.asarray(R, dtype=float).T @ u
    return (np.concatenate([np.asarray(x, dtype=float), rotation]), np.concatenate([u, rates]))
