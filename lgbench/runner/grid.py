"""Grid expansion: a study becomes a list of run specifications, each with a stable run id."""
from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

from lgbench.analysis.convergence import format_step
from lgbench.plugins import Plugin, identities
from lgbench.runner.single_run import RunSpec, model_of
from lgbench.runner.study import Study, mechanism_data, method_label, tableau_of


def as_items(mapping: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    """Sorted, hashable (key, value) pairs for RunSpec.params / RunSpec.options."""
    return tuple(sorted((key, tuple(value) if isinstance(value, list) else value)
                        for key, value in mapping.items()))


def _differing(items: tuple[tuple[str, Any], ...], defaults: Mapping[str, Any]) -> dict[str, Any]:
    def same(value: Any, default: Any) -> bool:
        if isinstance(default, list | tuple) and isinstance(value, list | tuple):
            return list(map(float, default)) == list(map(float, value))
        return value == default

    return {key: list(value) if isinstance(value, tuple) else value
            for key, value in items if key not in defaults or not same(value, defaults[key])}


def _plugins_used(spec: RunSpec) -> list[Plugin | None]:
    from lgbench.integrators import INTEGRATORS
    from lgbench.models import MODELS
    from lgbench.runner.error_measures import MEASURES

    used = [MEASURES.plugin(name) for name in spec.measures]
    if spec.tableau is None:
        used.append(INTEGRATORS.plugin(spec.integrator))
    if spec.mechanism is None:
        used.append(MODELS.plugin(spec.model))
    return used


def plugins_of(spec: RunSpec) -> list[dict[str, str | None]]:
    """Package, version and code hash (``Plugin.identity``) of every plugin whose model, integrator, tableau
    or error measure the run uses; [] for a run of lgbench's own entries."""
    return identities(_plugins_used(spec))


def study_plugins(study: Study) -> list[dict[str, str | None]]:
    """``plugins_of`` every run of the study and its reference, each plugin once."""
    return identities(plugin for spec in study_specs(study) for plugin in _plugins_used(spec))


def run_id(spec: RunSpec, label: str = "") -> str:
    """``RV-RK44-h1e-04``, plus an 8-character hash of the parameters that differ from the model's
    defaults, of the options and of the plugins the run uses (``plugins_of``), if there are any
    (``RV-RK44-h1e-04-3fa2b1c9``); a variant label goes after the integrator
    (``RV-generalized-alpha.modified-h1e-04-...``)."""
    method = f"{spec.integrator}.{label}" if label else spec.integrator
    readable = f"{spec.formulation}-{method}-h{format_step(spec.h)}"
    extra = {"params": _differing(spec.params, model_of(spec).defaults),
             "options": _differing(spec.options, {})}
    if spec.tableau is not None:     # a study's tableau: its coefficients are part of the run
        extra["tableau"] = [spec.tableau.A, spec.tableau.B, spec.tableau.C, spec.tableau.E]
    if spec.mechanism is not None:   # a mechanism file: its content is part of the run
        extra["mechanism"] = hashlib.sha256(spec.mechanism.text.encode()).hexdigest()
    plugins = plugins_of(spec)
    if plugins:                      # another package's code: part of the run (lgbench's own runs keep their ids)
        extra["plugins"] = plugins
    if not any(extra.values()):
        return readable
    digest = hashlib.sha256(json.dumps(extra, sort_keys=True).encode()).hexdigest()[:8]
    return f"{readable}-{digest}"


def expand(study: Study) -> list[RunSpec]:
    """Formulations x integrators (variants) x step sizes, minus the exclusions, in listed order."""
    return [spec for spec, _ in labelled_specs(study)]


def labelled_specs(study: Study) -> list[tuple[RunSpec, str]]:
    """(RunSpec, variant label) for every run of the grid."""
    params = as_items(study.params)
    mechanism = mechanism_data(study)
    measures = tuple(sorted({request.measure for request in study.errors}))
    return [(RunSpec(study.model_name(), method.formulation, method.integrator, h, study.t_end, params,
                     as_items(method.options), tableau_of(study, method.integrator), mechanism, measures),
             method.label)
            for method in study.methods() for h in method.steps]


def motion_spec(study: Study) -> RunSpec | None:
    """The run of the study's motion figure: its method at its h, or at the method's largest step size
    (None without a motion figure, or if the method has no run at that h)."""
    if study.motion is None:
        return None
    runs = [spec for spec, label in labelled_specs(study)
            if method_label(spec.formulation, spec.integrator, label) == study.motion.method]
    h = study.motion.h if study.motion.h is not None else max((spec.h for spec in runs), default=0.0)
    return next((spec for spec in runs if abs(spec.h - h) <= 1e-9 * h), None)


def reference_spec(study: Study) -> RunSpec:
    """The reference run: the study's model, t_end and parameters (plus the reference's own)."""
    reference = study.reference
    return RunSpec(study.model_name(), reference.formulation, reference.integrator, reference.h, study.t_end,
                   as_items({**study.params, **reference.params}), as_items(reference.options),
                   tableau_of(study, reference.integrator), mechanism_data(study))


def study_specs(study: Study, runs: Iterable[RunSpec] | None = None) -> list[RunSpec]:
    """``runs`` (default: every run of the study's grid) and, unless the reference is exact, the
    reference run first."""
    runs = [spec for spec, _ in labelled_specs(study)] if runs is None else list(runs)
    return runs if study.reference.exact else [reference_spec(study), *runs]
