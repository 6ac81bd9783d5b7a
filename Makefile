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
