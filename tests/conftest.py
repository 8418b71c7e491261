"""Every test gets its own, empty reference cache (tests that fake the engine must not see real
references, and the user's cache must not be touched)."""
import pytest


@pytest.fixture(autouse=True)
def private_reference_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("LGBENCH_REFERENCE_CACHE", str(tmp_path_factory.mktemp("reference-cache")))
