"""Running ``DelimiterMerge`` on either backend and building its chunks."""

from __future__ import annotations

from collections import defaultdict
from types import MappingProxyType
from typing import Any

import numpy as np

from . import _native
from .config import DelimiterMerge, MergeStrategy
from .reference import delimiter_merge as reference
from .tokenizers import Tokenizer
from .types import Chunk

Rows = tuple[Any, Any, Any]


def _native_rows(text: str, config: DelimiterMerge, tok: Tokenizer) -> Rows:
    under_cap = config.strategy == MergeStrategy.UNDER_CAP
    sizes = (config.token_size, under_cap, config.overlap)
    hard, soft, child = (
        list(config.hard_delimiters),
        list(config.delimiters),
        list(config.child_delimiters),
    )
    if tok.native_encoding is not None:
        return _native.delimiter_merge(text, tok.native_encoding, hard, soft, child, *sizes)
    pieces = _native.delimiter_pieces(text, hard, soft)
    data = text.encode("utf-8")
    starts = [tok.encode_with_offsets(data[a:b].decode("utf-8"))[1] for a, b, _ in pieces]
    flat = np.concatenate(starts) if starts else np.zeros(0, dtype=np.uint32)
    counts = np.fromiter((len(s) for s in starts), dtype=np.int64, count=len(starts))
    return _native.delimiter_merge_pieces(text, pieces, flat, counts, child, *sizes)


def _reference_rows(text: str, config: DelimiterMerge, tok: Tokenizer) -> Rows:
    def encode_piece(piece: bytes) -> list[int]:
        return [int(s) for s in tok.encode_with_offsets(piece.decode("utf-8"))[1]]

    return reference.delimiter_merge(
        text,
        config.hard_delimiters,
        config.delimiters,
        config.child_delimiters,
        config.token_size,
        config.strategy == MergeStrategy.UNDER_CAP,
        config.overlap,
        encode_piece,
    )


def rows(text: str, config: DelimiterMerge, tok: Tokenizer, backend: str) -> Rows:
    """Chunk rows, span rows and child rows (see ``_native.delimiter_merge``)."""
    if backend == "reference":
        return _reference_rows(text, config, tok)
    return _native_rows(text, config, tok)


def extents(chunk_rows: Any, span_rows: Any) -> np.ndarray[Any, np.dtype[np.int64]]:
    """Each chunk's token range and the extent of its spans, as span-array rows."""
    first: dict[int, list[int]] = {}
    last: dict[int, list[int]] = {}
    for i, bs, be, cs, ce in np.asarray(span_rows).tolist():
        first.setdefault(i, [bs, cs])
        last[i] = [be, ce]
    out = [
        [ts, te, first[i][0], last[i][0], first[i][1], last[i][1]]
        for i, (ts, te, *_) in enumerate(np.asarray(chunk_rows).tolist())
    ]
    return np.asarray(out, dtype=np.int64).reshape(len(out), 6)


def build(
    source: str, config: DelimiterMerge, chunk_rows: Any, span_rows: Any, child_rows: Any
) -> list[Chunk]:
    """``Chunk`` objects: text joined from the spans, metadata with spans and children."""
    chunks = np.asarray(chunk_rows, dtype=np.int64).reshape(-1, 5)
    spans = np.asarray(span_rows, dtype=np.int64).reshape(-1, 5)
    # Span rows come grouped by chunk, in order: one searchsorted finds every group.
    bounds = np.searchsorted(spans[:, 0], np.arange(len(chunks) + 1)).tolist()
    byte_starts, byte_ends, char_starts, char_ends = (spans[:, k].tolist() for k in range(1, 5))
    children = _children(source, child_rows) if config.child_delimiters else {}
    out = []
    for i, (ts, te, overlap, oversize, overlap_spans) in enumerate(chunks.tolist()):
        a, b = bounds[i], bounds[i + 1]
        cs, ce = char_starts[a:b], char_ends[a:b]
        metadata: dict[str, Any] = {
            "spans": tuple(zip(cs, ce, strict=True)),
            "overlap_tokens": overlap,
            "overlap_spans": overlap_spans,
            "oversize": bool(oversize),
        }
        if config.child_delimiters:
            metadata["children"] = tuple(children.get(i, ()))
        out.append(
            Chunk(
                text="".join(map(source.__getitem__, map(slice, cs, ce))),
                char_start=cs[0],
                char_end=ce[-1],
                byte_start=byte_starts[a],
                byte_end=byte_ends[b - 1],
                token_start=ts,
                token_end=te,
                token_count=te - ts,
                index=i,
                metadata=MappingProxyType(metadata),
            )
        )
    return out


def _children(source: str, child_rows: Any) -> dict[int, list[Chunk]]:
    """Child chunks per parent index, each with offsets into the source."""
    children: dict[int, list[Chunk]] = defaultdict(list)
    for i, bs, be, cs, ce, ts, te in np.asarray(child_rows).tolist():
        span = (ts, te, bs, be, cs, ce)
        children[i].append(Chunk.from_span(source, span, len(children[i]), {"parent": i}))
    return children
