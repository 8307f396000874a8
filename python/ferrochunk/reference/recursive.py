"""``Recursive`` in plain Python, written from its contract (``ferrochunk.Recursive``'s docstring).

Dify's recursive splitter measured in real tokens, with every decision local:

* a span's size is the number of tokens that overlap it; the content budget is
  ``max_tokens - overlap_tokens``;
* a fixed separator first cuts the text into segments (the separator stays at the end of
  the segment before it, or the start of the one after); empty segments are skipped and
  chunks never cross a segment boundary;
* inside a segment, chunks are cut one after another from ``at``: if the rest of the
  segment fits the budget it is the chunk; otherwise the *window* is the longest span from
  ``at`` that fits, and the chunk ends at the last occurrence inside the window of the
  first separator (in order) that occurs there, occurrences found left to right without
  overlap from ``at``; the empty separator ends the list;
* with no separator in the window, the chunk ends at the window's last token boundary that
  is a character boundary, or, when the window holds none, at the first one after it
  (``oversize``), or the segment's end;
* with a tokenizer that has pre-tokens (words), a chunk starts only at a word's first
  token; a separator's cut moves forward over white space to one, or else back to the last
  one after ``at``;
* overlap extends every chunk after the first backwards by whole tokens, within
  ``max_tokens`` and never before the previous chunk's content, then moves later to a
  character boundary.

With ``boundaries="content"`` a chunk ends instead at the first anchor (``boundaries.py``)
in its window; the points are every occurrence of every separator in the segment, each
with the rank of its separator, and ``reach`` is half the budget. With no anchor in the
window, the rest of the segment is the chunk when it fits; otherwise the chunk ends at the
point of the smallest key in the window among those at least ``reach`` tokens from ``at``,
else among all of the window's points, else as above with no separator.

Works on UTF-8 bytes so its offsets are the native ones.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from itertools import chain
from typing import TYPE_CHECKING

from . import boundaries
from ._offsets import byte_to_char, is_char_boundary
from .rows import Batch, Rows, row

if TYPE_CHECKING:
    from ..config import Recursive

Span = tuple[int, int, int, int, bool]
"""token_start, token_end, byte_start, byte_end, oversize"""


class Tokens:
    """The tokens over ``data[lo:hi]``: token ``base + k`` starts at ``starts[k]`` and runs
    to the next start (the last one to ``hi``)."""

    def __init__(
        self,
        data: bytes,
        starts: Sequence[int],
        base: int,
        hi: int,
        words: Sequence[bool] | None = None,
    ) -> None:
        self.data = data
        self.starts = list(starts)
        self.base = base
        self.hi = hi
        self.words = None if words is None else list(words)

    @property
    def n(self) -> int:
        return self.base + len(self.starts)

    def bound(self, i: int) -> int:
        """Where token ``i`` starts (``hi`` past the last token)."""
        k = i - self.base
        return self.starts[k] if k < len(self.starts) else self.hi

    def token_at(self, at: int) -> int:
        """The token holding byte ``at``: the first starting there, else the last before."""
        k = bisect_left(self.starts, at)
        if k < len(self.starts) and self.starts[k] == at:
            return self.base + k
        return self.base + max(k - 1, 0)

    def word(self, i: int) -> bool:
        k = i - self.base
        return self.words is None or not 0 <= k < len(self.words) or self.words[k]

    def cuttable(self, i: int) -> bool:
        return self.word(i) and self.boundary(self.bound(i))

    def is_cut(self, at: int) -> bool:
        """A chunk may end at byte ``at``: a character boundary where a word begins."""
        if not self.boundary(at):
            return False
        if self.words is None or at >= self.hi or not self.starts or at <= self.starts[0]:
            return True
        k = bisect_left(self.starts, at)
        return k < len(self.starts) and self.starts[k] == at and self.words[k]

    def word_cut(self, at: int, floor: int, limit: int) -> int | None:
        """A separator's cut moved to a word: forward over white space, else back."""
        if self.is_cut(at):
            return at
        text = self.data[at:limit].decode("utf-8", "replace")
        q = at
        for ch in text:
            if not ch.isspace():
                break
            q += len(ch.encode("utf-8"))
        if at < q <= limit and self.is_cut(q):
            return q
        assert self.words is not None
        for k in range(bisect_left(self.starts, at) - 1, -1, -1):
            b = self.starts[k]
            if b <= floor:
                break
            if self.words[k] and self.boundary(b):
                return b
        return None

    def before(self, b: int) -> int:
        """Tokens that start before byte ``b``."""
        return self.base + bisect_left(self.starts, b)

    def count(self, a: int, b: int) -> int:
        """Tokens overlapping ``a..b``."""
        if b <= a or not self.starts:
            return 0
        return self.base + bisect_left(self.starts, b) - self.token_at(a)

    def boundary(self, at: int) -> bool:
        return is_char_boundary(self.data, at)

    def char_cut(self, at: int, first: int, last: int) -> int | None:
        """Where a window of tokens ``first..last`` from byte ``at`` may end: the last token
        boundary after ``at`` that is a character boundary, else the first one after the
        window, else None."""
        for i in chain(range(last, first, -1), range(last + 1, self.n + 1)):
            b = self.bound(i)
            if b > at and self.cuttable(i):
                return b
        return None

    def char_start(self, start: int, at: int) -> int:
        """``start`` moved later to a token boundary that is a character boundary, never
        past ``at``."""
        while start < at and not self.is_cut(start):
            nxt = self.base + bisect_right(self.starts, start)  # past tokens sharing it
            start = min(self.bound(nxt), at) if nxt < self.n else at
        return start


def _segments(data: bytes, lo: int, hi: int, fixed: bytes, keep_end: bool) -> list[tuple[int, int]]:
    """``data[lo:hi]`` cut at every occurrence of ``fixed`` (none: one segment)."""
    if not fixed:
        return [(lo, hi)] if hi > lo else []
    out = []
    at = search = lo
    while (m := data.find(fixed, search, hi)) != -1:
        cut = m + len(fixed) if keep_end else m
        if cut > at:
            out.append((at, cut))
            at = cut
        search = m + len(fixed)
    if hi > at:
        out.append((at, hi))
    return out


def _separator_cut(
    tokens: Tokens, at: int, window_end: int, seps: Sequence[bytes], keep_end: bool
) -> int | None:
    """The last cut in ``(at, window_end]`` of the first separator that has one."""
    data = tokens.data
    for sep in seps:
        best = None
        search = at
        while (m := data.find(sep, search)) != -1:
            cut = m + len(sep) if keep_end else m
            if cut > window_end:
                break
            moved = tokens.word_cut(cut, at, window_end)
            if moved is not None and moved > at:
                best = moved
            search = m + len(sep)
        if best is not None:
            return best
    return None


class _Content:
    """One segment's points, their keys and its anchors (``boundaries="content"``)."""

    def __init__(
        self,
        tokens: Tokens,
        segment: tuple[int, int],
        seps: list[bytes],
        keep_end: bool,
        reach: int,
    ) -> None:
        data = tokens.data
        s, e = segment
        ranks: dict[int, int] = {}
        for rank, sep in enumerate(seps):
            m = data.find(sep, s, e)
            while m != -1:
                c = m + len(sep) if keep_end else m
                p = boundaries.moved(data, c, e, tokens.is_cut) if s < c < e else None
                if p is not None and rank < ranks.get(p, len(seps)):
                    ranks[p] = rank
                m = data.find(sep, m + 1, e)
        self.points = sorted(ranks.items())
        self.positions = [p for p, _ in self.points]
        self.keys = [boundaries.key(data, p, r, e) for p, r in self.points]
        self.anchors = boundaries.anchors(self.points, self.keys, tokens.before, segment, reach)

    def first_anchor(self, at: int, x: int) -> int | None:
        k = bisect_right(self.anchors, at)
        return self.anchors[k] if k < len(self.anchors) and self.anchors[k] <= x else None

    def best(self, tokens: Tokens, at: int, x: int, late: int) -> int | None:
        """The window's point of the smallest key, from token ``late`` on if one is."""
        lo, hi = bisect_right(self.positions, at), bisect_right(self.positions, x)
        window = range(lo, hi)
        for chosen in ([i for i in window if tokens.before(self.positions[i]) >= late], window):
            if chosen:
                return self.points[min(chosen, key=lambda i: self.keys[i])][0]
        return None


def cut_spans(tokens: Tokens, lo: int, config: Recursive) -> list[Span]:
    """The chunks of ``data[lo:tokens.hi]`` by the contract."""
    data, hi = tokens.data, tokens.hi
    max_tokens, overlap = config.max_tokens, config.overlap_tokens
    budget = max_tokens - overlap
    keep_end = config.keep_separator == "end"
    seps = []
    for s in config.separators:
        if not s:
            break
        seps.append(s.encode("utf-8"))
    fixed = (config.fixed_separator or "").encode("utf-8")
    reach = budget // 2
    content: _Content | None = None

    def content_end(at: int, seg_end: int) -> int:
        assert content is not None
        first = tokens.token_at(at)
        overflow = first + budget
        fits = overflow >= tokens.n or seg_end <= tokens.bound(overflow)
        x = seg_end if fits else tokens.bound(overflow)
        anchor = content.first_anchor(at, x)
        if anchor is not None:
            return anchor
        if fits:
            return seg_end
        best = content.best(tokens, at, x, first + reach)
        if best is not None:
            return best
        b = tokens.char_cut(at, first, overflow)
        return seg_end if b is None else min(b, seg_end)

    def chunk_end(at: int, seg_end: int) -> int:
        first = tokens.token_at(at)
        overflow = first + budget  # the first token that does not fit
        if overflow >= tokens.n or seg_end <= tokens.bound(overflow):
            return seg_end  # the rest of the segment fits
        window_end = tokens.bound(overflow)
        cut = _separator_cut(tokens, at, window_end, seps, keep_end)
        if cut is not None:
            return cut
        b = tokens.char_cut(at, first, overflow)
        return seg_end if b is None else min(b, seg_end)

    out: list[Span] = []
    prev: tuple[int, int] | None = None  # previous content start and its token
    for seg_start, seg_end in _segments(data, lo, hi, fixed, keep_end):
        at = seg_start
        if config.boundaries == "content":
            content = _Content(tokens, (seg_start, seg_end), seps, keep_end, reach)
        while at < seg_end:
            cut = content_end(at, seg_end) if content is not None else chunk_end(at, seg_end)
            start = at
            if prev is not None and overlap:
                k = min(overlap, max_tokens - tokens.count(at, cut))
                first = tokens.token_at(at)
                if k > 0 and first >= k:
                    prev_at, prev_token = prev
                    start = (
                        prev_at if first - k < prev_token else max(tokens.bound(first - k), prev_at)
                    )
                    start = tokens.char_start(start, at)
            count = tokens.count(start, cut)
            ts = tokens.token_at(start) if tokens.n else 0
            out.append((ts, ts + count, start, cut, count > max_tokens))
            prev = (at, tokens.token_at(at))
            at = cut
    return out


def whole_text_tokens(data: bytes, byte_starts: Sequence[int]) -> Tokens:
    """The tokens of a whole text (token 0 runs from its start)."""
    starts = [0, *byte_starts[1:]] if byte_starts else []
    return Tokens(data, starts, 0, len(data), getattr(byte_starts, "words", None))


def chars_of(data: bytes, spans: Sequence[Span]) -> dict[int, int]:
    positions = [x for s in spans for x in s[2:4]]
    return dict(zip(positions, byte_to_char(data, positions), strict=True))


def batch(text: str, byte_starts: Sequence[int], config: Recursive) -> Batch:
    """The chunks as a batch (see ``rows.py``)."""
    data = text.encode("utf-8")
    spans = cut_spans(whole_text_tokens(data, byte_starts), 0, config)
    chars = chars_of(data, spans)
    table = [
        row(i, -1, (ts, te), (bs, be, chars[bs], chars[be]), oversize=int(big))
        for i, (ts, te, bs, be, big) in enumerate(spans)
    ]
    return Rows(table, [], [text[r[6] : r[7]] for r in table], None)
