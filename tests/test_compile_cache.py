"""The compile cache is keyed by the sources, not by where they are checked out: a second checkout of the
same sources (a fresh clone, CI in another directory) loads what the first compiled."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import lgbench

PROBE = """
import json, numpy as np
from lgbench.lie.so3 import exp_so3
exp_so3(np.array([0.1, 0.2, 0.3]))
print(json.dumps({"path": exp_so3._cache._cache_path, "hits": sum(exp_so3.stats.cache_hits.values()),
                  "misses": sum(exp_so3.stats.cache_misses.values())}))
"""


def _checkout(root: Path) -> Path:
    package = Path(lgbench.__file__).resolve().parent
    shutil.copytree(package, root / "lgbench", ignore=shutil.ignore_patterns("__pycache__"))
    return root


def _probe(checkout: Path, cache: Path) -> dict:
    environment = {**os.environ, "PYTHONPATH": str(checkout), "LGBENCH_CACHE_DIR": str(cache)}
    environment.pop("NUMBA_CACHE_LOCATOR_CLASSES", None)
    done = subprocess.run([sys.executable, "-c", PROBE], env=environment, capture_output=True, text=True,
                          cwd=checkout, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_second_checkout_loads_what_the_first_compiled(tmp_path):
    first, second = _checkout(tmp_path / "first"), _checkout(tmp_path / "second")
    cache = tmp_path / "cache"
    compiled = _probe(first, cache)
    loaded = _probe(second, cache)
    assert compiled["misses"] == 1 and compiled["hits"] == 0
    assert loaded["path"] == compiled["path"]
    assert Path(loaded["path"]).relative_to(cache).parts[-2:] == ("lgbench", "lie")
    assert loaded["hits"] == 1 and loaded["misses"] == 0


def test_edited_module_in_a_second_checkout_is_compiled_again(tmp_path):
    """Any edit of a compiled source, a comment included, gives the sources a new cache directory."""
    first, second = _checkout(tmp_path / "first"), _checkout(tmp_path / "second")
    with open(second / "lgbench" / "lie" / "so3.py", "a") as handle:
        handle.write("\n# edited\n")
    cache = tmp_path / "cache"
    _probe(first, cache)
    edited = _probe(second, cache)
    assert edited["misses"] == 1 and edited["hits"] == 0
