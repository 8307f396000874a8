"""The sync ledger beside the chunker it drives, one thread (RAYON_NUM_THREADS=1).

``chunk_many`` is the chunker alone; ``sync_new`` syncs the same documents into an empty
ledger (every chunk new: chunking plus record ids, the diff and the SQLite writes); and
``sync_unchanged`` syncs them again, the fast path that hashes each text and skips it. #54
asks for the changed path within 1.2x the chunker and the unchanged one at 200 MB/s or more.
Input: ``held_out`` cut into 10 KB documents (about 1 MB; 100 KB as a smoke test).

    RAYON_NUM_THREADS=1 .venv/bin/pytest benches/bench_ledger.py --benchmark-enable
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

import ferrochunk as fc

CONFIG = fc.Recursive(512)
_runs = itertools.count()


@pytest.fixture(scope="module")
def documents(held_out: str) -> dict[str, str]:
    step = 10_000
    return {
        f"doc-{i}": held_out[at : at + step] for i, at in enumerate(range(0, len(held_out), step))
    }


def test_chunk_many(benchmark: Any, documents: dict[str, str]) -> None:
    out = benchmark(fc.chunk_many, list(documents.values()), CONFIG, threads=1)
    assert sum(map(len, out)) > len(documents)


def test_sync_new(benchmark: Any, documents: dict[str, str], tmp_path: Path) -> None:
    def sync() -> int:
        path = tmp_path / f"new-{next(_runs)}.db"
        with fc.Ledger(path) as ledger, ledger.sync(documents, CONFIG) as changes:
            return len(changes.added)

    added = benchmark(sync)
    assert added == sum(map(len, fc.chunk_many(list(documents.values()), CONFIG)))


def test_sync_unchanged(benchmark: Any, documents: dict[str, str], tmp_path: Path) -> None:
    path = tmp_path / "index.db"
    with fc.Ledger(path) as ledger, ledger.sync(documents, CONFIG):
        pass

    def sync() -> int:
        with fc.Ledger(path) as ledger, ledger.sync(documents, CONFIG) as changes:
            assert changes.added == []
            return changes.kept

    assert benchmark(sync) > len(documents)
