"""Rows to :class:`Chunk`: the one builder for every config and backend, the metadata
readers, and the restore of lone surrogates the core read as U+FFFD."""

from __future__ import annotations

import operator
import re
from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from . import _rows as L
from ._rows import Batch
from ._support.gc import gc_paused
from ._support.xxh3 import utf8, xxh3_128_hex
from .config import Config
from .types import Chunk, Metadata, Spans

_SURROGATE = re.compile("[\ud800-\udfff]")

# What each metadata key reads: a chunk row (the columns of ``contracts/stream.rs``'s
# table), the spans as an (n, 2) array of (char_start, char_end), the chunk's children,
# and the row's meta (a structure-aware config's ``_rows.Meta``).
Read = Callable[[Sequence[int], Any, tuple[Chunk, ...], Any], Any]
_READ: dict[str, Read] = {
    "oversize": lambda row, spans, kids, meta: bool(row[L.OVERSIZE]),
    "overlap_tokens": lambda row, spans, kids, meta: row[L.OVERLAP_TOKENS],
    "overlap_chars": lambda row, spans, kids, meta: row[L.OVERLAP_CHARS],
    "overlap_spans": lambda row, spans, kids, meta: row[L.OVERLAP_SPANS],
    "spans": lambda row, spans, kids, meta: Spans._of(spans[row[L.SPAN_START] : row[L.SPAN_END]]),
    "parent": lambda row, spans, kids, meta: row[L.PARENT],
    "children": lambda row, spans, kids, meta: kids,
    "headings": lambda row, spans, kids, meta: meta.headings,
    "headings_truncated": lambda row, spans, kids, meta: meta.truncated,
    "context": lambda row, spans, kids, meta: meta.context,
    "context_truncated": lambda row, spans, kids, meta: meta.truncated,
    "scopes": lambda row, spans, kids, meta: meta.scopes,
}


def _metadata(
    keys: Sequence[str], row: Sequence[int], spans: Any, kids: tuple[Chunk, ...], meta: Any
) -> Metadata:
    return Metadata._of({key: _READ[key](row, spans, kids, meta) for key in keys})


# Metadata is read-only, so chunks whose only key is "oversize" share one of these.
_OVERSIZE = {flag: Metadata({"oversize": flag}) for flag in (False, True)}


_CHUNK_FIELDS = operator.itemgetter(
    L.CHAR_START, L.CHAR_END, L.BYTE_START, L.BYTE_END, L.TOKEN_START, L.TOKEN_END, L.INDEX
)

# A top-level row after the last: it closes the last parent in `_build`.
_END_ROW = [-1] * len(L.ROW_COLUMNS)


def _chunk(row: Sequence[int], text: str, metadata: Metadata, chunk_id: str) -> Chunk:
    # Positional, and the row read with one C call: this runs once per chunk.
    cs, ce, bs, be, ts, te, index = _CHUNK_FIELDS(row)
    return Chunk(text, cs, ce, bs, be, ts, te, te - ts, index, metadata, chunk_id)


def build(config: Config, batch: Batch) -> list[Chunk]:
    """Chunks from a batch: top-level rows, each followed by its children's rows. A batch
    without ids (the reference's) gets them from the pure-Python twin of the core's hash."""
    table, spans, texts, metas = batch.table, batch.spans, batch.texts, batch.meta
    ids = batch.ids
    if ids is None:
        contexts = [m.context for m in metas] if metas is not None else [""] * len(texts)
        ids = [xxh3_128_hex(utf8(c + t)) for c, t in zip(contexts, texts, strict=True)]
    rows = table.tolist() if isinstance(table, np.ndarray) else table
    # Only each span's (char_start, char_end) is kept, as one array the chunks' Spans view.
    if isinstance(spans, np.ndarray):
        spans = np.ascontiguousarray(spans[:, [L.SPAN_CHAR_START, L.SPAN_CHAR_END]], dtype=np.int64)
    else:
        pairs = [(s[L.SPAN_CHAR_START], s[L.SPAN_CHAR_END]) for s in spans]
        spans = np.array(pairs, dtype=np.int64).reshape(-1, 2)
    keys, child_keys = config._metadata, config._child_metadata
    with gc_paused():
        if keys == ("oversize",) and not child_keys:
            oversize = L.OVERSIZE
            return [
                _chunk(row, text, _OVERSIZE[bool(row[oversize])], cid)
                for row, text, cid in zip(rows, texts, ids, strict=True)
            ]
        out: list[Chunk] = []
        parent: tuple[list[int], str, Any, str] | None = None
        kids: list[Chunk] = []
        meta_of = metas if metas is not None else [None] * len(rows)
        given = zip(rows, texts, meta_of, ids, strict=True)
        for row, text, meta, cid in [*given, (_END_ROW, "", None, "")]:
            if row[L.PARENT] >= 0:
                kids.append(_chunk(row, text, _metadata(child_keys, row, spans, (), meta), cid))
                continue
            if parent is not None:  # a new top-level row (or the end) closes the last one
                prow, ptext, pmeta, pid = parent
                md = _metadata(keys, prow, spans, tuple(kids), pmeta)
                out.append(_chunk(prow, ptext, md, pid))
            parent, kids = (row, text, meta, cid), []
        return out


def surrogates(text: str, offset: int = 0) -> dict[int, str]:
    """Surrogate code points of ``text`` by absolute character offset."""
    return {offset + m.start(): m.group() for m in _SURROGATE.finditer(text)}


def restore(chunk: Chunk, found: dict[int, str], joiner: str) -> Chunk:
    """Puts back surrogates the native side read as U+FFFD (same length, one for one)."""
    if not found:
        return chunk
    parts = chunk.metadata.get("spans") or ((chunk.char_start, chunk.char_end),)
    chars = list(chunk.text)
    at = 0
    changed = False
    for a, b in parts:
        for pos in sorted(p for p in found if a <= p < b):
            chars[at + pos - a] = found[pos]
            changed = True
        at += (b - a) + len(joiner)
    metadata = chunk.metadata
    if "children" in metadata:
        kids = tuple(restore(k, found, "") for k in metadata["children"])
        metadata = Metadata({**metadata, "children": kids})
        changed = True
    if not changed:
        return chunk
    # The id is of the text as it is now: "" has Chunk compute it again.
    return replace(chunk, text="".join(chars), metadata=metadata, chunk_id="")


class Restorer:
    """Surrogates seen in a stream, by absolute character offset, kept until every chunk
    that could hold them has gone by (a chunk never starts before the previous one)."""

    def __init__(self, joiner: str) -> None:
        self.joiner = joiner
        self.found: dict[int, str] = {}

    def apply(self, chunks: list[Chunk]) -> list[Chunk]:
        if not self.found:
            return chunks
        out = [restore(c, self.found, self.joiner) for c in chunks]
        if chunks:
            floor = chunks[-1].char_start
            keys = sorted(self.found)
            for key in keys[: bisect_left(keys, floor)]:
                del self.found[key]
        return out
