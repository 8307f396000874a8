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


def sample_pages(count: int = 4, paragraphs: int = 40) -> dict[str, str]:
    """Source name to text: the small corpus the incremental integration tests edit."""
    return {
        f"page-{i}.md": "".join(
            f"Paragraph {k} of page {i} says one thing, then another.\n\n"
            for k in range(paragraphs)
        )
        for i in range(count)
    }


def edit(pages: dict[str, str]) -> None:
    """Grow one paragraph near the start of page 1: every later chunk of the page moves,
    and only the chunks around the edit change their text."""
    pages["page-1.md"] = pages["page-1.md"].replace(
        "Paragraph 2 of page 1", "Paragraph 2 of page 1, now longer,"
    )
