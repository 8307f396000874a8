"""Writes the documents `make bench-peers` measures: the mixed text of `conftest.py` (English
prose, Chinese, code + Markdown; about 1 MB), one file per language, into a folder."""

from __future__ import annotations

import sys
from pathlib import Path

from conftest import _MIX, _cut, _read


def main(folder: str) -> None:
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    for shared, bundled, n_bytes in _MIX:
        name = shared.replace("/", "__")
        (out / name).write_text(_cut(_read(shared, bundled), n_bytes), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1])
