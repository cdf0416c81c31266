# dcnsim: build, test and run the demo on a fresh machine that has python3 (3.11+) with pip,
# cargo and maturin. The Python side lives in .venv (created if missing); the extension is
# rebuilt on every `make build` (cargo makes that cheap when nothing changed).
#
#   make demo    TCP vs DCTCP on a k=4 fat-tree -> results/demo
#   make test    Rust tests, then the Python tests
#   make clean   remove .venv, results and the built extension (distclean: also cargo's target)

PYTHON  ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.deps-stamp
INSTALLED := $(VENV)/.installed-stamp
PY_DEPS := maturin numpy pandas matplotlib click tqdm distributed pytest hypothesis
RUST_EXCLUDE := --workspace --exclude dcnsim-py

.PHONY: all build demo test test-rust test-python clean distclean

all: build

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Dependencies are installed once; editing pyproject.toml or this file reinstalls them.
$(STAMP): $(BIN)/python pyproject.toml Makefile
	$(BIN)/pip install -q $(PY_DEPS)
	touch $@

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

test: test-rust test-python

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

clean:
	rm -rf $(VENV) results .pytest_cache python/dcnsim/_core*.so python/dcnsim/_core*.pyd
	find python tests -name __pycache__ -type d -prune -exec rm -rf {} +

distclean: clean
	cargo clean
