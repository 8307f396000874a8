"""Where each column of the core's row tables is, by name.

The layout is defined once, in Rust (``rust/contracts/stream.rs``), and exported as
``_native.ROW_COLUMNS`` and ``_native.SPAN_ROW_COLUMNS``; the pipeline and the Arrow path
index rows through these names. (The reference builds the same rows on its own, in
``reference/rows.py``; a test holds the two layouts equal.)
"""

from __future__ import annotations

from . import _native

ROW_COLUMNS: tuple[str, ...] = tuple(_native.ROW_COLUMNS)
SPAN_ROW_COLUMNS: tuple[str, ...] = tuple(_native.SPAN_ROW_COLUMNS)

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
