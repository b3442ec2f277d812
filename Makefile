# The two set-up commands of the README:  `make demo`  and  `make test`.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
export OMP_NUM_THREADS ?= 1

.PHONY: demo test install lint-cypher clean

$(BIN)/dishgraph: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	# torch first, pinned: a CPU wheel; an unpinned torch would pull a multi-GB CUDA build
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e '.[dev]'
	touch $@

install: $(BIN)/dishgraph

demo: install
	$(BIN)/dishgraph demo

tools/cypher-lint/node_modules: tools/cypher-lint/package.json
	cd tools/cypher-lint && npm install --no-audit --no-fund --silent
	touch $@

lint-cypher: install tools/cypher-lint/node_modules
	$(BIN)/python -m dishgraph.graph.lint

test: install tools/cypher-lint/node_modules
	$(BIN)/python -m pytest -q

clean:
	rm -rf $(VENV) tools/cypher-lint/node_modules report
