# Every target creates .venv on first use, so a fresh clone needs nothing but python3 >= 3.11.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# The real agent CLIs (pinned in tests/clis) for the live adapter tests, installed with npm
# into a project-local cache. Without npm, or without the registry, those tests are skipped
# with the reason and everything else still runs.
CLIS   := .cache/clis
CLIS_STAMP := $(CLIS)/.installed

.PHONY: test check demo screenshots bench clean clis

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,dask]'
	touch $(STAMP)

$(CLIS_STAMP): tests/clis/package.json tests/clis/package-lock.json
	@mkdir -p $(CLIS)
	@if ! command -v npm >/dev/null 2>&1; then \
		echo "caesar: npm not found; the live agent CLI tests will be skipped"; \
	else \
		cp tests/clis/package.json tests/clis/package-lock.json $(CLIS)/ && \
		cd $(CLIS) && npm install --no-audit --no-fund --loglevel=error \
			--fetch-timeout=60000 --fetch-retries=1 && touch .installed || \
		echo "caesar: npm could not install the agent CLIs; their live tests will be skipped"; \
	fi

clis: $(CLIS_STAMP)

test: $(STAMP) $(CLIS_STAMP)
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
	$(BIN)/python benchmarks/cli.py
	$(BIN)/python benchmarks/eventlog.py
	$(BIN)/python benchmarks/reconcile.py
	$(BIN)/python benchmarks/review.py
	$(BIN)/python benchmarks/spawn.py
	$(BIN)/python benchmarks/bridge.py
	$(BIN)/python benchmarks/watch.py

clean:
	rm -rf $(VENV) .cache .pytest_cache .mypy_cache .ruff_cache
