"""An unexpected exception inside the engine during a run (a numba TypingError, any non-lgbench error) ends
``lgbench run``, ``simulate`` and ``reference`` with one line ``error: internal error in the run ...`` naming
the run, the exception's class and the first line of its message, exit code 3 and no traceback
(``LGBENCH_DEBUG=1`` shows it); the runs stored before stay stored and a later run resumes from them."""
import os
import subprocess
import sys
import textwrap

import pytest
from numba.core.errors import TypingError
from typer.testing import CliRunner

from lgbench.cli import app
from lgbench.runner import single_run
from lgbench.store import read_frame
from test_cli import write_study

runner = CliRunner()
FAULTY_H = 2.5e-4           # the smallest step of test_cli.TINY's grid (h0 / 2**2), its last run
ERRORS = {"typing": lambda: TypingError("Failed in nopython mode pipeline (step: nopython frontend)\n"
                                        "No implementation of function Function(<built-in function add>)"),
          "runtime": lambda: RuntimeError("kernel state out of range")}


class Faulty:
    """An integrator whose ``integrate`` raises ``error``; everything else is the real integrator's."""

    def __init__(self, integrator, error: Exception):
        self.integrator = integrator
        self.error = error

    def __getattr__(self, name):
        return getattr(self.integrator, name)

    def integrate(self, *args, **kwargs):
        raise self.error


def fault_in(monkeypatch, error: Exception, formulation: str, integrator: str, h: float | None = None) -> None:
    """Make the runs of ``formulation``-``integrator`` (at step ``h`` only, if given) raise ``error``."""
    build = single_run.build_run

    def build_run(spec):
        model, real, options = build(spec)
        if (spec.formulation, spec.integrator) == (formulation, integrator) and h in (None, spec.h):
            return model, Faulty(real, error), options
        return model, real, options

    monkeypatch.setattr(single_run, "build_run", build_run)


def assert_one_internal_error_line(result_or_stderr, exit_code: int, *fragments: str) -> str:
    stderr = getattr(result_or_stderr, "stderr", result_or_stderr)
    assert exit_code == 3, stderr
    assert "Traceback" not in stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: internal error in the run "), stderr
    for fragment in fragments + ("LGBENCH_DEBUG=1",):
        assert fragment in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize("kind", sorted(ERRORS))
def test_an_engine_exception_in_simulate_is_one_line_naming_the_run(monkeypatch, kind):
    error = ERRORS[kind]()
    fault_in(monkeypatch, error, "RV", "RK44")
    result = runner.invoke(app, ["simulate", "heavy_top", "-f", "RV", "-i", "RK44", "--step", "1e-3",
                                 "--t-end", "0.01"])
    assert_one_internal_error_line(result, result.exit_code, "heavy_top RV-RK44 h=0.001 t_end=0.01",
                                   f"{type(error).__name__}: {str(error).splitlines()[0]}")


@pytest.mark.parametrize("kind", sorted(ERRORS))
def test_an_engine_exception_in_a_serial_study_keeps_the_stored_runs(tmp_path, monkeypatch, kind):
    path, out = write_study(tmp_path), tmp_path / "out"
    error = ERRORS[kind]()
    fault_in(monkeypatch, error, "Rxyz", "RK44", FAULTY_H)
    result = runner.invoke(app, ["run", str(path), "--out", str(out)])
    assert_one_internal_error_line(result, result.exit_code, "heavy_top Rxyz-RK44 h=0.00025",
                                   type(error).__name__)
    stored = set(read_frame(out / "runs.csv")["run_id"])
    assert len(stored) == 5 and not any(identifier.startswith("Rxyz-RK44-h2.5e-04") for identifier in stored)
    monkeypatch.undo()
    resumed = runner.invoke(app, ["run", str(path), "--out", str(out)])
    assert resumed.exit_code == 0, resumed.output
    assert "1 computed (0 not ok), 5 skipped" in resumed.output


def test_an_engine_exception_in_the_reference_is_one_line(tmp_path, monkeypatch):
    path = write_study(tmp_path)
    fault_in(monkeypatch, ERRORS["typing"](), "RV", "RK67")
    result = runner.invoke(app, ["reference", str(path)])
    assert_one_internal_error_line(result, result.exit_code, "heavy_top RV-RK67 h=0.0001", "TypingError")
    result = runner.invoke(app, ["run", str(path), "--out", str(tmp_path / "out")])
    assert_one_internal_error_line(result, result.exit_code, "heavy_top RV-RK67 h=0.0001", "TypingError")


def test_an_exception_outside_a_run_is_one_internal_error_line(tmp_path, monkeypatch):
    import lgbench.runner.execute as execute

    def broken(*args, **kwargs):
        raise KeyError("quantity")

    monkeypatch.setattr(execute, "error_rows", broken)
    result = runner.invoke(app, ["run", str(write_study(tmp_path)), "--out", str(tmp_path / "out")])
    assert result.exit_code == 3 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == ["error: internal error: KeyError: 'quantity' (a bug in lgbench, "
                                                  "not in the input; LGBENCH_DEBUG=1 shows the full traceback; "
                                                  "results already stored are kept)"]


DRIVER = """
    # Started as a script: spawned worker processes import it again (as __mp_main__), so the fault is
    # in every worker too.
    from numba.core.errors import TypingError

    from lgbench.runner import single_run
    from test_engine_errors import fault_in


    class Patch:
        def setattr(self, target, name, value):
            setattr(target, name, value)


    fault_in(Patch(), TypingError("Failed in nopython mode pipeline (step: nopython frontend)"), "Rxyz", "RK44",
             {h})

    if __name__ == "__main__":
        from lgbench.cli import app
        app(prog_name="lgbench")
"""


def run_driver(tmp_path, *arguments: str, debug: bool = False) -> subprocess.CompletedProcess:
    driver = tmp_path / "driver.py"
    driver.write_text(textwrap.dedent(DRIVER.format(h=FAULTY_H)))
    tests = os.path.dirname(os.path.abspath(__file__))
    path = [tests, os.path.dirname(tests), os.environ.get("PYTHONPATH", "")]     # this lgbench, these tests
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, path))}
    environment.pop("LGBENCH_DEBUG", None)
    if debug:
        environment["LGBENCH_DEBUG"] = "1"
    return subprocess.run([sys.executable, str(driver), *arguments], capture_output=True, text=True,
                          env=environment, timeout=300)


@pytest.mark.parametrize("arguments", [["--jobs", "2"], ["--wall-limit", "100"]], ids=["jobs2", "wall_limit"])
def test_an_engine_exception_in_a_worker_process_is_one_line(tmp_path, arguments):
    """Before: the worker printed the TypingError's traceback and died, the run was recorded as "failed"
    ("the worker process died during the run") and the study exited 0."""
    path, out = write_study(tmp_path), tmp_path / "out"
    done = run_driver(tmp_path, "run", str(path), "--out", str(out), *arguments)
    assert_one_internal_error_line(done.stderr, done.returncode, "heavy_top Rxyz-RK44 h=0.00025",
                                   "TypingError: Failed in nopython mode pipeline (step: nopython frontend)")
    stored = read_frame(out / "runs.csv")
    assert set(stored["status"]) == {"ok"} and 1 <= len(stored) <= 5


def test_lgbench_debug_shows_the_engine_traceback(tmp_path):
    done = run_driver(tmp_path, "run", str(write_study(tmp_path)), "--out", str(tmp_path / "out"), "--jobs", "2",
                      debug=True)
    assert done.returncode == 3
    assert "Traceback" in done.stderr and "in integrate" in done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith("error: internal error in the run heavy_top Rxyz-RK44")


@pytest.mark.parametrize("arguments", [
    ["simulate", "heavy_top", "-f", "RV", "-i", "RK44", "--step", "abc", "--t-end", "1"],
    ["run", "study.yaml", "--jobs", "x"], ["list"], ["nope"]])
def test_usage_errors_stay_usage_errors_not_internal_errors(arguments):
    """The framework's own errors (a value of the wrong type, a missing argument) pass the internal-error net."""
    result = runner.invoke(app, arguments)
    assert result.exit_code == 2 and "internal error" not in result.output


@pytest.mark.parametrize("arguments, text", [
    (["run", "--bogus"], "No such option: --bogus"),
    (["run"], "Missing argument 'STUDY.yaml'"),
    (["simulate", "heavy_top", "-f", "RV", "-i", "RK44", "--step", "abc", "--t-end", "1"], "Invalid value for '--step'"),
    (["nope"], "No such command 'nope'"),
])
def test_usage_errors_are_one_line_pointing_to_the_help(arguments, text):
    """Click's own errors are one line like every other error, not typer's multi-line box."""
    result = runner.invoke(app, arguments)
    lines = result.output.strip().splitlines()
    assert result.exit_code == 2 and len(lines) == 1, result.output
    assert lines[0].startswith("error: ") and text in lines[0] and "--help')" in lines[0]
