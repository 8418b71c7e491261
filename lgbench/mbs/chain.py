"""Minimal (joint) coordinates of serial chains: the hook points of the flat-array system.

A chain occupies a block of q and v (one coordinate per joint); its rows live in
``SystemArrays.chain_int`` / ``chain_real``. The kernels below add the chain's mass matrix,
generalized forces (gravity, bias forces, joint controllers), accelerations and energy.
"""
from numba import njit


@njit(cache=True)
def chain_mass_matrix(sys, q, M):
    """Add M(theta) of every chain into its diagonal block of M."""
    return


@njit(cache=True)
def chain_generalized_forces(sys, q, v, t, g):
    """Write tau - h(theta, theta') of every chain into its block of g."""
    return


@njit(cache=True)
def chain_kinetic_energy(sys, q, v):
    return 0.0


@njit(cache=True)
def chain_potential_energy(sys, q, v):
    return 0.0


@njit(cache=True)
def chain_accelerations(sys, q, v, t, a):
    """Write theta'' = M^{-1}(tau - h) of every chain into its block of a (explicit integrators)."""
    return
