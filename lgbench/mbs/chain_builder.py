"""Python-side construction of minimal-coordinate chains: Denavit-Hartenberg links into chain rows.

``add_chain`` validates a list of ``ChainLink`` and writes one ``chain_int`` / ``chain_real`` row per joint
through ``SystemBuilder.add_chain_joint``, in the layout documented in lgbench/mbs/chain.py, whose kernels
evaluate the chain.
"""
from dataclasses import dataclass, field

import numpy as np

from lgbench.exceptions import InputError
from lgbench.mbs.chain import (
    BASE, C_CHAIN, C_JOINT, C_PARENT, C_TRAJECTORY, R_A, R_BASE_POSITION, R_BASE_ROTATION, R_COM, R_DAMPING,
    R_GRAVITY, R_INERTIA, R_KD, R_KP, R_MASS, R_OFFSET, R_TRAJECTORY,
)
from lgbench.mbs.codes import BANG_BANG, CONSTANT, PRISMATIC, REVOLUTE
from lgbench.mbs.system import CHAIN_INT_WIDTH, CHAIN_REAL_WIDTH

JOINT_TYPES = {"revolute": REVOLUTE, "prismatic": PRISMATIC}


@dataclass(frozen=True)
class ChainLink:
    """One joint + link of a chain in standard DH form (see the module docstring).

    ``parent`` is the index of the parent link within the same ``add_chain`` call, -1 for the base,
    None for the previous link (a serial chain). ``trajectory`` = (kind, p0, p1, p2) of the PD
    set-point (``lgbench.mbs.trajectories``).
    """

    a: float = 0.0
    alpha: float = 0.0
    d: float = 0.0
    offset: float = 0.0
    joint: str = "revolute"
    mass: float = 0.0
    com: tuple = (0.0, 0.0, 0.0)
    inertia: tuple = ((0.0, 0.0, 0.0), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0))
    parent: int | None = None
    kp: float = 0.0
    kd: float = 0.0
    damping: float = 0.0
    trajectory: tuple = field(default=(CONSTANT, 0.0, 0.0, 0.0))


def dh_transform(a: float, alpha: float, d: float, theta: float) -> tuple[np.ndarray, np.ndarray]:
    """(R, p) of T = Rz(theta) Tz(d) Tx(a) Rx(alpha) (standard DH)."""
    ct, st, ca, sa = np.cos(theta), np.sin(theta), np.cos(alpha), np.sin(alpha)
    R = np.array([[ct, -st * ca, st * sa], [st, ct * ca, -ct * sa], [0.0, sa, ca]])
    return R, np.array([a * ct, a * st, d])


def dh_frames(links: list[ChainLink], q, base_rotation=None, base_position=None) -> list[tuple[np.ndarray, np.ndarray]]:
    """Global (R, origin) of every link frame at joint coordinates q (Python/numpy, for model builders)."""
    base = (np.eye(3) if base_rotation is None else np.asarray(base_rotation, float),
            np.zeros(3) if base_position is None else np.asarray(base_position, float))
    frames = []
    for i, link in enumerate(links):
        parent = (i - 1 if link.parent is None else link.parent)
        R_p, o_p = base if parent < 0 else frames[parent]
        theta, d = link.offset, link.d
        if link.joint == "revolute":
            theta += q[i]
        else:
            d += q[i]
        R_l, p_l = dh_transform(link.a, link.alpha, d, theta)
        frames.append((R_p @ R_l, o_p + R_p @ p_l))
    return frames


def _vector(value, shape, field_name: str) -> np.ndarray:
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"must be numbers, got {value!r}", field=field_name) from None
    if array.shape != shape or not np.all(np.isfinite(array)):
        raise InputError(f"must be finite numbers of shape {shape}, got {value!r}", field=field_name)
    return array


def _rows(links: list[ChainLink], gravity, base_rotation, base_position, chain_id: int, first_row: int):
    gravity = _vector(gravity, (3,), "gravity")
    base_R = _vector(np.eye(3) if base_rotation is None else base_rotation, (3, 3), "base_rotation")
    if not np.allclose(base_R.T @ base_R, np.eye(3), atol=1e-12) or np.linalg.det(base_R) < 0:
        raise InputError("must be a rotation matrix", field="base_rotation")
    base_p = _vector(np.zeros(3) if base_position is None else base_position, (3,), "base_position")
    rows = []
    for k, link in enumerate(links):
        where = f"links[{k}]"
        if link.joint not in JOINT_TYPES:
            raise InputError(f"unknown joint type {link.joint!r}", field=f"{where}.joint", allowed=list(JOINT_TYPES))
        parent = k - 1 if link.parent is None else int(link.parent)
        if not -1 <= parent < k:
            raise InputError(f"parent must be -1 (base) or an earlier link (0..{k - 1}), got {parent}",
                             field=f"{where}.parent")
        dh = _vector([link.a, link.alpha, link.d, link.offset], (4,), f"{where}.dh")
        mass = float(_vector(link.mass, (), f"{where}.mass"))
        if mass < 0.0:
            raise InputError(f"must be non-negative, got {mass}", field=f"{where}.mass")
        com = _vector(link.com, (3,), f"{where}.com")
        inertia = _vector(link.inertia, (3, 3), f"{where}.inertia")
        scale = max(np.abs(inertia).max(), 1e-300)
        if not np.allclose(inertia, inertia.T, rtol=0.0, atol=1e-12 * scale):
            raise InputError("must be symmetric", field=f"{where}.inertia")
        eig = np.linalg.eigvalsh(inertia)
        if eig.min() < -1e-12 * scale:
            raise InputError(f"must be positive semi-definite, eigenvalues {eig.tolist()}",
                             field=f"{where}.inertia")
        gains = _vector([link.kp, link.kd, link.damping], (3,), f"{where}.gains")
        if np.any(gains < 0.0):
            raise InputError(f"kp, kd and damping must be non-negative, got {gains.tolist()}",
                             field=f"{where}.gains")
        kind = int(link.trajectory[0])
        if kind not in (CONSTANT, BANG_BANG):
            raise InputError(f"unknown set-point kind {kind}", field=f"{where}.trajectory",
                             allowed=[f"{CONSTANT} (constant)", f"{BANG_BANG} (bang-bang)"])
        traj = _vector(list(link.trajectory[1:]) + [0.0] * (4 - len(link.trajectory)), (3,),
                       f"{where}.trajectory")
        if kind == BANG_BANG and traj[2] <= 0.0:
            raise InputError(f"switch time must be positive, got {traj[2]}", field=f"{where}.trajectory")
        ints = np.zeros(CHAIN_INT_WIDTH, dtype=np.int64)
        ints[C_JOINT] = JOINT_TYPES[link.joint]
        ints[C_PARENT] = BASE if parent < 0 else first_row + parent
        ints[C_CHAIN] = chain_id
        ints[C_TRAJECTORY] = kind
        reals = np.zeros(CHAIN_REAL_WIDTH)
        reals[R_A:R_OFFSET + 1] = dh
        reals[R_MASS] = mass
        reals[R_COM:R_COM + 3] = com
        reals[R_INERTIA:R_INERTIA + 9] = inertia.ravel()
        reals[R_GRAVITY:R_GRAVITY + 3] = gravity
        reals[R_KP], reals[R_KD], reals[R_DAMPING] = gains
        reals[R_TRAJECTORY:R_TRAJECTORY + 3] = traj
        reals[R_BASE_ROTATION:R_BASE_ROTATION + 9] = base_R.ravel()
        reals[R_BASE_POSITION:R_BASE_POSITION + 3] = base_p
        rows.append((ints, reals))
    return rows


def add_chain(builder, links: list[ChainLink], gravity=(0.0, 0.0, -9.81), base_rotation=None,
              base_position=None, chain_id: int = 0) -> list[int]:
    """Add a serial chain (or tree) fixed to the ground in minimal coordinates; returns the indices
    of its joint coordinates in q and v. Bad link data raise InputError naming the link and field."""
    if not links:
        raise InputError("a chain needs at least one link", field="links")
    first_row = builder.n_chain_rows     # rows already in the builder (parents index global rows)
    rows = _rows(links, gravity, base_rotation, base_position, chain_id, first_row)
    return [builder.add_chain_joint(ints, reals) for ints, reals in rows]
