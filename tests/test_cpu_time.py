"""CPU time measures the algorithm: one BLAS thread, so a run's thread time is the CPU it used.

numba lowers ``@`` on matrices to BLAS; a multi-threaded BLAS runs helper threads beside the run, whose
spinning entered ``time.process_time`` (V8 crank drive with HHT: 1.0-1.3 ms per step of process time
for 0.66 ms of wall time on 2 cores).
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

MATRIX_PRODUCTS = r"""
import json, os, time
for variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.pop(variable, None)
import lgbench
import numpy as np
from numba import njit

@njit(nogil=True)
def products(A, n):
    s = 0.0
    for _ in range(n):
        s += (A @ A)[0, 0]
    return s

A = np.random.default_rng(0).random((160, 160))
products(A, 1)
thread, process = time.thread_time(), time.process_time()
products(A, 400)
print(json.dumps([time.thread_time() - thread, time.process_time() - process]))
"""


def test_importing_lgbench_keeps_blas_on_one_thread():
    """With the BLAS threads left to the library, process time was about 2x thread time on 2 cores."""
    run = subprocess.run([sys.executable, "-c", MATRIX_PRODUCTS], capture_output=True, text=True, timeout=600,
                         cwd=ROOT, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "HOME": str(Path.home())})
    assert run.returncode == 0, run.stderr[-2000:]
    thread, process = json.loads(run.stdout.strip().splitlines()[-1])
    assert process < 1.15 * thread, f"process {process:.3f} s, thread {thread:.3f} s: BLAS helper threads ran"
