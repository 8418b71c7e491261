"""Multibody systems in absolute coordinates (layer 2)."""
from lgbench.mbs.formulations import FORMULATIONS
from lgbench.mbs.system import FIXED_POINT, FREE, SystemArrays, SystemBuilder

__all__ = ["FORMULATIONS", "FIXED_POINT", "FREE", "SystemArrays", "SystemBuilder"]
