"""Code: ferrochunk's ``Code`` beside tree-sitter's bare parse (the floor) and the peers,
per language, on real code this machine already has, which no test or tuning read.

- Python: the standard library's sources; Rust: the crates in the cargo registry;
  JavaScript: npm's own sources; Java: the JDK's ``src.zip``; Go: Debian's ``golang-src``;
  C: the C files of the crates in the cargo registry (tree-sitter's runtime, zstd, ...).
- Peers, where installed: text-splitter's ``CodeSplitter`` with a cl100k counter
  (``semantic-text-splitter``), astchunk (non-space characters; Python and Java here),
  LlamaIndex's ``CodeSplitter`` (characters; given a parser, so it downloads nothing).
- One thread everywhere; the floor is py-tree-sitter's ``parse`` on the same 0.25 runtime.

The contenders and the quality columns are ``ferrochunk.bench``'s, as
``ferrochunk bench --chunker code`` runs them; ``extra_info`` holds each row's quality:
``defs_cut``, ``over_cap`` and ``no_scope``.

With ``--benchmark-disable`` (the default, as smoke tests) the inputs shrink to 60 KB per
language, or to the tests' sample of a language whose sources this machine lacks, and every
output is still checked.
"""

from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from bench_stream import MB, _smoke

import ferrochunk as fc
from ferrochunk.bench.contenders import _ASTCHUNK, CODE_CONTENDERS
from ferrochunk.bench.quality import code_quality

pytest.importorskip("tree_sitter", reason="test extra: tree-sitter")

CAP = 512
HOME = Path.home()


def _stdlib() -> list[Path]:
    return sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py"))


def _registry(suffix: str) -> list[Path]:
    return sorted((HOME / ".cargo" / "registry" / "src").glob(f"*/*/**/*{suffix}"))


def _npm() -> list[Path]:
    roots = [Path("/usr/lib/node_modules/npm"), Path("/usr/local/lib/node_modules/npm")]
    return sorted(p for r in roots if r.exists() for p in (r / "lib").rglob("*.js"))


def _go() -> list[Path]:
    # Debian's golang-*-src (apt-get install golang-src); absent elsewhere.
    return sorted(Path("/usr/share").glob("go-*/src/**/*.go"))


def _jdk() -> list[tuple[str, str]]:
    for z in sorted(Path("/usr/lib/jvm").glob("*/lib/src.zip")):
        with zipfile.ZipFile(z) as f:
            names = sorted(n for n in f.namelist() if n.startswith("java.base/java/util/"))
            return [(n, f.read(n).decode("utf-8", "replace")) for n in names if n.endswith(".java")]
    return []


SOURCES: dict[str, Callable[[], list[Any]]] = {
    "python": _stdlib,
    "rust": lambda: _registry(".rs"),
    "javascript": _npm,
    "java": _jdk,
    "go": _go,
    "c": lambda: _registry(".c"),
}


# The tests' small sample of each language (tests/data/code), for smoke runs on a machine
# without that language's sources.
SAMPLES = Path(__file__).resolve().parent.parent / "tests" / "data" / "code"
EXTENSIONS = {
    "python": "py",
    "rust": "rs",
    "javascript": "js",
    "java": "java",
    "go": "go",
    "c": "c",
}


def code_files(language: str, n_bytes: int, smoke: bool = False) -> list[str]:
    """Whole files of ``language`` up to about ``n_bytes``. A smoke run (which checks the
    chunkers, not their speed) falls back to the tests' sample; a timed run skips."""
    out: list[str] = []
    size = 0
    for item in SOURCES[language]():
        text = item[1] if isinstance(item, tuple) else item.read_text("utf-8", "replace")
        if not text.strip() or len(text) > 400_000:
            continue
        out.append(text)
        size += len(text.encode("utf-8"))
        if size >= n_bytes:
            break
    if not out and smoke:
        out = [(SAMPLES / f"sample.{EXTENSIONS[language]}").read_text("utf-8")]
    if not out:
        pytest.skip(f"no {language} sources on this machine")
    return out


@pytest.fixture(scope="session")
def per_language(request: pytest.FixtureRequest) -> int:
    return 60_000 if _smoke(request.config) else MB


# astchunk runs only the languages it names; the parse is its own row below.
PAIRS = [
    (lang, name)
    for lang in SOURCES
    for name in CODE_CONTENDERS
    if not name.startswith("tree-sitter") and (not name.startswith("astchunk") or lang in _ASTCHUNK)
]


@pytest.mark.parametrize(("language", "contender"), PAIRS)
def test_code_chunkers(benchmark, request, per_language, language, contender):  # type: ignore[no-untyped-def]
    try:
        run = CODE_CONTENDERS[contender][0](language, CAP)
    except ImportError as exc:
        pytest.skip(f"{contender} is not installed: {exc}")
    files = code_files(language, per_language, _smoke(request.config))
    size = sum(len(f.encode("utf-8")) for f in files)
    benchmark.group = f"code {language}"
    benchmark.extra_info["bytes"] = size
    results = benchmark.pedantic(run, (files,), rounds=1 if _smoke(request.config) else 5)
    assert len(results) == len(files)
    assert all(results)
    if contender.startswith("ferrochunk"):
        for source, pieces in zip(files, results, strict=True):
            assert "".join(t for t, _, _ in pieces) == source
    benchmark.extra_info.update(code_quality(files, language, results, CAP))
    if contender.startswith("ferrochunk"):
        assert benchmark.extra_info["over_cap"] == 0


@pytest.mark.parametrize("language", list(SOURCES))
def test_code_parse_floor(benchmark, request, per_language, language):  # type: ignore[no-untyped-def]
    """tree-sitter's bare parse of the same files: what any tree-sitter chunker pays."""
    files = code_files(language, per_language, _smoke(request.config))
    parse = CODE_CONTENDERS["tree-sitter parse (floor)"][0](language, CAP)
    benchmark.group = f"code {language}"
    benchmark.extra_info["bytes"] = sum(len(f.encode("utf-8")) for f in files)
    assert benchmark.pedantic(parse, (files,), rounds=5) == []


@pytest.mark.parametrize("size", ["small", "large"])
def test_code_is_linear(benchmark, request, size):  # type: ignore[no-untyped-def]
    """MB/s on one 100 KB file and one 10 MB file of Python (10 KB and 1 MB as smoke)."""
    smoke = _smoke(request.config)
    n = {"small": 100_000, "large": 10 * MB}[size] // (10 if smoke else 1)
    text = "\n".join(code_files("python", 2 * MB))
    while len(text) < n:
        text += "\n" + text
    text = text[:n]
    text = text[: text.rfind("\n") + 1]
    config = fc.Code(CAP, language="python")
    benchmark.group = "code linear"
    benchmark.extra_info["bytes"] = len(text.encode("utf-8"))
    chunks = benchmark.pedantic(lambda: fc.chunk_many([text], config, threads=1)[0], rounds=3)
    assert "".join(c.text for c in chunks) == text


_MEMORY = """
import json, sys
import ferrochunk as fc
text = open(sys.argv[1], encoding="utf-8").read()
before = int(open("/proc/self/status").read().split("VmRSS:")[1].split()[0]) * 1024
n = len(fc.chunk(text, fc.Code(512, language="python")))
peak = int(open("/proc/self/status").read().split("VmHWM:")[1].split()[0]) * 1024
print(json.dumps({"chunks": n, "before": before, "peak": peak}))
"""


def test_code_memory_per_source_byte(benchmark, request, tmp_path):  # type: ignore[no-untyped-def]
    """Peak RSS over the text already read, per source byte, on one 50 MB Python file
    (2 MB as a smoke test), in a fresh process."""
    n = (2 if _smoke(request.config) else 50) * MB
    text = "\n".join(code_files("python", 4 * MB))
    while len(text) < n:
        text += "\n" + text
    path = tmp_path / "big.py"
    path.write_text(text[:n], encoding="utf-8")
    benchmark.group = "code memory"

    def probe() -> dict[str, int]:
        out = subprocess.run(
            [sys.executable, "-c", _MEMORY, str(path)], capture_output=True, text=True, check=True
        )
        return dict(json.loads(out.stdout))

    result = benchmark.pedantic(probe, rounds=1, iterations=1)
    per_byte = (result["peak"] - result["before"]) / n
    benchmark.extra_info["bytes"] = n
    benchmark.extra_info["rss_per_source_byte"] = round(per_byte, 1)
    assert result["chunks"] > 0
