"""Bench inputs: the shared corpus when it sits beside the repo, else the bundled sample."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

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


@pytest.fixture(scope="session")
def multilingual(request: pytest.FixtureRequest) -> str:
    """About 1 MB of mixed text (100 KB when benchmarks are disabled, as smoke tests)."""
    smoke = request.config.getoption("benchmark_disable") and not request.config.getoption(
        "benchmark_enable"
    )
    scale = 10 if smoke else 1
    return "".join(_cut(_read(s, b), n // scale) for s, b, n in _MIX)


@pytest.fixture(scope="session")
def documents(multilingual: str) -> list[str]:
    """The multilingual text as 32 documents, for the batch benchmarks."""
    size = len(multilingual) // 32 + 1
    return [multilingual[i : i + size] for i in range(0, len(multilingual), size)]
