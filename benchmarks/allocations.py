"""Allocations per step of every registry model x formulation x integrator family.

numba's allocation counter (``NUMBA_NRT_STATS=1``) around a run of 1000 steps and one of 10 steps; the
difference divided by 990 is what one step allocates (setup, warm-up and the arrays passed in cancel).
The families: explicit RK44 on models without constraints, RK44-index1 on those with, generalized-alpha
with full and with modified Newton, HHT (classical; the modified variant on EP nodes). Each run goes
through the integrator's own ``integrate``, as a study run does.

    .venv/bin/python benchmarks/allocations.py [--model NAME ...] [--formulation F ...] [--family F ...]
                                               [--json PATH]

prints one line per case (model, formulation, family, allocations per step; "fails" when no step size
of STEPS runs 1000 steps) and exits 1 when any step allocates. The first run of each entry point compiles it (minutes on an empty cache).
"""
from __future__ import annotations

import os

os.environ["NUMBA_NRT_STATS"] = "1"     # before numba is imported

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

FEW, MANY = 10, 1000
STEPS = (1e-4, 1e-5, 1e-6)
"""Step sizes of the counted runs, the next one tried when a run fails with the one before."""

FAMILIES = {
    "RK44": ("RK44", {}),
    "RK44-index1": ("RK44-index1", {}),
    "ga-full": ("generalized-alpha", {"newton": "full"}),
    "ga-modified": ("generalized-alpha", {"newton": "modified"}),
    "hht": ("hht", {}),
    "hht-modified": ("hht", {"variant": "modified"}),
}


def applicable(family: str, formulation: str, constraints: int) -> bool:
    """Whether the family integrates the formulation on a model with ``constraints`` rows."""
    from lgbench.integrators import INTEGRATORS

    name, _ = FAMILIES[family]
    if formulation not in INTEGRATORS[name].formulations:
        return False
    if family == "RK44":
        return constraints == 0
    if family == "RK44-index1":
        return constraints > 0
    if family == "hht-modified":
        return formulation == "EP"
    return True


def cases(models=None, formulations=None, families=None):
    """(model, formulation, family) of the registry, filtered by the given names."""
    from lgbench.models import MODELS

    for model_name, model in MODELS.items():
        if models and model_name not in models:
            continue
        for formulation in model.formulations:
            if formulations and formulation not in formulations:
                continue
            constraints = int(model.build(formulation).system.sizes[2])
            for family in FAMILIES:
                if (not families or family in families) and applicable(family, formulation, constraints):
                    yield model_name, formulation, family


def _allocations(run) -> int:
    from numba.core.runtime import rtsys

    before = rtsys.get_allocation_stats().alloc
    result = run()
    return rtsys.get_allocation_stats().alloc - before, result


def allocations_per_step(model: str, formulation: str, family: str, options: dict | None = None) -> float | None:
    """(allocations of a MANY-step run - those of a FEW-step run) / (MANY - FEW), with the family's options
    and ``options``; None if the runs fail at every step size of STEPS."""
    from lgbench.integrators import INTEGRATORS
    from lgbench.models import MODELS

    name, defaults = FAMILIES[family]
    integrator = INTEGRATORS[name]
    built = MODELS[model].build(formulation)
    merged = integrator.validate_options({**defaults, **(options or {})})

    def run(h, steps):
        return integrator.integrate(built.system, built.q0, built.v0, merged, h, steps * h, np.zeros(0))

    for h in STEPS:
        run(h, FEW)                       # compile or load every kernel first
        counts = []
        for steps in (FEW, MANY):
            count, result = _allocations(lambda: run(h, steps))
            if result.code != 0 or result.steps != steps:
                break
            counts.append(count)
        else:
            return (counts[1] - counts[0]) / (MANY - FEW)
    return None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", nargs="*", help="models (default: every registry model)")
    parser.add_argument("--formulation", nargs="*", help="formulations (default: all of each model)")
    parser.add_argument("--family", nargs="*", choices=sorted(FAMILIES), help="families (default: all)")
    parser.add_argument("--json", type=Path, help="also write the table as JSON to this file")
    args = parser.parse_args(argv)
    table = []
    print(f"{'model':24s} {'formulation':11s} {'family':13s} allocations/step", flush=True)
    for model, formulation, family in cases(args.model, args.formulation, args.family):
        per_step = allocations_per_step(model, formulation, family)
        table.append({"model": model, "formulation": formulation, "family": family, "per_step": per_step})
        print(f"{model:24s} {formulation:11s} {family:13s} {'fails' if per_step is None else f'{per_step:g}'}",
              flush=True)
    if args.json:
        args.json.write_text(json.dumps(table, indent=1) + "\n")
    return 1 if any(row["per_step"] for row in table) else 0


if __name__ == "__main__":
    sys.exit(main())
