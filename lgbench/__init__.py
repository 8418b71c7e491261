"""lgbench: Lie group and classical time integration of rigid multibody systems, measured."""
from lgbench._compile_cache import configure_numba_cache

__version__ = "0.1.0"
NUMBA_CACHE_DIR = configure_numba_cache()
