# fsbench — every entry point a newcomer needs. `make demo` and `make test` work on a fresh machine
# with Python >= 3.10 and access to the package registry.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
JOBS   ?= 2
# The papers' datasets: ../shared/datasets beside the checkout when it exists (never copied into the repo).
export FSBENCH_DATA_DIR ?= $(if $(wildcard ../shared/datasets),$(abspath ../shared/datasets),)
export MPLBACKEND := Agg

.PHONY: help install demo test test-fast lint format bench reproduce-quick reproduce-all clean

help:
	@echo "make demo            venv + install + run the Weston nonlinear toy (5 repeats) + plot"
	@echo "make test            venv + dev deps + the whole test suite"
	@echo "make lint            ruff check + ruff format --check"
	@echo "make bench           speed benchmarks -> benchmarks/results/"
	@echo "make reproduce-quick every paper config, 3 repeats, coarse grids (< 15 min on 2 cores)"
	@echo "make reproduce-all   every paper figure and table with the paper's repeats"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e ".[dev,dask,hdf5]"
	@touch $@

install: $(VENV)/.installed

demo: install
	$(BIN)/fsbench run configs/ramona2012/fig1b_weston_nonlinear.yaml --repeats 5 --jobs $(JOBS) --out results/demo/fig1b_weston_nonlinear
	$(BIN)/fsbench plot results/demo/fig1b_weston_nonlinear
	@echo "figures: results/demo/fig1b_weston_nonlinear/plots/"

test: install
	$(BIN)/python -m pytest -q

test-fast: install
	$(BIN)/python -m pytest -q -m "not slow"

lint: install
	$(BIN)/ruff check fsbench tests benchmarks
	$(BIN)/ruff format --check fsbench tests benchmarks

format: install
	$(BIN)/ruff format fsbench tests benchmarks

bench: install
	OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 $(BIN)/python -m benchmarks.run

reproduce-quick: install
	@echo "(filled by the Ramona 2012 reproduction)"

reproduce-all: install
	@echo "(filled by the Ramona 2012 reproduction)"

clean:
	rm -rf results/demo .pytest_cache

# --- Xu et al. 2011 (TAKES) and Liu et al. 2011 (KIFE): every table and figure at the sizes and repeats of
# the committed results (TAKES ~5 min, KIFE ~25 min wall on a loaded 2-core machine), then REPORT.md.
.PHONY: reproduce-takes2011 reproduce-kife2011

reproduce-takes2011: install
	$(BIN)/python -m fsbench.experiments.takes_table2 configs/takes2011/table2_reconstruction.yaml --out results/takes2011/table2 --jobs $(JOBS)
	$(BIN)/fsbench run configs/takes2011/fig23_gamma_quarter.yaml --fresh --jobs $(JOBS) --out results/takes2011/fig23_gamma_quarter
	$(BIN)/fsbench run configs/takes2011/fig23_gamma_median.yaml --fresh --jobs $(JOBS) --out results/takes2011/fig23_gamma_median
	$(BIN)/python -m fsbench.experiments.takes_figures results/takes2011/fig23_gamma_quarter
	$(BIN)/python -m fsbench.experiments.takes_figures results/takes2011/fig23_gamma_median
	$(BIN)/python -m fsbench.experiments.takes_timing configs/takes2011/timing_vs_n.yaml --out results/takes2011/timing
	$(BIN)/python -m fsbench.experiments.paper_report takes2011

reproduce-kife2011: install
	$(BIN)/fsbench run configs/kife2011/tab2_iris.yaml --fresh --jobs $(JOBS) --out results/kife2011/tab2_iris
	$(BIN)/fsbench run configs/kife2011/tab2_satimage.yaml --fresh --jobs $(JOBS) --out results/kife2011/tab2_satimage
	$(BIN)/fsbench run configs/kife2011/tab2_letter.yaml --fresh --jobs $(JOBS) --out results/kife2011/tab2_letter
	$(BIN)/python -m fsbench.experiments.kife_projection configs/kife2011/fig2_projection.yaml --out results/kife2011/fig2_projection
	$(BIN)/python -m fsbench.experiments.paper_report kife2011
