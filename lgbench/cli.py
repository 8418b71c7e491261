"""The ``lgbench`` command: run studies, simulate once, draw figures, list what is available.

Every bad input ends with one line ``error: ...`` on stderr and exit code 2. An unexpected exception (a
bug in lgbench, e.g. inside the compiled engine during a run) ends with one line ``error: internal error
...`` naming the run, the exception's class and the first line of its message, and exit code 3; results
already stored stay stored. ``LGBENCH_DEBUG=1`` prints the full traceback before that line. Ctrl-C
ends a command with exit code 130, SIGTERM with 143, and one line saying what was kept.
"""
from __future__ import annotations

import errno
import math
import os
import traceback
from pathlib import Path
from typing import Annotated, Any

import typer
import yaml
from typer.core import TyperGroup

from lgbench.exceptions import EngineError, InputError, PluginError, RunFailed, printable
from lgbench.runner.bounds import echo_text

EXIT_RUN_FAILED = 1
EXIT_INPUT = 2
EXIT_INTERNAL = 3
DEBUG_VARIABLE = "LGBENCH_DEBUG"
Assignments = list[str] | None
FRAMEWORK_EXCEPTIONS = (typer.Exit, typer.Abort,
                        next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException"))
"""What the command-line framework reports itself: usage errors (a bad option value), exit codes, Abort."""


def debugging() -> bool:
    """Whether LGBENCH_DEBUG asks for full tracebacks of internal errors (set, and not 0/false/no)."""
    return os.environ.get(DEBUG_VARIABLE, "").strip().lower() not in ("", "0", "false", "no")


class _Commands(TyperGroup):
    """Turns InputError and file-system errors of any command into one line on stderr (exit 2), a run the
    command needs that did not reach t_end (``RunFailed``) into one line naming it (exit 1), any other
    exception, an internal error, into one line naming it (exit 3), and Ctrl-C or SIGTERM outside
    a command's own handling (``run`` and ``simulate`` say what was kept) into ``interrupted`` (130/143)."""

    def invoke(self, ctx):
        from lgbench.cli_progress import Interrupted, interruptible, say_interrupted

        code, trace = EXIT_INPUT, ""
        try:
            with interruptible():
                return super().invoke(ctx)
        except Interrupted as interrupt:
            say_interrupted("interrupted")
            raise typer.Exit(interrupt.exit_code) from None
        except InputError as error:
            message = str(error)
        except RunFailed as error:
            code, message = EXIT_RUN_FAILED, str(error)
        except OSError as error:
            if error.errno == errno.EPIPE:
                raise
            message = f"{error.filename}: {error.strerror}" if error.filename else str(error)
        except FRAMEWORK_EXCEPTIONS:
            raise
        except EngineError as error:
            code, trace, message = EXIT_INTERNAL, error.trace, str(error)
        except Exception as error:
            code, trace, message = EXIT_INTERNAL, traceback.format_exc(), str(EngineError.of("", error))
        if code == EXIT_INTERNAL:
            if debugging():
                typer.echo(trace.rstrip(), err=True)
            message += (f" (a bug in lgbench, not in the input; {DEBUG_VARIABLE}=1 shows the full traceback; "
                        "results already stored are kept)")
        typer.echo(f"error: {message}", err=True)
        raise typer.Exit(code)

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        """Click's own errors (an unknown option, a value of the wrong type, a missing argument) as one line
        on stderr, "error: MESSAGE (see 'lgbench COMMAND --help')", exit 2, instead of the multi-line box
        that typer draws; a bare ``lgbench`` still prints the help."""
        import sys

        usage_error, framework_error = typer.BadParameter.__mro__[1:3]   # typer's (vendored) click classes
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        try:
            code = super().main(args, prog_name, complete_var, False, **extra)
        except usage_error as error:
            if type(error).__name__ == "NoArgsIsHelpError":
                error.show()
                sys.exit(error.exit_code)
            where = error.ctx.command_path if error.ctx is not None else "lgbench"
            typer.echo(f"error: {error.format_message()} (see '{where} --help')", err=True)
            sys.exit(error.exit_code)
        except framework_error as error:
            typer.echo(f"error: {error.format_message()}", err=True)
            sys.exit(error.exit_code)
        except typer.Abort:
            typer.echo("interrupted", err=True)
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)


app = typer.Typer(cls=_Commands, add_completion=False, no_args_is_help=True,
                  help="Lie group vs classical time integration of rigid multibody systems: studies, "
                       "single runs, figures.")


@app.command()
def run(study_file: Annotated[Path, typer.Argument(metavar="STUDY.yaml", help="Study file.")],
        out: Annotated[str | None, typer.Option(help="Result folder (default: results/NAME)")] = None,
        force: Annotated[bool, typer.Option("--force", help="Recompute runs already in runs.csv.")] = False,
        profile: Annotated[str | None, typer.Option(help="Study profile, e.g. 'quick' (coarser grid).")] = None,
        jobs: Annotated[int, typer.Option("--jobs", "-j", help="Worker processes (executor 'processes'); "
                                          "parallel runs share the cores, see docs/studies.md.")] = 1,
        executor: Annotated[str | None, typer.Option(help="serial, processes or dask (default: serial, "
                                                     "processes if --jobs > 1).")] = None,
        address: Annotated[str | None, typer.Option(help="Dask scheduler address, tcp://HOST:PORT.")] = None,
        wall_limit: Annotated[float | None, typer.Option(help="Wall-time limit per run in seconds "
                                                          "(status=timeout).")] = None,
        max_steps: Annotated[int | None, typer.Option(help="Step budget per run (status=timeout).")] = None,
        reference_cache: Annotated[bool, typer.Option("--reference-cache/--no-reference-cache",
                                                      help="Reuse a cached reference solution.")] = True,
        quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Only the summary and tables.")] = False,
        verbose: Annotated[bool, typer.Option("--verbose", "-v", help="A line per finished run, "
                                              "also on a terminal.")] = False,
        wait: Annotated[bool, typer.Option("--wait", help="Wait while another lgbench process writes into "
                                           "the result folder (default: stop at once).")] = False):
    """Run a study: every grid run not yet in the result folder, then print the error table."""
    from lgbench.analysis.convergence import with_variants
    from lgbench.cli_progress import Interrupted, ProgressDisplay, interruptible, say_interrupted
    from lgbench.runner.execute import execute_study
    from lgbench.runner.executors import Limits
    from lgbench.runner.grid import labelled_specs, run_id
    from lgbench.runner.study import load_study
    from lgbench.store import ResultStore, read_frame, result_folder

    _check_limits(wall_limit, max_steps)
    executor = executor or ("processes" if jobs > 1 else "serial")
    _check_executor(executor, jobs, address, wall_limit)
    study = load_study(study_file, profile, max_steps)
    out = result_folder(Path("results") / study.name if out is None else out)
    if not quiet:
        typer.echo(f"study {study.name}: {echo_text(study.description or study.model_name())}".rstrip())
    display = ProgressDisplay(quiet=quiet, verbose=verbose)

    def last_line() -> str:
        display.close()
        return f"interrupted: {display.stored} runs stored — run again to resume"

    try:
        with interruptible(last_line):
            outcome = execute_study(study, out, force=force, progress=display, executor=executor, jobs=jobs,
                                    address=address, limits=Limits(wall_limit, max_steps),
                                    use_cache=reference_cache, wait=wait, source=study_file)
    except Interrupted as interrupt:
        say_interrupted(last_line())
        raise typer.Exit(interrupt.exit_code) from None
    finally:
        display.close()
    typer.echo(f"{outcome.computed} computed ({outcome.failed} not ok), {outcome.skipped} skipped; "
               f"results in {out}")
    store = ResultStore(out)
    runs = read_frame(store.runs_path)
    runs = with_variants(runs[runs["run_id"].isin({run_id(spec, label) for spec, label in labelled_specs(study)})])
    errors = read_frame(store.errors_path)
    for request in study.errors:
        typer.echo("")
        typer.echo(_error_report(runs, errors, request.quantity, request.label))
    if "newton_per_step" in runs.columns and runs["newton_per_step"].notna().any():
        typer.echo("")
        typer.echo(_newton_report(runs))
    typer.echo(f"\nfigures: lgbench plot {out}")


def _check_limits(wall_limit: float | None, max_steps: int | None) -> None:
    """--wall-limit a finite positive number of seconds, --max-steps within the step ceiling."""
    from lgbench.runner.bounds import STEP_CEILING

    if wall_limit is not None and not (math.isfinite(wall_limit) and 0 < wall_limit <= 1e7):
        raise InputError(f"must be a positive number of seconds, got {wall_limit}", field="--wall-limit",
                         allowed="0 < seconds <= 1e7")
    if max_steps is not None and not 1 <= max_steps <= STEP_CEILING:
        raise InputError(f"must lie in [1, {STEP_CEILING:.0e}], got {max_steps}", field="--max-steps")


MAX_JOBS = 256
"""Most worker processes of ``--jobs`` (each is a Python process with the compiled engine loaded)."""


def _check_executor(executor: str, jobs: int, address: str | None, wall_limit: float | None) -> None:
    """--executor one of the executors, --jobs in [1, MAX_JOBS], and what the dask executor needs (its extra
    installed, --address, no --wall-limit), before anything is computed."""
    from importlib.util import find_spec

    from lgbench.runner.executors import EXECUTORS

    if executor not in EXECUTORS:
        raise InputError(f"unknown executor '{echo_text(executor)}'", field="--executor", allowed=list(EXECUTORS))
    if not 1 <= jobs <= MAX_JOBS:
        raise InputError(f"must lie in [1, {MAX_JOBS}], got {jobs}", field="--jobs")
    if executor != "dask":
        return
    if find_spec("distributed") is None:
        raise InputError("the dask executor needs the optional extra: pip install 'lgbench[cluster]'",
                         field="--executor", allowed=[e for e in EXECUTORS if e != "dask"])
    if not address:
        raise InputError("the dask executor needs --address tcp://HOST:PORT of a running scheduler",
                         field="--address")
    if wall_limit is not None:
        raise InputError("the wall-time limit is enforced by the local executors only; use --max-steps with dask",
                         field="--wall-limit")


def _check_file_name(path: Path, option: str, allowed: str, folder_allowed: bool = False) -> None:
    """``path`` names a file to write: not empty, not '.', '..' or the root, and (unless ``folder_allowed``:
    suffixes are added to it) not an existing folder."""
    if path.name in ("", ".", "..") or (path.is_dir() and not folder_allowed):
        raise InputError(f"must name a file, got '{path}'", field=option, allowed=allowed)


def _newton_report(runs) -> str:
    """Average Newton iterations per step by h (rows) and method (columns), paper 000 Tables 4, 5, 7."""
    from lgbench.analysis.convergence import format_step, method_label
    from lgbench.analysis.kinds import implicit_runs

    runs = implicit_runs(runs)
    runs = runs.assign(method=[method_label(f, i) for f, i in zip(runs["formulation"], runs["integrator"])])
    runs = runs.assign(value=runs["newton_per_step"].where(runs["status"] == "ok"))
    table = runs.pivot_table(index="h", columns="method", values="value", aggfunc="last", dropna=False,
                             sort=False).sort_index(ascending=False)
    table = table[[m for m in dict.fromkeys(runs["method"]) if m in table.columns]]
    width = max([10] + [len(method) + 2 for method in table.columns])
    lines = ["average Newton iterations per step; '–' = failed or missing run",
             f"{'h':>12}" + "".join(f"{method:>{width}}" for method in table.columns)]
    for h, values in table.iterrows():
        cells = ("–" if math.isnan(value) else f"{value:.2f}" for value in values)
        lines.append(f"{format_step(h):>12}" + "".join(f"{cell:>{width}}" for cell in cells))
    return "\n".join(lines)


def _error_report(runs, errors, quantity: str, measure: str) -> str:
    """Error by h (rows) x method (columns), then the fitted order per method."""
    from lgbench.analysis.convergence import error_table, fitted_orders, format_step

    if errors.empty:
        return f"{quantity} ({measure}): no errors recorded"
    table = error_table(runs, errors, quantity, measure)
    fits = fitted_orders(table)
    width = max([10] + [len(method) + 2 for method in table.columns])
    lines = [f"error in {quantity} ({measure}); '–' = failed or missing run",
             f"{'h':>12}" + "".join(f"{method:>{width}}" for method in table.columns)]
    for h, values in table.iterrows():
        cells = ("–" if math.isnan(value) else f"{value:.3e}" for value in values)
        lines.append(f"{format_step(h):>12}" + "".join(f"{cell:>{width}}" for cell in cells))
    lines.append(f"{'order':>12}" + "".join(f"{fit.label():>{width}}" for fit in fits.values()))
    lines.append(f"{'fit points':>12}" + "".join(f"{fit.points:>{width}}" for fit in fits.values()))
    return "\n".join(lines)


def _assignments(texts: list[str], option: str) -> dict[str, Any]:
    """``key=value`` pairs; values are read as YAML (numbers, true/false, text, [lists])."""
    from lgbench.runner.study import parameter_value

    values = {}
    for text in texts:
        key, separator, raw = text.partition("=")
        if not separator or not key.strip() or not raw.strip():
            raise InputError(f"expected key=value, got '{text}'", field=option)
        try:
            values[key.strip()] = parameter_value(yaml.safe_load(raw))
        except (yaml.YAMLError, ValueError) as error:
            raise InputError(f"cannot read the value of '{text}': {error}", field=option) from None
    return values


@app.command()
def check(results_dir: Annotated[Path, typer.Argument(metavar="RESULTS_DIR", help="Result folder of 'lgbench run'.")],
          study_file: Annotated[Path | None, typer.Option("--study", help="Study file (default: RESULTS_DIR/study.yaml).")] = None,
          profile: Annotated[str | None, typer.Option(help="Profile of --study.")] = None,
          junit: Annotated[Path | None, typer.Option(help="Also write the verdicts as JUnit XML here.")] = None):
    """Compare a result folder with its study's expectations and grade its findings; exit 1 on any
    regression (a paper's claim that does not come out is a result, not a regression)."""
    from lgbench.analysis.expectations import check as check_expectations
    from lgbench.analysis.findings import claim_tests as tests_of_claims
    from lgbench.runner.execute import STUDY_COPY
    from lgbench.runner.study import load_study
    from lgbench.store import ResultStore

    store = ResultStore(results_dir)
    store.require_runs()
    study = load_study(study_file, profile) if study_file else _study_copy(results_dir, profile, True)
    runs = store.runs_frame()
    errors = store.errors_frame()
    if not study.expectations:
        raise InputError("the study states no expectations to check", file=str(study_file or results_dir / STUDY_COPY),
                         field="expectations")
    grid = _grid_run_ids(study)
    _require_grid_runs(results_dir, grid, runs)
    _require_error_rows(store, study, runs, errors, grid)
    results = check_expectations(study, runs, errors, store.series_frame)
    claim_tests = tests_of_claims(study)
    typer.echo(_check_report(study.name, results, claim_tests))
    guards = [result for result in results if result.id not in claim_tests]
    if junit:
        _write_junit(junit, study.name, guards)
    if claim_tests:
        from lgbench.analysis.findings import assess
        from lgbench.report.findings import counts_text

        typer.echo(f"{study.name}: findings graded from their claims: "
                   f"{counts_text(assess(study.name, study.findings, results))}")
    failed = sum(not r.passed for r in guards)
    typer.echo(f"{study.name}: {len(guards) - failed} passed, {failed} failed")
    if failed:
        raise typer.Exit(1)


def _grid_run_ids(study) -> list[str]:
    """The run ids of the study's grid, in grid order."""
    from lgbench.runner.grid import labelled_specs, run_id

    return [run_id(spec, label) for spec, label in labelled_specs(study)]


def _require_grid_runs(results_dir: Path, grid: list[str], runs) -> None:
    """One line naming runs.csv if runs of the study's grid (``grid``: their ids) are not in it (a study
    interrupted between runs, or a folder after ``lgbench repair``): a verdict on the others would call
    the missing points a regression. The next ``lgbench run`` into the folder computes them."""
    from lgbench.runner.execute import STUDY_COPY

    stored = set(runs["run_id"])
    missing = [identifier for identifier in grid if identifier not in stored]
    if missing:
        more = f" and {len(missing) - 1} more" if len(missing) > 1 else ""
        raise InputError(f"{len(missing)} of the study's {len(grid)} runs are not stored ({missing[0]}{more}): "
                         f"an interrupted or repaired study; `lgbench run {results_dir / STUDY_COPY} --out "
                         f"{results_dir}` computes them, then check again", file=str(results_dir / "runs.csv"))


def _require_error_rows(store, study, runs, errors, grid: list[str]) -> None:
    """One line naming errors.csv if an ok run of ``study`` (``grid``: the ids of its runs) lacks one of
    its error rows: a verdict on the others would be made up."""
    from lgbench.runner.execute import wanted_errors

    store.require_error_rows(runs, errors, set(grid), wanted_errors(study))


def _study_copy(results_dir: Path, profile: str | None = None, required: bool = False):
    """The validated study copy of a result folder (None if it keeps none, unless ``required``); a damaged
    copy is one line saying how to write it again."""
    from lgbench.runner.execute import STUDY_COPY
    from lgbench.runner.study import load_study

    copy = results_dir / STUDY_COPY
    if not copy.exists():
        if required:
            raise InputError("missing; give the study file with --study", file=str(copy))
        return None
    try:
        return load_study(copy, profile, copy=True)
    except PluginError:
        raise
    except InputError as error:
        raise InputError(f"{error}; 'lgbench repair {results_dir} --study STUDY.yaml' writes the study copy "
                         "again") from None


def _check_report(name: str, results, claim_tests: set[str] = frozenset()) -> str:
    """The table of ``lgbench check``: a regression check passes ("ok") or not ("REGRESSION"); a test of
    a paper's claim ("claim holds" / "claim not met") grades its finding."""
    from lgbench.analysis.findings import check_verdict

    rows = [("expectation", "expected", "observed", "verdict")]
    rows += [(printable(r.expectation), r.expected, printable(r.observed), check_verdict(r, claim_tests))
             for r in results]
    widths = [max(len(row[k]) for row in rows) for k in range(4)]
    lines = [f"study {name}"]
    for row in rows:
        lines.append("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())
    return "\n".join(lines)


def _write_junit(path: Path, name: str, results) -> None:
    from xml.etree import ElementTree

    suite = ElementTree.Element("testsuite", name=name, tests=str(len(results)),
                                failures=str(sum(not r.passed for r in results)))
    for result in results:
        case = ElementTree.SubElement(suite, "testcase", classname=name, name=result.expectation)
        if not result.passed:
            failure = ElementTree.SubElement(case, "failure", message=f"expected {result.expected}, observed {result.observed}")
            failure.text = f"{name}: {result.expectation}: expected {result.expected}, observed {result.observed}"
    path.parent.mkdir(parents=True, exist_ok=True)
    ElementTree.ElementTree(suite).write(path, encoding="utf-8", xml_declaration=True)


@app.command()
def repair(results_dir: Annotated[Path, typer.Argument(metavar="RESULTS_DIR", help="Result folder of 'lgbench run'.")],
           study_file: Annotated[Path | None, typer.Option("--study", help="Study file (default: the folder's study.yaml; "
                                                          "needed if that copy is damaged).")] = None,
           profile: Annotated[str | None, typer.Option(help="Profile of --study.")] = None,
           dry_run: Annotated[bool, typer.Option("--dry-run", help="Only report the damage.")] = False,
           wait: Annotated[bool, typer.Option("--wait", help="Wait while another lgbench process writes into "
                                              "the folder (default: stop at once).")] = False):
    """Repair a damaged result folder: drop its damaged rows, and the runs that lack error rows or series,
    keeping a backup of each file changed; the next 'lgbench run' computes those runs again. One line per
    problem; exit 0 once the folder is sound."""
    from lgbench.runner.execute import STUDY_COPY, repair_results
    from lgbench.runner.study import load_study
    from lgbench.store import ResultStore, result_folder

    results_dir = result_folder(results_dir, "RESULTS_DIR")
    ResultStore(results_dir).require_runs()
    copy = results_dir / STUDY_COPY
    copy_problem = None if copy.exists() else "missing"
    try:
        copied = load_study(copy, copy=True) if copy.exists() else None
    except InputError as error:
        copied, copy_problem = None, str(error).removeprefix(f"{copy}: ")
    if study_file is None and copied is None:
        raise InputError(f"{copy_problem}; give the study file with --study", file=str(copy))
    study = load_study(study_file, profile) if study_file is not None else copied
    findings = repair_results(study, results_dir, not dry_run, wait, copy_problem)
    for finding in findings:
        typer.echo(str(finding))
    if not findings:
        typer.echo(f"{results_dir}: no damage found")
        return
    if dry_run:
        typer.echo(f"{results_dir}: {len(findings)} problem(s); 'lgbench repair {results_dir}' repairs them")
        raise typer.Exit(1)
    remaining = repair_results(study, results_dir, apply=False, wait=wait)
    for finding in remaining:
        typer.echo(f"still damaged: {finding}", err=True)
    if remaining:
        raise typer.Exit(1)
    typer.echo(f"{results_dir}: {len(findings)} problem(s) repaired, backups kept beside the files; "
               f"'lgbench run {copy} --out {results_dir}' computes the dropped runs again")


ModelArgument = Annotated[str, typer.Argument(metavar="MODEL", help="Model name ('lgbench list models') or a "
                                                                 "mechanism file (*.yaml).")]
FormulationOption = Annotated[str, typer.Option("--formulation", "-f", help="Rotation formulation.")]
IntegratorOption = Annotated[str, typer.Option("--integrator", "-i", help="Time integrator.")]
StepOption = Annotated[float, typer.Option("--step", help="Step size h.")]
EndOption = Annotated[float, typer.Option("--t-end", help="End time.")]
SetOption = Annotated[Assignments, typer.Option("--set", help="Parameter key=value, repeatable.")]
OptionOption = Annotated[Assignments, typer.Option(help="Integrator option key=value, repeatable, e.g. "
                                                          "newton_rtol=1e-12 (generalized-alpha, hht), "
                                                          "rho_inf=0.8 (generalized-alpha), rtol=1e-8 (adaptive "
                                                          "steps); a wrong key lists the integrator's options; "
                                                          "defaults in docs/mechanisms.md.")]
"""The arguments of a single run on the command line (simulate, animate)."""


@app.command()
def simulate(
        model: ModelArgument,
        formulation: FormulationOption,
        integrator: IntegratorOption,
        step: StepOption,
        t_end: EndOption,
        set_: SetOption = None,
        option: OptionOption = None,
        samples: Annotated[int, typer.Option(help="Output samples for --csv, evenly spaced over [0, t_end] (each "
                                                  "the state at the first step boundary at or after it).")] = 201,
        csv: Annotated[Path | None, typer.Option(help="Write the time series here: t, every output (a vector "
                                                      "output as NAME_x, NAME_y, NAME_z) and, with joints, "
                                                      "constraint_residual, velocity_constraint_residual, "
                                                      "lambda_norm.")] = None,
        max_steps: Annotated[int | None, typer.Option(help="Step budget (default: 1e7).")] = None):
    """One run; prints status, steps, CPU time and the final outputs. A run that does not reach t_end ends
    with one line naming it, the time and the cause, exit code 1; its --csv holds the samples it reached
    after a first line '# the run ... did not reach t_end ...'."""
    from lgbench.runner import bounds, single_run
    from lgbench.store import write_series

    if not 1 <= samples <= bounds.MAX_SAMPLES:
        raise InputError(f"must lie in [1, {bounds.MAX_SAMPLES}], got {samples}", field="--samples")
    if csv is not None:
        _check_file_name(csv, "--csv", "a file name, e.g. top.csv")
    spec = _run_spec(model, formulation, integrator, step, t_end, set_, option, max_steps)
    from lgbench.cli_progress import Interrupted, interruptible, say_interrupted

    last_line = "interrupted: the run was not finished, nothing was written"
    _announce_compilation()
    try:
        with interruptible(lambda: last_line):
            result = single_run.run_single(spec, n_samples=samples if csv else None)
    except Interrupted as interrupt:
        say_interrupted(last_line)
        raise typer.Exit(interrupt.exit_code) from None
    try:
        single_run.require_ok(result, spec)
    except RunFailed as failure:
        if csv is not None:
            write_series(csv, result.series or {"t": []}, comment=str(failure))
            rows = 0 if result.series is None else len(result.series["t"])
            failure.note = f"{csv}: {rows} sample{'s' if rows != 1 else ''} up to the failure"
        raise
    typer.echo(f"status: {result.status}")
    typer.echo(f"steps: {result.steps}   cpu: {result.cpu_s:.4g} s   t_final: {result.t_final:g}")
    for name, value in result.statistics.items():
        typer.echo(f"{name}: {value:g}")
    for name, value in result.final_outputs.items():
        typer.echo(f"  {name:<20} {value: .12e}")
    if csv is not None:
        if result.series is None:
            raise InputError("the run returned no time series", field="--csv")
        write_series(csv, result.series)
        typer.echo(f"time series: {csv}")


def _run_spec(model: str, formulation: str, integrator: str, step: float, t_end: float, set_, option,
              max_steps: int | None):
    """The RunSpec of a command line's single run (simulate, animate), every argument checked."""
    from lgbench.runner import bounds, single_run
    from lgbench.runner.grid import as_items
    from lgbench.runner.mechanism_file import is_mechanism_path, load_mechanism, mechanism_data
    from lgbench.runner.study import check_name, check_parameters, integrators, model_named

    mechanism = None
    if is_mechanism_path(model):
        mechanism = mechanism_data(load_mechanism(model))
        found = mechanism.model()
        model = found.name
    else:
        found = model_named(model, field="MODEL")
    check_name(formulation, list(found.formulations), f"formulation of model {model}", "--formulation")
    check_name(integrator, sorted(integrators()), "integrator", "--integrator")
    if not (math.isfinite(t_end) and 0 < t_end <= bounds.MAX_T_END):
        raise InputError(f"must be a finite positive time, got {t_end:g}", field="--t-end",
                         allowed=f"0 < t_end <= {bounds.MAX_T_END:g}")
    _check_limits(None, max_steps)
    bounds.check_steps(t_end, step, bounds.step_budget(max_steps), "--step")
    params = _assignments(set_ or [], "--set")
    check_parameters(found, params, "--set", separator=" ")
    options = _assignments(option or [], "--option")
    bounds.check_option_ranges(options, "--option")
    return single_run.RunSpec(model, formulation, integrator, step, t_end, as_items(params), as_items(options),
                              mechanism=mechanism)


@app.command()
def animate(
        model: ModelArgument,
        formulation: FormulationOption,
        integrator: IntegratorOption,
        step: StepOption,
        t_end: EndOption,
        out: Annotated[Path, typer.Option("--out", help="motion.gif (animated image) or motion.html "
                                                        "(self-contained viewer).")],
        set_: SetOption = None,
        option: OptionOption = None,
        frames: Annotated[int, typer.Option(help="Frames, evenly spaced over [0, t_end].")] = 100,
        view: Annotated[str, typer.Option(help="Projection: auto (face-on to the plane of a planar motion, "
                                                "else iso), iso, xz, yz or xy.")] = "auto",
        fps: Annotated[int, typer.Option(help="Frames per second.")] = 25,
        max_steps: Annotated[int | None, typer.Option(help="Step budget (default: 1e7).")] = None):
    """Draw a run's motion (bodies as sticks between their joints) as an animated GIF or an HTML viewer."""
    from lgbench.plots.animation import FORMATS, VIEW_NAMES, animate as write_animation
    from lgbench.runner.motion import motion_of

    if not 2 <= frames <= 1000:
        raise InputError(f"must lie in [2, 1000], got {frames}", field="--frames")
    if not 1 <= fps <= 100:
        raise InputError(f"must lie in [1, 100], got {fps}", field="--fps")
    if view not in VIEW_NAMES:
        raise InputError(f"unknown view '{view}'", field="--view", allowed=list(VIEW_NAMES))
    _check_file_name(out, "--out", "a file name ending in " + " or ".join(FORMATS))
    if out.suffix.lower() not in FORMATS:
        raise InputError(f"cannot write an animation as '{out.suffix}'", field="--out", allowed=list(FORMATS))
    spec = _run_spec(model, formulation, integrator, step, t_end, set_, option, max_steps)
    _announce_compilation()
    motion = motion_of(spec, frames)
    if motion.status != "ok":
        typer.echo(f"the run ended {motion.status} at t = {motion.times[-1]:g} s; drawing what was reached", err=True)
    write_animation(motion, out, view, fps)
    typer.echo(f"{out}: {motion.times.shape[0]} frames of {spec.describe()} ({view} view)")


def _announce_compilation() -> None:
    """On an empty compile cache, say on stderr that the engine is compiled first (run and reproduce
    say it through their progress lines): simulate was silent for a minute or more on a first run."""
    from lgbench._compile_cache import compile_notice

    notice = compile_notice()
    if notice:
        typer.echo(notice, err=True)


@app.command()
def validate(study_file: Annotated[Path, typer.Argument(metavar="FILE.yaml", help="Study or mechanism file.")]):
    """Check a study file (schema, names, options, expectations, every profile) or a mechanism file
    (schema, names, parameters, assembly of the initial state in every formulation) without running it."""
    from lgbench.runner.grid import labelled_specs
    from lgbench.runner.mechanism_file import is_mechanism_file, load_mechanism, mechanism_data
    from lgbench.runner.study import load_study

    if is_mechanism_file(study_file):
        mechanism = load_mechanism(study_file)
        model = mechanism_data(mechanism).model()
        for formulation in model.formulations[1:]:
            try:
                model.build(formulation)
            except InputError as error:
                raise InputError(f"{formulation}: {error.args[0]}", file=str(study_file), field=error.field,
                                 allowed=error.allowed) from None
        built = model.build(model.formulations[0])
        rows = int(built.all_rows.sizes[2])
        independent = int(built.system.sizes[2])
        typer.echo(f"{study_file}: valid mechanism '{mechanism.name}' ({len(mechanism.bodies)} bodies, "
                   f"{len(mechanism.joints)} joints, {rows} constraint rows in "
                   f"{model.formulations[0]}{f', {independent} independent' if independent < rows else ''}, "
                   f"{len(mechanism.forces)} force elements, {len(model.outputs)} "
                   f"outputs; formulations {', '.join(model.formulations)}; parameters "
                   f"{', '.join(model.defaults) or 'none'})")
        if built.redundant_rows:
            typer.echo(f"  {rows - independent} redundant rows at the initial state, removed (docs/mechanisms.md, "
                       f"'Redundant constraints'): " + "; ".join(built.redundant_rows))
        return
    study = load_study(study_file)
    typer.echo(f"{study_file}: valid study '{study.name}' ({len(labelled_specs(study))} runs, "
               f"{len(study.methods())} methods, {len(study.expectations)} expectations, "
               f"{len(study.findings)} findings)")
    for name in study.profiles:
        profiled = load_study(study_file, name)
        typer.echo(f"  profile {name}: {len(labelled_specs(profiled))} runs, "
                   f"{len(profiled.expectations)} expectations")


@app.command()
def findings(study_files: Annotated[list[Path], typer.Argument(metavar="STUDY.yaml...", help="Study files.")],
             evidence: Annotated[Path | None, typer.Option(help="Grade from this record of a full reproduction "
                                                           "(docs/evidence.json).")] = None,
             results: Annotated[Path | None, typer.Option(help="Grade from the result folders RESULTS/NAME "
                                                          "of a full reproduction.")] = None,
             record: Annotated[Path | None, typer.Option(help="With --results: write what every expectation "
                                                         "observed there to this record.")] = None,
             against: Annotated[Path | None, typer.Option(help="With --results: list the verdicts that differ "
                                                          "from this record's; exit 1 if one is lower.")] = None,
             audit: Annotated[bool, typer.Option("--audit", help="Print every claim: quote, precision, "
                                                 "expectation window, observed value, outcome.")] = False,
             write: Annotated[list[Path] | None, typer.Option(help="Rewrite the tables between the findings "
                                                               "markers of these Markdown files (docs/REPRODUCTION.md, "
                                                               "README.md).")] = None,
             check_file: Annotated[list[Path] | None, typer.Option("--check", help="Exit 1 if these Markdown files' "
                                                                    "tables differ.")] = None):
    """Grade the studies' findings from their claims and count the verdicts by paper; audit the claims;
    record a reproduction's observations; write or check the "At a glance" tables of docs/REPRODUCTION.md."""
    from lgbench.analysis.findings import published
    from lgbench.report.findings import StudyEntry, by_paper, claim_counts, counts_text, document_tables, group_title
    from lgbench.report.markdown import render_table
    from lgbench.runner.study import load_study

    if write and check_file:
        raise InputError("give either --write or --check", field="--write/--check")
    if evidence is not None and results is not None:
        raise InputError("grade from either --evidence or --results", field="--evidence/--results")
    if (record is not None or against is not None) and results is None:
        raise InputError("--record and --against read the result folders of --results", field="--results")
    studies = [(path, load_study(path)) for path in study_files]
    if results is not None:
        checked = {study.name: _full_results(study, results) for _, study in studies}
    else:
        checked = _recorded(studies, evidence) if evidence is not None else {}
    assessments = _assessments(studies, checked)
    for paper, items in by_paper(assessments).items():
        typer.echo(f"{group_title(paper)}: {len(items)} findings: {counts_text(items)}")
    papers = published(assessments)
    typer.echo(f"all papers: {len(papers)} findings: {counts_text(papers)}; {claim_counts(papers)}")
    if audit:
        typer.echo(_audit_text(studies, assessments))
    if record is not None:
        _write_record(record, studies, checked)
    if against is not None:
        _compare_verdicts(assessments, _assessments(studies, _recorded(studies, against)), against)
    targets = write or check_file or []
    if targets:
        entries = [StudyEntry(study.name, study.paper, path.as_posix()) for path, study in studies]
        tables = document_tables(entries, assessments)
        _write_marked_tables(targets, lambda folder: {key: render_table(table, folder)
                                                      for key, table in tables.items()}, bool(check_file))


def _assessments(studies, checked: dict) -> list:
    from lgbench.analysis.findings import assess

    return [item for _, study in studies for item in assess(study.name, study.findings, checked.get(study.name))]


def _full_results(study, folder: Path):
    """The check results of ``study`` (as written, on its full grid) in ``folder/NAME``; None without
    runs there."""
    from lgbench.analysis.expectations import check as check_expectations
    from lgbench.store import ResultStore

    store = ResultStore(folder / study.name)
    if not store.runs_path.exists():
        return None
    return check_expectations(study, store.runs_frame(), store.errors_frame(), store.series_frame)


def _recorded(studies, path: Path) -> dict:
    """The check results of every study decided on its windows from the record at ``path``."""
    from lgbench.analysis.evidence import recorded_results

    data = _read_record(path)
    return {study.name: recorded_results(study.expectations, data["studies"].get(study.name, {}).get(
        "expectations", {})) for _, study in studies}


def _read_record(path: Path) -> dict:
    import json

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise InputError(f"cannot read the record ({error.strerror})", file=str(path)) from None
    except ValueError as error:
        raise InputError(f"not a JSON record ({error})", file=str(path)) from None
    if not isinstance(data, dict) or not isinstance(data.get("studies"), dict):
        raise InputError("a record is a JSON object with 'studies'", file=str(path), field="studies")
    return data


def _write_record(path: Path, studies, checked: dict) -> None:
    """The record at ``path`` with the studies checked here replaced (the others kept)."""
    import json

    from lgbench.analysis.evidence import record_entries
    from lgbench.store import atomic

    data = _read_record(path) if path.exists() else {"studies": {}}
    for _, study in studies:
        results = checked.get(study.name)
        if results is None:
            continue
        data["studies"][study.name] = {"expectations": record_entries(study.expectations, results)}
    data["studies"] = dict(sorted(data["studies"].items()))
    atomic.write_text(path, json.dumps(data, indent=1, sort_keys=True) + "\n")
    typer.echo(f"{path}: recorded {sum(checked.get(s.name) is not None for _, s in studies)} studies")


_RANK = {"reproduced": 4, "trend": 3, "drawn": 2, "differs": 1, "not-reproduced": 0}


def _compare_verdicts(now: list, recorded: list, path: Path) -> None:
    """Print the findings whose verdict differs from the record's; exit 1 if one is lower."""
    lower = 0
    for item, before in zip(now, recorded):
        if item.verdict != before.verdict:
            worse = (item.verdict is None or before.verdict is not None
                     and _RANK[item.verdict.value] < _RANK[before.verdict.value])
            lower += worse
            typer.echo(f"{item.study}: {item.finding.paper} {item.finding.item}: {before.verdict_text} -> "
                       f"{item.verdict_text}{' (lower)' if worse else ''}")
    if lower:
        typer.echo(f"{lower} verdict(s) lower than in {path}", err=True)
        raise typer.Exit(1)
    typer.echo(f"no verdict lower than in {path}")


def _audit_text(studies, assessments) -> str:
    """Every claim: the finding, quote, precision, each expectation's window and observed value, outcome."""
    from lgbench.analysis.expectations import window

    by_name = {study.name: {item.id: item for item in study.expectations if item.id} for _, study in studies}
    lines = []
    for item in assessments:
        if not item.finding.claims:
            lines.append(f"{item.study}: {item.finding.paper} {item.finding.item}: {item.verdict_text} (no claims)")
            continue
        lines.append(f"{item.study}: {item.finding.paper} {item.finding.item}: {item.verdict_text}")
        for claim, state in zip(item.finding.claims, item.claim_states):
            lines.append(f"  [{state.value}] {claim.kind.value}, {claim.source}: \"{claim.quote}\"")
            lines.append(f"      precision {claim.precision_text}")
            for key in claim.expectations:
                result = (item.results or {}).get(key)
                observed = "not evaluated" if result is None else (
                    f"{result.observed} -> {'passes' if result.passed else 'fails'}")
                lines.append(f"      {key}: window {window(by_name[item.study][key]).text}; observed {observed}")
            if not claim.expectations:
                lines.append("      no expectation tests it")
    return "\n".join(lines)


def _write_marked_tables(targets: list[Path], tables_for, check_only: bool) -> None:
    """Write (or with ``check_only`` compare) the tables between the markers of every target; every table
    is marked in one of them. ``tables_for(folder)``: the tables rendered for a file in ``folder``."""
    from lgbench.report.findings import replace_marked
    from lgbench.store import atomic

    replaced_texts, marked, keys = [], set(), []
    for target in targets:
        tables = tables_for(target.parent)
        keys = list(tables)
        try:
            text = target.read_text(encoding="utf-8")
        except OSError as error:
            raise InputError(f"cannot read the file ({error.strerror})", file=str(target)) from None
        replaced, unmarked, unknown = replace_marked(text, tables)
        if unknown:
            raise InputError(f"the study files have no findings for the marked table(s) {', '.join(unknown)}",
                             file=str(target), allowed=keys)
        marked |= {key for key in tables if key not in unmarked}
        replaced_texts.append((target, text, replaced))
    missing = [key for key in keys if key not in marked]
    if missing:
        raise InputError(f"no markers for {', '.join(missing)}", file=", ".join(map(str, targets)),
                         allowed="'<!-- findings KEY -->' ... '<!-- end findings KEY -->' in one of the files")
    for target, text, replaced in replaced_texts:
        if check_only:
            if replaced != text:
                typer.echo(f"{target}: the findings tables differ from the study files and the record; "
                           f"'make findings' writes them", err=True)
                raise typer.Exit(1)
            typer.echo(f"{target}: the findings tables agree with the study files and the record")
        else:
            atomic.write_text(target, replaced)
            typer.echo(f"{target}: findings tables written")


@app.command()
def reference(study_file: Annotated[Path, typer.Argument(metavar="STUDY.yaml", help="Study file.")],
              profile: Annotated[str | None, typer.Option(help="Study profile.")] = None,
              force: Annotated[bool, typer.Option("--force", help="Recompute even if cached.")] = False):
    """Compute the study's reference solution into the reference cache (if not there yet)."""
    from lgbench.runner import single_run
    from lgbench.runner.execute import compute_reference
    from lgbench.runner.reference_cache import cache_root, reference_key
    from lgbench.runner.grid import reference_spec
    from lgbench.runner.study import load_study

    study = load_study(study_file, profile)
    if study.reference.exact:
        typer.echo(f"{study.name}: the reference is the model's exact solution; nothing to compute")
        return
    _announce_compilation()
    result, cached = compute_reference(study, use_cache=not force, warn=lambda text: typer.echo(text, err=True))
    key = reference_key(reference_spec(study), study.samples)
    single_run.require_ok(result, reference_spec(study), "reference run")
    state = "cached already" if cached else f"computed in {result.cpu_s:.3g} s CPU"
    typer.echo(f"{study.name}: reference {state}: {cache_root() / key}")


@app.command()
def plot(results_dir: Annotated[Path, typer.Argument(metavar="RESULTS_DIR", help="A result folder.")],
         kind: Annotated[list[str] | None, typer.Option("--kind", "-k", help="Figure kind, repeatable: convergence, "
                                                        "work_precision, cpu_time, newton_iterations, reference, "
                                                        "series, trajectory (default: all).")] = None,
         format_: Annotated[str, typer.Option("--format", help="png, pdf or svg.")] = "png"):
    """Draw figures from RESULTS_DIR's CSV files into RESULTS_DIR/figures."""
    from lgbench.plots import draw_figures

    if not kind or {"series", "trajectory"} & set(kind):
        _study_copy(results_dir)            # the series plots are drawn as the study copy asks
    for path in draw_figures(results_dir, kind or None, format_):
        typer.echo(str(path))


@app.command("compile")
def compile_(study_files: Annotated[list[Path], typer.Argument(metavar="STUDY.yaml...", help="Study files.")],
             profile: Annotated[str | None, typer.Option(help="Profile of the study files to compile for.")] = None,
             jobs: Annotated[int | None, typer.Option("--jobs", "-j", help="Compile processes (default: one per core).")] = None):
    """Compile, into the compile cache, every entry point the studies' runs call, JOBS at a time, and
    nothing else (run and reproduce do this themselves on an empty cache; this warms it ahead, e.g. before
    tests or a batch job)."""
    import time

    from lgbench.runner.grid import study_specs
    from lgbench.runner.precompile import precompile
    from lgbench.runner.study import load_study

    if jobs is not None and jobs < 1:
        raise InputError(f"must be at least 1, got {jobs}", field="--jobs")
    specs = [spec for path in study_files for spec in study_specs(load_study(path, profile=profile))]
    started = time.perf_counter()
    workers = precompile(specs, jobs, progress=typer.echo)
    if workers == 0:
        typer.echo("one core (or one task): the runs compile as they go")
    else:
        typer.echo(f"compiled in {time.perf_counter() - started:.0f} s on {workers} cores")


@app.command()
def reproduce(study_files: Annotated[list[Path], typer.Argument(metavar="STUDY.yaml...", help="Study files.")],
              results: Annotated[Path, typer.Option(help="Parent folder of the result folders.")] = Path("results"),
              jobs: Annotated[int, typer.Option("--jobs", "-j", help="Studies run side by side.")] = 2):
    """Run every study (most expensive first, JOBS at a time), then its figures, report and check;
    print the wall time per study and in total (resumable: finished runs are kept)."""
    import time

    from lgbench.campaign import run_campaign, write_report_index, write_summary
    from lgbench.runner.study import load_study

    if jobs < 1:
        raise InputError(f"must be at least 1, got {jobs}", field="--jobs")
    for path in study_files:
        load_study(path)
    started = time.perf_counter()
    outcomes = run_campaign(study_files, results, jobs, announce=typer.echo)
    wall_s = time.perf_counter() - started
    typer.echo("")
    typer.echo(write_summary(outcomes, results / "campaign.md", wall_s, jobs))
    for path in write_report_index(outcomes, results / "index", wall_s, jobs):
        typer.echo(f"report index: {path}")
    typer.echo(f"total: {wall_s / 60:.1f} min wall time for {len(outcomes)} studies; logs in RESULTS/NAME/campaign.log")
    if not all(outcome.ok for outcome in outcomes):
        raise typer.Exit(1)


LIST_KINDS = ["models", "formulations", "integrators", "measures"]


@app.command("list")
def list_(kind: Annotated[str, typer.Argument(metavar="KIND",
                                              help="models, formulations, integrators or measures")]):
    """Names with one-line descriptions; entries of plugins say which package they come from."""
    from lgbench.plugins import BUILT_IN, origin
    from lgbench.runner.error_measures import MEASURES
    from lgbench.runner.study import formulations, integrators, models

    def source(group: str, name: str) -> str:
        found = origin(group, name)
        return "" if found == BUILT_IN else f"  [{found}]"

    if kind == "models":
        rows = [(name, f"{model.description} [{', '.join(model.formulations)}]{source('lgbench.models', name)}")
                for name, model in models().items()]
    elif kind == "formulations":
        rows = list(formulations().items())
    elif kind == "integrators":
        rows = [(name, f"{item.kind:<9} {item.description}"
                       f"{source('lgbench.integrators', name) or source('lgbench.tableaus', name)}")
                for name, item in integrators().items()]
    elif kind == "measures":
        rows = [(name, f"{item.description}{source('lgbench.error_measures', name)}") for name, item in MEASURES.items()]
    else:
        raise InputError(f"unknown list '{kind}'", field="KIND", allowed=LIST_KINDS)
    width = max(len(name) for name, _ in rows) + 2 if rows else 0
    for name, description in rows:
        typer.echo(printable(f"{name:<{width}}{description}"))


@app.command()
def report(results_dirs: Annotated[list[Path], typer.Argument(metavar="RESULTS_DIR", help="Result folders.")],
           index: Annotated[Path | None, typer.Option(help="Also write an index page PATH.md / PATH.html "
                                                      "linking the reports.")] = None):
    """Write RESULTS_DIR/report.md and a self-contained RESULTS_DIR/report.html (orders, errors, Newton
    iterations, failures, expectations, published numbers, figures) for each result folder."""
    from lgbench.report import ResultFolder, write_index, write_report
    from lgbench.store import ResultStore

    if index is not None:
        _check_file_name(index, "--index", "a file name without suffix, e.g. results/index (.md and .html)",
                         folder_allowed=True)
    folders = [ResultFolder(directory, _study_copy(directory)) for directory in results_dirs]
    for folder in folders:
        if folder.study is not None:
            _require_error_rows(ResultStore(folder.path), folder.study, folder.raw_runs, folder.errors,
                                _grid_run_ids(folder.study))
    summaries = []
    for folder in folders:
        written, summary = write_report(folder)
        summaries.append(summary)
        for path in written:
            typer.echo(str(path))
    if index is not None:
        for path in write_index(index, summaries):
            typer.echo(str(path))
