"""Ctrl-C and SIGTERM while the engine compiles end the command within 2 s with one line and no traceback,
and leave a compile cache the next run uses (issue 49, item 4).

Two moments of a compilation could not take the ``Interrupted`` exception of ``cli_progress.interruptible``:
Python code that LLVM calls back through ctypes (the exception was printed as "Exception ignored on calling
ctypes callback function" with a traceback, and numba then failed with "no compiled object yet", exit 3),
and one long call into LLVM (no Python handler runs until it returns: no exit within 15 s). The cheap tests
stage both without compiling; the slow one interrupts real cold compilations."""
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LIMIT_S = 2.0

STAGED = textwrap.dedent("""
    import ctypes, hashlib, sys, time
    from lgbench.cli_progress import interruptible

    def in_a_callback():
        from numba.core.compiler_lock import global_compiler_lock

        @ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)
        def compare(a, b):                      # Python code called back from C, as LLVM calls numba
            time.sleep(0.05)
            return 0

        values = (ctypes.c_int * 400)()
        with global_compiler_lock:
            ctypes.CDLL(None).qsort(values, 400, ctypes.sizeof(ctypes.c_int), compare)

    def in_a_long_native_call():                # releases the GIL and ignores signals, as an LLVM pass does
        hashlib.pbkdf2_hmac("sha256", b"x", b"y", 40_000_000)

    with interruptible(lambda: "interrupted: staged last line"):
        print("ready", flush=True)
        {"callback": in_a_callback, "native": in_a_long_native_call}[sys.argv[1]]()
    print("not interrupted", flush=True)
""")


def interrupt(process: subprocess.Popen, signum: int) -> tuple[float, str, str]:
    """Send ``signum`` to the process group (a terminal's Ctrl-C reaches every process of it); the seconds
    until the process ended, its stdout and stderr."""
    sent = time.monotonic()
    os.killpg(process.pid, signum)
    try:
        output, errors = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, errors = process.communicate()
    return time.monotonic() - sent, output, errors


def assert_one_line(latency: float, output: str, errors: str, *lines: str) -> None:
    """Ended within LIMIT_S, no traceback, and one line saying it was interrupted, one of ``lines``."""
    assert latency < LIMIT_S, f"{latency:.2f} s from the signal to the exit"
    assert "Traceback" not in output + errors and "Exception ignored" not in errors, errors
    assert "internal error" not in errors, errors
    after = errors.split("compiling the engine for this machine", 1)[-1].strip().splitlines()
    assert after and after[-1] in lines and sum("interrupted" in text for text in after) == 1, errors


@pytest.mark.parametrize("moment", ["callback", "native"])
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_inside_a_compiler_callback_or_a_long_native_call_ends_at_once_with_one_line(moment, signum):
    process = subprocess.Popen([sys.executable, "-c", STAGED, moment], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True,
                               env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert process.stdout.readline() == "ready\n"
    time.sleep(0.5)
    latency, output, errors = interrupt(process, signum)
    assert process.returncode == 128 + signum, errors
    assert "not interrupted" not in output
    assert_one_line(latency, output, errors, "interrupted: staged last line")


SIMULATE = ["simulate", "heavy_top", "-f", "RV", "-i", "RK44", "--step", "1e-3", "--t-end", "0.01"]


def lgbench(arguments: list[str], cache: Path, **popen) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "lgbench", *arguments], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT), "LGBENCH_CACHE_DIR": str(cache)}, **popen)


@pytest.mark.slow
def test_signals_at_random_moments_of_a_cold_compile_end_within_2_s_and_the_next_run_goes_on(tmp_path):
    """Four signals into one compile cache, each at a random moment of the compile it interrupts: the first to
    ``run`` on an empty cache (the compile workers of ``precompile``), the others to ``simulate`` on what the
    earlier ones left; then a run that finishes."""
    from test_cli import write_study

    chance = random.Random(49)
    cache = tmp_path / "cache"
    study = write_study(tmp_path, formulations=["RV"])
    commands = [(["run", str(study), "--out", str(tmp_path / "out")], signal.SIGTERM,
                 "interrupted: 0 runs stored — run again to resume")]
    commands += [(SIMULATE, signum, "interrupted: the run was not finished, nothing was written")
                 for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGINT)]
    for arguments, signum, line in commands:
        process = lgbench(arguments, cache)
        time.sleep(chance.uniform(2.0, 12.0))
        if process.poll() is not None:
            break
        latency, output, errors = interrupt(process, signum)
        assert process.returncode == 128 + signum, errors
        assert_one_line(latency, output, errors, line, "interrupted")    # the latter before the command began
    finished = lgbench(SIMULATE, cache)
    output, errors = finished.communicate(timeout=900)
    assert finished.returncode == 0, errors
    assert output.startswith("status: ok")
