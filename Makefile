# Two commands: `make run` opens the workbench, `make test` runs the whole suite.
# Both create .venv on first use and reinstall when pyproject.toml changes.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip

# Where nvidia-smi lists a GPU, JAX's CUDA 12 build comes too (the cuda12 extra).
CUDA      := $(shell nvidia-smi -L 2>/dev/null | grep -q '^GPU [0-9]' && echo cuda12)
comma     := ,
WITH_CUDA := $(if $(CUDA),$(comma)$(CUDA))
GPU_NOTE  := $(if $(CUDA),@echo "nvidia-smi lists a GPU: installing JAX for CUDA 12 (the cuda12 extra)")

# The suite runs on half again as many workers as cores (pytest-xdist, one test file per
# worker at a time): its tests wait on kernels, servers and child processes, and a third
# worker on two cores fills those waits (143 s against 161 s with two, 148 s with four).
# Then the tests that time a kernel (marked serial) run on one worker per two cores: each
# such test's kernel takes a core of its own (the Stop test's endless loop spins one), so
# a worker per core left a test's GUI thread sharing its core with the other worker's
# kernel (the Stop test's event loop then stalled 109 ms where it stalls 20-50 ms).
CORES       := $(shell $(PYTHON) -c "import os; print(len(os.sched_getaffinity(0)))" 2>/dev/null || echo 2)
JOBS        ?= $(shell echo $$(( $(CORES) * 3 / 2 )))
SERIAL_JOBS ?= $(shell echo $$(( ($(CORES) + 1) / 2 )))
# Bytecode is written even where the environment says not to (PYTHONDONTWRITEBYTECODE):
# otherwise every pytest worker re-compiles the test modules and every kernel and command
# the suite starts re-compiles the package.
TEST_ENV := QT_QPA_PLATFORM=offscreen PYTHONDONTWRITEBYTECODE=

.PHONY: run test lint bench clean

run: $(VENV)/.run-installed
	$(BIN)/workbench

test: $(VENV)/.test-installed
	$(BIN)/ruff check workbench tests benchmarks
	$(BIN)/lint-imports
	$(BIN)/mypy
	$(TEST_ENV) $(BIN)/python -m pytest -n $(JOBS) --dist loadfile -m "not serial"
	$(TEST_ENV) $(BIN)/python -m pytest -n $(SERIAL_JOBS) --dist loadfile -m serial

lint: $(VENV)/.test-installed
	$(BIN)/ruff check workbench tests benchmarks
	$(BIN)/lint-imports
	$(BIN)/mypy

BENCHMARKS := trace_latency timing_fidelity curves_latency kmeans_vs_sklearn kmeans_sharded engine_roundtrip stop_faults \
              gui_latency plot_latency kmeans_render editor_highlight presentation_toggle \
              values_latency graph_latency lesson_latency lesson_paging lesson_check_vs_nbclient lesson_agreement console_switch

bench: $(VENV)/.bench-installed
	for b in $(BENCHMARKS); do echo "== $$b"; QT_QPA_PLATFORM=offscreen $(BIN)/python benchmarks/$$b.py || exit 1; done

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

$(VENV)/.run-installed: pyproject.toml $(VENV)/bin/python
	$(GPU_NOTE)
	$(PIP) install --quiet -e '.$(if $(CUDA),[$(CUDA)])'
	touch $@

$(VENV)/.test-installed: pyproject.toml $(VENV)/bin/python
	$(GPU_NOTE)
	$(PIP) install --quiet -e '.[test$(WITH_CUDA)]'
	touch $@ $(VENV)/.run-installed

$(VENV)/.bench-installed: pyproject.toml $(VENV)/bin/python
	$(GPU_NOTE)
	$(PIP) install --quiet -e '.[test,bench$(WITH_CUDA)]'
	touch $@ $(VENV)/.test-installed $(VENV)/.run-installed

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache build *.egg-info
