"""Writes the documents `make bench-peers` measures: the mixed text of `conftest.py` (English
prose, Chinese, code + Markdown; about 1 MB), one file per language, into a folder; with
``--markdown``, about 1 MB of real Markdown instead (the Rust book, RAGFlow's docs, d2l-zh:
340 KB each, cut at a line), for the Markdown rows."""

from __future__ import annotations

import sys
from pathlib import Path

from conftest import _MIX, _cut, _read

MARKDOWN = [
    ("mixed/rust-book.md", "mixed__rust-book.md.gz", 340_000),
    ("mixed/ragflow-docs.md", "mixed__ragflow-docs.md.gz", 340_000),
    ("mixed/d2l-zh-part1.md", "mixed__d2l-zh-part1.md.gz", 340_000),
]


def main(folder: str, markdown: bool = False) -> None:
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    for shared, bundled, n_bytes in MARKDOWN if markdown else _MIX:
        name = shared.replace("/", "__")
        text = _cut(_read(shared, bundled), n_bytes)
        if markdown:
            text = text[: text.rfind("\n") + 1]
        (out / name).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1], "--markdown" in sys.argv[2:])
