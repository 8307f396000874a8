"""The reference's output: the same table the native pipeline returns, in plain Python.

A batch is a :class:`Rows`, with the fields of ``_native.ChunkBatch``. Each table row has
the columns of ``rust/contracts/stream.rs``: ``index, parent, token_start, token_end,
byte_start, byte_end, char_start, char_end, oversize, overlap_tokens, overlap_chars,
overlap_spans, span_start, span_end``; ``parent`` is -1 for a top-level chunk and children
follow their parent. ``spans`` holds ``byte_start, byte_end, char_start, char_end`` of
joined chunks' spans, ``texts`` each row's text, and ``meta`` None, or for a
structure-aware config (``Markdown``, ``Code``) each row's :class:`RowMeta`.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Protocol

from .._rows import Batch, Encode
from ._offsets import byte_to_char


class _Tokens(Protocol):
    """What :func:`span_rows` reads of ``recursive.Tokens`` (which imports this module)."""

    @property
    def n(self) -> int: ...

    def token_at(self, at: int) -> int: ...

    def count(self, a: int, b: int) -> int: ...


class RowMeta(NamedTuple):
    """A row's structure (the fields of ``_native.RowMeta``)."""

    headings: tuple[tuple[int, str], ...]
    truncated: bool
    context: str
    scopes: tuple[tuple[str, str], ...]


class Rows(NamedTuple):
    """One text's rows (the fields of ``_native.ChunkBatch``)."""

    table: Any
    spans: Any
    texts: list[str]
    meta: list[RowMeta] | None
    next_start: int | None = None
    ids: list[str] | None = None


__all__ = ["COLUMNS", "Batch", "Encode", "RowMeta", "Rows", "row", "span_rows"]


def row(
    index: int,
    parent: int,
    tokens: tuple[int, int],
    span: tuple[int, int, int, int],
    *,
    oversize: int = 0,
    overlap_tokens: int = 0,
    overlap_chars: int = 0,
    overlap_spans: int = 0,
    spans: tuple[int, int] = (0, 0),
) -> list[int]:
    """One table row; ``span`` is ``byte_start, byte_end, char_start, char_end``."""
    return [
        index,
        parent,
        *tokens,
        *span,
        oversize,
        overlap_tokens,
        overlap_chars,
        overlap_spans,
        *spans,
    ]


COLUMNS = (
    "index",
    "parent",
    "token_start",
    "token_end",
    "byte_start",
    "byte_end",
    "char_start",
    "char_end",
    "oversize",
    "overlap_tokens",
    "overlap_chars",
    "overlap_spans",
    "span_start",
    "span_end",
)
"""The order of ``row``'s values: the reference's own statement of the layout, which a test
holds equal to the core's (``_native.ROW_COLUMNS``)."""


def span_rows(
    text: str, data: bytes, tokens: _Tokens, spans: list[tuple[int, int, bool]]
) -> tuple[list[list[int]], list[str]]:
    """The rows and texts of top-level chunks given as ``(byte_start, byte_end,
    oversize)``: a structure-aware cutter's output (``Markdown``, ``Code``)."""
    positions = [x for a, b, _ in spans for x in (a, b)]
    chars = dict(zip(positions, byte_to_char(data, positions), strict=True))
    table = []
    for i, (start, cut, oversize) in enumerate(spans):
        first = tokens.token_at(start) if tokens.n else 0
        n = tokens.count(start, cut)
        span = (start, cut, chars[start], chars[cut])
        table.append(row(i, -1, (first, first + n), span, oversize=int(oversize)))
    return table, [text[r[6] : r[7]] for r in table]
