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
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest

lint: $(VENV)/.test-installed
	$(BIN)/ruff check workbench tests benchmarks
	$(BIN)/lint-imports

bench: $(VENV)/.test-installed
	$(BIN)/python benchmarks/trace_latency.py

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

$(VENV)/.run-installed: pyproject.toml $(VENV)/bin/python
	$(PIP) install --quiet -e .
	touch $@

$(VENV)/.test-installed: pyproject.toml $(VENV)/bin/python
	$(PIP) install --quiet -e '.[test]'
	touch $@ $(VENV)/.run-installed

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache build *.egg-info
