"""One run: model x formulation x integrator x step size -> RunResult.

This is the only place where a model (layer 3) meets an integrator (layer 4). Everything above
(studies, grids, stores, plots, CLI) talks to the engine through ``RunSpec`` and ``run_single``.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from lgbench.exceptions import EngineError, InputError, RunFailed
from lgbench.mbs.codes import Status


@dataclass(frozen=True)
class TableauData:
    """A Butcher tableau given as data by a study (``tableaus:``), carried by the runs that use it so
    that every process builds the same integrator: coefficients as tuples (hashable, part of the
    reference-cache key and of the run id)."""

    name: str
    order: int
    A: tuple[tuple[float, ...], ...]
    B: tuple[float, ...]
    C: tuple[float, ...]
    E: tuple[float, ...] | None = None
    embedded_order: int | None = None
    description: str = ""

    def integrators(self) -> dict[str, Any]:
        """The registry entries the tableau gives, as the built-in ones: NAME (RK and RKMK, adaptive if it
        has E) and NAME-index1 (paper 001's projection). Building the tableau checks its order conditions
        (``ButcherTableau``; an InputError names the violated one)."""
        return _tableau_integrators(self)


@lru_cache(maxsize=64)
def _tableau_integrators(data: TableauData) -> dict[str, Any]:
    from lgbench.integrators.index1_rk import tableau_integrators
    from lgbench.integrators.tableaus import tableau_from_lists

    return tableau_integrators(tableau_from_lists(data.name, data.order, data.A, data.B, data.C,
                                                  data.description or f"{data.name} (a study's tableau)", data.E,
                                                  data.embedded_order))


@dataclass(frozen=True)
class MechanismData:
    """A mechanism file's content as the runs of its study carry it (``model:`` naming a file or holding
    one): the validated mechanism as canonical JSON, so that every process builds the same model and
    the content is part of the reference-cache key and of the run id."""

    text: str

    def model(self) -> Any:
        """The mechanism's ``Model`` (built once per process and content)."""
        return _mechanism_model(self.text)


@lru_cache(maxsize=16)
def _mechanism_model(text: str) -> Any:
    from lgbench.mechanisms.build import mechanism_model
    from lgbench.mechanisms.schema import Mechanism

    return mechanism_model(Mechanism.model_validate_json(text))


@dataclass(frozen=True)
class RunSpec:
    """Everything that determines one run's numbers (hashable for reference caching)."""

    model: str                                   # registry name, e.g. "heavy_top", or a mechanism file's name
    formulation: str                             # "RV", "Rxyz", "EP", "F1" ...
    integrator: str                              # "RK44", "DOPRI5", "ODE23", "RK67", ...
    h: float                                     # fixed step size
    t_end: float
    params: tuple[tuple[str, Any], ...] = ()     # model parameter overrides, sorted (key, value)
    options: tuple[tuple[str, Any], ...] = ()    # integrator options, sorted (key, value)
    tableau: TableauData | None = None           # the study's tableau, if ``integrator`` is one of its names
    mechanism: MechanismData | None = None       # the study's mechanism file, if ``model`` is its name
    measures: tuple[str, ...] = ()               # the study's error measures (a plugin's code is in the run id)

    def params_dict(self) -> dict[str, Any]:
        return dict(self.params)

    def options_dict(self) -> dict[str, Any]:
        return dict(self.options)

    def describe(self) -> str:
        """The run in a message: "heavy_top RV-RK44 h=0.001 t_end=1"."""
        return f"{self.model} {self.formulation}-{self.integrator} h={self.h:g} t_end={self.t_end:g}"


@dataclass(frozen=True)
class TimingRule:
    """When a run is timed more than once (the rule of DiffEqDevTools: time once, and repeat a short
    run): a run that is "ok" and whose timed runs together took less than ``repeat_below_s`` CPU
    seconds is run again, up to ``max_runs`` runs in all. Its CPU time is the minimum; runs.csv records
    the number of timed runs (``cpu_runs``) and their spread, (max - min) / min (``cpu_spread``). The
    numbers of the repeats are identical (the engine is deterministic); only the clock differs."""

    repeat_below_s: float = 0.0
    max_runs: int = 1


ONE_TIMING = TimingRule()
"""Time every run once (single runs, references, compilation)."""
TIMING_COLUMNS = ("cpu_s", "us_per_step", "cpu_runs", "cpu_spread")
"""The runs.csv columns that depend on the clock: two runs of the same study differ only in these
(and in the executor columns)."""


@dataclass
class RunResult:
    """Outcome of one run. ``status`` is "ok", "diverged", "singular" or "failed"."""

    status: str
    message: str
    steps: int
    cpu_s: float
    t_final: float
    final_outputs: dict[str, float]              # named model outputs at t_final
    series: dict[str, np.ndarray] | None = None  # "t" and every named output, if requested
    statistics: dict[str, float] = field(default_factory=dict)



@contextmanager
def engine_errors(spec: RunSpec) -> Iterator[None]:
    """An unexpected exception inside the block becomes an ``EngineError`` naming the run ``spec``; bad
    input (``InputError``), a failed run (``RunFailed``), file-system errors (``OSError``, e.g. of the compile
    cache) and interrupts (not ``Exception``s) pass unchanged."""
    try:
        yield
    except (InputError, EngineError, RunFailed, OSError):
        raise
    except Exception as error:
        raise EngineError.of(spec.describe(), error) from error


def registry_of(spec: RunSpec) -> dict[str, Any]:
    """The integrators a run can name: the registered ones, or its study's tableau's."""
    if spec.tableau is not None:
        return spec.tableau.integrators()
    from lgbench.integrators import INTEGRATORS

    return INTEGRATORS


def integrator_of(spec: RunSpec) -> Any:
    """The registry entry a run uses: a built-in integrator, or one of its study's tableau."""
    return registry_of(spec)[spec.integrator]


def model_of(spec: RunSpec) -> Any:
    """The model a run uses: a built-in one, or its study's mechanism file."""
    if spec.mechanism is not None:
        return spec.mechanism.model()
    from lgbench.models import MODELS

    if spec.model not in MODELS:
        raise InputError(f"unknown model '{spec.model}'", field="model", allowed=sorted(MODELS))
    return MODELS[spec.model]


def integrates_constraints(integrator: Any) -> bool:
    """Whether ``integrator`` integrates models with constraints. An integrator declares it with a boolean
    attribute ``constraints`` (a plugin's may); without one, a Butcher tableau (explicit RK and RKMK on the
    ODE; its NAME-index1 entry is the constrained form, paper 001) and an intrinsic scheme of paper 003 (free
    bodies) do not, every other integrator does."""
    declared = getattr(integrator, "constraints", None)
    if isinstance(declared, bool):
        return declared
    from lgbench.integrators.intrinsic import IntrinsicIntegrator
    from lgbench.integrators.tableaus import ButcherTableau

    return not isinstance(integrator, ButcherTableau | IntrinsicIntegrator)


def check_integrable(integrator: Any, name: str, model: str, formulation: str, constraint_rows: int,
                     registry: Any, field: str = "integrator", file: str | None = None, study: bool = False) -> None:
    """InputError naming the integrator, the model and ``field`` when ``integrator`` (registered as ``name``)
    integrates no constraints and the model has ``constraint_rows`` in ``formulation`` (in a ``study``, the
    combination can also be excluded)."""
    if constraint_rows == 0 or integrates_constraints(integrator):
        return
    index1 = f"{name}-index1"
    allowed = f"{index1} (the index-1 form with projection)" if index1 in registry else \
        "an integrator of constrained models"
    if study:
        allowed += ", or exclude the combination"
    raise InputError(f"integrator '{name}' integrates models without constraints; model {model} has "
                     f"{constraint_rows} constraint rows in formulation {formulation}", file=file, field=field,
                     allowed=allowed)


def build_run(spec: RunSpec):
    """The built model, the integrator and its validated options of a run (InputError when invalid)."""
    from lgbench.runner.bounds import STEP_CEILING, step_count

    model = model_of(spec)
    registry = registry_of(spec)
    if spec.integrator not in registry:
        raise InputError(f"unknown integrator '{spec.integrator}'", field="integrator",
                         allowed=sorted(registry))
    if not (np.isfinite(spec.h) and spec.h > 0):
        raise InputError(f"step size must be positive, got {spec.h}", field="h")
    if not (np.isfinite(spec.t_end) and spec.t_end > 0):
        raise InputError(f"t_end must be positive, got {spec.t_end}", field="t_end")
    if step_count(spec.t_end, spec.h) > STEP_CEILING:
        raise InputError(f"h = {spec.h:g} needs more than {STEP_CEILING:.0e} steps to t_end = {spec.t_end:g}",
                         field="h")
    integrator = registry[spec.integrator]
    if spec.formulation not in integrator.formulations:
        raise InputError(f"formulation '{spec.formulation}' cannot be used with the {integrator.kind} "
                         f"integrator '{spec.integrator}'", field="formulation",
                         allowed=list(integrator.formulations))
    options = integrator.validate_options(spec.options_dict())
    check_resolvable_tolerance(integrator, options, spec.h, spec.t_end)
    built = model.build(spec.formulation, spec.params_dict())
    check_integrable(integrator, spec.integrator, model.name, spec.formulation, int(built.system.sizes[2]),
                     registry)
    return built, integrator, options


SMALLEST_RELATIVE_TOLERANCE = 1e-15
"""The smallest rtol of a step-size-controlled run: about 4.5 units of double-precision round-off (the
heavy top of paper 000 Fig. 5 goes down to 3e-15). Below it the round-off of a step and of its embedded
solution becomes the larger part of the error estimate, and every step is rejected towards h_min.
DOPRI5-index1 on the Puma 560 RV over 0.05 s (h_max = 0.01, at most 30000 steps): rtol = 1e-14 takes 4079 steps (2 rejected), 1e-15 6478 (326 rejected); 1e-17
reaches t = 2.4e-3 with 57 % of its steps rejected (5e-8 s the smallest), 1e-21 (the rule's rtol at
h = 1.6e-4 over 1 s) t = 8.7e-7 with 1e-11 s steps. The Puma study's first grid (down to h = 1.6e-4)
therefore seemed to hang."""


def check_resolvable_tolerance(integrator, options: dict, h: float, t_end: float, field: str = "h",
                               file: str | None = None) -> None:
    """InputError when a step-size-controlled run's relative tolerance (given, or the rule's at h) is below
    SMALLEST_RELATIVE_TOLERANCE."""
    if options.get("step_control") != "adaptive":
        return
    from lgbench.integrators.adaptive import adaptive_tolerances, rule_step

    r_tol, _ = adaptive_tolerances(options, integrator.order, h, t_end)
    if r_tol >= SMALLEST_RELATIVE_TOLERANCE:
        return
    if options.get("rtol") != "rule":
        raise InputError(f"rtol = {r_tol:.1e} is below what double precision resolves in a step's error "
                         f"estimate (at least {SMALLEST_RELATIVE_TOLERANCE:g})", field="options.rtol", file=file)
    coarsest = rule_step(t_end, SMALLEST_RELATIVE_TOLERANCE, integrator.order)
    raise InputError(f"at h = {h:g} the tolerance rule 1e-2 / (t_end / h)^{integrator.order} of paper 000 "
                     f"Sect. 4 gives rtol = {r_tol:.1e}, below what double precision resolves in a step's error "
                     f"estimate (at least {SMALLEST_RELATIVE_TOLERANCE:g}); use h >= {coarsest:.3g} or give rtol",
                     field=field, file=file)


def _count_turns(series: dict, final: dict, angles: tuple[str, ...], spec: RunSpec) -> None:
    """The angle outputs ``angles`` (``Model.continuous``) counted on over the samples, whole turns
    included (``numpy.unwrap``: consecutive samples less than half a turn apart), in ``series``, and at
    t_end in ``final`` when the samples reach it."""
    for name in angles:
        series[name] = np.unwrap(series[name])
        if name in final and series["t"].shape[0] and reached_end(float(series["t"][-1]), spec.t_end):
            final[name] = float(series[name][-1])


def sample_times(t_end: float, n_samples: int | None) -> np.ndarray:
    """The output sample times of a run: ``linspace(0, t_end, n_samples)``, or just t_end."""
    if n_samples and n_samples > 1:
        return np.linspace(0.0, t_end, n_samples)
    return np.array([t_end])


def failure_message(code: int, t: float, steps: int, system, q: np.ndarray) -> str:
    """What failed, when, and whether a Tait-Bryan body was near gimbal lock at the last good state."""
    from lgbench.mbs.system import tait_bryan_pitch_cosines

    message = f"{Status(code).message} at t = {t:.6g} s (step {steps + 1})"
    cosines = tait_bryan_pitch_cosines(system, q)
    if cosines and all(np.isfinite(cosines)):
        closest = min(cosines)
        near = "; near the gimbal-lock singularity" if closest < 0.5 else ""
        message += f"; Tait-Bryan |cos(pitch)| = {closest:.2e} at the last accepted step (0 = gimbal lock){near}"
    return message


def constraint_series(system, times, q_samples, v_samples, lam_samples) -> dict[str, np.ndarray]:
    """Per sample: ||Phi(q)||, ||B(q) v|| (hidden constraint) and ||lambda|| (paper 002 Figs. 9, 10); ``system``
    with every written row (``BuiltModel.all_rows``), so that rows removed as redundant are checked too."""
    from lgbench.mbs.constraints import constraint_matrix, constraint_residual

    nq, nv, nc = (int(x) for x in system.sizes)
    phi = np.zeros(nc)
    matrix = np.zeros((nc, nv))
    rows = np.zeros((times.shape[0], 3))
    for k in range(times.shape[0]):
        constraint_residual(system, q_samples[k], times[k], phi)
        constraint_matrix(system, q_samples[k], matrix)
        rows[k] = (np.linalg.norm(phi), np.linalg.norm(matrix @ v_samples[k]), np.linalg.norm(lam_samples[k]))
    return {"constraint_residual": rows[:, 0], "velocity_constraint_residual": rows[:, 1],
            "lambda_norm": rows[:, 2]}


def recorded_samples(times: np.ndarray, run, h: float) -> np.ndarray:
    """Which sample rows of the ``Integration`` ``run`` hold a state the run computed: at or before its last
    accepted time and recorded (finite; rows it did not record are NaN, ``interface.sample_arrays``). A run
    that fails in its consistent accelerations records none, one that fails at step 1 only t = 0."""
    reached = times <= run.t_reached + 1e-6 * h
    return reached & np.isfinite(run.q_samples).all(axis=1) & np.isfinite(run.v_samples).all(axis=1)


def require_ok(result: RunResult, spec: RunSpec, role: str = "run", note: str = "") -> RunResult:
    """``result`` if its run reached t_end, else ``RunFailed`` naming the run (``role``: "run", "reference
    run"), its status and its message (the cause and the time)."""
    if result.status != "ok":
        raise RunFailed(spec.describe(), result.status, result.message or "no message", role, note)
    return result


def reached_end(t_reached: float, t_end: float) -> bool:
    """Whether a run got to t_end (up to the round-off of summed steps); a run is "ok" only then."""
    return bool(np.isfinite(t_reached)) and t_reached >= t_end * (1.0 - 1e-9)


def run_single(spec: RunSpec, n_samples: int | None = None, timing: TimingRule = ONE_TIMING) -> RunResult:
    """Integrate one configuration; numerical failure is a status, bad input an InputError, any other
    exception of the engine an EngineError naming the run.

    The CPU time (the thread time of ``integrators.interface.timed_run``) covers the compiled
    integration loop only (for implicit methods also the consistent initial accelerations);
    compilation is triggered (and cached) by a warm-up run to t = 0 before the timed region. A short
    run is timed again by ``timing`` (``TimingRule``).
    """
    with engine_errors(spec):
        return _run_single(spec, n_samples, timing)


def _timed_runs(integrator, model, options, spec: RunSpec, times: np.ndarray, timing: TimingRule):
    """The integration and the CPU seconds of each of its timed runs (``TimingRule``)."""
    run = integrator.integrate(model.system, model.q0, model.v0, options, spec.h, spec.t_end, times)
    seconds = [run.cpu_s]
    while run.code == 0 and len(seconds) < timing.max_runs and sum(seconds) < timing.repeat_below_s:
        seconds.append(integrator.integrate(model.system, model.q0, model.v0, options, spec.h, spec.t_end,
                                            times).cpu_s)
    return run, seconds


def _run_single(spec: RunSpec, n_samples: int | None, timing: TimingRule) -> RunResult:
    model, integrator, options = build_run(spec)
    sys = model.system
    times = sample_times(spec.t_end, n_samples)
    run, seconds = _timed_runs(integrator, model, options, spec, times, timing)
    code, steps, t_reached, cpu = run.code, run.steps, run.t_reached, min(seconds)
    q, v, lam = run.q, run.v, run.lam
    q_samples, v_samples, lam_samples = run.q_samples, run.v_samples, run.lam_samples
    statistics = dict(run.statistics)

    status = Status(code).label
    message = "" if code == 0 else failure_message(code, t_reached, steps, sys, q)
    if code == 0 and not reached_end(t_reached, spec.t_end):
        status, message = "failed", (f"the integration stopped at t = {t_reached:.6g} s after {steps} steps, "
                                     f"before t_end = {spec.t_end:g} s")
    final = {}
    if status == "ok":
        values = model.outputs(sys, q, v, lam, t_reached)
        final = {name: float(x) for name, x in zip(model.output_names, values)}
    series = None
    if n_samples:
        reached = recorded_samples(times, run, spec.h)
        rows = [model.outputs(sys, q_samples[k], v_samples[k], lam_samples[k], times[k])
                for k in range(times.shape[0]) if reached[k]]
        data = np.array(rows).reshape(-1, len(model.output_names))
        series = {"t": times[reached]}
        series.update({name: data[:, j] for j, name in enumerate(model.output_names)})
        _count_turns(series, final, model_of(spec).continuous, spec)
        if sys.sizes[2] > 0:
            series.update(constraint_series(model.all_rows, times[reached], q_samples[reached],
                                            v_samples[reached], lam_samples[reached]))
    statistics["us_per_step"] = 1e6 * cpu / steps if steps else float("nan")
    statistics["cpu_runs"] = len(seconds)
    statistics["cpu_spread"] = (max(seconds) - cpu) / cpu if cpu > 0 else 0.0
    return RunResult(status=status, message=message, steps=int(steps), cpu_s=cpu,
                     t_final=float(t_reached), final_outputs=final, series=series,
                     statistics=statistics)
