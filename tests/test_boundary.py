"""What crosses from Rust to Python is named: a batch, a row's meta and an Arrow result
have fields, not positions, and the reference's rows have the same fields."""

from __future__ import annotations

import numpy as np
import pytest

import ferrochunk as fc
from ferrochunk import _native
from ferrochunk.reference.rows import RowMeta, Rows

TEXT = "# Intro\n\nOne two three.\n\n## Part\n\n" + "Four five six seven eight nine ten. " * 8


def _fields(obj: object) -> set[str]:
    return {name for name in dir(obj) if not name.startswith("_")}


def test_a_native_batch_has_the_reference_rows_fields_and_no_positions():
    batch = _native.chunk(TEXT, fc.Markdown(16), encoding="cl100k")
    assert set(Rows._fields) <= _fields(batch)
    with pytest.raises(TypeError):
        batch[0]  # type: ignore[index]
    assert batch.table.shape == (len(batch.texts), len(_native.ROW_COLUMNS))
    assert batch.spans.shape[1] == len(_native.SPAN_ROW_COLUMNS)
    assert batch.next_start is None
    assert batch.meta is not None
    assert len(batch.meta) == len(batch.texts)
    meta = batch.meta[-1]
    assert set(RowMeta._fields) <= _fields(meta)
    assert meta.headings == ((1, "Intro"), (2, "Part"))
    assert meta.truncated is False
    assert meta.context.startswith("# Intro")
    assert meta.scopes == ()
    with pytest.raises(AttributeError):
        meta.context = "x"  # type: ignore[misc]


def test_a_config_without_structure_has_no_meta():
    assert _native.chunk("one two three", fc.TokenWindows(2), encoding="cl100k").meta is None


def test_the_reference_batch_equals_the_native_one_field_by_field():
    from ferrochunk.reference import _twins

    config = fc.Markdown(16)
    native = _native.chunk(TEXT, config, encoding="cl100k")
    ref = _twins.run(TEXT, config, fc.Tokenizer.cl100k())
    assert np.asarray(ref.table).tolist() == native.table.tolist()
    assert ref.texts == native.texts
    assert ref.meta is not None
    assert native.meta is not None
    assert [tuple(m) for m in ref.meta] == [
        (m.headings, m.truncated, m.context, m.scopes) for m in native.meta
    ]


def test_chunk_arrow_returns_named_parts():
    texts = ["one two three four", "five six"]
    data = np.frombuffer("".join(texts).encode(), dtype=np.uint8).copy()
    data.flags.writeable = False
    offsets = np.array([0, len(texts[0]), len(texts[0]) + len(texts[1])], dtype=np.int32)
    config = fc.ParentChild(fc.Recursive(8), child=fc.Recursive(2))
    out = _native.chunk_arrow(data, offsets, None, 0, 2, config, "cl100k")
    for part in (out.top, out.children):
        assert len(part.offsets) == len(part.table) + 1
        assert len(part.docs) == len(part.table)
        assert int(part.offsets[-1]) == len(part.text)
    assert out.top.docs.tolist() == [0, 1]
    assert bytes(out.top.text) == "".join(texts).encode()
    assert len(out.children.table) > len(out.top.table)
    assert out.meta is None
