"""``Markdown`` in plain Python, written from its contract (``docs/markdown.md``).

The structure comes from :mod:`.markdown_scan`. Chunks are cut one after another from
``at``, over the tokens of one pass (a span's size is the number of tokens overlapping it):

* the chunk's **context** is its heading path (less the heading the chunk opens with), and
  a continued table's header and delimiter rows, shortened to half of ``max_tokens``;
* the **content budget** is ``max_tokens - overlap_tokens - tokens(context)`` (at least 1),
  the **room** ``max_tokens - tokens(context)``; if the rest of the text fits the budget,
  the rest is the chunk; otherwise the *window* is the longest span from ``at`` that fits,
  and the chunk ends at the best allowed cut point in it: the best rank (before a heading,
  higher levels first; after a thematic break; between blocks; between list items or table
  rows; at a line), then a sentence end, then a word start; the last one in the window of
  that rank. A cut point is not allowed inside a unit (fence, front matter, list item,
  table row, heading) that fits the room, nor where the chunk would end on a heading with
  only blank lines after it. With no allowed point the window widens to the room (the
  chunk takes less overlap), then the heading rule is dropped (units still stay whole),
  and last the chunk ends at the window's last token boundary that is a character
  boundary;
* the **cap**: ``tokens(context + text) <= max_tokens``, counted as one string; when the
  joined count is over, the budget shrinks by the excess and the chunk is cut again;
* **overlap** extends a chunk backwards by whole tokens (within the cap), never before the
  previous chunk's start or the chunk's own section heading, and never from inside a unit
  that ends by the chunk's start (it begins at that unit's end); a chunk that opens a
  section takes none.

Works on UTF-8 bytes so its offsets are the native ones.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from itertools import accumulate
from typing import TYPE_CHECKING

from . import boundaries
from .markdown_scan import Heading, Scan, scan
from .recursive import Tokens, whole_text_tokens
from .rows import Batch, RowMeta, Rows, span_rows

if TYPE_CHECKING:
    from ..config import Markdown

Count = Callable[[str], int]

_SENTENCE = re.compile(
    rb"(?:[.!?][ \t]+|(?:\xe3\x80\x82|\xef\xbc\x81|\xef\xbc\x9f)[ \t]*)(?=[^ \t\r\n])"
)  # ". ", "! ", "? " with their spaces; "。", "！", "？" with any
_WORD = re.compile(rb"[ \t]+(?=[^ \t\r\n])")
_BLANK = re.compile(rb"[ \t\r\n]*")


def path_at(headings: list[Heading], starts: list[int], at: int) -> list[Heading]:
    """The section path at byte ``at``: the headings starting at or before it, each
    closing the ones of its level and deeper."""
    stack: list[Heading] = []
    for h in headings[: bisect_right(starts, at)]:
        while stack and stack[-1].level >= h.level:
            stack.pop()
        stack.append(h)
    return stack


class _Cutter:
    def __init__(self, data: bytes, tokens: Tokens, count: Count, config: Markdown) -> None:
        self.data = data
        self.tokens = tokens
        self.count = count
        self.max_tokens = config.max_tokens
        self.overlap = config.overlap_tokens
        self.with_context = config.context
        self.scan: Scan = scan(data)
        self.starts = [h.start for h in self.scan.headings]
        self.cuts = sorted(self.scan.cuts.items())
        self.cut_at = [p for p, _ in self.cuts]
        self.units = sorted(self.scan.units)
        self.by_end = sorted((b, a) for a, b in self.units)
        self.ends = [b for b, _ in self.by_end]
        self.content = config.boundaries == "content"
        self.reach = (self.max_tokens - self.overlap) // 2
        # A rank (rank, level) as one number, in the same order.
        self.flat = {p: r[0] * 256 + r[1] for p, r in self.cuts}
        self.keys = {p: boundaries.key(data, p, r, len(data)) for p, r in self.flat.items()}
        self.anchors = self._anchors() if self.content else []

    def _anchors(self) -> list[int]:
        """Anchors among the cut points strictly inside no unit that fits ``max_tokens``
        and not where a chunk would end on a heading."""
        fits = [(a, b) for a, b in self.units if self.tokens.count(a, b) <= self.max_tokens]
        starts = [a for a, _ in fits]
        furthest = list(accumulate((b for _, b in fits), max))
        # From a heading's end through the blank lines after it, sorted (headings are).
        on_heading = []
        for h in self.scan.headings:
            blank = _BLANK.match(self.data, h.end)
            on_heading.append((h.end, blank.end() if blank is not None else h.end))
        heading_ends = [a for a, _ in on_heading]

        def ends_on_heading(p: int) -> bool:
            k = bisect_right(heading_ends, p)
            return k > 0 and p <= on_heading[k - 1][1]

        points = [
            (p, self.flat[p])
            for p, _ in self.cuts
            if not ((k := bisect_left(starts, p)) and furthest[k - 1] > p)
            and not ends_on_heading(p)
        ]
        keys = [self.keys[p] for p, _ in points]
        segment = (0, len(self.data))
        return boundaries.anchors(points, keys, self.tokens.before, segment, self.reach)

    # -- context ------------------------------------------------------------------------
    def context(self, at: int, path: list[Heading]) -> str:
        if not self.with_context:
            return ""
        shown = path[:-1] if path and path[-1].start == at else path
        # A setext title's lines are joined with spaces: one heading, one context line.
        lines = ["#" * h.level + " " + h.title.replace("\n", " ") + "\n" for h in shown]
        table = ""
        for t in self.scan.tables:
            if t.body <= at < t.end:
                table = self.data[t.start : t.body].decode("utf-8", errors="surrogateescape")
        limit = self.max_tokens // 2
        # A unit opening the chunk that fits max_tokens alone gets room beside its context.
        opening = self.opening_unit(at)
        if opening is not None:
            limit = min(limit, self.max_tokens - opening)
        # The outermost headings go first; a continued table's header rows only when no
        # heading is left.
        for rows in [table, ""] if table else [""]:
            for k in range(len(lines) + 1):
                context = ("".join(lines[k:]) + "\n" if lines[k:] else "") + rows
                if not context or self.count(context) <= limit:
                    return context
        return ""

    def opening_unit(self, at: int) -> int | None:
        """The tokens of the largest unit starting at ``at`` that fits ``max_tokens``; a
        heading at ``at`` and the unit after it (past blank lines) count as one."""
        starts = [at]
        k = bisect_left(self.starts, at)
        if k < len(self.starts) and self.starts[k] == at:
            end = self.scan.headings[k].end
            blank = _BLANK.match(self.data, end)
            starts.append(blank.end() if blank is not None else end)
        fits = []
        for a in starts:
            units = self.units[
                bisect_left(self.units, (a, 0)) : bisect_left(self.units, (a + 1, 0))
            ]
            fits += [n for _, b in units if (n := self.tokens.count(at, b)) <= self.max_tokens]
        return max(fits, default=None)

    # -- where a chunk ends -------------------------------------------------------------
    def _best(self, at: int, window_end: int, room: int, strict: bool) -> int | None:
        """The best allowed cut point in ``(at, window_end]``, or None. Units that fit
        ``room`` stay whole; ``strict``: no chunk ends on a heading either."""
        tokens = self.tokens
        # Only units starting in the window, or holding ``at`` within ``room`` tokens of
        # it, can matter: searching those keeps the scan linear in the document.
        lower = tokens.bound(max(0, tokens.token_at(at) - room)) if tokens.n else 0
        units = self.units[
            bisect_left(self.units, (lower, 0)) : bisect_left(self.units, (window_end, 0))
        ]
        # A unit starting after ``at`` that fits max_tokens gets its own chunk, whose
        # context is shortened to make room for it (see ``context``).
        fitting = [
            (a, b)
            for a, b in units
            if b > at and tokens.count(a, b) <= (self.max_tokens if a > at else room)
        ]
        near = self.scan.headings[
            bisect_left(self.starts, at) : bisect_left(self.starts, window_end)
        ]
        headings = [h.end for h in near if h.end <= window_end]

        def allowed(p: int) -> bool:
            if any(a < p < b for a, b in fitting):
                return False
            for end in headings if strict else ():
                if end <= p:
                    blank = _BLANK.match(self.data, end, p)
                    if blank is not None and blank.end() == p:
                        return False  # the chunk would end on a heading
            return True

        lo = bisect_right(self.cut_at, at)
        hi = bisect_right(self.cut_at, window_end)
        late = tokens.token_at(at) + self.reach

        def order(c: tuple[int, tuple[int, int]]) -> tuple[object, ...]:
            if self.content:  # the smallest key, from `reach` tokens on if one is allowed
                return (tokens.before(c[0]) < late, self.keys[c[0]])
            return (c[1], -c[0])  # the best rank, the last of it

        for p, _ in sorted(self.cuts[lo:hi], key=order):
            if allowed(p):
                return p
        for pattern in (_SENTENCE, _WORD):
            found = [m.end() for m in pattern.finditer(self.data, at, window_end)]
            for p in reversed(found):
                if at < p <= window_end and allowed(p):
                    return p
        return None

    def chunk_end(self, at: int, budget: int, room: int) -> int:
        """Where the chunk from ``at`` ends: ``budget`` is the room for content with the
        overlap reserved, ``room`` without it. A unit that fits ``room`` but not the budget
        is kept whole by taking the overlap's room (the chunk then takes less overlap)."""
        tokens, n = self.tokens, len(self.data)
        first = tokens.token_at(at)
        if self.content:  # the first anchor in the window
            x = n if first + budget >= tokens.n else tokens.bound(first + budget)
            k = bisect_right(self.anchors, at)
            if k < len(self.anchors) and self.anchors[k] <= x:
                return self.anchors[k]
        # Before a heading may end a chunk, the wider window is tried; before units may be
        # cut, the heading rule is dropped.
        for strict in (True, False):
            for size in dict.fromkeys((budget, room)):
                if first + size >= tokens.n:
                    return n
                best = self._best(at, tokens.bound(first + size), room, strict)
                if best is not None:
                    return best
        b = tokens.char_cut(at, first, first + budget)
        return n if b is None else b

    # -- the chunks ---------------------------------------------------------------------
    def text(self, a: int, b: int) -> str:
        return self.data[a:b].decode("utf-8", errors="surrogateescape")

    def joined(self, context: str, a: int, b: int) -> int:
        return self.count(context + self.text(a, b))

    def run(self) -> list[tuple[int, int, list[Heading], str, bool]]:
        """``(start, cut, path, context, oversize)`` per chunk."""
        out: list[tuple[int, int, list[Heading], str, bool]] = []
        tokens, n = self.tokens, len(self.data)
        at = 0
        prev: int | None = None
        while at < n:
            path = path_at(self.scan.headings, self.starts, at)
            context = self.context(at, path)
            context_tokens = self.count(context)
            budget = max(1, self.max_tokens - self.overlap - context_tokens)
            room = max(budget, self.max_tokens - context_tokens)
            while True:
                cut = self.chunk_end(at, budget, room)
                excess = self.joined(context, at, cut) - self.max_tokens
                if excess <= 0 or room == 1:
                    break
                budget = max(1, budget - excess)
                room = max(budget, room - excess)
            start, k = at, 0
            opens = bool(path) and path[-1].start == at
            if prev is not None and self.overlap and not opens:
                lower = max(prev, path[-1].start if path else 0)
                k = min(self.overlap, self.max_tokens - tokens.count(at, cut))
                while k > 0:
                    start = self._past_units(self._back(at, k, lower), at)
                    ctx = self.context(start, path_at(self.scan.headings, self.starts, start))
                    if start == at or self.joined(ctx, start, cut) <= self.max_tokens:
                        break
                    k -= 1
                if k <= 0:
                    start = at
            if start != at:
                path = path_at(self.scan.headings, self.starts, start)
                context = self.context(start, path)
            oversize = (
                tokens.count(start, cut) > self.max_tokens
                or self.joined(context, start, cut) > self.max_tokens
            )
            out.append((start, cut, path, context, oversize))
            prev = at
            at = cut
        return out

    def _past_units(self, start: int, at: int) -> int:
        """``start`` moved past every unit that holds it strictly and ends at or before
        ``at``: an overlap never begins inside a fence, a table row or a list item."""
        while True:
            inside = self.by_end[bisect_right(self.ends, start) : bisect_right(self.ends, at)]
            ends = [b for b, a in inside if a < start]
            if not ends:
                return start
            start = max(ends)

    def _back(self, at: int, k: int, lower: int) -> int:
        """``at`` moved back by ``k`` whole tokens, not before ``lower``, then forward to a
        character boundary."""
        tokens = self.tokens
        first = tokens.token_at(at)
        return tokens.char_start(max(tokens.bound(first - k) if first >= k else 0, lower), at)


def batch(text: str, byte_starts: list[int], config: Markdown, count: Count) -> Batch:
    """The chunks as a batch (see ``rows.py``), with each row's ``(headings, truncated,
    context, scopes)`` as a fourth element (no scopes in Markdown)."""
    data = text.encode("utf-8")
    cutter = _Cutter(data, whole_text_tokens(data, byte_starts), count, config)
    spans = cutter.run()
    table, texts = span_rows(text, data, cutter.tokens, [(a, b, o) for a, b, _, _, o in spans])
    meta = [
        RowMeta(
            tuple((h.level, h.title) for h in path), any(h.truncated for h in path), context, ()
        )
        for _, _, path, context, _ in spans
    ]
    return Rows(table, [], texts, meta)
