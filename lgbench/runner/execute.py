"""Execution of a study: reference first, then every run of the grid, each stored as it finishes.

A run whose status is not "ok" gets a runs.csv row (status, message, steps, cpu_s) and no
errors.csv rows. Runs already in runs.csv are skipped unless ``force``; ``force`` first removes
the rows of this study's runs so that each run id keeps exactly one row.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from lgbench._compile_cache import compile_notice
from lgbench.analysis.convergence import format_step
from lgbench.exceptions import EngineError, InputError, RunFailed
from lgbench.runner import executors, reference_cache, single_run
from lgbench.runner.executors import Limits
from lgbench.runner.provenance import METADATA, record_session, session_record
from lgbench.runner.error_measures import MEASURES, quantity_outputs
from lgbench.runner.grid import labelled_specs, motion_spec, reference_spec, run_id, study_plugins, study_specs
from lgbench.runner.motion import motion_of
from lgbench.runner.precompile import precompile
from lgbench.runner.single_run import RunResult, RunSpec, TimingRule
from lgbench.runner.study import Study, study_model
from lgbench.store import FolderLock, ResultStore, atomic, result_folder
from lgbench.store.csv_store import missing_parts, set_aside
from lgbench.store.motion import MOTION_FILE, write_motion
from lgbench.store.repair import Finding, Needs, diagnose_and_repair

Progress = Callable[[str], Any]


@dataclass
class Outcome:
    """What ``execute_study`` did."""

    computed: int = 0
    skipped: int = 0
    failed: int = 0


def run_row(identifier: str, spec: RunSpec, result: RunResult, variant: str = "") -> dict[str, Any]:
    """The runs.csv row of one run: spec, status, counters and the run's statistics."""
    row = {"run_id": identifier, "model": spec.model, "formulation": spec.formulation,
           "integrator": spec.integrator, "variant": variant, "h": spec.h, "t_end": spec.t_end,
           "status": result.status,
           "message": result.message, "steps": result.steps, "cpu_s": result.cpu_s,
           "t_final": result.t_final}
    row.update(result.statistics)
    return row


def error_rows(identifier: str, study: Study, result: RunResult,
               reference: RunResult) -> list[dict[str, Any]]:
    """The errors.csv rows (long form) of one successful run."""
    model = study_model(study)
    rows = []
    for request in study.errors:
        outputs = quantity_outputs(request.quantity, list(model.outputs), dict(model.output_groups))
        value = MEASURES[request.measure].function(result, reference, outputs, request.window)
        rows.append({"run_id": identifier, "quantity": request.quantity, "measure": request.label,
                     "value": value})
    return rows


def _check_same_setup(stored: dict[str, dict[str, str]], specs: dict[str, RunSpec], out_dir: Path) -> None:
    for identifier, row in stored.items():
        spec = specs.get(identifier)
        if spec and (row.get("model") != spec.model or not row.get("t_end")
                     or not math.isclose(float(row["t_end"]), spec.t_end)):
            raise InputError(f"{out_dir} holds run {identifier} for model {row['model']}, t_end "
                             f"{row['t_end']}; this study has {spec.model}, t_end {spec.t_end}. "
                             "Use --force to recompute or another --out folder")


def wanted_errors(study: Study) -> set[tuple[str, str]]:
    """The (quantity, measure) pairs of errors.csv that every ok run of the study has."""
    return {(request.quantity, request.label) for request in study.errors}


def complete_runs(study: Study, store: ResultStore, stored: dict[str, dict[str, str]],
                  errors: list[dict[str, str]]) -> set[str]:
    """Run ids stored completely (``stored``: the rows of runs.csv by run id; ``errors``: those of
    errors.csv): a runs row, and for an ok run every error row the study asks for and (if the study
    records series) its series file. The others are computed again on resume."""
    series = store.series_ids() if study.samples else None
    return set(stored) - set(missing_parts(stored, errors, wanted_errors(study), series))


def _summary(result: RunResult, errors: list[dict[str, Any]]) -> str:
    if result.status != "ok":
        return f"{result.status}: {result.message}"
    values = "  ".join(f"{row['quantity']}={row['value']:.3e}" for row in errors)
    return f"ok  steps={result.steps}  cpu={result.cpu_s:.3g}s  {values}".rstrip()


class Reporter:
    """What a study execution tells its caller; the CLI's progress display implements this."""

    def message(self, text: str) -> None:
        """A line of information (reference, skipped runs)."""

    def status(self, text: str) -> None:
        """A passing line (the elapsed time of a compilation), shown in place on a terminal, nowhere
        else; "" removes it."""

    def started(self, total: int) -> None:
        """``total`` runs are about to be computed."""

    def finished(self, number: int, total: int, identifier: str, summary: str) -> None:
        """Run ``number`` of ``total`` is stored."""


class _Lines(Reporter):
    """A Reporter that hands every message and finished run to a callable as one line."""

    def __init__(self, say: Progress):
        self.say = say

    def message(self, text: str) -> None:
        self.say(text)

    def finished(self, number: int, total: int, identifier: str, summary: str) -> None:
        self.say(f"[{number}/{total}] {identifier}  {summary}")


def execute_study(study: Study, out_dir: str | Path, force: bool = False,
                  progress: Progress | Reporter | None = None, executor: str = "serial", jobs: int = 1,
                  address: str | None = None, limits: Limits | None = None,
                  use_cache: bool = True, wait: bool = False, source: str | Path | None = None) -> Outcome:
    """Run the study's grid into ``out_dir`` (runs.csv, errors.csv, reference.csv, series/,
    metadata.json), each run stored as soon as it finishes, whichever executor computes it.

    The folder's lock is held throughout (a second writer fails at once, or waits with ``wait``);
    temporary files left by a process that died, and a last line of runs.csv or errors.csv that it cut
    short, are removed first. ``source``, the study file, is never overwritten by the study's copy in
    the folder.
    """
    reporter = progress if isinstance(progress, Reporter) else _Lines(progress or (lambda text: None))
    out_dir = result_folder(out_dir)
    with FolderLock(out_dir, wait, reporter.message):
        atomic.clean_leftovers(out_dir)
        for dropped in ResultStore(out_dir).drop_cut_lines():
            reporter.message(f"{dropped}: removed")
        return _execute(study, out_dir, force, reporter, executor, jobs, address, limits or Limits(), use_cache,
                        source)


def _execute(study: Study, out_dir: Path, force: bool, reporter: Reporter, executor: str, jobs: int,
             address: str | None, limits: Limits, use_cache: bool, source: str | Path | None) -> Outcome:
    store = ResultStore(out_dir)
    labelled = {run_id(spec, label): (spec, label) for spec, label in labelled_specs(study)}
    specs = {identifier: spec for identifier, (spec, _) in labelled.items()}
    if force:
        for backup in store.forget(set(specs)):
            reporter.message(f"warning: {backup.name.partition('.damaged')[0]} was damaged; kept as {backup.name}")
    stored = store.finished_runs()
    if not force:
        _check_same_setup(stored, specs, out_dir)
    stored_errors = store.errors()
    finished = complete_runs(study, store, stored, stored_errors)
    pending = {identifier: spec for identifier, spec in specs.items() if identifier not in finished}
    outcome = Outcome(skipped=len(specs) - len(pending))
    incomplete = set(stored) & set(pending)
    if incomplete:
        reporter.message(f"recomputing {len(incomplete)} stored runs whose error rows or series are missing")
    # rows of runs computed again go first, so that a resumed folder equals an uninterrupted one: error
    # rows a killed process stored before its runs row, and the runs rows of incomplete runs
    stale = set(pending) & (incomplete | {row["run_id"] for row in stored_errors})
    if stale:
        store.forget(stale)
    if outcome.skipped:
        reporter.message(f"skipping {outcome.skipped} of {len(specs)} runs already in {store.runs_path}")
    store.directory.mkdir(parents=True, exist_ok=True)
    write_study_copy(study, out_dir, source)    # also when nothing is pending: figures, published values, checks
    if not pending and reference_stored(study, store):
        _record_motion(study, out_dir, reporter)
        return outcome
    workers = executors.worker_count(executor, jobs, address)
    backup = record_session(out_dir, study.name, session_record(executor, workers, study_plugins(study)))
    if backup is not None:
        reporter.message(f"warning: {out_dir / METADATA} was not valid provenance; kept as {backup.name}")
    _compile_if_cold(study, pending.values(), executor, reporter)
    samples = study.samples
    reference = _reference(study, store, samples, reporter, use_cache)
    if not pending:
        return outcome
    reporter.started(len(pending))
    tasks = list(pending.items())
    limits = replace(limits, timing=TimingRule(study.timing.repeat_below_s, study.timing.max_runs))
    for number, (identifier, result) in enumerate(
            executors.results(tasks, samples, limits, executor, jobs, address), start=1):
        spec = specs[identifier]
        errors = error_rows(identifier, study, result, reference) if result.status == "ok" else []
        if samples and result.series is not None:
            store.write_series(identifier, result.series)
        row = run_row(identifier, spec, result, labelled[identifier][1])
        row.update(integrator_kind=single_run.integrator_of(spec).kind, executor=executor, workers=workers)
        store.record(row, errors)
        outcome.computed += 1
        outcome.failed += result.status != "ok"
        reporter.finished(number, len(pending), identifier, _summary(result, errors))
    _record_motion(study, out_dir, reporter)
    return outcome


def _record_motion(study: Study, out_dir: Path, reporter: Reporter) -> None:
    """The poses of the study's motion figure (``grid.motion_spec``) into ``motion.npz``, once; a run that
    fails to start is reported and left out (the figure is then not drawn)."""
    spec = motion_spec(study)
    path = out_dir / MOTION_FILE
    if spec is None or path.exists():
        return
    try:
        motion = motion_of(spec, study.motion.frames)
    except (InputError, EngineError, RunFailed) as error:
        reporter.message(f"warning: no motion figure: {error}")
        return
    write_motion(path, motion)
    reporter.message(f"motion of {study.motion.method} at h = {spec.h:g} ({motion.status}): {path}")


def reference_stored(study: Study, store: ResultStore) -> bool:
    """Whether the folder keeps the reference's row (and its series, if the study records series)."""
    series = store.series_directory / "reference.csv"
    return store.reference_path.exists() and (not study.samples or series.exists())


def _compile_if_cold(study: Study, pending: Iterable[RunSpec], executor: str, reporter: Reporter) -> None:
    """On an empty compile cache, say so and compile what the runs need on every core first
    (``precompile``); the Dask executor's workers compile on their own machines."""
    notice = compile_notice()
    if not notice:
        return
    reporter.message(notice)
    if executor != "dask":
        precompile(study_specs(study, pending), progress=reporter.message, status=reporter.status)


def repair_results(study: Study, out_dir: Path, apply: bool = True, wait: bool = False,
                   copy_problem: str | None = None) -> list[Finding]:
    """Find (and with ``apply`` repair) the damage in the result folder ``out_dir`` of ``study``, holding
    its lock: ``store.repair.diagnose_and_repair`` with what the study asks of each run. ``copy_problem``
    says what is wrong with the folder's study copy, which is then set aside and written from ``study``."""
    needs = Needs(study.name, {run_id(spec, label) for spec, label in labelled_specs(study)}, wanted_errors(study),
                  study.samples or 0)
    with FolderLock(out_dir, wait):
        findings = diagnose_and_repair(out_dir, needs, apply)
        if copy_problem is not None:
            findings.insert(0, Finding(STUDY_COPY, copy_problem, "set aside, written again from the study file"))
            copy = out_dir / STUDY_COPY
            if apply and copy.exists():
                set_aside(copy)
            if apply:
                write_study_copy(study, out_dir)
    return findings


STUDY_COPY = "study.yaml"


def write_study_copy(study: Study, out_dir: Path, source: str | Path | None = None) -> None:
    """Keep the (profiled) study next to its results, so ``lgbench check DIR`` needs nothing else;
    never over ``source`` (a run of the copy itself keeps it as it is)."""
    import yaml

    from lgbench.runner.study import study_document

    target = out_dir / STUDY_COPY
    if source is not None and target.exists() and Path(source).exists() and target.samefile(source):
        return
    atomic.write_text(target, yaml.safe_dump(study_document(study), sort_keys=False))


def exact_reference(study: Study, samples: int | None) -> RunResult:
    """The model's closed-form solution at t_end (and at the sample times) as a reference result."""
    model = study_model(study)
    params = {**study.params, **study.reference.params}
    times = single_run.sample_times(study.t_end, samples)
    values = model.exact_outputs(params, times)
    final = {name: float(values[-1, j]) for j, name in enumerate(model.outputs)}
    series = None
    if samples:
        series = {"t": times, **{name: values[:, j] for j, name in enumerate(model.outputs)}}
    return RunResult(status="ok", message="exact solution", steps=0, cpu_s=0.0, t_final=study.t_end,
                     final_outputs=final, series=series)


def compute_reference(study: Study, use_cache: bool = True,
                      warn: Callable[[str], object] | None = None) -> tuple[RunResult, bool]:
    """The study's reference result and whether it came from the cache (exact ones are not cached)."""
    if study.reference.exact:
        return exact_reference(study, study.samples), False
    spec = reference_spec(study)

    def compute() -> RunResult:
        try:
            return single_run.run_single(spec, n_samples=study.samples)
        except InputError as error:
            raise InputError(f"reference: {error}") from None

    return reference_cache.cached_reference(spec, study.samples, compute, use_cache, warn)


def _reference(study: Study, store: ResultStore, samples: int | None, reporter: Reporter,
               use_cache: bool = True) -> RunResult:
    """Compute (or fetch) the reference and store its row and series in the result folder."""
    if study.reference.exact:
        spec = RunSpec(study.model_name(), "exact", "exact", 0.0, study.t_end)
    else:
        spec = reference_spec(study)
        reporter.message(f"reference {spec.formulation}-{spec.integrator} h={format_step(spec.h)} ...")
    result, cached = compute_reference(study, use_cache, reporter.message)
    single_run.require_ok(result, spec, "reference run", "the study's runs are measured against it and were "
                                                         "not computed (change 'reference:' in the study file)")
    row = run_row("reference", spec, result)
    row.update(result.final_outputs)
    store.directory.mkdir(parents=True, exist_ok=True)
    store.write_reference(row)
    if samples and result.series is not None:
        store.write_series("reference", result.series)
    if study.reference.exact:
        reporter.message("reference: the model's exact solution")
    else:
        reporter.message(f"reference {_summary(result, [])}" + ("  (from the reference cache)" if cached else ""))
    return result
