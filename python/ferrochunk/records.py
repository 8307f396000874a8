"""A chunk as a flat record: the row ``ferrochunk.arrow.chunk_table`` gives for it.

The CLI writes these as JSON lines or Parquet rows, so every output format, and Ray Data,
carries the same fields: ``chunk_index``, ``text``, the offsets, ``token_count``, then the
config's metadata (``spans`` as ``{char_start, char_end}`` objects, ``children`` as child
records without their ``parent``, ``headings`` as ``{level, title}`` objects).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .config import Config
from .types import Chunk

__all__ = ["OFFSET_FIELDS", "record"]

OFFSET_FIELDS = (
    "char_start",
    "char_end",
    "byte_start",
    "byte_end",
    "token_start",
    "token_end",
    "token_count",
)


def _fields(chunk: Chunk, keys: Sequence[str], child_keys: Sequence[str]) -> dict[str, Any]:
    out: dict[str, Any] = {"chunk_index": chunk.index, "text": chunk.text}
    out.update({name: getattr(chunk, name) for name in OFFSET_FIELDS})
    for key in keys:
        value = chunk.metadata[key]
        if key == "spans":
            value = [{"char_start": a, "char_end": b} for a, b in value]
        elif key == "children":
            value = [_fields(k, [c for c in child_keys if c != "parent"], ()) for k in value]
        elif key == "headings":
            value = [{"level": level, "title": title} for level, title in value]
        out[key] = value
    return out


def record(chunk: Chunk, config: Config) -> dict[str, Any]:
    """The record of a chunk cut by ``config``.

    >>> import ferrochunk as fc
    >>> c = fc.chunk("one two", fc.TokenWindows(8))[0]
    >>> record(c, fc.TokenWindows(8))["token_count"]
    2
    """
    return _fields(chunk, config._metadata, config._child_metadata)
