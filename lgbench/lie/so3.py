"""SO(3): hat/vee, exponential, logarithm, tangent operators, rotation-vector composition.

Conventions (paper 000, Sect. 2.2 and App. A): angular velocities are expressed in the body frame,
``R' = R hat(omega)``, and the tangent operator satisfies

    d/de exp(psi + e*delta) |_{e=0} = exp(psi) hat(T_exp(psi) delta),

so that ``psi' = T_exp^{-1}(psi) omega`` (paper 000 eq. 25).

Matrices are built entry by entry (no 3x3 matrix products). The ``*_apply`` kernels return
R w, R^T w or T_exp^{-1} w, and ``compose_rotation_vectors_tuple`` the composed rotation vector, as
tuples (their vector arguments may be arrays or tuples): they allocate nothing, which is what the
explicit integration loop calls per stage.
"""
import math

import numpy as np

from lgbench._compiled import kernel

# Taylor thresholds of paper 000 App. A.2, eqs. (A7)-(A9).
F1_TAYLOR_BELOW = 1e-2
F2_TAYLOR_BELOW = 1e-4
F3_TAYLOR_BELOW = 1e-2


@kernel
def hat(v):
    """Skew-symmetric matrix with hat(v) @ y == cross(v, y)."""
    m = np.zeros((3, 3))
    m[0, 1] = -v[2]
    m[0, 2] = v[1]
    m[1, 0] = v[2]
    m[1, 2] = -v[0]
    m[2, 0] = -v[1]
    m[2, 1] = v[0]
    return m


@kernel
def vee(m):
    """Inverse of ``hat`` (uses the skew-symmetric part of m)."""
    out = np.empty(3)
    out[0] = 0.5 * (m[2, 1] - m[1, 2])
    out[1] = 0.5 * (m[0, 2] - m[2, 0])
    out[2] = 0.5 * (m[1, 0] - m[0, 1])
    return out


@kernel
def sinc(x):
    """Cardinal sine sin(x)/x, Taylor-guarded near 0 (paper 000 eq. A14)."""
    if abs(x) < 1e-4:
        x2 = x * x
        return 1.0 - x2 / 6.0 + x2 * x2 / 120.0
    return math.sin(x) / x


@kernel
def one_minus_cos_over_sq(x):
    """(1 - cos x)/x^2, Taylor-guarded near 0."""
    if abs(x) < 1e-2:
        x2 = x * x
        return 0.5 - x2 / 24.0 + x2 * x2 / 720.0
    return (1.0 - math.cos(x)) / (x * x)


@kernel
def tangent_coefficients(phi):
    """Coefficients f1, f2, f3 of paper 000 eqs. (A7)-(A9) for phi = |psi| >= 0.

    T_exp = I + f1 hat(psi) + f2 hat(psi)^2 and T_exp^{-1} = I + hat(psi)/2 + f3 hat(psi)^2.
    """
    p2 = phi * phi
    p4 = p2 * p2
    if phi >= F1_TAYLOR_BELOW:
        f1 = (math.cos(phi) - 1.0) / p2
    else:
        f1 = -0.5 + p2 / 24.0 - p4 / 720.0
    if phi >= F2_TAYLOR_BELOW:
        f2 = (phi - math.sin(phi)) / (p2 * phi)
    else:
        f2 = 1.0 / 6.0 - p2 / 120.0 + p4 / 5040.0
    return f1, f2, inverse_tangent_coefficient(phi)


@kernel
def inverse_tangent_coefficient(phi):
    """f3 of paper 000 eq. (A9) alone (what T_exp^{-1} needs)."""
    p2 = phi * phi
    if phi >= F3_TAYLOR_BELOW:
        half = 0.5 * phi
        return (1.0 - half * math.cos(half) / math.sin(half)) / p2
    return 1.0 / 12.0 + p2 / 720.0 + p2 * p2 / 30240.0


@kernel
def _skew_series_matrix(psi, c1, c2):
    """I + c1 hat(psi) + c2 hat(psi)^2 as a new matrix (``skew_series_into``)."""
    M = np.empty((3, 3))
    skew_series_into(psi, c1, c2, M)
    return M


@kernel
def skew_series_into(psi, c1, c2, M):
    """M = I + c1 hat(psi) + c2 hat(psi)^2, entry by entry (hat(psi)^2 = psi psi^T - |psi|^2 I)."""
    x, y, z = psi[0], psi[1], psi[2]
    M[0, 0] = 1.0 - c2 * (z * z + y * y)
    M[1, 1] = 1.0 - c2 * (z * z + x * x)
    M[2, 2] = 1.0 - c2 * (y * y + x * x)
    M[0, 1] = -c1 * z + c2 * (y * x)
    M[1, 0] = c1 * z + c2 * (x * y)
    M[0, 2] = c1 * y + c2 * (z * x)
    M[2, 0] = -c1 * y + c2 * (x * z)
    M[1, 2] = -c1 * x + c2 * (z * y)
    M[2, 1] = c1 * x + c2 * (y * z)


@kernel
def skew_series_apply(psi, c1, c2, w):
    """(I + c1 hat(psi) + c2 hat(psi)^2) w as a tuple, via psi x w and psi x (psi x w)."""
    x, y, z = psi[0], psi[1], psi[2]
    u0 = y * w[2] - z * w[1]
    u1 = z * w[0] - x * w[2]
    u2 = x * w[1] - y * w[0]
    return (w[0] + c1 * u0 + c2 * (y * u2 - z * u1),
            w[1] + c1 * u1 + c2 * (z * u0 - x * u2),
            w[2] + c1 * u2 + c2 * (x * u1 - y * u0))


@kernel
def exp_so3(psi):
    """Rotation matrix of the rotation vector psi (Rodrigues' formula, paper 000 eq. A1):
    R = I + sinc(phi) hat(psi) + (1 - cos phi)/phi^2 hat(psi)^2, entry by entry (no matrix products)."""
    phi = math.sqrt(psi[0] * psi[0] + psi[1] * psi[1] + psi[2] * psi[2])
    return _skew_series_matrix(psi, sinc(phi), one_minus_cos_over_sq(phi))


@kernel
def exp_so3_apply(psi, w):
    """R(psi) w as a tuple (Rodrigues' formula applied to a vector; no matrix is formed)."""
    phi = math.sqrt(psi[0] * psi[0] + psi[1] * psi[1] + psi[2] * psi[2])
    return skew_series_apply(psi, sinc(phi), one_minus_cos_over_sq(phi), w)


@kernel
def exp_so3_transpose_apply(psi, w):
    """R(psi)^T w = R(-psi) w as a tuple (body-frame components of the global vector w)."""
    phi = math.sqrt(psi[0] * psi[0] + psi[1] * psi[1] + psi[2] * psi[2])
    return skew_series_apply(psi, -sinc(phi), one_minus_cos_over_sq(phi), w)


@kernel
def log_so3(R):
    """Rotation vector psi with |psi| <= pi and exp_so3(psi) == R.

    Uses the quaternion of R (Shepperd's method) so that the result stays accurate near 0 and pi.
    """
    out = np.empty(3)
    log_so3_into(R, out)
    return out


@kernel
def log_so3_into(R, out):
    """out = log_so3(R), without allocation."""
    e0, e1, e2, e3 = _quaternion_of_matrix(R)
    out[0], out[1], out[2] = _rotation_vector_from_quaternion(e0, e1, e2, e3)


@kernel
def _quaternion_from_matrix(R):
    e = np.empty(4)
    e[0], e[1], e[2], e[3] = _quaternion_of_matrix(R)
    return e


@kernel
def _quaternion_of_matrix(R):
    """Unit quaternion (a tuple) of the rotation matrix R (Shepperd's method)."""
    tr = R[0, 0] + R[1, 1] + R[2, 2]
    if tr >= R[0, 0] and tr >= R[1, 1] and tr >= R[2, 2]:
        s = 2.0 * math.sqrt(1.0 + tr)
        e0 = 0.25 * s
        e1 = (R[2, 1] - R[1, 2]) / s
        e2 = (R[0, 2] - R[2, 0]) / s
        e3 = (R[1, 0] - R[0, 1]) / s
    elif R[0, 0] >= R[1, 1] and R[0, 0] >= R[2, 2]:
        s = 2.0 * math.sqrt(1.0 + R[0, 0] - R[1, 1] - R[2, 2])
        e0 = (R[2, 1] - R[1, 2]) / s
        e1 = 0.25 * s
        e2 = (R[0, 1] + R[1, 0]) / s
        e3 = (R[0, 2] + R[2, 0]) / s
    elif R[1, 1] >= R[2, 2]:
        s = 2.0 * math.sqrt(1.0 - R[0, 0] + R[1, 1] - R[2, 2])
        e0 = (R[0, 2] - R[2, 0]) / s
        e1 = (R[0, 1] + R[1, 0]) / s
        e2 = 0.25 * s
        e3 = (R[1, 2] + R[2, 1]) / s
    else:
        s = 2.0 * math.sqrt(1.0 - R[0, 0] - R[1, 1] + R[2, 2])
        e0 = (R[1, 0] - R[0, 1]) / s
        e1 = (R[0, 2] + R[2, 0]) / s
        e2 = (R[1, 2] + R[2, 1]) / s
        e3 = 0.25 * s
    n = math.sqrt(e0 ** 2 + e1 ** 2 + e2 ** 2 + e3 ** 2)
    return e0 / n, e1 / n, e2 / n, e3 / n


@kernel
def _rotation_vector_from_unit_quaternion(e):
    """Rotation vector of the unit quaternion e with |psi| <= pi (sign of e chosen so e0 >= 0)."""
    out = np.empty(3)
    out[0], out[1], out[2] = _rotation_vector_from_quaternion(e[0], e[1], e[2], e[3])
    return out


@kernel
def _rotation_vector_from_quaternion(q0, q1, q2, q3):
    """Rotation vector (a tuple, |psi| <= pi) of the unit quaternion (q0, q1, q2, q3)."""
    s = 1.0 if q0 >= 0.0 else -1.0
    e0 = s * q0
    vx = s * q1
    vy = s * q2
    vz = s * q3
    nv = math.sqrt(vx * vx + vy * vy + vz * vz)
    half = math.atan2(nv, e0)  # half rotation angle in [0, pi/2]
    # psi = 2 * half * v / |v|; the limit for |v| -> 0 is 2 v / e0.
    factor = 2.0 * half / nv if nv > 1e-150 else 2.0 / e0
    return factor * vx, factor * vy, factor * vz


@kernel
def tangent_operator_so3(psi):
    """T_exp on SO(3), paper 000 eqs. (A2), (A7), (A8)."""
    phi = math.sqrt(psi[0] * psi[0] + psi[1] * psi[1] + psi[2] * psi[2])
    f1, f2, _ = tangent_coefficients(phi)
    return _skew_series_matrix(psi, f1, f2)


@kernel
def tangent_operator_inverse_so3(psi):
    """T_exp^{-1} on SO(3), paper 000 eqs. (A3), (A9)."""
    phi = math.sqrt(psi[0] * psi[0] + psi[1] * psi[1] + psi[2] * psi[2])
    return _skew_series_matrix(psi, 0.5, inverse_tangent_coefficient(phi))


@kernel
def tangent_operator_inverse_so3_apply(psi, w):
    """T_exp^{-1}(psi) w as a tuple: w + (psi x w)/2 + f3 psi x (psi x w) (paper 000 eqs. A3, A9)."""
    phi = math.sqrt(psi[0] * psi[0] + psi[1] * psi[1] + psi[2] * psi[2])
    return skew_series_apply(psi, 0.5, inverse_tangent_coefficient(phi), w)


@kernel
def compose_rotation_vectors(psi0, dpsi):
    """psi with exp(psi) = exp(psi0) exp(dpsi), paper 000 eqs. (A10)-(A13).

    Evaluated through the quaternion product of the two half-angle parameter sets (A11), (A12); the
    half angle of the result is taken with atan2 instead of the acos of (A13), which keeps full
    accuracy near 0 and pi. The result is the representative with |psi| <= pi, so the composition
    stays valid when the rotation angle passes pi (the coordinate then continues from the
    antipodal vector, which represents the same rotation).
    """
    out = np.empty(3)
    out[0], out[1], out[2] = compose_rotation_vectors_tuple(psi0, dpsi)
    return out


@kernel
def compose_rotation_vectors_tuple(psi0, dpsi):
    """``compose_rotation_vectors(psi0, dpsi)`` as a tuple (allocation-free)."""
    psi, _ = compose_with_quaternion(quaternion_of_rotation_vector(psi0), dpsi)
    return psi


@kernel
def quaternion_of_rotation_vector(psi):
    """Half-angle parameters (Euler parameters) of exp(psi), paper 000 eq. (A11), as a 4-tuple."""
    p = math.sqrt(psi[0] ** 2 + psi[1] ** 2 + psi[2] ** 2)
    s = 0.5 * sinc(0.5 * p)
    return math.cos(0.5 * p), s * psi[0], s * psi[1], s * psi[2]


@kernel
def compose_with_quaternion(e, dpsi):
    """(psi, e1): the rotation vector psi (|psi| <= pi) and the Euler parameters e1 of exp(psi0) exp(dpsi)
    for exp(psi0) given by its Euler parameters e, paper 000 eqs. (A11)-(A13).

    An integration step composes the same psi0 with every stage increment; with its parameters computed
    once per step, and e1 giving R(psi) without trigonometric functions, a stage evaluates the half-angle
    functions of dpsi and one atan2 only."""
    eta0, ex, ey, ez = e
    dp = math.sqrt(dpsi[0] ** 2 + dpsi[1] ** 2 + dpsi[2] ** 2)
    v0 = math.cos(0.5 * dp)
    s1 = 0.5 * sinc(0.5 * dp)
    vx, vy, vz = s1 * dpsi[0], s1 * dpsi[1], s1 * dpsi[2]
    q0 = eta0 * v0 - (ex * vx + ey * vy + ez * vz)
    q1 = eta0 * vx + v0 * ex + (ey * vz - ez * vy)
    q2 = eta0 * vy + v0 * ey + (ez * vx - ex * vz)
    q3 = eta0 * vz + v0 * ez + (ex * vy - ey * vx)
    return _rotation_vector_from_quaternion(q0, q1, q2, q3), (q0, q1, q2, q3)
