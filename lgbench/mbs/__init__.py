"""Multibody systems in absolute coordinates (layer 2)."""
from lgbench.mbs.codes import FIXED_POINT, FREE
from lgbench.mbs.formulations import FORMULATIONS
from lgbench.mbs.system import SystemArrays, SystemBuilder

__all__ = ["FORMULATIONS", "FIXED_POINT", "FREE", "SystemArrays", "SystemBuilder"]
