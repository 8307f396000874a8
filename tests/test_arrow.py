"""chunk_table: Arrow in, Arrow out, equal to chunk_many on the same documents."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import ferrochunk as fc
from ferrochunk.errors import ConfigError, InputTypeError

pa = pytest.importorskip("pyarrow", reason="test extra: pyarrow")
from ferrochunk.arrow import CHUNK_COLUMNS, chunk_table  # noqa: E402
from ferrochunk.records import record  # noqa: E402

CONFIGS = [
    fc.TokenWindows(6, overlap_tokens=2),
    fc.Recursive(7, overlap_tokens=1),
    fc.SentenceWindows(8),
    fc.DelimiterMerge(5, delimiters=("\n", ". "), child_delimiters=(",",), overlap=20),
    fc.ParentChild(fc.Recursive(12), child=fc.Recursive(4)),
    fc.Markdown(16, overlap_tokens=2),
]
DOCS = [
    "One sentence, then another. And a third\nline.",
    None,
    "",
    "你好，世界。这是第二句。😀 emoji, too.",
    "word " * 40,
    "# Title\n\nIntro words here.\n\n## Part\n\n| a | b |\n|---|---|\n| 1 | 2 |\n" * 3,
]


def _expected(config, docs, ids):
    """chunk_many's chunks as the rows chunk_table should give."""
    texts = [d for d in docs if d is not None]
    kept = [i for i, d in zip(ids, docs, strict=True) if d is not None]
    return [
        {"id": doc_id, **record(c, config)}
        for doc_id, chunks in zip(kept, fc.chunk_many(texts, config), strict=True)
        for c in chunks
    ]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: type(c).__name__)
@pytest.mark.parametrize("large", [False, True])
def test_equals_chunk_many(config, large):
    kind = pa.large_string() if large else pa.string()
    table = pa.table({"id": list(range(len(DOCS))), "text": pa.array(DOCS, kind)})
    got = chunk_table(table, config, keep_columns=["id"])
    assert got.schema.names[: 1 + len(CHUNK_COLUMNS)] == ["id", *CHUNK_COLUMNS]
    assert got.to_pylist() == _expected(config, DOCS, list(range(len(DOCS))))


def test_sliced_chunked_batches_and_views():
    config = CONFIGS[0]
    docs = ["alpha beta gamma", None, "delta epsilon", "zeta eta theta iota"] * 3
    ids = list(range(len(docs)))
    table = pa.table({"id": ids, "text": docs})
    expected = _expected(config, docs, ids)
    # A chunked column, each chunk a slice with a non-zero offset.
    chunked = pa.concat_tables([table.slice(0, 5), table.slice(5, 4), table.slice(9)])
    assert chunked.column("text").num_chunks == 3
    assert chunk_table(chunked, config, keep_columns=["id"]).to_pylist() == expected
    sliced = table.slice(3, 6)
    want = [r for r in expected if 3 <= r["id"] < 9]
    assert chunk_table(sliced, config, keep_columns=["id"]).to_pylist() == want
    batch = table.to_batches()[0]
    assert chunk_table(batch, config, keep_columns=["id"]).to_pylist() == expected
    views = pa.table({"id": ids, "text": pa.array(docs, pa.string_view())})
    assert chunk_table(views, config, keep_columns=["id"]).to_pylist() == expected


@given(st.lists(st.one_of(st.none(), st.text(max_size=40)), max_size=12), st.integers(0, 5))
def test_any_documents_any_offset(docs, start):
    table = pa.table({"id": list(range(len(docs))), "text": pa.array(docs, pa.string())})
    got = chunk_table(table.slice(start), CONFIGS[1], keep_columns=["id"])
    ids = list(range(len(docs)))[start:]
    assert got.to_pylist() == _expected(CONFIGS[1], docs[start:], ids)


def test_empty_and_all_null_tables():
    config = CONFIGS[3]
    empty = chunk_table(pa.table({"text": pa.array([], pa.string())}), config)
    assert empty.num_rows == 0
    assert "spans" in empty.schema.names
    nulls = chunk_table(pa.table({"text": pa.array([None, None], pa.string())}), config)
    assert nulls.num_rows == 0
    assert nulls.schema == empty.schema


def test_bad_columns_name_the_column():
    table = pa.table({"id": [1], "body": ["text"], "n": [1]})
    with pytest.raises(ConfigError, match="column 'text' is not in the table"):
        chunk_table(table, CONFIGS[0])
    with pytest.raises(ConfigError, match="'n' must be a string column, got type int64"):
        chunk_table(table, CONFIGS[0], text_column="n")
    with pytest.raises(ConfigError, match="column 'nope' is not in the table"):
        chunk_table(table, CONFIGS[0], text_column="body", keep_columns=["nope"])
    with pytest.raises(ConfigError, match="'text' would clash"):
        chunk_table(
            pa.table({"body": ["x"], "text": ["y"]}),
            CONFIGS[0],
            text_column="body",
            keep_columns=["text"],
        )
    with pytest.raises(InputTypeError, match="pyarrow Table or RecordBatch"):
        chunk_table({"text": ["a"]}, CONFIGS[0])
    tok = fc.Tokenizer.from_callable(lambda t: ([], []))
    with pytest.raises(ConfigError, match="needs a native tokenizer"):
        chunk_table(pa.table({"text": ["a"]}), CONFIGS[0], tokenizer=tok)


def test_the_core_copies_writeable_and_strided_buffers_it_is_handed():
    """`_native.chunk_arrow` given a writeable data array (which another thread could change
    while Rust reads it detached) or a strided one reads a copy, with the same rows as a
    read-only contiguous buffer."""
    import numpy as np

    from ferrochunk import _native

    texts = ["one two three four", "five six seven"]
    data = np.frombuffer("".join(texts).encode(), dtype=np.uint8).copy()
    offsets = np.array([0, len(texts[0]), len(texts[0]) + len(texts[1])], dtype=np.int32)
    config = fc.TokenWindows(2)

    def rows(buffer):
        top = _native.chunk_arrow(buffer, offsets, None, 0, 2, config, "cl100k").top
        return top.table.tolist(), bytes(top.text)

    readonly = data.copy()
    readonly.flags.writeable = False
    assert data.flags.writeable
    expected = rows(readonly)
    assert expected[1] == "".join(texts).encode()
    assert rows(data) == expected
    strided = np.repeat(data, 2)[::2]
    assert not strided.flags.c_contiguous
    assert rows(strided) == expected
