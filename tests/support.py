"""Paths and readers for the bundled test data (a clean clone has no shared corpus)."""

from __future__ import annotations

import gzip
from pathlib import Path

DATA = Path(__file__).parent / "data"


def corpus_files() -> list[Path]:
    """The bundled corpus sample."""
    return sorted((DATA / "corpus").glob("*.gz"))


def read_corpus(path: Path) -> str:
    return gzip.decompress(path.read_bytes()).decode("utf-8")
