# dcnsim: build, test and run the demo on a fresh machine that has python3 (3.11+) with pip,
# cargo and maturin. The Python side lives in .venv (created if missing), installed from
# requirements.lock (every package pinned, with hashes); the extension is rebuilt on every
# `make build` (cargo makes that cheap when nothing changed).
#
#   make demo    TCP vs DCTCP on a k=4 fat-tree -> results/demo
#   make test    Rust tests, the Python tests, the docs (strict) and the browser test
#   make docs    the site (MkDocs, Material theme) -> site/
#   make lock    re-resolve requirements.lock (after changing a range in pyproject.toml or
#                requirements.in); `make lock LOCK_FLAGS=--upgrade` takes the newest releases
#   make clean   remove .venv, results, site and the built extension (distclean: also cargo's target)

PYTHON  ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.deps-stamp
INSTALLED := $(VENV)/.installed-stamp
LOCK    := requirements.lock
RUST_EXCLUDE := --workspace --exclude dcnsim-py

.PHONY: all build demo docs lock test test-rust test-python test-docs test-browser browser-deps \
	clean distclean

all: build

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Dependencies are installed once, exactly the versions of the lock (pip checks every file
# against its hash); a new lock or editing this file reinstalls them.
$(STAMP): $(BIN)/python $(LOCK) Makefile
	$(BIN)/pip install -q --require-hashes -r $(LOCK)
	touch $@

# The lock: the runtime dependencies and the extras (test, docs, browser) of pyproject.toml,
# plus requirements.in (maturin), resolved by uv for CPython 3.11 on x86-64 Linux (glibc 2.28+).
# uv keeps the pins it can unless LOCK_FLAGS=--upgrade (or --upgrade-package NAME).
UV         := uv==0.13.9
LOCK_FLAGS ?=
lock: $(BIN)/python
	$(BIN)/pip install -q $(UV)
	$(BIN)/uv pip compile pyproject.toml requirements.in --all-extras --generate-hashes \
		--python-version 3.11 --python-platform x86_64-manylinux_2_28 \
		--custom-compile-command "make lock" --quiet $(LOCK_FLAGS) -o $(LOCK)

# maturin develop needs to know the venv: VIRTUAL_ENV tells it (no activation needed). It puts
# the extension in python/dcnsim/ and links the package source into the venv, so edits to the
# Python files take effect without a rebuild. The package is installed once (pip then lists
# every requirement it already has, about 40 lines); later builds only rebuild the extension.
MATURIN := VIRTUAL_ENV=$(CURDIR)/$(VENV) PATH=$(CURDIR)/$(BIN):$$PATH $(BIN)/maturin develop --release --quiet

$(INSTALLED): $(STAMP) pyproject.toml
	$(MATURIN)
	touch $@

build: $(INSTALLED)
	$(MATURIN) --skip-install

demo: build
	$(BIN)/dcnsim demo --out results/demo

test: test-rust test-python test-docs test-browser

# After the tests, the docs: a broken or ambiguous intra-doc link is a warning to rustdoc, made
# an error here so that `make test` catches it.
test-rust:
	@if command -v cargo-nextest >/dev/null 2>&1; then \
		cargo nextest run $(RUST_EXCLUDE) && cargo test $(RUST_EXCLUDE) --doc; \
	else \
		cargo test $(RUST_EXCLUDE); \
	fi
	RUSTDOCFLAGS="-D warnings" cargo doc -p dcnsim --no-deps --quiet

test-python: build
	$(BIN)/python -m pytest tests/python -q

# The site is always built strictly (mkdocs.yml): a link to a page or an anchor that does not
# exist, a link out of docs/, or a page missing from the nav fails the build. Not --quiet: with
# it, mkdocs 1.6 no longer counts the warnings, and strict lets every broken link through.
# NO_MKDOCS_2_WARNING silences Material's banner about its end of life (May 2027).
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

test-docs: docs

# The browser test opens every page of the site and a report.html of `dcnsim reproduce` in
# headless Chromium (tests/browser). Chromium and its driver come from the distribution: when
# they are missing and we are root on Debian/Ubuntu, they are installed here; otherwise the
# message says what to install, and the test skips, except under CI (CI set), where it fails.
BROWSER_PKGS := chromium chromium-driver
browser-deps:
	@if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then \
		:; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "installing $(BROWSER_PKGS) for the browser test"; \
		apt-get update -q && DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -q --no-install-recommends $(BROWSER_PKGS); \
	else \
		echo "the browser test needs Chromium and chromedriver: on Debian/Ubuntu," \
			"sudo apt-get install $(BROWSER_PKGS)"; \
	fi

test-browser: build browser-deps
	$(BIN)/python -m pytest tests/browser -q -rs

clean:
	rm -rf $(VENV) results site site-shots .pytest_cache python/dcnsim/_core*.so \
		python/dcnsim/_core*.pyd
	find python tests -name __pycache__ -type d -prune -exec rm -rf {} +

distclean: clean
	cargo clean
