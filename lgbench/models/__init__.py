"""Benchmark mechanisms (layer 3): one module per model, registered here, and the models of plugins
(entry point group ``lgbench.models``, lgbench/plugins.py)."""
from lgbench.models.base import BuiltModel, Model
from lgbench.models import heavy_top, heavy_top_constrained
from lgbench.models import rotor
from lgbench.models import slider_crank
from lgbench.models import v8_crank
from lgbench.models import puma560
from lgbench.models import manufactured_body
from lgbench.models import pendulum
from lgbench.models import spinning_body
from lgbench.models import chain_of_bodies
from lgbench.plugins import Registry, each


def _plugin_models(name, loaded) -> dict[str, Model]:
    return {model.name: model for model in each(loaded, Model, "a lgbench.models.Model or a list of them")}


MODELS: dict[str, Model] = Registry({m.name: m for m in (heavy_top.MODEL, heavy_top_constrained.MODEL, rotor.MODEL,
                                                         slider_crank.MODEL, puma560.MODEL, v8_crank.MODEL,
                                                         pendulum.MODEL, spinning_body.MODEL, manufactured_body.MODEL,
                                                         chain_of_bodies.MODEL)},
                                    ("lgbench.models", _plugin_models))

__all__ = ["MODELS", "Model", "BuiltModel"]
