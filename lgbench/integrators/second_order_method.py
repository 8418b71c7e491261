"""Parameter sets (alpha_m, alpha_f, beta, gamma) of generalized-alpha type methods (paper 002 eq. 42)."""
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class SecondOrderMethod:
    """(alpha_m, alpha_f, beta, gamma) of a generalized-alpha type method."""

    name: str
    alpha_m: float
    alpha_f: float
    beta: float
    gamma: float
    description: str
    order: int = 2
    kind: str = "implicit"

    def as_array(self) -> np.ndarray:
        return np.array([self.alpha_m, self.alpha_f, self.beta, self.gamma])


def generalized_alpha(rho_inf: float) -> SecondOrderMethod:
    """Chung-Hulbert parameters from the spectral radius at infinity (paper 002 eq. 42)."""
    if not 0.0 <= rho_inf <= 1.0:
        raise ValueError(f"rho_inf must lie in [0, 1], got {rho_inf}")
    alpha_m = (2.0 * rho_inf - 1.0) / (rho_inf + 1.0)
    alpha_f = rho_inf / (rho_inf + 1.0)
    gamma = 0.5 + alpha_f - alpha_m
    beta = 0.25 * (gamma + 0.5) ** 2
    return SecondOrderMethod(f"generalized-alpha(rho_inf={rho_inf:g})", alpha_m, alpha_f, beta, gamma,
                             "generalized-alpha (Chung-Hulbert), second order, numerical damping rho_inf")
