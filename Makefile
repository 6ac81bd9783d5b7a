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
	@echo "make reproduce-quick every Ramona config, 3 repeats, coarse grids, without FSPP, into results/quick/"
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

# --- Ramona et al. 2012: one target per figure/table (resumable: rerun the same target after an interruption).
# Fig. 5a/5b and Table III need datasets that are not available (their configs refuse with exit 2).
RAMONA := fig1a_weston_linear fig1b_weston_nonlinear fig2a_spambase_linear fig2b_spambase_rbf \
          fig3a_ionosphere_linear fig3b_ionosphere_rbf fig4_lymphoma_linear fig6_parkinsons_poly \
          tab2_usps tab2_usps_libsvm_test tab2_usps_test_rest tab4_neumann tab5_usps_binary tab6_gmkl tab8_cpu_vs_n tab9_cpu_vs_d
RAMONA_OUT ?= results/ramona2012

define ramona_target
.PHONY: reproduce-ramona2012-$(1)
reproduce-ramona2012-$(1): install
	$(BIN)/fsbench run configs/ramona2012/$(1).yaml --jobs $$(if $$(filter tab8% tab9%,$(1)),1,$(JOBS)) --out $(RAMONA_OUT)/$(1) --no-progress
endef
$(foreach e,$(RAMONA),$(eval $(call ramona_target,$(e))))

# Table II diagnostic (a script, not a config): greedy-on-test pixel bound and selection per pair of
# classes, ~15 CPU-min; skipped when its per_pair.csv exists (delete the directory to rerun).
.PHONY: reproduce-ramona2012-tab2_pixel_bound
reproduce-ramona2012-tab2_pixel_bound: $(RAMONA_OUT)/tab2_pixel_bound/per_pair.csv
$(RAMONA_OUT)/tab2_pixel_bound/per_pair.csv: | install
	$(BIN)/python -m fsbench.experiments.usps_pixel_bound --out $(RAMONA_OUT)/tab2_pixel_bound --repeats 10 --jobs $(JOBS)

.PHONY: reproduce-ramona2012 report-ramona2012
reproduce-ramona2012: $(addprefix reproduce-ramona2012-,$(RAMONA)) reproduce-ramona2012-tab2_pixel_bound report-ramona2012

report-ramona2012: install
	$(BIN)/fsbench report $(RAMONA_OUT) --paper ramona2012

# Every Ramona config with 3 repeats and at most 3 values per n / S grid (first and last kept) into
# results/quick/ (FSPP left out: ~3 CPU-min per USPS fit).
reproduce-quick: install
	$(foreach e,$(RAMONA),$(BIN)/fsbench run configs/ramona2012/$(e).yaml --repeats 3 --coarse 3 --exclude-selector fspp \
	  --jobs $(JOBS) --out results/quick/ramona2012/$(e) --no-progress &&) true
	$(BIN)/fsbench report results/quick/ramona2012 --paper ramona2012

reproduce-all: reproduce-ramona2012 reproduce-takes2011 reproduce-kife2011 reproduce-paul2015 reproduce-ring2015

clean:
	rm -rf results/demo results/quick .pytest_cache

# --- Xu et al. 2011 (TAKES) and Liu et al. 2011 (KIFE): every table and figure at the sizes and repeats of
# the committed results (TAKES ~10 min, KIFE ~17 min wall on a loaded 2-core machine; the `fsbench run` parts
# resume, a finished one is only re-tabulated), then REPORT.md.
.PHONY: reproduce-takes2011 reproduce-kife2011

reproduce-takes2011: install
	$(BIN)/python -m fsbench.experiments.takes_table2 configs/takes2011/table2_reconstruction.yaml --out results/takes2011/table2 --jobs $(JOBS)
	$(BIN)/fsbench run configs/takes2011/fig23_gamma_quarter.yaml --jobs $(JOBS) --out results/takes2011/fig23_gamma_quarter
	$(BIN)/fsbench run configs/takes2011/fig23_gamma_median.yaml --jobs $(JOBS) --out results/takes2011/fig23_gamma_median
	$(BIN)/python -m fsbench.experiments.takes_figures results/takes2011/fig23_gamma_quarter
	$(BIN)/python -m fsbench.experiments.takes_figures results/takes2011/fig23_gamma_median
	$(BIN)/python -m fsbench.experiments.takes_timing configs/takes2011/timing_vs_n.yaml --out results/takes2011/timing
	$(BIN)/python -m fsbench.experiments.paper_report takes2011

reproduce-kife2011: install
	$(BIN)/fsbench run configs/kife2011/tab2_iris.yaml --jobs $(JOBS) --out results/kife2011/tab2_iris
	$(BIN)/fsbench run configs/kife2011/tab2_satimage.yaml --jobs $(JOBS) --out results/kife2011/tab2_satimage
	$(BIN)/fsbench run configs/kife2011/tab2_letter.yaml --jobs $(JOBS) --out results/kife2011/tab2_letter
	$(BIN)/python -m fsbench.experiments.kife_projection configs/kife2011/fig2_projection.yaml --out results/kife2011/fig2_projection
	$(BIN)/python -m fsbench.experiments.paper_report kife2011

# --- Paul et al. 2015 (clinical kernel) and Ring & Eskofier 2015 (B&B in RKHS): the committed runs
# (resumable; ~50 and ~40 min wall with JOBS=2), then REPORT.md.
.PHONY: reproduce-paul2015 reproduce-ring2015

reproduce-paul2015: install
	$(BIN)/python -m fsbench.experiments.paul2015 configs/paul2015/paul2015.yaml --out results/paul2015 --jobs $(JOBS)

reproduce-ring2015: install
	$(BIN)/python -m fsbench.experiments.ring2015 configs/ring2015/ring2015.yaml --out results/ring2015 --jobs $(JOBS)
