# The two set-up commands of the README:  `make demo`  and  `make test`.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
export OMP_NUM_THREADS ?= 1

.PHONY: demo test install lock lint lint-cypher browser clean

# The exact versions of requirements.lock (reproducible demo and CI), then dishgraph itself without resolving
# again. torch first, pinned: a CPU wheel; an unpinned torch would pull a multi-GB CUDA build (where the default
# index serves CUDA builds, give PyTorch's CPU index: make TORCH_PIP_ARGS='--index-url URL').
TORCH_PIP_ARGS ?=
$(BIN)/dishgraph: pyproject.toml requirements.lock
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q $(TORCH_PIP_ARGS) $$(grep '^torch==' requirements.lock)
	$(BIN)/pip install -q -r requirements.lock
	$(BIN)/pip install -q --no-deps -e '.[dev]'
	touch $@

# requirements.lock from the current .venv (after changing a range in pyproject.toml and installing)
lock: install
	{ sed -n '1,2p' requirements.lock; $(BIN)/pip freeze --exclude-editable | sed 's/^torch==\(.*\)+cpu$$/torch==\1/'; } > requirements.lock.new
	mv requirements.lock.new requirements.lock

install: $(BIN)/dishgraph

demo: install
	$(BIN)/dishgraph demo

tools/cypher-lint/node_modules: tools/cypher-lint/package.json
	cd tools/cypher-lint && npm ci --no-audit --no-fund --silent
	touch $@

# Headless Chromium for the dish-pair explorer's browser tests (Debian package; skipped if it cannot be had).
browser:
	@command -v chromium >/dev/null 2>&1 || { (apt-get update -qq && apt-get install -y -qq \
	  --no-install-recommends chromium fonts-noto-cjk) >/dev/null 2>&1 || \
	  echo "note: chromium could not be installed; the explorer's browser tests will be skipped"; }

lint-cypher: install tools/cypher-lint/node_modules
	$(BIN)/python -m dishgraph.graph.lint

# ruff (lint + format check) and mypy (strict on graph/, api.py and the registries: see pyproject.toml)
lint: install
	$(BIN)/ruff check --quiet .
	$(BIN)/ruff format --check --quiet .
	$(BIN)/mypy

# Test files run in parallel (pytest-xdist), one file per worker at a time so that a file's fixtures are
# built once, handed out in the order tests/conftest.py sorts them (longest first: --no-loadscope-reorder,
# or xdist would hand out the files with most tests first); TEST_WORKERS=1 runs them one after another.
# Bytecode is cached for the run even where the environment turns that off (PYTHONDONTWRITEBYTECODE): the
# suite starts Python processes by the hundred (CLI runs, ingest, prefetch and order workers), and each would
# compile dishgraph again (0.3-0.4 s of CPU apiece).
TEST_WORKERS ?= auto
test: install tools/cypher-lint/node_modules browser lint
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -q -n $(TEST_WORKERS) --maxprocesses 4 --dist loadfile \
	  --no-loadscope-reorder

clean:
	rm -rf $(VENV) tools/cypher-lint/node_modules report
