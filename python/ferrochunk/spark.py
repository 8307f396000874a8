"""Spark: ``chunk_table`` over a DataFrame's Arrow batches (``ferrochunk[spark]``).

:func:`chunk_dataframe` runs through ``DataFrame.mapInArrow``: each Arrow batch Spark hands a
Python worker goes to Rust as it is, with no Python per row. The result's schema is derived
from the config on the driver (:func:`chunk_spark_schema`), and every check that can run
there does, before any task starts. Each worker process builds the config and tokenizer once
(see ``_worker.py``).

On Spark 4 and Python >= 3.11 the extra installs ``pyspark`` 4; on Python 3.10 it installs
``pyspark`` 3.5, the last line that supports 3.10 (``mapInArrow`` needs 3.3 or later; CI
runs Spark 4 on Python 3.11, so the 3.5 path is not exercised there).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ._support.optional import require
from ._support.validate import describe, require_int
from ._worker import ChunkStep
from .arrow import check_columns, chunk_schema, native_tokenizer
from .config import Config
from .errors import ConfigError, InputTypeError
from .pipeline import _require_config
from .tokenizers import Tokenizer

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["chunk_dataframe", "chunk_spark_schema"]


def _spark_type(types: Any, pa: Any, kind: Any) -> Any:
    """The Spark SQL type of one of the Arrow types a chunk table uses."""
    if pa.types.is_int64(kind):
        return types.LongType()
    if pa.types.is_int32(kind):
        return types.IntegerType()
    if pa.types.is_boolean(kind):
        return types.BooleanType()
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return types.StringType()
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        return types.ArrayType(_spark_type(types, pa, kind.value_type), True)
    if pa.types.is_struct(kind):
        return types.StructType(
            [types.StructField(f.name, _spark_type(types, pa, f.type), True) for f in kind]
        )
    raise AssertionError(f"no Spark type for the chunk column type {kind}")  # pragma: no cover


def chunk_spark_schema(
    config: Config, keep: Sequence[Any] = (), *, record_ids: bool = False
) -> Any:
    """The Spark schema of :func:`chunk_dataframe`'s result: the ``keep`` fields (Spark
    ``StructField``s), then the columns of :func:`ferrochunk.arrow.chunk_schema`.

    >>> import ferrochunk as fc
    >>> chunk_spark_schema(fc.Recursive(512)).simpleString()[:60]
    'struct<chunk_index:bigint,text:string,char_start:bigint,char'
    """
    types = require("pyspark.sql.types", "spark")
    pa = require("pyarrow", "arrow")
    arrow = chunk_schema(_require_config(config), record_ids=record_ids)
    return types.StructType(
        [*keep, *(types.StructField(f.name, _spark_type(types, pa, f.type), True) for f in arrow)]
    )


def _arrow_schema(df: Any, schema: Any) -> pa.Schema:
    """The Arrow schema Spark's JVM side expects back for ``schema`` (``string`` or
    ``large_string`` as the session is set)."""
    conversion = require("pyspark.sql.pandas.types", "spark")
    conf = df.sparkSession.conf
    large = conf.get("spark.sql.execution.arrow.useLargeVarTypes", "false") == "true"
    timezone = conf.get("spark.sql.session.timeZone", "UTC")
    try:
        return conversion.to_arrow_schema(schema, timezone=timezone, prefers_large_types=large)
    except TypeError:  # pyspark 3.5 has neither keyword and never uses large types
        return conversion.to_arrow_schema(schema)


# A batch handed back to Spark holds at most this much chunk text, so that every string
# column (the text, a Markdown context, a ParentChild's children) stays far below the
# 2 GiB that Spark's 32-bit string offsets hold.
MAX_TEXT_BYTES = 512 << 20


def _pieces(table: pa.Table, rows: int) -> Iterator[pa.Table]:
    """``table`` in row slices of at most ``rows`` rows and :data:`MAX_TEXT_BYTES` of
    ``text`` (a single larger row stands alone)."""
    pc = require("pyarrow.compute", "arrow")
    lengths = pc.binary_length(table.column("text")).to_numpy(zero_copy_only=False)
    ends = np.cumsum(lengths, dtype=np.int64)
    start, n = 0, table.num_rows
    while start < n:
        before = int(ends[start - 1]) if start else 0
        fits = int(np.searchsorted(ends, before + MAX_TEXT_BYTES, side="right"))
        stop = max(start + 1, min(start + rows, fits))
        yield table.slice(start, stop - start)
        start = stop


class _Batches:
    """The ``mapInArrow`` function: chunk each batch, slice it, and cast each slice to the
    declared types (the whole table cast at once could overflow 32-bit string offsets)."""

    def __init__(self, step: ChunkStep, schema: pa.Schema, rows_per_batch: int) -> None:
        self.step = step
        self.schema = schema
        self.rows_per_batch = rows_per_batch

    def __call__(self, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            for piece in _pieces(self.step(batch), self.rows_per_batch):
                yield from piece.cast(self.schema).to_batches()


def _quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def chunk_dataframe(
    df: Any,
    config: Config,
    *,
    text_column: str = "text",
    keep_columns: Sequence[str] = (),
    tokenizer: Tokenizer | str | None = None,
    threads: int = 1,
    rows_per_batch: int = 8192,
    id_column: str | None = None,
) -> Any:
    """A Spark DataFrame with one row per chunk of each document in ``df[text_column]``.

    The columns are :func:`ferrochunk.arrow.chunk_table`'s: ``keep_columns`` (a document id,
    say), then the chunk's offsets and counts, then the config's metadata. Null texts give no
    rows. Each task chunks with ``threads`` threads (default 1: Spark runs one task per
    core). ``rows_per_batch`` caps the Arrow batches handed back to Spark. ``id_column`` (a
    kept string column of document ids) adds ``record_id``, as in ``chunk_table``.

    A missing or non-string column raises ``ConfigError`` and a wrong argument type
    ``ConfigTypeError`` / ``InputTypeError``, on the driver. An error inside a task reaches
    the driver as Spark's ``PythonException``, whose message names the ferrochunk error type.
    ``tests/test_spark.py`` runs this on a real local Spark:

    >>> import ferrochunk as fc  # doctest: +SKIP
    >>> from ferrochunk.spark import chunk_dataframe  # doctest: +SKIP
    >>> docs = spark.createDataFrame([(1, "One. Two three.")], "id long, text")  # doctest: +SKIP
    >>> chunk_dataframe(docs, fc.Recursive(4), keep_columns=["id"]).collect()  # doctest: +SKIP
    """
    require("pyspark", "spark")
    sql = require("pyspark.sql", "spark")
    types = require("pyspark.sql.types", "spark")
    config = _require_config(config)
    if not isinstance(df, sql.DataFrame):
        raise InputTypeError(f"df must be a pyspark.sql.DataFrame, got {describe(df)}")
    threads = require_int("threads", threads, minimum=1)
    rows_per_batch = require_int("rows_per_batch", rows_per_batch, minimum=1)
    tok = native_tokenizer(config, tokenizer)
    fields = {f.name: f for f in df.schema.fields}
    keep = check_columns(text_column, keep_columns, list(fields), "data frame")
    kind = fields[text_column].dataType
    if not isinstance(kind, types.StringType):
        raise ConfigError(
            f"text_column {text_column!r} must be a string column, got type {kind.simpleString()}"
        )
    if id_column is not None:
        if id_column not in keep:
            raise ConfigError(f"id_column {id_column!r} must be one of keep_columns {keep}")
        if not isinstance(fields[id_column].dataType, types.StringType):
            raise ConfigError(f"id_column {id_column!r} must be a string column")
    schema = chunk_spark_schema(
        config, [fields[name] for name in keep], record_ids=id_column is not None
    )
    step = ChunkStep(config, tok, text_column, keep, threads=threads, id_column=id_column)
    source = df.select(*(_quoted(name) for name in (text_column, *keep)))
    batches = _Batches(step, _arrow_schema(df, schema), rows_per_batch)
    return map_in_arrow(source, batches, schema)


def map_in_arrow(df: Any, fn: Any, schema: Any) -> Any:
    """``df.mapInArrow(fn, schema)``, without pyspark's warning that it has not caught up
    with pandas 3: no pandas runs on this path."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "PySpark does not yet fully support", FutureWarning)
        return df.mapInArrow(fn, schema)
