# The two commands of the README's quick start: `make play` and `make test`; `make check` is
# the quick round for everyday work.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# In build/, beside the package tree mypy reads: removing build/ makes both again.
COMPILED := build/.compiled
# Every source of the folders setup.py compiles from (its COMPILED and NATIVE name which ones):
# an edit of another module there rebuilds too, but no list is kept here to fall out of step.
ENGINE_SOURCES := $(wildcard shared/*.py shared/games/*.py server/*.py server/*.c)

.PHONY: play test check build lint typecheck bench clean browser

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml setup.py | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	STARHALL_PURE_PYTHON=1 $(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# Compile the engines with mypyc (setup.py), here only; pure Python if it cannot. After an
# edit, shared/__init__.py runs the stale modules as pure Python until this runs again.
$(COMPILED): setup.py $(ENGINE_SOURCES) | $(STAMP)
	$(BIN)/python setup.py --quiet build_ext --inplace
	touch $(COMPILED)

build: $(COMPILED)

play: $(COMPILED)
	$(BIN)/starhall play

# The import contracts (pyproject.toml's [tool.importlinter]) read the installed package's
# layout through the links setup.py lays out in build/package-tree, as mypy does.
lint: $(COMPILED)
	$(BIN)/ruff check _starhall shared server client tests bench tools
	PYTHONPATH=build/package-tree $(BIN)/lint-imports

typecheck: $(COMPILED)
	$(BIN)/mypy

# Debian's chromium for the browser tests (tests/test_web.py), installed where it is missing.
browser:
	.ci/chromium

# The tests on every core (pytest-xdist), each file on one worker (so a file's module fixtures,
# such as the wheel tests/test_packaging.py builds, are made once), the wheel's file first.
test: lint typecheck browser
	$(BIN)/python -m pytest -n auto --dist loadfile

# The quick round while working: lint, types and every test not marked slow (pyproject.toml's
# markers; a file marks itself with `pytestmark = pytest.mark.slow`). `make test` stays the
# whole run, as CI runs it.
check: lint typecheck
	$(BIN)/python -m pytest -n auto --dist loadfile -m "not slow"

bench: $(COMPILED)
	STARHALL_PURE_PYTHON=1 $(BIN)/python -m pip install --quiet -e '.[bench]'
	$(BIN)/python bench/engine.py
	$(BIN)/python bench/server.py
	$(BIN)/python bench/client.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build *.so shared/*.so shared/games/*.so server/*.so shared/engines_build.json
