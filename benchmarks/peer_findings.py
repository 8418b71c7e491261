"""Paper 000's "differs" rows computed with the paper's own code, Exudyn, beside lgbench.

    .venv/bin/python -m benchmarks.peer_findings [--only NAME] [--results DIR]

Each row takes the paper's quantity of a finding whose claim does not come out in lgbench and computes it
in Exudyn on the same model, grid, t_end, method and settings. lgbench's side is read from a full
reproduction's result folders (``--results``, default ``results``: runs.csv, errors.csv and reference.csv
of the study); a method missing there is run with ``run_single`` and the study's options. Rows (NAME):

- ``constrained-top``: 000 Fig. 7 left and right, Table 5 (modified Newton: "T_exp has hardly any
  effect"), Fig. 8 (CPU time). Newton iterations per step and CPU time, h = 2.5e-3 / 2^k, k = 0..6,
  1 s; full Newton, modified Newton refreshed after 8 iterations (both codes' default) and after 10 (the
  paper's Table 5 runs, docs/notes/exudyn_newton.md). About 15 s.
- ``ep-newton``: where the codes' Euler-parameter Newton counts part (Figs. 7 and 21): iterations per step
  on the constrained top against the relative tolerance, both codes. About 5 s.
- ``slider-crank``: 000 Fig. 17 left, Newton iterations per step, 5 s, h = 4e-3 / 2^k, k = 0..5 (the
  claim fails in lgbench at h <= 2.5e-4; the finer h of the study cost Exudyn, at ~100 us per step,
  more than a minute per run). About 40 s.
- ``puma``: 000 Figs. 20, 21: joint-angle errors at t = 1 s against the study's reference (lgbench's Min
  at h = 1e-6), which runs fail, Newton iterations and CPU time, the study's whole grid h = 0.1 / 2^k,
  k = 0..10. About 60 s.
- ``rotor``: 000 Fig. 13 right: the CPU time of EP over RV at an error of p1 (t = 4 s) of 6e-7, read off
  the work-precision curves as the study does (``cost_at_error``, extrapolated up to a decade). EP at
  h = 6.25e-6, 3.125e-6, RV at 3.125e-6, 1.5625e-6, 4 s each. About 100 s.
- ``hht-intrinsic``: papers 003/004: what Exudyn's implicit solver can run (no integration; prints the
  generalized-alpha coefficients Exudyn derives from its spectral radius).

Settings of every Exudyn run (``configure``): generalized-alpha, rho_inf = 0.9 (``spectralRadius``), index
3, Newton tolerances 1e-8 relative / 1e-10 absolute (lgbench's rule, docs/notes/exudyn_newton.md), no step
size adaptation (Exudyn's default halves the step when Newton fails; a failure is a failed run here as in
lgbench), the Lie group update of Exudyn 1.4, the version of paper 000
(``lieGroupSimplifiedKinematicRelations = True``; 1.13.6's default is the sigma-modified update of a later
paper), T_exp in the Lie group iteration matrix only where the paper has it (Fig. 7; Exudyn's
``lieGroupAddTangentOperator``, which acts only with the 1.4 update), full or modified Newton
(``useModifiedNewton``, refresh after ``maxModifiedNewtonIterations``), the loads left out of the Jacobian
(Exudyn's default ``computeLoadsJacobian = 0``). Timing: process time of ``SolveDynamic`` without the
per-run setup (``exudyn_run``); lgbench's is the timed integration loop (``cpu_s``).

Not matched: each code's own iteration matrix. lgbench's side is its default matrix (the studies'
methods), which contains the loads' stiffness and the dampers' coordinate derivative that Exudyn's leaves
out (docs/notes/exudyn_newton.md; no effect on the constrained top, whose weight acts at the reference
point); Exudyn's Euler-parameter node converges more slowly than lgbench's EP (row ``ep-newton``). The
Puma's Exudyn time includes its Python pre-step function that sets the PD set-points (as the paper's own
Puma example does), a cost per step the same for every node type. The timed reproduction and these runs
share two cores: CPU-time ratios near 1 move by up to ~30 % between runs.
"""
from __future__ import annotations

import argparse
import csv
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np
import yaml

from benchmarks import peer_constrained_top, peer_puma, peer_rotor, peer_slider_crank
from benchmarks.peer_exudyn import _exudyn, exudyn_version, solve_generalized_alpha, unavailable_reason

ROOT = Path(__file__).resolve().parents[1]
SETUP_STEPS = 10
"""Steps of the short run whose time is Exudyn's per-run setup (subtracted; ``exudyn_run``)."""
REPEAT_BELOW_S = 0.3
"""A timed Exudyn run shorter than this is repeated (three times at most) and the minimum taken."""


# ---------------------------------------------------------------------------------------------- Exudyn


@dataclass(frozen=True)
class ExudynRun:
    status: str                 # "ok" or "failed"
    newton: float = math.nan    # Newton iterations per step
    cpu: float = math.nan       # process time of SolveDynamic without the per-run setup [s]
    value: Any = None           # the row's output at t_end


def configure(settings, newton: str = "full", texp: bool = False, refresh: int = 8, rtol: float = 1e-8,
              atol: float = 1e-10) -> None:
    """The settings of every run of this module (see the module docstring)."""
    integration = settings.timeIntegration
    integration.adaptiveStep = False
    integration.newton.useModifiedNewton = newton == "modified"
    integration.newton.maxModifiedNewtonIterations = refresh
    integration.newton.relativeTolerance = rtol
    integration.newton.absoluteTolerance = atol
    integration.generalizedAlpha.spectralRadius = 0.9
    integration.generalizedAlpha.useIndex2Constraints = False
    integration.generalizedAlpha.useNewmark = False
    integration.generalizedAlpha.lieGroupSimplifiedKinematicRelations = True
    integration.generalizedAlpha.lieGroupAddTangentOperator = texp
    integration.computeLoadsJacobian = 0


def exudyn_run(build: Callable, output: Callable | None, formulation: str, h: float, t_end: float,
               timed: bool = False, **options) -> ExudynRun:
    """One Exudyn generalized-alpha run of ``build(formulation, h, steps) -> (mbs, settings, *handles)``
    (a peer model's ``_build``) with ``configure(settings, **options)``; ``output(mbs, *handles)`` at t_end.
    ``timed``: the CPU time is T(N) - T(n0) scaled to N steps (n0 = ``SETUP_STEPS``, or N/2 for short runs),
    each the minimum of up to three runs while a run takes less than ``REPEAT_BELOW_S``."""
    exu = _exudyn()
    steps = int(round(t_end / h))

    def once(n: int):
        built = build(formulation, h, n)
        mbs, settings, handles = built[0], built[1], built[2:]
        configure(settings, **options)
        printing = exu.config.printToConsole
        exu.config.printToConsole = False       # a failed Newton prints a banner; it is a result here
        try:
            cpu, newton = solve_generalized_alpha(mbs, settings, f"{formulation} h={h:g}")
        except RuntimeError:
            return None
        finally:
            exu.config.printToConsole = printing
        return cpu, newton, (output(mbs, *handles) if output else None)

    def best(n: int):
        runs = [once(n)]
        while timed and runs[-1] is not None and runs[-1][0] < REPEAT_BELOW_S and len(runs) < 3:
            runs.append(once(n))
        return None if runs[-1] is None else (min(run[0] for run in runs), runs[-1][1], runs[-1][2])

    full = best(steps)
    if full is None:
        return ExudynRun("failed")
    cpu, newton, value = full
    if timed:
        n0 = min(SETUP_STEPS, steps // 2)
        setup = best(n0) if n0 >= 1 else None
        if setup is not None:
            cpu = (cpu - setup[0]) * steps / (steps - n0)
    return ExudynRun("ok", newton, cpu, value)


# ---------------------------------------------------------------------------------------------- lgbench


@dataclass(frozen=True)
class LgRun:
    status: str
    newton: float = math.nan
    cpu: float = math.nan
    error: float = math.nan
    source: str = "results"


class Lgbench:
    """lgbench's runs of a study: its result folder's runs.csv / errors.csv (``RESULTS/NAME``), else
    ``run_single`` with the study's options (error against the folder's reference.csv)."""

    def __init__(self, study: str, results: Path, quantity: str = ""):
        self.data = yaml.safe_load((ROOT / "studies" / f"{study}.yaml").read_text())
        self.folder = results / self.data["name"]
        self.quantity = quantity
        self.rows, self.errors, self.reference = [], {}, None
        if (self.folder / "runs.csv").exists():
            self.rows = list(csv.DictReader((self.folder / "runs.csv").open()))
        if (self.folder / "errors.csv").exists():
            for row in csv.DictReader((self.folder / "errors.csv").open()):
                if row["quantity"] == quantity and row["measure"] == "norm_at_t_end":
                    self.errors[row["run_id"]] = float(row["value"])
        if (self.folder / "reference.csv").exists():
            self.reference = next(csv.DictReader((self.folder / "reference.csv").open()), None)

    def options(self, integrator: str, label: str) -> dict[str, Any]:
        options = dict(self.data.get("options") or {})
        for entry in self.data["integrators"]:
            entry = {"name": entry} if isinstance(entry, str) else entry
            if entry["name"] == integrator and entry.get("label", "") == label:
                return {**options, **(entry.get("options") or {})}
        raise KeyError(f"{self.data['name']}: no integrator {integrator} labelled {label!r}")

    def run(self, formulation: str, label: str, h: float, integrator: str = "generalized-alpha") -> LgRun:
        for row in self.rows:
            if (row["formulation"], row["integrator"], row["variant"]) == (formulation, integrator, label) \
                    and math.isclose(float(row["h"]), h, rel_tol=1e-9):
                ok = row["status"] == "ok"
                if not ok:
                    return LgRun(row["status"])
                return LgRun("ok", float(row["newton_per_step"] or "nan"), float(row["cpu_s"]),
                             self.errors.get(row["run_id"], math.nan))
        return self._run_single(formulation, integrator, label, h)

    def _run_single(self, formulation: str, integrator: str, label: str, h: float) -> LgRun:
        from lgbench.runner.single_run import RunSpec, run_single

        options = tuple(sorted(self.options(integrator, label).items()))
        run = run_single(RunSpec(self.data["model"], formulation, integrator, h, float(self.data["t_end"]),
                                 options=options))
        if run.status != "ok":
            return LgRun(run.status, source="run_single")
        error = math.nan
        if self.quantity and self.reference is not None:
            names = [k for k in run.final_outputs if k == self.quantity or k.startswith(self.quantity + "_")]
            error = float(np.linalg.norm([run.final_outputs[k] - float(self.reference[k]) for k in names]))
        return LgRun("ok", float(run.statistics.get("newton_per_step", math.nan)), run.cpu_s, error, "run_single")

    def reference_values(self, names) -> np.ndarray:
        if self.reference is None:
            raise SystemExit(f"{self.folder}/reference.csv is missing: run the study (lgbench run "
                             f"studies/{self.data['name']}.yaml) or pass --results")
        return np.array([float(self.reference[name]) for name in names])


# ---------------------------------------------------------------------------------------------- output


def fmt(x: float, digits: int = 4) -> str:
    if isinstance(x, str):
        return x
    if x is None or not math.isfinite(x):
        return "-"
    return f"{x:.{digits}g}"


def table(header: list[str], rows: list[list[Any]]) -> None:
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(fmt(c) if not isinstance(c, str) else c for c in row) + " |")
    print()


def ratios(lower: dict[float, float], than: dict[float, float]) -> dict[float, float]:
    """than / lower at every h where both are finite (> 1: ``lower`` is lower)."""
    return {h: than[h] / lower[h] for h in lower if h in than and math.isfinite(lower[h]) and math.isfinite(than[h])
            and lower[h] > 0}


def ranking(name: str, lower: dict[float, float], than: dict[float, float]) -> str:
    """"ratio a..b over n h; not at h = ..." for the claim ``lower < than`` at every common h."""
    r = ratios(lower, than)
    if not r:
        return f"{name}: no common h"
    outside = [h for h, x in sorted(r.items()) if not x > 1.0]
    verdict = "holds" if not outside else "fails at h = " + ", ".join(f"{h:.4g}" for h in outside)
    return f"{name}: ratio {min(r.values()):.3g}..{max(r.values()):.3g} over {len(r)} h -> {verdict}"


def geometric_mean(values) -> float:
    values = [v for v in values if math.isfinite(v) and v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else math.nan


def grid(h0: float, count: int) -> list[float]:
    return [h0 / 2 ** k for k in range(count)]


# ---------------------------------------------------------------------------------------------- rows


CONSTRAINED_METHODS = {
    # study label: (Exudyn: newton, T_exp, refresh after), formulations
    "full-texp": (("full", True, 8), ("RV",)),
    "full": (("full", False, 8), ("EP", "Rxyz")),
    "modified-texp": (("modified", True, 8), ("RV",)),
    "modified": (("modified", False, 8), ("RV", "EP", "Rxyz")),
    "modified-texp-paper": (("modified", True, 10), ("RV",)),
    "modified-paper": (("modified", False, 10), ("RV", "EP", "Rxyz")),
}


def constrained_top(results: Path) -> None:
    """000 Figs. 7, 8 and Table 5's modified-Newton finding on the constrained heavy top."""
    hs = grid(2.5e-3, 7)
    lg = Lgbench("heavy_top_constrained", results)
    newton = {"exudyn": {}, "lgbench": {}}
    cpu = {"exudyn": {}, "lgbench": {}}
    rows = []
    for label, ((mode, texp, refresh), formulations) in CONSTRAINED_METHODS.items():
        for formulation in formulations:
            method = f"{formulation} {label}"
            for code in newton:
                newton[code][method], cpu[code][method] = {}, {}
            for h in hs:
                ex = exudyn_run(peer_constrained_top._build, None, formulation, h, 1.0, timed=True, newton=mode,
                                texp=texp, refresh=refresh)
                lr = lg.run(formulation, label, h)
                newton["exudyn"][method][h], cpu["exudyn"][method][h] = ex.newton, ex.cpu
                newton["lgbench"][method][h], cpu["lgbench"][method][h] = lr.newton, lr.cpu
                rows.append([method, f"{h:.4g}", ex.status if ex.status != "ok" else ex.newton,
                             lr.status if lr.status != "ok" else lr.newton, ex.cpu, lr.cpu,
                             "" if lr.source == "results" else lr.source])
    print("### constrained-top: 000 Figs. 7, 8, Table 5 (heavy top with a spherical joint, 1 s)\n")
    table(["method (study label)", "h", "Exudyn Newton/step", "lgbench Newton/step", "Exudyn CPU [s]",
           "lgbench CPU [s]", "lgbench from"], rows)
    modes = [("full Newton", "RV full-texp", "full", "left"),
             ("modified (refresh 8)", "RV modified-texp", "modified", "right"),
             ("modified (refresh 10)", "RV modified-texp-paper", "modified-paper", "right")]
    claims = [(f"Fig. {7 if what == 'newton' else 8} {side}: RV (T_exp) "
               f"{'fewer iterations' if what == 'newton' else 'less CPU'} than {other}, {mode}",
               what, lower, f"{other} {label}")
              for what in ("newton", "cpu") for mode, lower, label, side in modes for other in ("EP", "Rxyz")]
    for title, what, lower, than in claims:
        source = newton if what == "newton" else cpu
        print(f"- {title}")
        for code in ("exudyn", "lgbench"):
            print(f"  - {code}: " + ranking(f"{than} / {lower}", source[code][lower], source[code][than]))
    print("- Table 5: T_exp within modified Newton has hardly any effect (iterations without / with T_exp "
          "in [0.8, 1.2] at every h)")
    for code in ("exudyn", "lgbench"):
        for without, with_ in (("RV modified", "RV modified-texp"), ("RV modified-paper", "RV modified-texp-paper")):
            r = ratios(newton[code][with_], newton[code][without])
            outside = [f"{h:.4g} ({x:.3g})" for h, x in sorted(r.items()) if not 0.8 < x <= 1.2]
            print(f"  - {code}: {without} / {with_}: {min(r.values()):.3g}..{max(r.values()):.3g} over {len(r)} h"
                  + (f"; outside at h = {', '.join(outside)}" if outside else " -> holds"))
    print()


def ep_newton(results: Path) -> None:
    """Where the two codes' Euler-parameter counts part (000 Figs. 7, 21): Newton iterations per step on the
    constrained top (h = 7.8125e-5, 0.1 s, full Newton) against the relative tolerance (absolute 1e-14),
    EP and RV with T_exp, in both codes."""
    from lgbench.runner.single_run import RunSpec, run_single

    h, t_end = 7.8125e-5, 0.1
    rows = []
    for rtol in (1e-4, 1e-5, 1e-6, 1e-7, 1e-8):
        row = [f"{rtol:g}"]
        for formulation, texp in (("EP", False), ("RV", True)):
            ex = exudyn_run(peer_constrained_top._build, None, formulation, h, t_end, texp=texp, rtol=rtol, atol=1e-14)
            options = (("newton", "full"), ("newton_atol", 1e-14), ("newton_rtol", rtol), ("texp", texp))
            lr = run_single(RunSpec("heavy_top_constrained", formulation, "generalized-alpha", h, t_end,
                                    options=options))
            row += [ex.newton, float(lr.statistics.get("newton_per_step", math.nan))]
        rows.append(row)
    print(f"### ep-newton: constrained top, h = {h:g}, {t_end:g} s, full Newton: Newton iterations per step against "
          "the relative tolerance\n")
    table(["rtol", "Exudyn EP", "lgbench EP", "Exudyn RV (T_exp)", "lgbench RV (T_exp)"], rows)


def slider_crank(results: Path) -> None:
    """000 Fig. 17 left: Rxyz needs fewer Newton iterations than RV and EP."""
    hs = grid(4e-3, 6)
    lg = Lgbench("slider_crank", results)
    newton = {"exudyn": {}, "lgbench": {}}
    rows = []
    for formulation in ("RV", "Rxyz", "EP"):
        for code in newton:
            newton[code][formulation] = {}
        for h in hs:
            ex = exudyn_run(peer_slider_crank._build, None, formulation, h, 5.0)
            lr = lg.run(formulation, "paper", h)
            newton["exudyn"][formulation][h], newton["lgbench"][formulation][h] = ex.newton, lr.newton
            rows.append([formulation, f"{h:.4g}", ex.status if ex.status != "ok" else ex.newton,
                         lr.status if lr.status != "ok" else lr.newton])
    print("### slider-crank: 000 Fig. 17 left (full Newton, no T_exp, 5 s)\n")
    table(["node", "h", "Exudyn Newton/step", "lgbench Newton/step"], rows)
    for code in ("exudyn", "lgbench"):
        print(f"- {code}: " + ranking("RV / Rxyz", newton[code]["Rxyz"], newton[code]["RV"]))
        print(f"- {code}: " + ranking("EP / Rxyz", newton[code]["Rxyz"], newton[code]["EP"]))
    print()


def _puma_angles(mbs, controllers) -> np.ndarray:
    exu = _exudyn()
    return np.array([mbs.GetObjectOutput(c, exu.OutputVariableType.Rotation) for c in controllers])


def puma(results: Path) -> None:
    """000 Figs. 20 and 21: accuracy, failures, Newton iterations and CPU time of RV, EP, Rxyz."""
    hs = grid(0.1, 11)
    lg = Lgbench("puma560", results, quantity="phi")
    reference = lg.reference_values(peer_puma.ANGLES)
    data = {code: {key: {} for key in ("error", "newton", "cpu", "status")} for code in ("exudyn", "lgbench")}
    rows = []
    for formulation in ("RV", "EP", "Rxyz"):
        for code in data:
            for key in data[code]:
                data[code][key][formulation] = {}
        for h in hs:
            ex = exudyn_run(peer_puma._build, _puma_angles, formulation, h, 1.0, timed=True)
            lr = lg.run(formulation, "", h)
            error = float(np.linalg.norm(ex.value - reference)) if ex.status == "ok" else math.nan
            for code, run, err in (("exudyn", ex, error), ("lgbench", lr, lr.error)):
                data[code]["error"][formulation][h] = err
                data[code]["newton"][formulation][h] = run.newton if run.status == "ok" else math.nan
                data[code]["cpu"][formulation][h] = run.cpu
                data[code]["status"][formulation][h] = run.status
            rows.append([formulation, f"{h:.4g}", ex.status, lr.status, error, lr.error,
                         ex.newton if ex.status == "ok" else math.nan, lr.newton if lr.status == "ok" else math.nan,
                         ex.cpu, lr.cpu])
    print("### puma: 000 Figs. 20, 21 (full Newton, no T_exp, 1 s; error of the six joint angles against "
          "lgbench's Min at h = 1e-6)\n")
    table(["node", "h", "Exudyn", "lgbench", "Exudyn error", "lgbench error", "Exudyn Newton/step",
           "lgbench Newton/step", "Exudyn CPU [s]", "lgbench CPU [s]"], rows)
    big = [h for h in hs if h > 1.56e-2]
    small = [h for h in hs if h <= 1.25e-2]
    for code in ("exudyn", "lgbench"):
        d = data[code]
        sub = lambda table_, keep: {h: v for h, v in table_.items() if h in keep}  # noqa: E731
        r = ratios(sub(d["error"]["RV"], big), sub(d["error"]["EP"], big))
        print(f"- Fig. 20, {code}: error EP / RV at h > 1.56e-2 (claim: about 1, [0.8, 1.2]): "
              + ", ".join(f"{h:.4g}: {x:.3g}" for h, x in sorted(r.items(), reverse=True)))
        print(f"- Fig. 20, {code}: " + ranking("EP more accurate than RV at h <= 1.25e-2 (error RV / EP)",
                                               sub(d["error"]["EP"], small), sub(d["error"]["RV"], small)))
        print(f"- Fig. 20, {code}: runs at h = 0.1 / 0.05: "
              + "; ".join(f"{f} {d['status'][f][0.1]} / {d['status'][f][0.05]}" for f in ("RV", "EP", "Rxyz")))
        fine = [h for h in hs if h <= 1.0e-3]
        coarse = [h for h in hs if h > 3.12e-2]
        print(f"- Fig. 21 left, {code}: " + ranking("RV fewest at h <= 1e-3 (EP / RV)",
                                                    sub(d["newton"]["RV"], fine), sub(d["newton"]["EP"], fine)))
        print(f"- Fig. 21 left, {code}: " + ranking("RV fewest at h <= 1e-3 (Rxyz / RV)",
                                                    sub(d["newton"]["RV"], fine), sub(d["newton"]["Rxyz"], fine)))
        print(f"- Fig. 21 left, {code}: " + ranking("RV most at h > 3.12e-2 (RV / EP)",
                                                    sub(d["newton"]["EP"], coarse), sub(d["newton"]["RV"], coarse)))
        rxyz_ep = ratios(d["newton"]["EP"], d["newton"]["Rxyz"])
        print(f"- Fig. 21 left, {code}: Rxyz / EP iterations, geometric mean over {len(rxyz_ep)} h "
              f"(claim < 1): {geometric_mean(rxyz_ep.values()):.3g}")
        for name, a, b, keep in (("RV / EP at h <= 1e-3", "RV", "EP", fine),
                                 ("RV / Rxyz at h <= 1e-3", "RV", "Rxyz", fine),
                                 ("EP / RV at h > 3.12e-2", "EP", "RV", coarse),
                                 ("Rxyz / RV at h > 3.12e-2", "Rxyz", "RV", coarse),
                                 ("Rxyz / EP over the grid", "Rxyz", "EP", hs)):
            r = ratios(sub(d["cpu"][b], keep), sub(d["cpu"][a], keep))
            print(f"- Fig. 21 right, {code}: CPU {name} (claim <= 1): geometric mean "
                  f"{geometric_mean(r.values()):.3g} over {len(r)} h (per h {fmt(min(r.values(), default=math.nan))}"
                  f"..{fmt(max(r.values(), default=math.nan))})")
    print()


def _rotor_p1(mbs, body) -> np.ndarray:
    exu = _exudyn()
    p, _, _, _ = peer_rotor._parameters()
    return np.array(mbs.GetObjectOutputBody(body, exu.OutputVariableType.Position, localPosition=[-p["L_L"], 0.0, 0.0]))


ROTOR_STEPS = {"EP": (6.25e-6, 3.125e-6), "RV": (3.125e-6, 1.5625e-6)}
ROTOR_TARGET = 6.0e-7


def rotor(results: Path) -> None:
    """000 Fig. 13 right: EP's CPU time over RV's at an error of p1 of 6e-7 (t = 4 s), generalized-alpha."""
    from lgbench.analysis.expectations import cost_at_error

    lg = Lgbench("rotor", results, quantity="p1")
    reference = lg.reference_values(peer_rotor.P1)
    curves = {"exudyn": {}, "lgbench": {}}
    rows = []
    for formulation, hs in ROTOR_STEPS.items():
        curves["exudyn"][formulation] = []
        for h in hs:
            ex = exudyn_run(peer_rotor._build, _rotor_p1, formulation, h, 4.0)
            error = float(np.linalg.norm(ex.value - reference)) if ex.status == "ok" else math.nan
            curves["exudyn"][formulation].append((h, error, ex.cpu))
            rows.append(["Exudyn", formulation, f"{h:.4g}", ex.status, error, ex.newton, ex.cpu])
        curves["lgbench"][formulation] = []
        for row in lg.rows:
            if (row["formulation"], row["integrator"], row["variant"], row["status"]) == \
                    (formulation, "generalized-alpha", "", "ok"):
                h = float(row["h"])
                error = lg.errors.get(row["run_id"], math.nan)
                curves["lgbench"][formulation].append((h, error, float(row["cpu_s"])))
                rows.append(["lgbench", formulation, f"{h:.4g}", "ok", error, float(row["newton_per_step"]),
                             float(row["cpu_s"])])
    print("### rotor: 000 Fig. 13 right (full Newton, no T_exp, 4 s; error of p1 against lgbench's Rxyz RK67 at "
          "h = 1e-6)\n")
    table(["code", "node", "h", "status", "p1 error", "Newton/step", "CPU [s]"], rows)
    for code, curve in curves.items():
        costs = {}
        for formulation in ("EP", "RV"):
            points = sorted(curve[formulation], reverse=True)
            costs[formulation] = cost_at_error(*zip(*points), ROTOR_TARGET, extrapolate=True) if points else \
                (math.nan, "no runs")
        ep, rv = costs["EP"], costs["RV"]
        print(f"- {code}: CPU at error {ROTOR_TARGET:g}: EP {fmt(ep[0])} s{' (' + ep[1] + ')' if ep[1] else ''}, "
              f"RV {fmt(rv[0])} s{' (' + rv[1] + ')' if rv[1] else ''}; EP / RV = {fmt(ep[0] / rv[0])} "
              "(claim: similar, [0.8, 1.25])")
    print()


def hht_intrinsic(results: Path) -> None:
    """Papers 003 and 004: what Exudyn's implicit solver offers (no integration)."""
    exu = _exudyn()
    from benchmarks import peer_exudyn

    print("### hht-intrinsic: papers 003 and 004\n")
    print(f"Exudyn solvers: {[x for x in dir(exu.DynamicSolverType) if not x.startswith('_') and x[0].isupper()]}")
    print(f"Rigid-body nodes: {sorted(x for x in dir(exu.NodeType) if x.startswith('Rotation'))}; item classes "
          "NodeRigidBodyEP, NodeRigidBodyRxyz, NodeRigidBodyRotVecLG")
    settings = exu.SimulationSettings().timeIntegration.generalizedAlpha
    print(f"generalizedAlpha settings: {sorted(k for k in settings.GetDictionary())}")
    rows = []
    for rho in (0.5, 2.0 / 3.0, 0.9):
        case = peer_exudyn.PeerCase("EP", "generalized-alpha", "full")
        mbs, s, solver, _ = peer_exudyn._build(case, 1e-3, 5)
        s.timeIntegration.generalizedAlpha.spectralRadius = rho
        exu.SolveDynamic(mbs, s, solverType=solver, storeSolver=True)
        d = mbs.sys["dynamicSolver"]
        rows.append([fmt(rho, 4), fmt(d.alphaM, 4), fmt(d.alphaF, 4), fmt(d.newmarkBeta, 4), fmt(d.newmarkGamma, 4)])
    print()
    table(["spectralRadius", "alpha_m", "alpha_f", "beta", "gamma"], rows)
    print("HHT (alpha_m = 0) only at spectralRadius 0.5, i.e. paper 004's alpha = -1/3, and then in the form of "
          "Arnold and Bruls (equations of motion at t_n+1), not HHT's weighted forces; paper 004 runs alpha = "
          "-0.05 ... -0.3 and its modified Newmark formulas for Euler parameters (eqs. 33-34). Exudyn has no "
          "incremental motion tensor from Euler-Rodrigues, Cayley-Gibbs-Rodrigues or Wiener-Milenkovic parameters "
          "and no energy-momentum or energy-decaying scheme (paper 003).\n")


ROWS = {"constrained-top": constrained_top, "ep-newton": ep_newton, "slider-crank": slider_crank, "puma": puma,
        "rotor": rotor, "hht-intrinsic": hht_intrinsic}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=sorted(ROWS), action="append", help="run only this row (repeatable)")
    parser.add_argument("--results", type=Path, default=ROOT / "results",
                        help="a full reproduction's result folders (lgbench's side)")
    args = parser.parse_args(argv)
    reason = unavailable_reason()
    if reason:
        raise SystemExit(reason)
    print(f"Exudyn {exudyn_version()}; lgbench from {args.results}\n")
    for name in args.only or list(ROWS):
        start = time.process_time()
        ROWS[name](args.results)
        print(f"({name}: {time.process_time() - start:.0f} CPU s)\n")


if __name__ == "__main__":
    main()
