# The two commands of the README's quick start: `make play` and `make test`; `make check` is
# the quick round for everyday work.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# In build/, beside the package tree mypy reads: removing build/ makes both again.
COMPILED := build/.compiled
# The links laid out as the installed package, which mypy and lint-imports read (setup.py).
TREE := build/package-tree/starhall
# Every source of the folders setup.py compiles from (its COMPILED and NATIVE name which ones):
# an edit of another module there rebuilds too, but no list is kept here to fall out of step.
ENGINE_SOURCES := $(wildcard shared/*.py shared/games/*.py shared/games/*/*.py server/*.py server/*.c)

.PHONY: play test check build lint typecheck bench clean wheel-build browser

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# What compiling the engines needs, installed first: pyproject.toml's build-system requires
# (setuptools, mypy) and the package's dependencies (mypyc type-checks the engines against
# msgpack's and pyzmq's types), so that the wheel's build (wheel-build) starts while pip
# installs the developer tools; that install finds these there and leaves them as they are, and
# builds the editable package with them (no isolated build environment of its own to fill).
BUILD_TOOLS := $(VENV)/.build-tools
BUILD_REQUIRES := 'import tomllib; p = tomllib.load(open("pyproject.toml", "rb")); print(*p["build-system"]["requires"], *p["project"]["dependencies"], sep="\n")'
$(BUILD_TOOLS): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -c $(BUILD_REQUIRES) | $(BIN)/python -m pip install --quiet -r /dev/stdin
	touch $(BUILD_TOOLS)

$(STAMP): pyproject.toml setup.py | $(BUILD_TOOLS)
	STARHALL_PURE_PYTHON=1 $(BIN)/python -m pip install --quiet --no-build-isolation -e '.[dev]'
	touch $(STAMP)

# Compile the engines with mypyc (setup.py), here only; pure Python if it cannot. After an
# edit, shared/__init__.py runs the stale modules as pure Python until this runs again.
COMPILE := $(BIN)/python setup.py --quiet build_ext --inplace && touch $(COMPILED)
$(COMPILED): setup.py $(ENGINE_SOURCES) | $(STAMP)
	$(COMPILE)

build: $(COMPILED)

# Only the links, nothing compiled (STARHALL_PURE_PYTHON): what lint and typecheck need.
$(TREE): setup.py | $(STAMP)
	STARHALL_PURE_PYTHON=1 $(BIN)/python setup.py --quiet build_ext --inplace

# The window opens at once: when the engines are not compiled (a fresh clone, an edited
# engine) this game runs them as pure Python, identical and a little slower, while they compile
# beside it (niced, one compile at a time, its output in build/compile.log); the next start
# runs them compiled. What runs is what shared/__init__.py finds (each source's content against
# the build's record), not the files' times: a build that runs compiled is never rewritten
# under the game that has it loaded.
RUNS_COMPILED := 'import sys; from starhall import shared; sys.exit(shared.build() != "compiled")'
play: $(STAMP)
	@if ! $(BIN)/python -c $(RUNS_COMPILED) 2>/dev/null; then \
	  mkdir -p build; \
	  echo "starhall: compiling the engines in the background (log: build/compile.log); this game runs them as pure Python, the next one compiled"; \
	  nohup nice flock --nonblock build/.compile.lock \
	    sh -c '$(COMPILE)' \
	    >build/compile.log 2>&1 </dev/null & \
	fi
	$(BIN)/starhall play

# The import contracts (pyproject.toml's [tool.importlinter]) read the installed package's
# layout through the links setup.py lays out in build/package-tree, as mypy does.
lint: $(TREE)
	$(BIN)/ruff check _starhall shared server client tests bench tools
	PYTHONPATH=build/package-tree $(BIN)/lint-imports

typecheck: $(TREE)
	$(BIN)/mypy

# Debian's chromium for the browser tests (tests/test_web.py), installed where it is missing.
browser:
	.ci/chromium

# The wheel tests/test_packaging.py installs (tests/wheel_build.py: the engines compiled again,
# from a clean copy), its build started in the background in a folder of its own (an older
# one's, maybe still running, is removed), named in WHEEL_BUILD.
WHEEL_BUILD := build/test-wheel
wheel-build: | $(BUILD_TOOLS)
	@mkdir -p build && rm -rf build/test-wheel.* && \
	folder=$$(mktemp -d "$(CURDIR)/build/test-wheel.XXXXXX") && echo "$$folder" >$(WHEEL_BUILD) && \
	echo "starhall: building the wheel for tests/test_packaging.py in the background ($$folder/log)" && \
	{ nohup $(BIN)/python -m tests.wheel_build "$$folder" >"$$folder/log" 2>&1 </dev/null & \
	  echo $$! >"$$folder/pid"; }

# The tests on one worker more than there are cores (pytest-xdist): much of the suite waits
# for servers, NATS nodes and subprocesses, and the extra worker keeps the cores busy
# meanwhile (on 2 cores, 3 workers take a fifth less time than 2).
WORKERS := $(shell $(PYTHON) -c 'import os; print((os.cpu_count() or 1) + 1)')

# The tests' bytecode, kept in build/pycache even where PYTHONDONTWRITEBYTECODE is set: the
# suite starts hundreds of Python processes (workers, servers, nodes, commands), and each would
# otherwise compile every module it imports from source again (collecting the tests alone:
# 4 s on a quiet machine, 14 s on a busy one, against 1.2 s with the bytecode kept). Nothing is
# written beside the sources.
TEST_BYTECODE := env -u PYTHONDONTWRITEBYTECODE PYTHONPYCACHEPREFIX=$(CURDIR)/build/pycache

# The tests on WORKERS, each file on one worker (so a file's module fixtures are made once),
# the files marked slow first (tests/conftest.py). The wheel's build starts first and runs beside lint and the type checks. Its
# compile is the only one: where the engines here are not compiled up to date (a fresh clone,
# an edited engine), the tests wait for it and run on its compiled modules, laid in place
# (tests/wheel_build.py; compiled here if the wheel has none); where they are, the tests start
# at once and test_packaging.py's come last, taking the wheel when it is done.
test: wheel-build lint typecheck browser
	@$(MAKE) --no-print-directory --question $(COMPILED) || \
	  { $(BIN)/python -m tests.wheel_build --lay-in-place "$$(cat $(WHEEL_BUILD))" && touch $(COMPILED); } || \
	  $(MAKE) --no-print-directory build
	STARHALL_TEST_WHEEL_BUILD=$$(cat $(WHEEL_BUILD)) $(TEST_BYTECODE) \
	  $(BIN)/python -m pytest -n $(WORKERS) --dist loadfile

# The quick round while working: lint, types and every test not marked slow (pyproject.toml's
# markers; a file marks itself with `pytestmark = pytest.mark.slow`), on the engines as they
# are: compiled when the build is up to date, else as pure Python, asked for, so that no
# process notes a stale build on stderr (nothing is compiled here). `make test` stays the
# whole run, as CI runs it.
check: lint typecheck
	STARHALL_PURE_PYTHON=$$($(BIN)/python -c $(RUNS_COMPILED) 2>/dev/null || echo 1) \
	  $(TEST_BYTECODE) $(BIN)/python -m pytest -n $(WORKERS) --dist loadfile -m "not slow"

bench: $(COMPILED)
	STARHALL_PURE_PYTHON=1 $(BIN)/python -m pip install --quiet -e '.[bench]'
	$(BIN)/python bench/engine.py
	$(BIN)/python bench/server.py
	$(BIN)/python bench/client.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build *.so shared/*.so shared/games/*.so shared/games/*/*.so server/*.so shared/engines_build.json
