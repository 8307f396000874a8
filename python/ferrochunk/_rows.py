"""What a backend returns for one text, and where each column of its rows is: shared by
the native pipeline and the reference.

A batch has named fields (the native one is ``_native.ChunkBatch``; the reference builds
``reference.rows.Rows``): ``table``, the rows in the columns of ``rust/contracts/stream.rs``;
``spans``, the spans of joined chunks; ``texts``, each row's text; ``meta``, each row's
structure for a structure-aware config (``_native.RowMeta`` or ``reference.rows.RowMeta``),
else None; ``next_start``, where a stream's next block starts (``Stream.push_block``); and
``ids``, each row's chunk id (native), or None (the reference: the builder computes them
with the pure-Python twin of the core's hash).

The columns are the core's (``rust/contracts/stream.rs``, exported as
``_native.ROW_COLUMNS``). They are written out here rather than read from the extension,
so the reference, which builds the same rows on its own (``reference/rows.py``), can use
this module without loading the core; ``tests/test_import_graph.py`` holds all three equal.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

Encode = Callable[[str], list[int]]
"""A text -> the UTF-8 byte offset (within it) where each of its tokens starts."""


class Meta(Protocol):
    """A row's structure: Markdown's headings, Code's scopes, and the context from them."""

    @property
    def headings(self) -> tuple[tuple[int, str], ...]: ...
    @property
    def truncated(self) -> bool: ...
    @property
    def context(self) -> str: ...
    @property
    def scopes(self) -> tuple[tuple[str, str], ...]: ...


class Batch(Protocol):
    """The rows of one text, as either backend returns them."""

    @property
    def table(self) -> Any: ...
    @property
    def spans(self) -> Any: ...
    @property
    def texts(self) -> list[str]: ...
    @property
    def meta(self) -> Sequence[Meta] | None: ...
    @property
    def next_start(self) -> int | None: ...
    @property
    def ids(self) -> Sequence[str] | None: ...


ROW_COLUMNS: tuple[str, ...] = (
    "index", "parent", "token_start", "token_end", "byte_start", "byte_end", "char_start",
    "char_end", "oversize", "overlap_tokens", "overlap_chars", "overlap_spans", "span_start",
    "span_end",
)  # fmt: skip
SPAN_ROW_COLUMNS: tuple[str, ...] = ("byte_start", "byte_end", "char_start", "char_end")

COL = {name: i for i, name in enumerate(ROW_COLUMNS)}
_SPAN = {name: i for i, name in enumerate(SPAN_ROW_COLUMNS)}

INDEX = COL["index"]
PARENT = COL["parent"]
TOKEN_START = COL["token_start"]
TOKEN_END = COL["token_end"]
BYTE_START = COL["byte_start"]
BYTE_END = COL["byte_end"]
CHAR_START = COL["char_start"]
CHAR_END = COL["char_end"]
OVERSIZE = COL["oversize"]
OVERLAP_TOKENS = COL["overlap_tokens"]
OVERLAP_CHARS = COL["overlap_chars"]
OVERLAP_SPANS = COL["overlap_spans"]
SPAN_START = COL["span_start"]
SPAN_END = COL["span_end"]

SPAN_CHAR_START = _SPAN["char_start"]
SPAN_CHAR_END = _SPAN["char_end"]
