# fsbench — every entry point a newcomer needs. `make demo` and `make test` work on a fresh machine
# with Python >= 3.10 and access to the package registry.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
JOBS   ?= 2
# The papers' datasets: ../shared/datasets beside the checkout when it exists (never copied into the repo).
export FSBENCH_DATA_DIR ?= $(if $(wildcard ../shared/datasets),$(abspath ../shared/datasets),)
export MPLBACKEND := Agg

.PHONY: help install demo test test-fast lint format bench bench-scale reproduce-quick reproduce-all build check-build screenshots clean

help:
	@echo "make demo            venv + install + run the Weston nonlinear toy (5 repeats) + plot"
	@echo "make test            venv + dev deps + the whole test suite"
	@echo "make lint            ruff check + ruff format --check"
	@echo "make bench           speed benchmarks -> benchmarks/results/ (scaling benchmark up to N = 5,000)"
	@echo "make bench-scale     scaling benchmark, full grid up to N = 50,000 (~10 min)"
	@echo "make reproduce-quick every Ramona config, 3 repeats, coarse grids, without FSPP, into results/quick/"
	@echo "make reproduce-all   every paper figure and table with the paper's repeats, then make build"
	@echo "make build           every figure, table and report under results/ from the committed run tables"
	@echo "make check-build     rebuild them in a temporary directory and compare with the committed ones"
	@echo "make screenshots     every report page (REPORT.html) checked and photographed in headless chromium"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e ".[dev,dask,hdf5,baselines]"
	@touch $@

install: $(VENV)/.installed

demo: install
	$(BIN)/fsbench run configs/ramona2012/fig1b_weston_nonlinear.yaml --repeats 5 --jobs $(JOBS) --out results/demo/fig1b_weston_nonlinear
	$(BIN)/fsbench plot results/demo/fig1b_weston_nonlinear
	@echo "figures: results/demo/fig1b_weston_nonlinear/plots/"

# -n 2 (pytest-xdist): the suite on both cores; each test is independent (tmp dirs, its own processes)
test: install
	$(BIN)/python -m pytest -q -n 2

test-fast: install
	$(BIN)/python -m pytest -q -n 2 -m "not slow"

lint: install
	$(BIN)/ruff check fsbench tests benchmarks examples configs
	$(BIN)/ruff format --check fsbench tests benchmarks examples configs

format: install
	$(BIN)/ruff format fsbench tests benchmarks examples configs

bench: install
	OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 $(BIN)/python -m benchmarks.run
	OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 $(BIN)/python -m benchmarks.scale --quick

bench-scale: install
	OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 $(BIN)/python -m benchmarks.scale
	$(BIN)/python -m benchmarks.threads

# --- Reproductions: one target per YAML file under configs/<paper>/ (experiments run by `fsbench run`,
# diagnostics — files with a `diagnostic:` key — by `fsbench diagnose`), derived from the files themselves:
#   make reproduce-<paper>-<config stem>   -> results/<paper>/<config stem>/ (resumable: run it again to continue)
#   make reproduce-<paper>                 every available config of the paper, then its build (figures,
#                                          tables, REPORT.md: `fsbench build results --paper <paper>`)
#   make report-<paper>                    REPORT.md from the committed tables (no computing); compared with
#                                          the paper when configs/<paper>/paper_values.yaml exists
#                                          (configs/scale/ is not a paper: a plain report)
# Per-experiment execution settings (e.g. `jobs: 1` for CPU-time tables) live in the configs. Configs whose
# dataset is not available (marked "DATASET NOT AVAILABLE") keep their target, which refuses with one line;
# the paper targets skip them. A config with a `base:` line (an override, docs/config.md, "Readings as overrides") is a
# diagnostic / unavailable when a file of its base chain says so.
CONFIGS     := $(filter-out %/paper_values.yaml,$(wildcard configs/*/*.yaml))
BASE_OF     := $(shell awk '/^base:/ {gsub(/["\047]/, "", $$2); print FILENAME "=" $$2}' $(CONFIGS))
base_of      = $(patsubst $(CURDIR)/%,%,$(abspath $(addprefix $(dir $(1)),$(patsubst $(1)=%,%,$(filter $(1)=%,$(BASE_OF))))))
# the config and its bases, at most 8 deep (fsbench itself refuses a cycle)
chain_of     = $(1)$(if $(2), $(foreach b,$(call base_of,$(1)),$(call chain_of,$(b),$(wordlist 2,9,$(2)))))
in_chain     = $(foreach c,$(CONFIGS),$(if $(filter $(call chain_of,$(c),1 2 3 4 5 6 7 8),$(1)),$(c)))
DIAGNOSTICS := $(call in_chain,$(shell grep -l '^diagnostic:' $(CONFIGS)))
UNAVAILABLE := $(call in_chain,$(shell grep -l 'DATASET NOT AVAILABLE' $(CONFIGS)))
PAPERS      := $(sort $(notdir $(patsubst %/,%,$(dir $(CONFIGS)))))
target_of    = reproduce-$(subst /,-,$(patsubst configs/%.yaml,%,$(1)))
out_of       = results/$(patsubst configs/%.yaml,%,$(1))

define config_target
.PHONY: $(call target_of,$(1))
$(call target_of,$(1)): install
	$(BIN)/fsbench $(if $(filter $(1),$(DIAGNOSTICS)),diagnose,run) $(1) --jobs $(JOBS) --out $(call out_of,$(1)) --no-progress
endef
$(foreach c,$(CONFIGS),$(eval $(call config_target,$(c))))

define paper_target
.PHONY: reproduce-$(1) report-$(1)
reproduce-$(1): $(foreach c,$(filter-out $(UNAVAILABLE),$(filter configs/$(1)/%,$(CONFIGS))),$(call target_of,$(c)))
	$(BIN)/fsbench build results --configs configs --paper $(1) --jobs $(JOBS)
report-$(1): install
	$(BIN)/fsbench report results/$(1)$(if $(wildcard configs/$(1)/paper_values.yaml configs/$(1)/notes.md configs/$(1)/hooks.py), --paper $(1))
endef
$(foreach p,$(PAPERS),$(eval $(call paper_target,$(p))))

RAMONA := $(patsubst configs/ramona2012/%.yaml,%,$(filter-out $(UNAVAILABLE) $(DIAGNOSTICS),$(filter configs/ramona2012/%,$(CONFIGS))))

# Every Ramona config with 3 repeats and at most 3 values per n / S grid (first and last kept) into
# results/quick/ (FSPP left out: ~3 CPU-min per USPS fit).
reproduce-quick: install
	$(foreach e,$(RAMONA),$(BIN)/fsbench run configs/ramona2012/$(e).yaml --repeats 3 --coarse 3 --exclude-selector fspp \
	  --jobs $(JOBS) --out results/quick/ramona2012/$(e) --no-progress &&) true
	$(BIN)/fsbench report results/quick/ramona2012 --paper ramona2012

# Every paper's configs, then one build of every derived file (figures, CPU tables, stability, ground
# truth, diagnostics' tables, REPORT.md) from the run tables: the per-paper report steps are not run.
reproduce-all: $(foreach c,$(filter-out $(UNAVAILABLE),$(CONFIGS)),$(call target_of,$(c)))
	$(MAKE) --no-print-directory build

# Regenerate every derived file under results/ from results.csv / rankings.csv / run.json (no task runs).
build: install
	$(BIN)/fsbench build results --configs configs --jobs $(JOBS)

# Rebuild a copy of the committed inputs in a temporary directory; fail on any derived file that differs.
check-build: install
	$(BIN)/fsbench build results --configs configs --check --jobs $(JOBS)

# Every committed report's page: REPORT.html rendered from the committed REPORT.md (--html-only: nothing
# recomputed; the page is not committed), its structure checked (unique navigation and ids, no empty
# section, no over-long table, every link resolves) and its layout in headless chromium (no table wider
# than the page, every image loaded); a screenshot of each page and its tiles into build/screenshots/
# (git-ignored). Needs chromium (Debian: apt-get install -y chromium); exits 1 on any problem found.
PAGES := $(patsubst %/REPORT.md,%,$(wildcard results/*/REPORT.md))
screenshots: install
	$(foreach d,$(PAGES),$(BIN)/fsbench report $(d) --html-only &&) true
	$(BIN)/python -m fsbench.results.page_check --screenshots build/screenshots $(addsuffix /REPORT.html,$(PAGES))

clean:
	rm -rf results/demo results/quick .pytest_cache
