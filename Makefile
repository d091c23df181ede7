# llmcost: every target bootstraps .venv (python3 -m venv + pip) when it is missing or stale.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cksum pyproject.toml | cut -d' ' -f1)
SCENARIO ?= data/scenarios/default.yaml
OUT ?= build/reports/$(basename $(notdir $(SCENARIO)))

.PHONY: help venv report test notebooks twins lab bench clean readme-figures prebuilt

help:
	@echo "make report     run every notebook for $(SCENARIO) -> $(OUT)"
	@echo "make test       unit, property, notebook and report tests (the CI command)"
	@echo "make notebooks  re-execute the committed notebooks in place with their defaults"
	@echo "make twins      rewrite notebooks/text/, the notebooks' text twins (no execution)"
	@echo "make lab        open JupyterLab on notebooks/"
	@echo "make bench      print speed and accuracy benchmarks"
	@echo "make readme-figures  recompute the figures README.md quotes (scripts/readme_figures.py)"
	@echo "make prebuilt   rebuild prebuilt/, the cache entries every report computes (scripts/prebuilt_cache.py)"

# The packages are installed with uv (https://docs.astral.sh/uv/: pip's interface, downloads in
# parallel, several times faster than pip on a fresh clone); where uv cannot be had or fails,
# with pip. Both compile every module to bytecode now (uv does not by default; pip does), and
# the package's own modules too: where PYTHONDONTWRITEBYTECODE is set (many container images
# set it) Python never writes a .pyc, and every process compiled each module it imported
# from source: measured, a report kernel's start and imports took 3.1 CPU-s instead of 0.8,
# and `llmcost report` (default scenario, warm cache) 16.6 CPU-s instead of 10.7.
$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@{ $(PY) -m pip install --quiet uv && \
	   $(PY) -m uv pip install --quiet --compile-bytecode --python $(PY) \
	     -e '.[notebooks,test]'; } || \
	 { echo "uv failed: installing with pip"; \
	   $(PY) -m pip install --quiet --upgrade pip && \
	   $(PY) -m pip install --quiet -e '.[notebooks,test]'; }
	@$(PY) -m compileall -q llmcost
	@rm -f $(VENV)/.installed-*
	@touch $(STAMP)

venv: $(STAMP)

report: $(STAMP)
	$(VENV)/bin/llmcost report --scenario $(SCENARIO) --out $(OUT) --overwrite

# Checks the layer contract (lint-imports, pyproject.toml's [tool.importlinter]; ARCHITECTURE.md),
# then runs the suite, and prints the whole run's wall-clock time (the suite must stay under five
# minutes on 2 cores). The browser tests (tests/test_browser_*.py) run when Debian's Chromium is
# installed, else they are skipped with the reason. Byte-code caching is on whatever the
# environment says (PYTHONDONTWRITEBYTECODE emptied): every kernel and worker the suite starts
# imports the package, and without .pyc files each one compiles it (and rewrites the tests'
# asserts) from source again. While lint-imports runs, scripts/warm_bytecode.py writes the .pyc
# of what the workers and kernels import, once (a fresh environment holds none). Last, it says
# whether prebuilt/ is current (a stale one only slows the first report: make prebuilt).
test: $(STAMP)
	@start=$$(date +%s); \
	PYTHONDONTWRITEBYTECODE= $(PY) scripts/warm_bytecode.py & warm=$$!; \
	$(VENV)/bin/lint-imports --no-cache; rc=$$?; wait $$warm; \
	[ $$rc -ne 0 ] || { PYTHONDONTWRITEBYTECODE= $(PY) -m pytest -n 2 --dist loadfile; rc=$$?; }; \
	$(PY) scripts/prebuilt_cache.py --check || true; \
	echo "make test: $$(( $$(date +%s) - start )) s wall-clock (exit $$rc)"; exit $$rc

notebooks: $(STAMP)
	$(VENV)/bin/llmcost refresh-notebooks

twins: $(STAMP)
	$(VENV)/bin/llmcost twins

lab: $(STAMP)
	$(VENV)/bin/jupyter lab notebooks/ $(if $(filter 0,$(shell id -u)),--allow-root)

bench: $(STAMP)
	@for f in benchmarks/[a-z]*.py; do echo "== $$f"; $(PY) $$f || exit 1; done

readme-figures: $(STAMP)
	$(PY) scripts/readme_figures.py

# The disk-cache entries every report computes whatever its scenario, for this commit's code and
# data (scripts/prebuilt_cache.py): run after the last change to llmcost/ or data/ before a commit.
prebuilt: $(STAMP)
	PYTHONDONTWRITEBYTECODE= $(PY) scripts/prebuilt_cache.py

clean:
	rm -rf build
