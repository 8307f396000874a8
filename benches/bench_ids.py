"""What chunk ids cost: chunking 1 MB beside hashing the same chunks' embedded text.

Each row pair runs one config on one thread over ``held_out`` (text no bench was tuned
on): ``chunk`` is the whole pipeline with ids, ``ids`` the Rust work the pipeline added for
them: the hashing of every chunk's ``context + text`` and a hex ``str`` per chunk
(``_native.hash_ids`` over the UTF-8, encoded beforehand; the pipeline hashes the same
bytes per row). The share ``ids / chunk`` is the cost of ids; #54 asks for under 3 %. With
``--benchmark-disable`` (the default, as smoke tests) each runs once and the ids are
checked against the chunks'.

    .venv/bin/pytest benches/bench_ids.py --benchmark-enable --benchmark-group-by=param:name
"""

from __future__ import annotations

from typing import Any

import pytest

import ferrochunk as fc
from ferrochunk import _native

CONFIGS = {
    "Recursive(512)": fc.Recursive(512),
    "Markdown(512)": fc.Markdown(512),
    "TokenWindows(512, 51)": fc.TokenWindows(512, overlap_tokens=51),
}


@pytest.mark.parametrize("name", CONFIGS)
def test_chunk(benchmark: Any, held_out: str, name: str) -> None:
    chunks = benchmark(fc.chunk, held_out, CONFIGS[name])
    assert chunks
    assert all(len(c.chunk_id) == 32 for c in chunks)


@pytest.mark.parametrize("name", CONFIGS)
def test_ids(benchmark: Any, held_out: str, name: str) -> None:
    chunks = fc.chunk(held_out, CONFIGS[name])
    data = [(c.metadata.get("context", "") + c.text).encode() for c in chunks]
    got = benchmark(_native.hash_ids, data)
    assert got == [c.chunk_id for c in chunks]
