"""A chunk as a flat record: the row ``ferrochunk.arrow.chunk_table`` gives for it.

The CLI writes these as JSON lines or Parquet rows, so every output format, and Ray Data,
carries the same fields: ``chunk_index``, ``text``, the offsets, ``token_count``,
``chunk_id`` (:mod:`ferrochunk.ids`), then the config's metadata (``spans`` as
``{char_start, char_end}`` objects, ``children`` as child records without their ``parent``,
``headings`` as ``{level, title}`` objects, ``scopes`` as ``{kind, name}`` objects).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from .config import Config
from .types import Chunk

__all__ = ["OFFSET_FIELDS", "arrow_safe", "json_line", "record"]

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
    out["chunk_id"] = chunk.chunk_id
    for key in keys:
        value = chunk.metadata[key]
        if key == "spans":
            value = [{"char_start": a, "char_end": b} for a, b in value]
        elif key == "children":
            value = [_fields(k, [c for c in child_keys if c != "parent"], ()) for k in value]
        elif key == "headings":
            value = [{"level": level, "title": title} for level, title in value]
        elif key == "scopes":
            value = [{"kind": kind, "name": name} for kind, name in value]
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


# A str holds a surrogate code point only alone (a pair is one astral character), and
# UTF-8 has no form for one.
_SURROGATE = re.compile("[\ud800-\udfff]")


def json_line(row: dict[str, Any]) -> str:
    r"""``row`` as one line of JSON, valid UTF-8 whatever its strings hold: a lone
    surrogate is written as its ``\udXXX`` escape, which ``json.loads`` reads back as the
    same ``str``.

    >>> line = json_line({"text": "a\udc00b"})
    >>> line
    '{"text": "a\\udc00b"}\n'
    >>> json.loads(line) == {"text": "a\udc00b"}
    True
    """
    line = json.dumps(row, ensure_ascii=False)
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", line) + "\n"


def arrow_safe(value: Any) -> tuple[Any, int]:
    r"""``value`` (a record, or anything in one) with each lone surrogate in its strings
    replaced by U+FFFD, which Arrow and Parquet can hold, and how many were replaced. One
    code point for one, so every character offset still holds.

    >>> arrow_safe({"text": "a\udc00b", "spans": [{"title": "\ud800"}]})
    ({'text': 'a�b', 'spans': [{'title': '�'}]}, 2)
    """
    if isinstance(value, str):
        return _SURROGATE.subn("\ufffd", value)
    if isinstance(value, dict):
        out, n = {}, 0
        for key, item in value.items():
            out[key], k = arrow_safe(item)
            n += k
        return out, n
    if isinstance(value, list):
        found = [arrow_safe(item) for item in value]
        return [item for item, _ in found], sum(k for _, k in found)
    return value, 0
