"""Scores of one question's retrieved chunks against its reference spans.

``chroma`` reproduces Chroma's ``chunking_evaluation`` (``base_evaluation.py`` at
``d451fc4``: ``_scores_from_dataset_and_retrievals`` and ``_full_precision_score``) over
character spans, quirks kept so the figures sit beside Chroma's published table:

* ranges touch when one ends where the other starts, and touching counts as an
  intersection (of length 0): such a chunk is "highlighted";
* the recall and IoU numerators are the union of the intersections;
* the precision denominator sums the lengths of every retrieved chunk, those of other
  documents included and overlapping chunks counted twice;
* IoU's denominator is that sum plus the reference characters no chunk reached.

``tokens`` scores the same three over unions of spans measured in tokens: the retrieved
chunks' union ``U`` and the references' union ``F`` in each document; recall
``|U∩F|/|F|``, precision ``|U∩F|/|U|``, IoU ``|U∩F|/|U∪F|``.

A chunk is a document and its spans: one for most chunkers, several for
``DelimiterMerge`` (its text joins them).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .questions import Reference

Span = tuple[int, int]


@dataclass(frozen=True, slots=True)
class ChunkSpan:
    """Where a chunk lies: its document and its character spans."""

    doc: str
    spans: tuple[Span, ...]

    @property
    def length(self) -> int:
        return sum(e - s for s, e in self.spans)

    def holds(self, ref: Reference) -> bool:
        """The whole reference lies in one of the chunk's spans."""
        return ref.doc == self.doc and any(s <= ref.start and ref.end <= e for s, e in self.spans)


def total(ranges: Sequence[Span]) -> int:
    return sum(e - s for s, e in ranges)


def union(ranges: Sequence[Span]) -> list[Span]:
    """Sorted ranges merged where they overlap or touch."""
    merged: list[Span] = []
    for s, e in sorted(ranges):
        if merged and s <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], e))
        else:
            merged.append((s, e))
    return merged


def intersect(a: Span, b: Span) -> Span | None:
    """The intersection; ranges that touch give an empty one, not None (Chroma's rule)."""
    s, e = max(a[0], b[0]), min(a[1], b[1])
    return (s, e) if s <= e else None


def difference(ranges: Sequence[Span], cut: Span) -> list[Span]:
    """``ranges`` with ``cut`` removed."""
    out: list[Span] = []
    for s, e in ranges:
        if e < cut[0] or s > cut[1]:
            out.append((s, e))
            continue
        if s < cut[0]:
            out.append((s, cut[0]))
        if e > cut[1]:
            out.append((cut[1], e))
    return out


@dataclass(frozen=True, slots=True)
class Overlap:
    """What a set of chunks covers of a question's references, per document."""

    numerator: int  # characters of the references inside the chunks (a union)
    unused: int  # characters of the references outside every chunk
    touched: int  # chunks that intersect (or touch) a reference
    covered: int  # characters of the union of the touching chunks and the unused spans


def overlap(refs: Sequence[Reference], chunks: Sequence[ChunkSpan]) -> Overlap:
    """Chroma's interval bookkeeping over ``chunks`` in order."""
    docs = {r.doc for r in refs}
    found: dict[str, list[Span]] = {d: [] for d in docs}
    unused: dict[str, list[Span]] = {d: [] for d in docs}
    touching: dict[str, list[Span]] = {d: [] for d in docs}
    for r in refs:
        unused[r.doc].append((r.start, r.end))
    touched = 0
    for chunk in chunks:
        if chunk.doc not in docs:
            continue
        hit = False
        for span in chunk.spans:
            for r in refs:
                if r.doc != chunk.doc:
                    continue
                common = intersect(span, (r.start, r.end))
                if common is not None:
                    hit = True
                    unused[r.doc] = difference(unused[r.doc], common)
                    found[r.doc] = union([common, *found[r.doc]])
        if hit:
            touched += 1
            touching[chunk.doc] = union([*chunk.spans, *touching[chunk.doc]])
    return Overlap(
        numerator=sum(total(v) for v in found.values()),
        unused=sum(total(v) for v in unused.values()),
        touched=touched,
        covered=sum(total(union(touching[d] + unused[d])) for d in docs),
    )


@dataclass(frozen=True, slots=True)
class Triple:
    recall: float
    precision: float
    iou: float


def chroma_prefixes(
    refs: Sequence[Reference], ranked: Sequence[ChunkSpan], cuts: Sequence[int]
) -> list[Triple]:
    """:func:`chroma` of ``ranked[:n]`` for each ``n`` in ``cuts``."""
    return [chroma(refs, ranked[:n]) for n in cuts]


def chroma(refs: Sequence[Reference], retrieved: Sequence[ChunkSpan]) -> Triple:
    """Chroma's recall, precision and IoU of the retrieved chunks (see the module)."""
    o = overlap(refs, retrieved)
    wanted = sum(r.end - r.start for r in refs)
    lengths = sum(c.length for c in retrieved)
    return Triple(
        recall=o.numerator / wanted,
        precision=o.numerator / lengths if lengths else 0.0,
        iou=o.numerator / (lengths + o.unused) if lengths + o.unused else 0.0,
    )


def precision_omega(refs: Sequence[Reference], chunks: Sequence[ChunkSpan]) -> tuple[float, int]:
    """Chroma's precision Ω (the IoU of every chunk that touches a reference, as if all were
    retrieved) and how many chunks those are (Chroma's ``retrieve=-1`` count). ``chunks``
    need hold only the chunks that may touch the references, in chunk order."""
    o = overlap(refs, chunks)
    return (o.numerator / o.covered if o.numerator else 0.0), o.touched


def hits(refs: Sequence[Reference], ranked: Sequence[ChunkSpan]) -> tuple[int, int]:
    """1-based ranks, 0 for never: ``(every, first)``. By rank ``every`` each reference lies
    whole in some chunk ranked so far; rank ``first`` is the first chunk that holds a whole
    reference. Recall@k is ``0 < every <= k``, its any-reference version ``0 < first <= k``,
    and MRR@k averages ``1 / first`` where ``0 < first <= k``."""
    waiting = set(range(len(refs)))
    first = 0
    for rank, chunk in enumerate(ranked, 1):
        held = {i for i in waiting if chunk.holds(refs[i])}
        if held and not first:
            first = rank
        waiting -= held
        if not waiting:
            return rank, first
    return 0, first


def tokens(
    refs: Sequence[Reference],
    retrieved: Sequence[ChunkSpan],
    to_tokens: Callable[[str, int, int], Span],
) -> Triple:
    """Recall, precision and IoU over unions of token spans (see the module)."""
    wanted: dict[str, list[Span]] = {}
    for r in refs:
        wanted.setdefault(r.doc, []).append(to_tokens(r.doc, r.start, r.end))
    got: dict[str, list[Span]] = {}
    for c in retrieved:
        got.setdefault(c.doc, []).extend(to_tokens(c.doc, s, e) for s, e in c.spans)
    f = {d: union(v) for d, v in wanted.items()}
    u = {d: union(v) for d, v in got.items()}
    both = sum(_common(f[d], u.get(d, [])) for d in f)
    f_total = sum(total(v) for v in f.values())
    u_total = sum(total(v) for v in u.values())
    either = f_total + u_total - both
    return Triple(
        recall=both / f_total if f_total else 0.0,
        precision=both / u_total if u_total else 0.0,
        iou=both / either if either else 0.0,
    )


def _common(a: Sequence[Span], b: Sequence[Span]) -> int:
    """The length of the intersection of two sorted, disjoint range lists."""
    i = j = n = 0
    while i < len(a) and j < len(b):
        s, e = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        n += max(0, e - s)
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return n
