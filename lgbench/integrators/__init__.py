"""Time integrators (layer 4): tableaus and parameter sets as data, generic compiled steppers."""
from lgbench.integrators.hht import HHT_INTEGRATORS
from lgbench.integrators.implicit import IMPLICIT_INTEGRATORS, ImplicitIntegrator
from lgbench.integrators.index1_rk import INDEX1_INTEGRATORS
from lgbench.integrators.intrinsic import INTRINSIC_INTEGRATORS
from lgbench.integrators.tableaus import TABLEAUS, ButcherTableau

INTEGRATORS = {**TABLEAUS, **IMPLICIT_INTEGRATORS, **HHT_INTEGRATORS, **INDEX1_INTEGRATORS, **INTRINSIC_INTEGRATORS}

__all__ = ["INTEGRATORS", "TABLEAUS", "IMPLICIT_INTEGRATORS", "ButcherTableau", "ImplicitIntegrator"]
