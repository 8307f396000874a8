"""``DelimiterMerge`` in plain Python (the twin of ``rust/families/ragflow/contract.rs``).

Works on UTF-8 bytes so that its offsets are the native ones; the tokenizer's output for
each piece (token byte starts) is input data, exactly as on the native side.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ._offsets import byte_to_char, is_char_boundary
from .ragflow.merge import group_indices
from .rows import Batch, Encode, Rows, row

if TYPE_CHECKING:
    from ..config import DelimiterMerge

EncodePiece = Callable[[bytes], list[int]]
"""A piece's UTF-8 bytes -> the byte offset (within the piece) where each token starts."""


@dataclass
class Piece:
    start: int
    end: int
    segment: int
    token_starts: list[int]


@dataclass
class MergedChunk:
    spans: list[tuple[int, int]]
    token_start: int
    token_end: int
    overlap_tokens: int
    oversize: bool
    overlap_spans: int
    children: list[tuple[int, int, int, int]] = field(default_factory=list)
    """(byte_start, byte_end, token_start, token_end)"""


def _finder(delimiters: Sequence[str]) -> re.Pattern[bytes] | None:
    """Leftmost-longest: alternatives longest first (same-start matches nest)."""
    if not delimiters:
        return None
    literals = sorted({d.encode() for d in delimiters}, key=len, reverse=True)
    return re.compile(b"|".join(re.escape(d) for d in literals))


def _gaps(
    data: bytes, start: int, end: int, finder: re.Pattern[bytes] | None
) -> list[tuple[int, int]]:
    """Every range between matches in ``data[start:end]``, empty ones included."""
    if finder is None:
        return [(start, end)]
    out = []
    at = start
    for m in finder.finditer(data, start, end):
        out.append((at, m.start()))
        at = m.end()
    out.append((at, end))
    return out


def find_pieces(
    data: bytes, hard: Sequence[str], soft: Sequence[str]
) -> list[tuple[int, int, int]]:
    """Non-empty ``(byte_start, byte_end, segment)`` pieces between delimiter matches."""
    soft_finder = _finder(soft)
    pieces: list[tuple[int, int, int]] = []
    for segment, (a, b) in enumerate(_gaps(data, 0, len(data), _finder(hard))):
        pieces.extend((s, e, segment) for s, e in _gaps(data, a, b, soft_finder) if e > s)
    return pieces


def _overlap(
    data: bytes, pieces: list[Piece], group: range, want: int
) -> tuple[list[tuple[int, int]], int]:
    """The last ``want`` tokens of ``group`` from a character boundary (moving later)."""
    tokens = [(j, pieces[j].start + s) for j in group for s in pieces[j].token_starts]
    first = max(len(tokens) - want, 0)
    while first < len(tokens) and not is_char_boundary(data, tokens[first][1]):
        first += 1
    if first >= len(tokens):
        return [], 0
    j, at = tokens[first]
    spans = [(at, pieces[j].end)] + [(p.start, p.end) for p in pieces[j + 1 : group.stop]]
    return spans, len(tokens) - first


def merge_pieces(
    data: bytes,
    pieces: list[Piece],
    token_size: int,
    under_cap: bool,
    overlap_percent: int,
    child: Sequence[str],
) -> list[MergedChunk]:
    """Groups pieces per hard segment, then adds overlap and children."""
    bases = [0]
    for p in pieces:
        bases.append(bases[-1] + len(p.token_starts))
    cap = float(token_size)
    threshold = cap * (100 - overlap_percent) / 100.0
    child_finder = _finder(child)
    out: list[MergedChunk] = []
    seg_start = 0
    while seg_start < len(pieces):
        seg_end = seg_start
        while seg_end < len(pieces) and pieces[seg_end].segment == pieces[seg_start].segment:
            seg_end += 1
        sizes = [len(p.token_starts) for p in pieces[seg_start:seg_end]]
        prev: tuple[range, int] | None = None
        for group in group_indices(sizes, cap, threshold, under_cap):
            members = range(seg_start + group[0], seg_start + group[-1] + 1)
            tokens = sum(sizes[i] for i in group)
            want = prev[1] * overlap_percent // 100 if prev else 0
            if under_cap:
                want = min(want, max(token_size - tokens, 0))
            spans, overlap = _overlap(data, pieces, prev[0], want) if prev and want else ([], 0)
            overlap_spans = len(spans)
            spans += [(pieces[j].start, pieces[j].end) for j in members]
            chunk = MergedChunk(
                spans=spans,
                token_start=bases[members.start] - overlap,
                token_end=bases[members.stop],
                overlap_tokens=overlap,
                oversize=len(group) == 1 and tokens > cap,
                overlap_spans=overlap_spans,
            )
            for j in members if child_finder else ():
                p = pieces[j]
                for a, b in _gaps(data, p.start, p.end, child_finder):
                    if b > a:
                        first = bisect_left(p.token_starts, a - p.start)
                        end = bisect_left(p.token_starts, b - p.start)
                        chunk.children.append((a, b, bases[j] + first, bases[j] + end))
            out.append(chunk)
            prev = (members, tokens)
        seg_start = seg_end
    return out


MergedRows = tuple[list[list[int]], list[list[int]], list[list[int]]]


def delimiter_merge(
    text: str,
    hard: Sequence[str],
    soft: Sequence[str],
    child: Sequence[str],
    token_size: int,
    under_cap: bool,
    overlap_percent: int,
    encode_piece: EncodePiece,
) -> MergedRows:
    """The same rows as ``_native.delimiter_merge``: chunks, spans and children."""
    data = text.encode("utf-8")
    pieces = [
        Piece(a, b, seg, encode_piece(data[a:b])) for a, b, seg in find_pieces(data, hard, soft)
    ]
    chunks = merge_pieces(data, pieces, token_size, under_cap, overlap_percent, child)
    positions = [x for c in chunks for s in c.spans for x in s]
    positions += [x for c in chunks for k in c.children for x in k[:2]]
    chars = dict(zip(positions, byte_to_char(data, positions), strict=True))
    chunk_rows, span_rows, child_rows = [], [], []
    for i, c in enumerate(chunks):
        chunk_rows.append(
            [c.token_start, c.token_end, c.overlap_tokens, int(c.oversize), c.overlap_spans]
        )
        span_rows += [[i, a, b, chars[a], chars[b]] for a, b in c.spans]
        child_rows += [[i, a, b, chars[a], chars[b], ts, te] for a, b, ts, te in c.children]
    return chunk_rows, span_rows, child_rows


def batch(text: str, config: DelimiterMerge, encode: Encode) -> Batch:
    """The chunks as a batch (see ``rows.py``); each piece is tokenized on its own."""
    joiner = config.joiner
    assert joiner is not None, "DelimiterMerge.__post_init__ resolves the default joiner"
    chunks, span_rows, child_rows = delimiter_merge(
        text,
        config.hard_delimiters,
        config.delimiters,
        config.child_delimiters,
        config.token_size,
        config.strategy.value == "under_cap",
        config.overlap,
        lambda piece: encode(piece.decode("utf-8")),
    )
    spans_of: dict[int, list[list[int]]] = {}
    for s in span_rows:
        spans_of.setdefault(s[0], []).append(s[1:])
    children_of: dict[int, list[list[int]]] = {}
    for k in child_rows:
        children_of.setdefault(k[0], []).append(k)
    table: list[list[int]] = []
    spans: list[list[int]] = []
    texts: list[str] = []
    for i, (ts, te, overlap, oversize, overlap_spans) in enumerate(chunks):
        mine = spans_of[i]
        lo = len(spans)
        spans += mine
        extent = (mine[0][0], mine[-1][1], mine[0][2], mine[-1][3])
        table.append(
            row(
                i,
                -1,
                (ts, te),
                extent,
                oversize=oversize,
                overlap_tokens=overlap,
                overlap_spans=overlap_spans,
                spans=(lo, len(spans)),
            )
        )
        texts.append(joiner.join(text[cs:ce] for _, _, cs, ce in mine))
        for j, (_, bs, be, cs, ce, kts, kte) in enumerate(children_of.get(i, [])):
            table.append(row(j, i, (kts, kte), (bs, be, cs, ce)))
            texts.append(text[cs:ce])
    return Rows(table, spans, texts, None)
