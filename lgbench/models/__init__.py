"""Benchmark mechanisms (layer 3): one module per model, registered here."""
from lgbench.models.base import BuiltModel, Model
from lgbench.models import heavy_top, heavy_top_constrained

MODELS: dict[str, Model] = {m.name: m for m in (heavy_top.MODEL, heavy_top_constrained.MODEL)}

__all__ = ["MODELS", "Model", "BuiltModel"]
