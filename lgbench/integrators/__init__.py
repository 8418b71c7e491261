"""Time integrators (layer 4): tableaus and parameter sets as data, generic compiled steppers; plugins add
integrators (entry point group ``lgbench.integrators``) and tableaus (``lgbench.tableaus``; lgbench/plugins.py)."""
from lgbench.integrators.hht import HHT_INTEGRATORS
from lgbench.integrators.implicit import IMPLICIT_INTEGRATORS, ImplicitIntegrator
from lgbench.integrators.index1_rk import INDEX1_INTEGRATORS, tableau_integrators
from lgbench.integrators.intrinsic import INTRINSIC_INTEGRATORS
from lgbench.integrators.tableaus import TABLEAUS, ButcherTableau
from lgbench.plugins import Registry, each

INTEGRATOR_INTERFACE = ("name", "description", "kind", "order", "formulations", "validate_options", "integrate")
"""What the runner uses of an integrator (as ``ImplicitIntegrator`` has it)."""


def _plugin_integrators(name, loaded) -> dict:
    items = list(loaded) if isinstance(loaded, list | tuple) else [loaded]
    for item in items:
        missing = [attribute for attribute in INTEGRATOR_INTERFACE if not hasattr(item, attribute)]
        if missing:
            raise TypeError(f"an integrator has {', '.join(INTEGRATOR_INTERFACE)}; {type(item).__name__} lacks "
                            f"{', '.join(missing)}")
    return {item.name: item for item in items}


def _plugin_tableaus(name, loaded) -> dict:
    found = {}
    for tableau in each(loaded, ButcherTableau, "a lgbench.integrators.ButcherTableau or a list of them"):
        found.update(tableau_integrators(tableau))
    return found


INTEGRATORS = Registry({**TABLEAUS, **IMPLICIT_INTEGRATORS, **HHT_INTEGRATORS, **INDEX1_INTEGRATORS,
                        **INTRINSIC_INTEGRATORS},
                       ("lgbench.integrators", _plugin_integrators), ("lgbench.tableaus", _plugin_tableaus))

__all__ = ["INTEGRATORS", "TABLEAUS", "IMPLICIT_INTEGRATORS", "ButcherTableau", "ImplicitIntegrator"]
