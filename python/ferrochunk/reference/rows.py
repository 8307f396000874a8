"""The reference's output: the same table the native pipeline returns, in plain Python.

A batch is ``(table, spans, texts, meta)``. Each table row has the columns of
``rust/contracts/stream.rs``: ``index, parent, token_start, token_end, byte_start,
byte_end, char_start, char_end, oversize, overlap_tokens, overlap_chars, overlap_spans,
span_start, span_end``; ``parent`` is -1 for a top-level chunk and children follow their
parent. ``spans`` holds ``byte_start, byte_end, char_start, char_end`` of joined chunks'
spans, ``texts`` each row's text, and ``meta`` None, or for a structure-aware config
(``Markdown``) each row's ``(headings, headings_truncated, context)``.
"""

from __future__ import annotations

from .._rows import Batch, Encode

__all__ = ["COLUMNS", "Batch", "Encode", "row"]


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
