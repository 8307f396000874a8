"""Bench inputs: the shared corpus when it sits beside the repo, else the bundled sample."""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import pytest

# Upstream's own code is measured only where a checkout was named (`make bench-upstream`).
_UPSTREAM = ("FERROCHUNK_UPSTREAM_RAGFLOW", "FERROCHUNK_UPSTREAM_DIFY")
collect_ignore = [] if any(os.environ.get(v) for v in _UPSTREAM) else ["bench_upstream.py"]

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "corpus"
BUNDLED = ROOT / "tests" / "data" / "corpus"

# (shared corpus file, bundled fallback, bytes taken): English prose, Chinese, code + Markdown.
_MIX = [
    ("en/shakespeare-comedies.md", "en__shakespeare-comedies.md.gz", 400_000),
    ("zh/debian-handbook-zh-cn.txt", "zh__debian-handbook-zh-cn.txt.gz", 300_000),
    ("mixed/rust-book.md", "mixed__rust-book.md.gz", 300_000),
]


def _read(shared: str, bundled: str) -> str:
    if (SHARED / shared).exists():
        return (SHARED / shared).read_text(encoding="utf-8")
    return gzip.decompress((BUNDLED / bundled).read_bytes()).decode("utf-8")


def _cut(text: str, n_bytes: int) -> str:
    return text.encode("utf-8")[:n_bytes].decode("utf-8", "ignore")


@pytest.fixture(scope="session")
def corpus_source() -> str:
    return "shared corpus" if SHARED.exists() else "bundled sample"


def _smoke(config: pytest.Config) -> bool:
    """Benchmarks disabled: the benches run once as smoke tests, on smaller inputs."""
    return bool(config.getoption("benchmark_disable")) and not config.getoption("benchmark_enable")


@pytest.fixture(scope="session")
def multilingual(request: pytest.FixtureRequest) -> str:
    """About 1 MB of mixed text (100 KB when benchmarks are disabled, as smoke tests)."""
    scale = 10 if _smoke(request.config) else 1
    return "".join(_cut(_read(s, b), n // scale) for s, b, n in _MIX)


# Files no bench read while its code was tuned (English, Chinese, Chinese Markdown): a
# speed claim must hold here too. Only with the shared corpus; the bundled sample otherwise.
_HELD_OUT = [
    ("en/debian-faq-en.txt", 400_000),
    ("zh/debian-reference-zh-cn.txt", 300_000),
    ("mixed/d2l-zh-part2.md", 300_000),
]


@pytest.fixture(scope="session")
def held_out(request: pytest.FixtureRequest, multilingual: str) -> str:
    """About 1 MB of mixed text the benches were not tuned on (``multilingual`` without
    the shared corpus, or as a smoke test)."""
    if _smoke(request.config) or not SHARED.exists():
        return multilingual
    return "".join(_cut((SHARED / name).read_text(encoding="utf-8"), n) for name, n in _HELD_OUT)


BLOCK = 64 * 1024


def _blocks(text: str) -> list[str]:
    """``text`` as documents of about BLOCK bytes, cut at character boundaries."""
    data = text.encode("utf-8")
    out, at = [], 0
    while at < len(data):
        end = min(at + BLOCK, len(data))
        while end < len(data) and (data[end] & 0xC0) == 0x80:
            end += 1
        out.append(data[at:end].decode("utf-8"))
        at = end
    return out


@pytest.fixture(scope="session")
def corpus_blocks(request: pytest.FixtureRequest, multilingual: str) -> list[str]:
    """The whole shared corpus as 64 KB documents (the multilingual text as a smoke test,
    or without the shared corpus)."""
    if _smoke(request.config) or not SHARED.exists():
        return _blocks(multilingual)
    files = sorted(p for p in SHARED.rglob("*") if p.is_file() and p.name != "MANIFEST.md")
    return [b for p in files for b in _blocks(p.read_text(encoding="utf-8"))]


@pytest.fixture(scope="session")
def documents(multilingual: str) -> list[str]:
    """The multilingual text as 32 documents, for the batch benchmarks."""
    size = len(multilingual) // 32 + 1
    return [multilingual[i : i + size] for i in range(0, len(multilingual), size)]
