"""A cold compile cache is filled on every core before a study's runs: one single-step run per compile
group, the consistent accelerations of the implicit families apart, the longest compile first."""
import io
import itertools
import os
import re
import subprocess
import sys
import time
from multiprocessing.pool import ThreadPool
from pathlib import Path
from types import SimpleNamespace

import pytest

from test_cli import write_study
from lgbench.runner import execute
from lgbench.runner.grid import reference_spec, study_specs
from lgbench.runner.precompile import (
    KERNELS, OUTPUTS, RUN, START, compile_group, compile_task, compile_tasks, precompile, task_label,
)
from lgbench.runner.single_run import RunSpec
from lgbench.runner.study import load_study

ROOT = Path(__file__).resolve().parent.parent


def test_the_flagship_compiles_as_four_parts_generalized_alpha_for_free_bodies_first():
    """RV, Rxyz and EP share the free-bodies entry point, which needs no kernels compiled ahead (the general
    dense one does: the study after this one)."""
    tasks = compile_tasks(study_specs(load_study(ROOT / "studies" / "heavy_top.yaml")))
    assert tasks[0][0] == RUN and tasks[0][1].integrator == "generalized-alpha"
    assert compile_group(tasks[0][1])[-1] == "free-bodies"
    assert len(tasks) == 4 and tasks[1][0] == RUN and tasks[1][1].integrator in ("RK44", "DOPRI5", "RK67")
    assert tasks[2][0] == START and tasks[2][1].integrator == "generalized-alpha"
    assert tasks[3][0] == OUTPUTS and tasks[3][1].model == "heavy_top"
    assert all(spec.t_end == spec.h for _, spec in tasks)


def test_a_dense_study_compiles_generalized_alpha_first_its_last_kernels_beside_it():
    tasks = compile_tasks(study_specs(load_study(ROOT / "studies" / "heavy_top_constrained.yaml")))
    assert tasks[0][0] == RUN and compile_group(tasks[0][1])[-1] == "dense"
    assert tasks[1][0] == KERNELS and tasks[1][1] == tasks[0][1]


def test_only_dense_generalized_alpha_first_has_kernels_compiled_ahead():
    """The plan lists generalized-alpha's dense iteration matrix (lgbench/runner/compile_plan.py): not HHT's,
    not the banded solver's."""
    hht = [RunSpec("heavy_top", "EP", "hht", 1e-3, 1.0), RunSpec("heavy_top", "RV", "generalized-alpha", 1e-3, 1.0)]
    assert KERNELS not in [kind for kind, _ in compile_tasks(hht)]
    banded = [RunSpec("v8_crank", "EP", "generalized-alpha", 1e-4, 0.1)]
    assert KERNELS not in [kind for kind, _ in compile_tasks(banded)]
    dense_index2 = [RunSpec("slider_crank", "RV", "generalized-alpha", 1e-3, 1.0, options=(("index", 2),))]
    assert [kind for kind, _ in compile_tasks(dense_index2)] == [RUN, KERNELS, START, OUTPUTS]


def test_adaptive_steps_and_hht_are_parts_of_their_own_and_a_second_model_only_its_outputs():
    heavy = RunSpec("heavy_top", "RV", "RK44", 1e-3, 1.0)
    specs = [heavy, RunSpec("heavy_top", "RV", "DOPRI5", 1e-3, 1.0),
             RunSpec("heavy_top", "RV", "DOPRI5", 1e-3, 1.0, options=(("step_control", "adaptive"),)),
             RunSpec("heavy_top", "EP", "hht", 1e-3, 1.0), RunSpec("heavy_top", "RV", "generalized-alpha", 1e-3, 1.0),
             RunSpec("rotor", "RV", "RK44", 1e-3, 1.0)]
    tasks = compile_tasks(specs)
    assert [kind for kind, _ in tasks] == [RUN, RUN, RUN, START, START, RUN, OUTPUTS, OUTPUTS]
    assert [spec.integrator for kind, spec in tasks if kind == RUN and spec.integrator in ("hht", "generalized-alpha")] \
        == ["hht", "generalized-alpha"]
    assert [(spec.model, spec.integrator, spec.options) for _, spec in tasks[1:3]] == [
        ("heavy_top", "RK44", ()), ("heavy_top", "DOPRI5", (("step_control", "adaptive"),))]
    assert [spec.integrator for _, spec in tasks[3:6]] == ["hht", "generalized-alpha", "generalized-alpha"]
    assert [spec.model for _, spec in tasks[6:]] == ["heavy_top", "rotor"]


def test_the_consistent_accelerations_are_compiled_once_per_scope():
    """HHT and dense generalized-alpha start from the multibody kernel, the free-bodies solver from its own
    (``starting_values.consistent_accelerations_of``): one task each, whatever the models."""
    specs = [RunSpec("heavy_top", "EP", "hht", 1e-3, 1.0),
             RunSpec("slider_crank", "RV", "generalized-alpha", 1e-3, 1.0),
             RunSpec("heavy_top", "EP", "generalized-alpha", 1e-3, 1.0),
             RunSpec("rotor", "RV", "generalized-alpha", 1e-4, 1.0)]
    starts = [(spec.model, spec.integrator) for kind, spec in compile_tasks(specs) if kind == START]
    assert starts == [("heavy_top", "hht"), ("heavy_top", "generalized-alpha")]


def test_an_entry_point_is_compiled_once_whatever_its_models():
    """Started at once, generalized-alpha on the rotor and on the heavy top would compile the same entry
    point twice, one on each core (reproduce-all did, 216 s each); the heavy top now only compiles its
    outputs."""
    specs = [RunSpec("rotor", "RV", "generalized-alpha", 1e-4, 1.0), RunSpec("heavy_top", "RV", "generalized-alpha", 1e-3, 1.0),
             RunSpec("heavy_top", "EP", "hht", 1e-3, 1.0), RunSpec("rotor", "RV", "RK67", 1e-4, 1.0)]
    tasks = compile_tasks(specs)
    assert [(kind, spec.model, spec.integrator) for kind, spec in tasks] == [
        (RUN, "rotor", "generalized-alpha"), (RUN, "rotor", "RK67"), (START, "rotor", "generalized-alpha"),
        (START, "heavy_top", "hht"), (RUN, "heavy_top", "hht"), (OUTPUTS, "rotor", "generalized-alpha"),
        (OUTPUTS, "heavy_top", "generalized-alpha")]


def test_a_banded_model_compiles_the_banded_entry_point_beside_the_dense_one():
    specs = [RunSpec("heavy_top_constrained", "RV", "generalized-alpha", 1e-3, 1.0),
             RunSpec("v8_crank", "EP", "generalized-alpha", 1e-4, 0.1)]
    assert [(kind, spec.model) for kind, spec in compile_tasks(specs)] == [
        (RUN, "heavy_top_constrained"), (KERNELS, "heavy_top_constrained"), (START, "heavy_top_constrained"),
        (RUN, "v8_crank"), (OUTPUTS, "heavy_top_constrained"), (OUTPUTS, "v8_crank")]


def test_entry_points_of_one_solver_are_handed_out_apart():
    """generalized-alpha's and HHT's banded entry points share the band kernels: compiled side by side, both
    processes compiled them (``precompile._solvers_apart``)."""
    specs = [RunSpec("heavy_top_constrained", "RV", "generalized-alpha", 1e-3, 1.0),
             RunSpec("heavy_top", "RV", "generalized-alpha", 1e-3, 1.0), RunSpec("heavy_top", "EP", "hht", 1e-3, 1.0),
             RunSpec("v8_crank", "EP", "generalized-alpha", 1e-4, 0.1), RunSpec("v8_crank", "EP", "hht", 1e-4, 0.1)]
    later = [compile_group(spec) for kind, spec in compile_tasks(specs) if kind == RUN][1:]
    assert [(family, solver) for family, _, solver in later] == [
        ("ImplicitIntegrator", "banded"), ("ImplicitIntegrator", "free-bodies"), ("HHTIntegrator", "dense"),
        ("HHTIntegrator", "banded")]


def test_the_intrinsic_schemes_need_no_separate_starting_values():
    study = ROOT / "studies" / "manufactured_body.yaml"
    tasks = compile_tasks(study_specs(load_study(study)))
    assert START not in [kind for kind, _ in tasks]


def test_a_task_with_bad_input_is_left_to_the_run_that_reports_it():
    assert compile_task((RUN, RunSpec("heavy_top", "RV", "RK44", -1.0, 1.0)))[0] == "RK44 (heavy_top)"
    bad = RunSpec("heavy_top", "RV", "generalized-alpha", 1e-3, 1.0, options=(("rho_inf", 2.0),))
    assert compile_task((START, bad))[0] == "consistent accelerations (heavy_top)"
    assert compile_task((OUTPUTS, bad))[0] == "outputs (heavy_top)"
    assert compile_task((KERNELS, bad))[0] == "iteration-matrix kernels (heavy_top)"


def test_one_part_or_one_core_compiles_in_the_run_itself(monkeypatch):
    from lgbench.runner import precompile as module

    specs = [RunSpec("heavy_top", "RV", "RK44", 1e-3, 1.0)]
    assert precompile(specs * 2 + [RunSpec("heavy_top", "RV", "generalized-alpha", 1e-3, 1.0)], workers=1) == 0
    monkeypatch.setattr(module, "compile_tasks", lambda specs: compile_tasks(specs)[:1])
    assert module.precompile(specs) == 0


def test_every_part_is_compiled_in_a_worker_and_reported_as_it_finishes():
    lines = []
    specs = [RunSpec("heavy_top", "RV", "RK44", 1e-3, 1.0), RunSpec("heavy_top", "RV", "generalized-alpha", 1e-3, 1.0)]
    assert precompile(specs, workers=2, progress=lines.append) == 2
    assert lines[0] == "compiling in 4 parts on 2 cores"
    assert [line.split(":")[0] for line in lines[1:]] == [f"compiled {k}/4" for k in range(1, 5)]
    assert {line.split(": ")[1].rsplit(" in ", 1)[0] for line in lines[1:]} == {
        "generalized-alpha (heavy_top)", "consistent accelerations (heavy_top)", "RK44 (heavy_top)",
        "outputs (heavy_top)"}


def test_a_cold_cache_is_compiled_on_every_core_before_the_runs(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(execute, "compile_notice", lambda: "compiling the engine for this machine, once")
    monkeypatch.setattr(execute, "precompile",
                        lambda specs, workers=None, progress=None, status=None: calls.append((list(specs), progress)))
    path = write_study(tmp_path, integrators=["RK44", "generalized-alpha"])
    lines = []
    execute.execute_study(load_study(path), tmp_path / "out", progress=lines.append)
    specs, progress = calls[0]
    assert len(calls) == 1 and specs[0] == reference_spec(load_study(path)) and len(specs) == 1 + 2 * 2 * 3
    assert lines[0] == "compiling the engine for this machine, once"
    progress("compiled 1/3")
    assert lines[-1] == "compiled 1/3"


AFTER_PRECOMPILE = """
from numba.core import event
from lgbench.runner.precompile import precompile
from lgbench.runner.single_run import RunSpec, run_single

specs = [RunSpec("heavy_top", "RV", "RK44", 1e-3, 0.01), RunSpec("heavy_top", "EP", "generalized-alpha", 1e-3, 0.01)]
assert precompile(specs, workers=2) == 2
compiled = []


class Compilations(event.Listener):
    def on_start(self, record):
        compiled.append(record.data["dispatcher"].py_func.__qualname__)

    def on_end(self, record):
        pass


event.register("numba:compile", Compilations())
for spec in specs:
    run_single(spec, n_samples=11)
print("compiled in the runs:", sorted(set(compiled)))
"""


@pytest.mark.slow
def test_after_precompile_on_an_empty_cache_the_runs_compile_nothing(tmp_path):
    """numba reports a compilation (not a cache load) as a "numba:compile" event: there must be none
    in the runs once ``precompile``'s workers have filled an empty cache."""
    done = subprocess.run([sys.executable, "-c", AFTER_PRECOMPILE], capture_output=True, text=True, timeout=1800,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "LGBENCH_CACHE_DIR": str(tmp_path / "cache")})
    assert done.returncode == 0, done.stderr
    assert "compiled in the runs: []" in done.stdout


@pytest.mark.parametrize("cache", ["file/cache", ""], ids=["unwritable", "numba_default"])
def test_a_cache_that_takes_no_files_is_not_compiled_into_by_workers(tmp_path, monkeypatch, cache):
    """Compute nodes often have a read-only home: the workers' machine code could not reach the runs.
    Without a cache folder of lgbench's own (numba's default), no lock file lands in the working folder."""
    import lgbench

    (tmp_path / "file").write_text("")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(lgbench, "NUMBA_CACHE_DIR", str(tmp_path / cache) if cache else "")
    specs = [RunSpec("heavy_top", "RV", "RK44", 1e-3, 1.0), RunSpec("heavy_top", "RV", "generalized-alpha", 1e-3, 1.0)]
    assert precompile(specs, workers=2) == 0
    assert sorted(path.name for path in tmp_path.iterdir()) == ["file"]


def test_a_second_parallel_compilation_waits_for_the_first(tmp_path, monkeypatch):
    """`make check-quick` starts two studies at once: the second compiles after the first, from its cache."""
    import lgbench
    from lgbench.runner.precompile import compile_lock

    monkeypatch.setattr(lgbench, "NUMBA_CACHE_DIR", str(tmp_path))
    script = ("import lgbench, sys; from lgbench.runner.precompile import compile_lock\n"
              f"lgbench.NUMBA_CACHE_DIR = {str(tmp_path)!r}\n"
              "with compile_lock():\n    print('compiling', flush=True)\n")
    with compile_lock() as shared:
        assert shared
        second = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                                  env={**os.environ, "PYTHONPATH": str(ROOT)})
        with pytest.raises(subprocess.TimeoutExpired):
            second.communicate(timeout=3)
    output, _ = second.communicate(timeout=60)
    assert output == "compiling\n" and second.returncode == 0


class Terminal(io.StringIO):
    """What a terminal shows of the text written to it: carriage returns go back to the line's start."""

    def isatty(self) -> bool:
        return True

    def screen(self) -> list[str]:
        lines = []
        for line in self.getvalue().split("\n"):
            shown = ""
            for part in line.split("\r"):
                shown = part + shown[len(part):]
            lines.append(shown.rstrip())
        return lines


class Pipe(io.StringIO):
    def isatty(self) -> bool:
        return False


def sleeping_task(task):
    time.sleep(0.25)
    return task_label(task), 0.25


def compile_quickly(monkeypatch, tmp_path, stream) -> None:
    """precompile of four parts on two cores with the compile task replaced by a 0.25 s sleep in a thread
    pool and a clock that ticks every 0.05 s and counts a second a tick, reporting to a ProgressDisplay on ``stream``."""
    import lgbench
    from lgbench.cli_progress import ProgressDisplay
    from lgbench.runner import precompile as module

    monkeypatch.setattr(lgbench, "NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(module, "compile_task", sleeping_task)
    monkeypatch.setattr(module, "TICK_SECONDS", 0.05)
    monkeypatch.setattr(module, "time", SimpleNamespace(monotonic=itertools.count().__next__))   # 1 s a tick
    monkeypatch.setattr(module.multiprocessing, "get_context", lambda method: SimpleNamespace(
        Pool=lambda workers, initializer: ThreadPool(workers)))
    display = ProgressDisplay(stream=stream)
    specs = [RunSpec("heavy_top", "RV", "RK44", 1e-3, 1.0), RunSpec("heavy_top", "EP", "hht", 1e-3, 1.0)]
    assert module.precompile(specs, workers=2, progress=display.message, status=display.status) == 2
    display.close()


def test_on_a_terminal_the_compile_time_counts_up_in_place_and_is_gone_before_each_line(tmp_path, monkeypatch):
    terminal = Terminal()
    compile_quickly(monkeypatch, tmp_path, terminal)
    ticks = re.findall(r"compiling, (\d) of 4 parts done … (\d+) s", terminal.getvalue())
    assert len(ticks) >= 8 and [int(seconds) for _, seconds in ticks] == list(range(1, len(ticks) + 1))
    done = [int(parts) for parts, _ in ticks]
    assert done == sorted(done) and done[0] == 0 and 2 <= done[-1] <= 3
    screen = terminal.screen()
    assert screen[0] == "compiling in 4 parts on 2 cores" and screen[-1] == ""
    assert [line.split(":")[0] for line in screen[1:-1]] == ["compiled 1/4", "compiled 2/4", "compiled 3/4", "compiled 4/4"]


def test_in_a_log_or_pipe_compiling_prints_only_its_lines(tmp_path, monkeypatch):
    pipe = Pipe()
    compile_quickly(monkeypatch, tmp_path, pipe)
    lines = pipe.getvalue().split("\n")
    assert "\r" not in pipe.getvalue() and "… " not in pipe.getvalue()
    assert lines[0] == "compiling in 4 parts on 2 cores" and lines[-1] == ""
    assert [line.split(":")[0] for line in lines[1:-1]] == ["compiled 1/4", "compiled 2/4", "compiled 3/4", "compiled 4/4"]


def test_compile_command_compiles_the_studies_entry_points_on_every_core():
    from typer.testing import CliRunner

    from lgbench.cli import app

    result = CliRunner().invoke(app, ["compile", str(ROOT / "studies" / "pendulum.yaml"), "--profile", "quick",
                                      "--jobs", "2"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    parts = len(compile_tasks(study_specs(load_study(ROOT / "studies" / "pendulum.yaml", profile="quick"))))
    assert lines[0] == f"compiling in {parts} parts on 2 cores"
    assert len(lines) == parts + 2 and re.fullmatch(r"compiled in \d+ s on 2 cores", lines[-1])


@pytest.mark.parametrize("arguments, expected", [
    (["--jobs", "0"], "--jobs"), (["--profile", "nonesuch"], "nonesuch")])
def test_compile_command_bad_input_is_one_line(arguments, expected):
    done = subprocess.run([sys.executable, "-m", "lgbench", "compile", str(ROOT / "studies" / "pendulum.yaml"),
                           *arguments], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and expected in done.stderr, done.stderr
