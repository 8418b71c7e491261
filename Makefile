# lgbench — the two newcomer commands are `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
export MPLBACKEND := Agg

.PHONY: install run test test-slow bench bench-quick clean check-quick reproduce-all gallery findings evidence

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev,cluster,peer]'
	touch $(STAMP)

install: $(STAMP)

## Install if needed, run the flagship heavy-top study, draw its figures and write its report.
run: $(STAMP)
	$(VENV)/bin/lgbench run studies/heavy_top.yaml
	$(VENV)/bin/lgbench plot results/heavy_top
	$(VENV)/bin/lgbench report results/heavy_top

## Install if needed and run the default test suite: first compile, on every core, the engine the
## studies' quick profiles call (on a warm cache it only loads it), then the tests on up to four cores.
TEST_WORKERS ?= $(shell $(PYTHON) -c "import os; print(min(4, len(os.sched_getaffinity(0))))" 2>/dev/null || echo 1)
test: $(STAMP)
	$(VENV)/bin/lgbench compile $(wildcard studies/*.yaml) --profile quick
	$(PY) -m pytest -q -n $(TEST_WORKERS)

## Long numerical studies (convergence orders over full grids).
test-slow: $(STAMP)
	$(PY) -m pytest -q -m slow

## Per-step CPU cost of every model x formulation x integrator family, and Exudyn beside lgbench on the
## heavy top when the extra `peer` is installed (pip install -e '.[peer]'); tables + benchmarks/results/*.csv.
bench: $(STAMP)
	$(PY) benchmarks/run.py

## The same with 3 short repeats per case (under a minute once compiled).
bench-quick: $(STAMP)
	$(PY) benchmarks/run.py --quick

clean:
	rm -rf $(VENV) .pytest_cache ~/.cache/lgbench/numba

QUICK_STUDIES := $(wildcard studies/*.yaml)

## Quick profiles of every study, run on both cores, then `lgbench check` on each (CI guard).
check-quick: $(STAMP)
	@mkdir -p results/quick
	@printf '%s\n' $(QUICK_STUDIES) | xargs -P 2 -I{} sh -c \
	  'name=$$(basename {} .yaml); $(VENV)/bin/lgbench run {} --profile quick --out results/quick/$$name > results/quick/$$name.log 2>&1 || { cat results/quick/$$name.log; exit 255; }'
	@status=0; for f in $(QUICK_STUDIES); do name=$$(basename $$f .yaml); \
	  $(VENV)/bin/lgbench check results/quick/$$name --junit results/quick/$$name/junit.xml || status=1; done; exit $$status

## Every study on its full grid, both cores (most expensive first), then figures, reports and checks;
## then the verdicts graded on these results beside those of docs/evidence.json (exit 1 if one is lower).
## Resumable; prints the wall time per study and in total (also in results/campaign.md).
reproduce-all: $(STAMP)
	$(VENV)/bin/lgbench reproduce $(QUICK_STUDIES) --results results --jobs 2
	$(VENV)/bin/lgbench findings $(QUICK_STUDIES) --results results --against docs/evidence.json

## docs/evidence.json: what every expectation observed in the full reproduction in results/.
evidence: $(STAMP)
	$(VENV)/bin/lgbench findings $(QUICK_STUDIES) --results results --record docs/evidence.json

## docs/REPRODUCTION.md's tables, graded from the study files' claims on docs/evidence.json (make test checks them).
findings: $(STAMP)
	$(VENV)/bin/lgbench findings $(QUICK_STUDIES) --evidence docs/evidence.json --write docs/REPRODUCTION.md --write README.md --write docs/findings.md

## The README's gallery (docs/img) from the result folders of reproduce-all.
gallery: $(STAMP)
	$(PY) docs/make_gallery.py results
