"""Dask: ``chunk_table`` over a Dask DataFrame's partitions (``ferrochunk[dask]``).

:func:`chunk_dataframe` maps each pandas partition to Arrow, chunks it in Rust and returns
it Arrow-backed (``pd.ArrowDtype``), so offsets stay ``int64`` and spans, children and
headings stay typed lists and structs. ``meta`` is the same function run on the empty
partition, so it matches what every partition returns. Each worker process builds the
config and tokenizer once (see ``_worker.py``); it runs on the default scheduler and on
``dask.distributed``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._support.optional import require
from ._support.validate import describe, require_int
from ._worker import ChunkStep
from .arrow import check_columns, native_tokenizer
from .config import Config
from .errors import ConfigError, InputTypeError
from .pipeline import _require_config
from .tokenizers import Tokenizer

__all__ = ["chunk_dataframe"]


class _Partition:
    """The ``map_partitions`` function: pandas in, Arrow-backed pandas out."""

    def __init__(self, step: ChunkStep) -> None:
        self.step = step

    def __call__(self, frame: Any) -> Any:
        pa = require("pyarrow", "arrow")
        pd = require("pandas", "dask")
        names = [self.step.text_column, *self.step.keep_columns]
        try:
            table = pa.Table.from_pandas(frame[names], preserve_index=False)
        except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
            raise InputTypeError(
                f"columns {names} must convert to Arrow (text_column "
                f"{self.step.text_column!r} holding str or None): {exc}"
            ) from exc
        for name in (self.step.text_column, self.step.id_column):
            if name is not None and pa.types.is_null(table.schema.field(name).type):
                # An object column of only None (or an empty partition) infers Arrow's null
                # type.
                at = table.schema.get_field_index(name)
                table = table.set_column(at, name, table.column(at).cast(pa.large_string()))
        return self.step(table).to_pandas(types_mapper=pd.ArrowDtype)


def _is_text(pd: Any, dtype: Any) -> bool:
    """A column that may hold text: ``str``, pandas strings, Arrow strings, or ``object``."""
    if isinstance(dtype, pd.ArrowDtype):
        pa = require("pyarrow", "arrow")
        kind = dtype.pyarrow_dtype
        return bool(
            pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_null(kind)
        )
    return bool(pd.api.types.is_string_dtype(dtype) or pd.api.types.is_object_dtype(dtype))


def chunk_dataframe(
    ddf: Any,
    config: Config,
    *,
    text_column: str = "text",
    keep_columns: Sequence[str] = (),
    tokenizer: Tokenizer | str | None = None,
    threads: int = 1,
    id_column: str | None = None,
) -> Any:
    """A Dask DataFrame with one row per chunk of each document in ``ddf[text_column]``.

    The columns and types are :func:`ferrochunk.arrow.chunk_table`'s, as ``pd.ArrowDtype``:
    ``keep_columns``, then the chunk's offsets and counts, then the config's metadata. Null
    texts give no rows; each partition's index runs from 0. Each task chunks with
    ``threads`` threads (default 1: Dask runs a task per worker thread). ``id_column`` (a
    kept string column of document ids) adds ``record_id``, as in ``chunk_table``.

    A missing or non-string column raises ``ConfigError``, a wrong argument type
    ``ConfigTypeError`` / ``InputTypeError``, on the client. A ferrochunk error inside a task
    is re-raised on the client as itself (Dask ships the exception back).

    >>> import dask.dataframe as dd, pandas as pd, ferrochunk as fc
    >>> from ferrochunk.dask import chunk_dataframe
    >>> docs = dd.from_pandas(pd.DataFrame({"id": [1], "text": ["One. Two three four."]}))
    >>> rows = chunk_dataframe(docs, fc.Recursive(4), keep_columns=["id"]).compute()
    >>> rows[["id", "text", "token_count"]].values.tolist()
    [[1, 'One. ', 3], [1, 'Two three four.', 4]]
    """
    dd = require("dask.dataframe", "dask")
    pd = require("pandas", "dask")
    config = _require_config(config)
    if not isinstance(ddf, dd.DataFrame):
        raise InputTypeError(f"ddf must be a dask.dataframe.DataFrame, got {describe(ddf)}")
    threads = require_int("threads", threads, minimum=1)
    tok = native_tokenizer(config, tokenizer)
    keep = check_columns(text_column, keep_columns, [str(c) for c in ddf.columns], "data frame")
    if id_column is not None and id_column not in keep:
        raise ConfigError(f"id_column {id_column!r} must be one of keep_columns {keep}")
    dtype = ddf.dtypes[text_column]
    if not _is_text(pd, dtype):
        raise ConfigError(f"text_column {text_column!r} must be a string column, got type {dtype}")
    chunking = ChunkStep(config, tok, text_column, keep, threads=threads, id_column=id_column)
    step = _Partition(chunking)
    meta = step(ddf._meta)
    return ddf.map_partitions(
        step, meta=meta, enforce_metadata=False, align_dataframes=False, clear_divisions=True
    )
