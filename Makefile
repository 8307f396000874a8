# The README's two commands are `make demo` and `make test`; each installs everything it needs
# into .venv first, so both work from a clean clone.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
BIN := $(VENV)/bin

.PHONY: venv install install-dev demo test test-rust test-python lint bench fuzz

venv:
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@$(PY) -m pip install -q --upgrade pip "maturin>=1.9,<2"

# The package alone (numpy is its one runtime dependency).
install: venv
	$(BIN)/maturin develop --release -q

# The package with its test, benchmark and lint tools.
install-dev: venv
	$(BIN)/maturin develop --release -q -E test,bench,dev

demo: install
	$(BIN)/ferrochunk chunk --max-tokens 256 --overlap-tokens 32 -o sample-chunks.jsonl
	@head -c 600 sample-chunks.jsonl; echo " ..."

test-rust:
	cargo test --release --quiet

test-python:
	$(BIN)/pytest -q

test: install-dev test-rust test-python

lint: install-dev
	cargo fmt --all -- --check
	cargo clippy --release --all-targets -- -D warnings
	cargo clippy --release --all-targets --features python -- -D warnings
	$(BIN)/ruff check python tests benches scripts
	$(BIN)/ruff format --check python tests benches scripts
	$(BIN)/mypy
	$(PY) -m mypy.stubtest ferrochunk._native

# Full benchmark run; figures go into BENCHMARKS.md (see there).
bench: install-dev
	$(BIN)/pytest benches --benchmark-enable --benchmark-only \
		--benchmark-json=target/bench.json -q
	$(PY) benches/report.py target/bench.json

# Long property-test run and the large-input tests, kept out of the default suite.
fuzz: install-dev
	FERROCHUNK_MAX_EXAMPLES=5000 $(BIN)/pytest -q tests -k "equals_reference or invariants or tiktoken"
	$(BIN)/pytest -q tests -m slow
