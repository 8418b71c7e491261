"""lgbench: Lie group and classical time integration of rigid multibody systems, measured."""
import os

# The integrators are sequential. numba lowers ``@`` on matrices to BLAS, and a multi-threaded BLAS
# would spread one run over every core (its helper threads spin between calls): the run's CPU time
# would then count the spinning, or miss the helpers' share. One BLAS thread keeps CPU time a measure
# of the algorithm (docs/performance.md, "BLAS threads"); set the variables yourself to override.
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

from lgbench._compile_cache import configure_numba_cache  # noqa: E402  (after the BLAS settings)
from lgbench._numba_inlining import install as _install_inlining_fix  # noqa: E402

_install_inlining_fix()

__version__ = "0.1.0"
NUMBA_CACHE_DIR = configure_numba_cache()
