"""Arrow batches: a column of documents in, a table of chunks out (``ferrochunk[arrow]``).

Rust reads each document's UTF-8 bytes in place from the column's buffers (read-only numpy
views of pyarrow's memory, through the buffer protocol) and returns flat arrays that
pyarrow wraps without copying: no Python ``str`` or ``Chunk`` is built per document.

>>> import pyarrow as pa, ferrochunk as fc
>>> from ferrochunk.arrow import chunk_table
>>> docs = pa.table({"id": [1, 2], "text": ["one two three", None]})
>>> chunk_table(docs, fc.TokenWindows(2), keep_columns=["id"]).column("text").to_pylist()
['one two', ' three']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from . import _native
from . import _rows as L
from ._caps import reserved
from ._support.optional import require
from ._support.validate import describe
from .config import Config
from .errors import ConfigError, ConfigTypeError, InputTypeError
from .ids import record_key
from .pipeline import _require_config, _threads, _tokenizer
from .tokenizers import Tokenizer

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["CHUNK_COLUMNS", "TableDiff", "chunk_schema", "chunk_table", "diff_tables"]

CHUNK_COLUMNS = (
    "chunk_index",
    "text",
    "char_start",
    "char_end",
    "byte_start",
    "byte_end",
    "token_start",
    "token_end",
    "token_count",
    "chunk_id",
)
"""The columns every chunk table has, after the kept columns and before the metadata."""

RESERVED_COLUMNS = frozenset(CHUNK_COLUMNS) | {
    "record_id",
    "oversize",
    "overlap_tokens",
    "overlap_chars",
    "overlap_spans",
    "spans",
    "children",
    "headings",
    "headings_truncated",
    "context",
}
"""Every column a chunk table may have besides the kept ones (no kept column may use one)."""


def native_tokenizer(config: Config, tokenizer: Tokenizer | str | None) -> Tokenizer:
    """The call's tokenizer, or a ``ConfigError`` when it does not run natively."""
    tok = _tokenizer(config, tokenizer)
    if tok._native_source is None:
        raise ConfigError(
            "chunking Arrow data needs a native tokenizer (cl100k, o200k, or a tokenizer.json run "
            f"natively), got {tok!r}"
        )
    return tok


def check_columns(
    text_column: Any, keep_columns: Any, names: Sequence[str], where: str
) -> tuple[str, ...]:
    """``keep_columns`` as a tuple, once the text and kept columns are known to be in
    ``names`` (the columns of the ``where``: a table, a data frame) and no kept column
    clashes with a chunk column."""
    if not isinstance(text_column, str):
        raise ConfigTypeError(f"text_column must be a str, got {describe(text_column)}")
    if isinstance(keep_columns, str) or not isinstance(keep_columns, Sequence):
        raise ConfigTypeError(
            f"keep_columns must be a sequence of column names, got {describe(keep_columns)}"
        )
    for name in (text_column, *keep_columns):
        if name not in names:
            raise ConfigError(f"column {name!r} is not in the {where} (columns: {list(names)})")
    for name in keep_columns:
        if name in RESERVED_COLUMNS:
            raise ConfigError(f"keep_columns entry {name!r} would clash with a chunk column")
    return tuple(keep_columns)


# Table columns of the native rows (see rust/contracts/stream.rs).
_SCALAR_METADATA = {
    name: L.COL[name] for name in ("oversize", "overlap_tokens", "overlap_chars", "overlap_spans")
}


def _offset_fields(pa: Any) -> list[Any]:
    return [
        pa.field("chunk_index", pa.int64()),
        pa.field("text", pa.large_string()),
        *(pa.field(name, pa.int64()) for name in CHUNK_COLUMNS[2:-1]),
        pa.field("chunk_id", pa.large_string()),
    ]


def _metadata_fields(pa: Any, keys: Sequence[str], child_keys: Sequence[str]) -> list[Any]:
    out = []
    for key in keys:
        if key == "oversize":
            out.append(pa.field(key, pa.bool_()))
        elif key in _SCALAR_METADATA:
            out.append(pa.field(key, pa.int64()))
        elif key == "spans":
            span = pa.struct([("char_start", pa.int64()), ("char_end", pa.int64())])
            out.append(pa.field(key, pa.list_(span)))
        elif key == "children":
            kid = _offset_fields(pa) + _metadata_fields(
                pa, [k for k in child_keys if k != "parent"], ()
            )
            out.append(pa.field(key, pa.list_(pa.struct(kid))))
        elif key == "headings":
            heading = pa.struct([("level", pa.int32()), ("title", pa.large_string())])
            out.append(pa.field(key, pa.list_(heading)))
        elif key == "scopes":
            scope = pa.struct([("kind", pa.large_string()), ("name", pa.large_string())])
            out.append(pa.field(key, pa.list_(scope)))
        elif key in ("headings_truncated", "context_truncated"):
            out.append(pa.field(key, pa.bool_()))
        elif key == "context":
            out.append(pa.field(key, pa.large_string()))
    return out


def chunk_schema(
    config: Config, keep: Sequence[Any] = (), *, record_ids: bool = False
) -> pa.Schema:
    """The schema of :func:`chunk_table`'s result for ``config``, after the ``keep`` fields
    (with ``record_ids``, a ``record_id`` column after ``chunk_id``).

    >>> import ferrochunk as fc
    >>> chunk_schema(fc.Recursive(512)).names[-3:]
    ['token_count', 'chunk_id', 'oversize']
    """
    pa = require("pyarrow", "arrow")
    ids = [pa.field("record_id", pa.large_string())] if record_ids else []
    return pa.schema(
        [
            *keep,
            *_offset_fields(pa),
            *ids,
            *_metadata_fields(pa, config._metadata, config._child_metadata),
        ]
    )


def _column(rows: np.ndarray[Any, Any], k: int) -> np.ndarray[Any, Any]:
    return np.ascontiguousarray(rows[:, k])


def _strings(pa: Any, text: np.ndarray[Any, Any], offsets: np.ndarray[Any, Any]) -> Any:
    """A ``large_string`` array over Rust's text buffer, without copying it."""
    return pa.LargeStringArray.from_buffers(
        len(offsets) - 1, pa.py_buffer(offsets), pa.py_buffer(text)
    )


def _ids(pa: Any, ids: np.ndarray[Any, Any]) -> Any:
    """A ``large_string`` array over Rust's buffer of 32-digit ids, without copying it."""
    n = len(ids) // 32
    offsets = np.arange(0, 32 * (n + 1), 32, dtype=np.int64)
    return pa.LargeStringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(ids))


def _chunk_columns(pa: Any, part: Any) -> dict[str, Any]:
    rows, text, offsets = part.table, part.text, part.offsets
    return {
        "chunk_index": pa.array(_column(rows, L.INDEX)),
        "text": _strings(pa, text, offsets),
        "char_start": pa.array(_column(rows, L.CHAR_START)),
        "char_end": pa.array(_column(rows, L.CHAR_END)),
        "byte_start": pa.array(_column(rows, L.BYTE_START)),
        "byte_end": pa.array(_column(rows, L.BYTE_END)),
        "token_start": pa.array(_column(rows, L.TOKEN_START)),
        "token_end": pa.array(_column(rows, L.TOKEN_END)),
        "token_count": pa.array(_column(rows, L.TOKEN_END) - _column(rows, L.TOKEN_START)),
        "chunk_id": _ids(pa, part.ids),
    }


def _metadata_columns(
    pa: Any, keys: Sequence[str], rows: Any, columns: dict[str, Any]
) -> dict[str, Any]:
    out = {}
    for key in keys:
        if key in _SCALAR_METADATA:
            values = _column(rows, _SCALAR_METADATA[key])
            out[key] = pa.array(values.astype(bool) if key == "oversize" else values)
        elif key in columns:
            out[key] = columns[key]
    return out


def _list_offsets(counts_at: np.ndarray[Any, Any], total: int) -> Any:
    return np.append(counts_at, total).astype(np.int32)


def _part(
    pa: Any, config: Config, out: Any, row_base: int
) -> tuple[np.ndarray[Any, Any], dict[str, Any]]:
    """The columns of one native result; the documents' row numbers come first."""
    docs, rows = out.top.docs, out.top.table
    spans, kids, meta = out.spans, out.children, out.meta or []
    columns = _chunk_columns(pa, out.top)
    extra: dict[str, Any] = {}
    if "headings" in config._metadata:
        heading = pa.struct([("level", pa.int32()), ("title", pa.large_string())])
        extra["headings"] = pa.array(
            [[{"level": lv, "title": t} for lv, t in m.headings] for m in meta],
            type=pa.list_(heading),
        )
        extra["headings_truncated"] = pa.array([m.truncated for m in meta], type=pa.bool_())
        extra["context"] = pa.array([m.context for m in meta], type=pa.large_string())
    if "scopes" in config._metadata:
        scope = pa.struct([("kind", pa.large_string()), ("name", pa.large_string())])
        extra["scopes"] = pa.array(
            [[{"kind": k, "name": n} for k, n in m.scopes] for m in meta], type=pa.list_(scope)
        )
        extra["context_truncated"] = pa.array([m.truncated for m in meta], type=pa.bool_())
        extra["context"] = pa.array([m.context for m in meta], type=pa.large_string())
    if "spans" in config._metadata:
        values = pa.StructArray.from_arrays(
            [
                pa.array(_column(spans, L.SPAN_CHAR_START)),
                pa.array(_column(spans, L.SPAN_CHAR_END)),
            ],
            names=["char_start", "char_end"],
        )
        starts = _column(rows, L.SPAN_START)
        extra["spans"] = pa.ListArray.from_arrays(_list_offsets(starts, len(spans)), values)
    if "children" in config._metadata:
        kid_rows = kids.table
        kid_columns = _chunk_columns(pa, kids)
        kid_columns.update(_metadata_columns(pa, config._child_metadata, kid_rows, {}))
        kid_columns.pop("parent", None)
        values = pa.StructArray.from_arrays(list(kid_columns.values()), names=list(kid_columns))
        # Children follow their parent: find each parent's first child by (document, index).
        kid_keys = (kids.docs << 32) | _column(kid_rows, L.PARENT)
        keys = (docs << 32) | _column(rows, L.INDEX)
        at = np.searchsorted(kid_keys, keys)
        extra["children"] = pa.ListArray.from_arrays(_list_offsets(at, len(kid_rows)), values)
    columns.update(_metadata_columns(pa, config._metadata, rows, extra))
    return docs + row_base, columns


def _text_arrays(pa: Any, data: Any, text_column: str) -> list[Any]:
    """The column's chunks as ``string``/``large_string`` arrays."""
    column = data.column(text_column)
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    out = []
    for array in chunks:
        kind = array.type
        if pa.types.is_string_view(kind):
            array = array.cast(pa.large_string())
        elif not (pa.types.is_string(kind) or pa.types.is_large_string(kind)):
            raise ConfigError(
                f"text_column {text_column!r} must be a string column, got type {kind}"
            )
        out.append(array)
    return out


def _view(buffer: Any, dtype: Any) -> np.ndarray[Any, Any]:
    """A read-only numpy view of an Arrow buffer (empty for a missing one)."""
    if buffer is None:
        return np.zeros(0, dtype=dtype)
    view = np.frombuffer(buffer, dtype=dtype)
    if view.flags.writeable:  # never for pyarrow's buffers; copy rather than share
        view = view.copy()
        view.flags.writeable = False
    return view


def chunk_table(
    data: pa.Table | pa.RecordBatch,
    config: Config,
    *,
    text_column: str = "text",
    keep_columns: Sequence[str] = (),
    tokenizer: Tokenizer | str | None = None,
    threads: int | None = None,
    id_column: str | None = None,
) -> pa.Table:
    """One row per chunk of each document in ``data[text_column]``.

    Columns: ``keep_columns`` of the source row (a document id, say), then
    :data:`CHUNK_COLUMNS`, then the config's metadata (``oversize``, ``overlap_tokens``,
    ``spans`` as a list of ``{char_start, char_end}``, ``children`` as a list of child
    chunks, ...). Null documents give no rows. ``string``, ``large_string`` and
    ``string_view`` columns work, sliced and chunked ones included. The embedded
    tokenizers only (``cl100k``, ``o200k``). Needs the ``[arrow]`` extra.

    ``id_column`` names a kept string column of document ids, one row per document: each
    chunk then gets its ``record_id`` (:func:`ferrochunk.ids.record_id`), the key
    :func:`diff_tables` and a vector store's upsert go by.

    >>> import pyarrow as pa
    >>> import ferrochunk as fc
    >>> from ferrochunk.arrow import chunk_table
    >>> docs = pa.table({"id": [7, 8], "text": ["One. Two three four.", None]})
    >>> rows = chunk_table(docs, fc.Recursive(4), keep_columns=["id"])
    >>> rows.column_names[:4]
    ['id', 'chunk_index', 'text', 'char_start']
    >>> rows.select(["id", "text", "char_start", "token_count"]).to_pylist()[1]
    {'id': 7, 'text': 'Two three four.', 'char_start': 5, 'token_count': 4}
    """
    pa = require("pyarrow", "arrow")
    if not isinstance(data, pa.Table | pa.RecordBatch):
        raise InputTypeError(f"data must be a pyarrow Table or RecordBatch, got {describe(data)}")
    config = _require_config(config)
    tok = native_tokenizer(config, tokenizer)
    source = tok._native_source
    assert source is not None  # native_tokenizer checked it
    config = reserved(config, tok)
    threads = _threads(threads)
    keep_columns = check_columns(text_column, keep_columns, data.schema.names, "table")
    if id_column is not None:
        _check_id_column(pa, data.schema, id_column, keep_columns)
        _check_unique(pa, data, id_column)
    spec = config
    parts = []
    row_base = 0
    for array in _text_arrays(pa, data, text_column):
        validity, offsets, text = array.buffers()[:3]
        offset_type = np.int64 if pa.types.is_large_string(array.type) else np.int32
        out = _native.chunk_arrow(
            _view(text, np.uint8),
            _view(offsets, offset_type),
            None if validity is None else _view(validity, np.uint8),
            array.offset,
            len(array),
            spec,
            source,
            threads,
        )
        parts.append(_part(pa, config, out, row_base))
        row_base += len(array)
    kept = [data.schema.field(name) for name in keep_columns]
    schema = chunk_schema(config, kept, record_ids=id_column is not None)
    docs = np.concatenate([d for d, _ in parts]) if parts else np.zeros(0, dtype=np.int64)
    index = pa.array(docs)
    columns = []
    for field in schema:
        if field.name in keep_columns:
            columns.append(data.column(field.name).take(index))
        elif field.name == "record_id":
            chunk_ids = pa.chunked_array([part["chunk_id"] for _, part in parts], pa.large_string())
            doc_ids = data.column(id_column).take(index)
            columns.append(_record_ids(pa, docs, doc_ids, chunk_ids))
        else:
            arrays = [part[field.name] for _, part in parts]
            columns.append(pa.chunked_array(arrays, type=field.type))
    return pa.Table.from_arrays(columns, schema=schema)


def _check_id_column(pa: Any, schema: Any, id_column: Any, keep_columns: Sequence[str]) -> None:
    if not isinstance(id_column, str):
        raise ConfigTypeError(f"id_column must be a str or None, got {describe(id_column)}")
    if id_column not in keep_columns:
        raise ConfigError(f"id_column {id_column!r} must be one of keep_columns {keep_columns}")
    kind = schema.field(id_column).type
    if not (pa.types.is_string(kind) or pa.types.is_large_string(kind)):
        raise ConfigError(f"id_column {id_column!r} must be a string column, got type {kind}")


def _check_unique(pa: Any, data: Any, id_column: str) -> None:
    """One row per document: two rows with one id would share record ids."""
    pc = require("pyarrow.compute", "arrow")
    column = data.column(id_column)
    if pc.count_distinct(column).as_py() < len(column) - column.null_count:
        counts = pc.value_counts(column).to_pylist()
        twice = next(c["values"] for c in counts if c["counts"] > 1)
        raise ConfigError(
            f"id_column {id_column!r} holds {twice!r} more than once: record ids need one row "
            "per document (join a document's parts first)"
        )


def _record_ids(pa: Any, docs: Any, doc_ids: Any, chunk_ids: Any) -> Any:
    """Each row's record id: its document id, chunk id, and how many rows of the same
    document before it have that chunk id (rows come in chunk order within a document)."""
    n = len(docs)
    chunk_id_list = chunk_ids.to_pylist()
    ids = np.array(chunk_id_list, dtype="S32") if n else np.zeros(0, dtype="S32")
    # Sorted by (document, chunk id, row): each group's rows in order, numbered from 0.
    order = np.lexsort((np.arange(n), ids, docs))
    fresh = np.ones(n, dtype=bool)
    fresh[1:] = (docs[order][1:] != docs[order][:-1]) | (ids[order][1:] != ids[order][:-1])
    starts = np.maximum.accumulate(np.where(fresh, np.arange(n), 0))
    occurrence = np.empty(n, dtype=np.int64)
    occurrence[order] = np.arange(n) - starts
    keys = []
    for doc, cid, k in zip(doc_ids.to_pylist(), chunk_id_list, occurrence.tolist(), strict=True):
        if doc is None:
            raise ConfigError("id_column has a null document id where a document has text")
        keys.append(record_key(doc, cid, k))
    return pa.chunked_array([pa.array(_native.hash_ids(keys), pa.large_string())])


class TableDiff(NamedTuple):
    """Rows of the new chunk table whose record id the old lacks (to embed), and rows of
    the old whose record id the new lacks (to delete).

    >>> import pyarrow as pa
    >>> empty = pa.table({"record_id": pa.array([], pa.large_string())})
    >>> TableDiff(empty, empty).added.num_rows
    0
    """

    added: pa.Table
    removed: pa.Table


def diff_tables(old: pa.Table, new: pa.Table) -> TableDiff:
    """The stateless diff of two chunk tables by ``record_id`` (``chunk_table(...,
    id_column=...)``): an anti-join each way, the same join Spark and Dask run at scale
    (``docs/incremental.md``).

    >>> import pyarrow as pa, ferrochunk as fc
    >>> def table(text):
    ...     docs = pa.table({"doc": ["a.md"], "text": [text]})
    ...     return chunk_table(docs, fc.Recursive(4), keep_columns=["doc"], id_column="doc")
    >>> diff = diff_tables(table("One. Two. Three."), table("One. Two! Three."))
    >>> diff.added.column("text").to_pylist(), diff.removed.column("text").to_pylist()
    (['Two! Three.'], ['Two. Three.'])
    """
    pa = require("pyarrow", "arrow")
    for name, table in (("old", old), ("new", new)):
        if not isinstance(table, pa.Table):
            raise InputTypeError(f"{name} must be a pyarrow Table, got {describe(table)}")
        if "record_id" not in table.schema.names:
            raise ConfigError(
                f"the {name} table has no record_id column: chunk it with "
                "chunk_table(..., id_column=...)"
            )
    pc = require("pyarrow.compute", "arrow")

    def only_in(a: Any, b: Any) -> Any:
        # An anti-join on the key alone (Arrow's joins refuse nested columns), in row order.
        both = pc.is_in(a.column("record_id"), value_set=b.column("record_id").combine_chunks())
        return a.filter(pc.invert(both))

    return TableDiff(only_in(new, old), only_in(old, new))
