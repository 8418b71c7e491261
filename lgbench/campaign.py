"""A campaign: several studies run side by side, each followed by its figures, report and check.

Used by ``lgbench reproduce`` (``make reproduce-all``); it sits beside the CLI, above the runner and
the report. On an empty compile cache the engine every study needs is compiled first, on all the
campaign's worker slots at once (``runner/precompile.py``), instead of by every study as it starts
(two studies starting together would compile the same entry points twice). Each study runs in its own
``lgbench run`` process, so a study that fails cannot take the others down and every study keeps its
own log. Studies are started most expensive first (estimated integration steps, reference included),
which keeps the worker slots busy until the end. CPU times in runs.csv are ``time.thread_time`` of
the integrating thread, so two studies on two cores measure as they would alone, apart from shared
caches and memory bandwidth (docs/studies.md, "Parallel runs and timing").
"""
from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

from lgbench._compile_cache import compile_notice
from lgbench.runner.grid import study_specs
from lgbench.runner.precompile import precompile
from lgbench.runner.study import Study, load_study
from lgbench.store import atomic

STEPS = ("run", "plot", "report", "check")
"""What is done for each study, in order; a failed run skips the rest."""


@dataclass
class StudyOutcome:
    """How one study of a campaign went."""

    name: str
    out: Path
    estimated_steps: float
    wall_s: float = 0.0
    failed_steps: list[str] = field(default_factory=list)
    detail: str = ""

    @property
    def ok(self) -> bool:
        return not self.failed_steps


IMPLICIT_STEP_WEIGHT = 3.0
"""An implicit step (Newton iterations, Jacobians) counts as this many explicit steps."""


def estimated_steps(study: Study) -> float:
    """Weighted integration steps of the whole study: every grid run plus a numerical reference."""
    from lgbench.runner.single_run import integrator_of

    def weighted(spec) -> float:
        implicit = integrator_of(spec).kind == "implicit"
        return spec.t_end / spec.h * (IMPLICIT_STEP_WEIGHT if implicit else 1.0)

    return sum(weighted(spec) for spec in study_specs(study))


def _command(*arguments: str) -> list[str]:
    return [sys.executable, "-m", "lgbench", *arguments]


def _run_study(study_file: Path, study: Study, out: Path, jobs_per_study: int) -> StudyOutcome:
    outcome = StudyOutcome(study.name, out, estimated_steps(study))
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    commands = {
        "run": _command("run", str(study_file), "--out", str(out), "--quiet", "--jobs", str(jobs_per_study)),
        "plot": _command("plot", str(out)),
        "report": _command("report", str(out)),
        "check": _command("check", str(out), "--junit", str(out / "junit.xml")),
    }
    with open(out / "campaign.log", "w", encoding="utf-8") as log:
        for step in STEPS:
            if step == "check" and not study.expectations:
                continue
            log.write(f"$ {' '.join(commands[step][1:])}\n")
            log.flush()
            result = subprocess.run(commands[step], stdout=log, stderr=subprocess.STDOUT, check=False)
            if result.returncode != 0:
                outcome.failed_steps.append(step)
                if step == "run":
                    break
    outcome.wall_s = time.perf_counter() - started
    return outcome


def run_campaign(study_files: list[Path], results: Path, workers: int,
                 announce: Callable[[str], object] = print) -> list[StudyOutcome]:
    """Run, plot, report and check every study, ``workers`` studies at a time, most expensive first."""
    studies = [(path, load_study(path)) for path in study_files]
    studies.sort(key=lambda item: estimated_steps(item[1]), reverse=True)
    notice = compile_notice()
    if notice:
        announce(notice)
        precompile([spec for _, study in studies for spec in study_specs(study)], workers, announce)
    outcomes = []
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {pool.submit(_run_study, path, study, results / study.name, 1): study.name
                   for path, study in studies}
        for future in as_completed(futures):
            outcome = future.result()
            outcomes.append(outcome)
            verdict = "ok" if outcome.ok else "FAILED: " + ", ".join(outcome.failed_steps)
            announce(f"{len(outcomes):>3}/{len(studies)}  {outcome.name:<28} {outcome.wall_s:8.1f} s  {verdict}")
    return outcomes


def write_report_index(outcomes: list[StudyOutcome], path: Path, wall_s: float | None = None,
                       workers: int = 1) -> list[Path]:
    """PATH.md / PATH.html linking the report of every study that has one (in order of name), with the
    findings of the studies as they stand in the results: the front page of a reproduction."""
    from lgbench.report import ResultFolder
    from lgbench.report.index import summary
    from lgbench.report.writer import REPORT, write_index
    from lgbench.runner.study_copy import read_study_copy

    summaries = [summary(ResultFolder(outcome.out, read_study_copy(outcome.out)), outcome.out / REPORT)
                 for outcome in sorted(outcomes, key=lambda item: item.name)
                 if (outcome.out / f"{REPORT}.md").exists()]
    preamble = []
    if wall_s is not None:
        failed = [outcome.name for outcome in outcomes if not outcome.ok]
        preamble.append(f"A campaign of {len(outcomes)} studies, {workers} at a time, in {wall_s / 60:.1f} min wall "
                        f"time (campaign.md: the time per study); "
                        + (f"not ok: {', '.join(sorted(failed))}." if failed else "every study ran, drew, "
                           "reported and checked."))
    return write_index(path, summaries, preamble) if summaries else []


def study_cpu_seconds(out: Path) -> tuple[float, float]:
    """(CPU seconds of the grid runs, CPU seconds of the reference) from runs.csv and reference.csv."""
    from lgbench.store import read_frame

    def total(path: Path) -> float:
        frame = read_frame(path) if path.exists() else None
        return 0.0 if frame is None or frame.empty else float(frame["cpu_s"].fillna(0.0).sum())
    return total(out / "runs.csv"), total(out / "reference.csv")


def write_summary(outcomes: list[StudyOutcome], path: Path, wall_s: float, workers: int) -> str:
    """A Markdown table of the campaign (what dominates the time), written to ``path`` and returned."""
    lines = [f"# Campaign summary: {len(outcomes)} studies, {workers} worker(s), "
             f"{wall_s / 60:.1f} min wall time", "",
             "| study | wall [s] | run CPU [s] | reference CPU [s] | verdict |", "|---|---|---|---|---|"]
    for outcome in sorted(outcomes, key=lambda item: item.wall_s, reverse=True):
        runs_cpu, reference_cpu = study_cpu_seconds(outcome.out)
        verdict = "ok" if outcome.ok else "failed: " + ", ".join(outcome.failed_steps)
        lines.append(f"| {outcome.name} | {outcome.wall_s:.0f} | {runs_cpu:.0f} | {reference_cpu:.0f} | {verdict} |")
    text = "\n".join(lines) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_text(path, text)
    return text
