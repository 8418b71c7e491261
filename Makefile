# lgbench — the two newcomer commands are `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
export MPLBACKEND := Agg

.PHONY: install run test test-slow bench clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

## Install if needed, run the flagship heavy-top study and draw its figures.
run: $(STAMP)
	$(VENV)/bin/lgbench run studies/heavy_top.yaml
	$(VENV)/bin/lgbench plot results/heavy_top

## Install if needed and run the default test suite.
test: $(STAMP)
	$(PY) -m pytest -q

## Long numerical studies (convergence orders over full grids).
test-slow: $(STAMP)
	$(PY) -m pytest -q -m slow

## Per-step CPU cost of the compiled core.
bench: $(STAMP)
	$(PY) benchmarks/run.py

clean:
	rm -rf $(VENV) .pytest_cache ~/.cache/lgbench/numba
