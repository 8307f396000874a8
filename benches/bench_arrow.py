"""Arrow and Ray Data: chunk_table against chunk_many (alone, and with the table a user
would build from its chunks) on the corpus, and Ray throughput.

The corpus is the shared 50 MB corpus as one table of 64 KB blocks (the bundled sample when
it is absent, and 1 MB as a smoke test). chunk_many gets the same blocks as ``str``s (made
before the clock starts) and returns ``Chunk`` objects; chunk_table returns an Arrow table.
Both run on rayon's global pool (``threads=None``: one thread under ``make bench``, which
pins RAYON_NUM_THREADS=1); Ray runs one and two single-threaded actors.
"""

from __future__ import annotations

import pytest

import ferrochunk as fc

pa = pytest.importorskip("pyarrow", reason="bench extra: pyarrow")
from ferrochunk.arrow import CHUNK_COLUMNS, chunk_table  # noqa: E402
from ferrochunk.records import record  # noqa: E402

CONFIG = fc.Recursive(512, overlap_tokens=51)


@pytest.fixture(scope="session")
def corpus_table(corpus_blocks: list[str]) -> pa.Table:
    return pa.table({"id": list(range(len(corpus_blocks))), "text": corpus_blocks})


def _bytes(benchmark, blocks: list[str], group: str) -> None:
    benchmark.group = group
    benchmark.extra_info["bytes"] = sum(len(b.encode("utf-8")) for b in blocks)


def test_chunk_table(benchmark, corpus_blocks, corpus_table):
    _bytes(benchmark, corpus_blocks, "arrow: chunk_table vs chunk_many")
    table = benchmark.pedantic(
        chunk_table, (corpus_table, CONFIG), {"keep_columns": ["id"]}, rounds=7, iterations=1
    )
    assert table.num_rows > 0
    first = [r for r in table.slice(0, 50).to_pylist() if r["id"] == 0]
    assert first == [{"id": 0, **record(c, CONFIG)} for c in fc.chunk(corpus_blocks[0], CONFIG)]


def test_chunk_many(benchmark, corpus_blocks):
    _bytes(benchmark, corpus_blocks, "arrow: chunk_table vs chunk_many")
    chunks = benchmark.pedantic(fc.chunk_many, (corpus_blocks, CONFIG), rounds=7, iterations=1)
    assert len(chunks) == len(corpus_blocks)


def _by_hand(blocks: list[str]) -> pa.Table:
    """What a user writes without chunk_table: chunk_many, then one list per column (a
    comprehension each, the fastest plain-Python way we found)."""
    out = fc.chunk_many(blocks, CONFIG)
    rows = [(doc, c) for doc, chunks in enumerate(out) for c in chunks]
    cols: dict[str, list[object]] = {"id": [doc for doc, _ in rows]}
    for name in CHUNK_COLUMNS:
        attr = "index" if name == "chunk_index" else name
        cols[name] = [getattr(c, attr) for _, c in rows]
    cols["oversize"] = [c.metadata["oversize"] for _, c in rows]
    return pa.table(cols)


def test_chunk_many_to_table(benchmark, corpus_blocks, corpus_table):
    _bytes(benchmark, corpus_blocks, "arrow: chunk_table vs chunk_many")
    table = benchmark.pedantic(_by_hand, (corpus_blocks,), rounds=7, iterations=1)
    native = chunk_table(corpus_table, CONFIG, keep_columns=["id"])
    assert table.column_names == native.column_names
    assert table.slice(0, 50).to_pylist() == native.slice(0, 50).to_pylist()


@pytest.fixture(scope="module")
def local_ray():
    ray = pytest.importorskip("ray", reason="bench extra: ray[data]")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield ray
    ray.shutdown()


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("workers", [1, 2])
def test_ray_chunk_dataset(benchmark, local_ray, corpus_blocks, corpus_table, workers):
    from ferrochunk.ray import chunk_dataset

    _bytes(benchmark, corpus_blocks, "ray data: 1 and 2 workers")
    # Several blocks, so that two actors both get work.
    step = max(corpus_table.num_rows // 8, 1)
    dataset = local_ray.data.from_arrow(
        [corpus_table.slice(i, step) for i in range(0, corpus_table.num_rows, step)]
    )

    def run() -> int:
        out = chunk_dataset(
            dataset, CONFIG, keep_columns=["id"], concurrency=workers, batch_size=64
        )
        return sum(batch.num_rows for batch in out.iter_batches(batch_format="pyarrow"))

    rows = benchmark.pedantic(run, rounds=1, iterations=1)
    assert rows == chunk_table(corpus_table, CONFIG).num_rows
