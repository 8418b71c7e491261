"""Time integrators (layer 4): tableaus as data, generic compiled steppers."""
from lgbench.integrators.tableaus import TABLEAUS, ButcherTableau

INTEGRATORS = dict(TABLEAUS)

__all__ = ["INTEGRATORS", "TABLEAUS", "ButcherTableau"]
