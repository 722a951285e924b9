# Every target creates .venv on first use, so a fresh clone needs nothing but python3 >= 3.11.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: test check demo screenshots bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

test: $(STAMP)
	$(BIN)/python -m pytest

check: $(STAMP)
	$(BIN)/ruff check caesar_core caesar_tui tests benchmarks snapshots screenshots
	$(BIN)/ruff format --check caesar_core caesar_tui tests benchmarks snapshots screenshots
	$(BIN)/mypy
	$(BIN)/python -m pytest tests/test_import_hygiene.py -q

demo: $(STAMP)
	$(BIN)/caesar watch --demo

screenshots: $(STAMP)
	$(BIN)/python screenshots/generate.py

bench: $(STAMP)
	$(BIN)/python benchmarks/eventlog.py
	$(BIN)/python benchmarks/reconcile.py
	$(BIN)/python benchmarks/spawn.py
	$(BIN)/python benchmarks/watch.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
