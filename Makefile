# Two commands: `make run` opens the workbench, `make test` runs the whole suite.
# Both create .venv on first use and reinstall when pyproject.toml changes.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip

.PHONY: run test lint bench clean

run: $(VENV)/.run-installed
	$(BIN)/workbench

test: $(VENV)/.test-installed
	$(BIN)/ruff check workbench tests benchmarks
	$(BIN)/lint-imports
	$(BIN)/mypy
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest

lint: $(VENV)/.test-installed
	$(BIN)/ruff check workbench tests benchmarks
	$(BIN)/lint-imports
	$(BIN)/mypy

BENCHMARKS := trace_latency timing_fidelity curves_latency kmeans_vs_sklearn kmeans_sharded engine_roundtrip stop_faults \
              gui_latency plot_latency kmeans_render editor_highlight presentation_toggle

bench: $(VENV)/.bench-installed
	for b in $(BENCHMARKS); do echo "== $$b"; QT_QPA_PLATFORM=offscreen $(BIN)/python benchmarks/$$b.py || exit 1; done

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

$(VENV)/.run-installed: pyproject.toml $(VENV)/bin/python
	$(PIP) install --quiet -e .
	touch $@

$(VENV)/.test-installed: pyproject.toml $(VENV)/bin/python
	$(PIP) install --quiet -e '.[test]'
	touch $@ $(VENV)/.run-installed

$(VENV)/.bench-installed: pyproject.toml $(VENV)/bin/python
	$(PIP) install --quiet -e '.[test,bench]'
	touch $@ $(VENV)/.test-installed $(VENV)/.run-installed

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache build *.egg-info
