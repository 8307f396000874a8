"""``Recursive`` in plain Python (the twin of ``rust/families/dify_contract.rs``).

Dify's recursive splitter, measured in real tokens from one tokenization pass:

* a span's size is the number of tokens that overlap it (a conservative count when a
  boundary falls inside a token);
* a span that fits the content budget (``max_tokens - overlap_tokens``) is kept whole;
  otherwise it is cut at the first separator it contains (the separator stays with the
  piece before it, ``"end"``, or after it, ``"start"``), neighbouring pieces merge while
  they fit, and a piece that does not fit recurses with the next separators; with no
  separator left it is cut into windows of whole tokens at character boundaries;
* a fixed separator first cuts the text into segments that are never merged;
* overlap extends a chunk backwards by whole tokens, within ``max_tokens``.

Works on UTF-8 bytes so its offsets are the native ones.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence

from ._offsets import byte_to_char, is_char_boundary

Row = tuple[int, int, int, int, int, int, int]
"""token_start, token_end, byte_start, byte_end, char_start, char_end, oversize"""


class _Tokens:
    """Token boundaries of the text: token ``i`` spans ``starts[i]`` to the next start."""

    def __init__(self, data: bytes, starts: Sequence[int]) -> None:
        self.data = data
        self.starts = [0, *starts[1:]] if starts else []

    def first(self, at: int) -> int:
        """Index of the token containing byte ``at``."""
        return max(bisect_right(self.starts, at) - 1, 0)

    def end(self, at: int) -> int:
        """Number of tokens starting before byte ``at``."""
        return bisect_left(self.starts, at)

    def count(self, a: int, b: int) -> int:
        return self.end(b) - self.first(a) if b > a and self.starts else 0

    def cuts(self, a: int, b: int) -> list[int]:
        """Token starts strictly inside ``(a, b)`` that are character boundaries, then ``b``."""
        inside = self.starts[bisect_right(self.starts, a) : bisect_left(self.starts, b)]
        return [s for s in inside if is_char_boundary(self.data, s)] + [b]


def _pieces(data: bytes, a: int, b: int, sep: bytes, keep: str) -> list[tuple[int, int]]:
    """``data[a:b]`` cut at every ``sep``, the separator kept at the end or the start."""
    out = []
    at = a
    i = data.find(sep, a, b)
    while i != -1:
        cut = i + len(sep) if keep == "end" else i
        if cut > at:
            out.append((at, cut))
            at = cut
        i = data.find(sep, i + len(sep), b)
    if b > at:
        out.append((at, b))
    return out


def _windows(tokens: _Tokens, a: int, b: int, budget: int) -> list[tuple[int, int]]:
    """Whole-token windows of at most ``budget`` tokens, cut at character boundaries."""
    out = []
    at = a
    cuts = tokens.cuts(a, b)
    while at < b:
        # Counts grow with the cut, so the furthest fitting cut is a binary search.
        lo = bisect_right(cuts, at)
        fit = bisect_right(cuts, budget, lo=lo, key=lambda c: tokens.count(at, c))
        end = cuts[fit - 1] if fit > lo else cuts[lo]
        out.append((at, end))
        at = end
    return out


def _split(
    tokens: _Tokens,
    a: int,
    b: int,
    separators: Sequence[bytes],
    budget: int,
    keep: str,
) -> list[tuple[int, int]]:
    if tokens.count(a, b) <= budget:
        return [(a, b)]
    for i, sep in enumerate(separators):
        if sep == b"":
            break
        if tokens.data.find(sep, a, b) != -1:
            rest = separators[i + 1 :]
            out: list[tuple[int, int]] = []
            cur: tuple[int, int] | None = None
            for p in _pieces(tokens.data, a, b, sep, keep):
                if tokens.count(*p) > budget:
                    if cur:
                        out.append(cur)
                        cur = None
                    out.extend(_split(tokens, p[0], p[1], rest, budget, keep))
                elif cur and tokens.count(cur[0], p[1]) <= budget:
                    cur = (cur[0], p[1])
                else:
                    if cur:
                        out.append(cur)
                    cur = p
            if cur:
                out.append(cur)
            return out
    return _windows(tokens, a, b, budget)


def recursive_rows(
    text: str,
    byte_starts: Sequence[int],
    max_tokens: int,
    overlap_tokens: int,
    fixed_separator: str | None,
    separators: Sequence[str],
    keep: str,
) -> list[Row]:
    """The chunks of ``text`` as rows (see :data:`Row`)."""
    data = text.encode("utf-8")
    tokens = _Tokens(data, byte_starts)
    budget = max_tokens - overlap_tokens
    seps = [s.encode("utf-8") for s in separators]
    segments = (
        _pieces(data, 0, len(data), fixed_separator.encode("utf-8"), keep)
        if fixed_separator
        else ([(0, len(data))] if data else [])
    )
    content = [span for a, b in segments for span in _split(tokens, a, b, seps, budget, keep)]
    spans = []
    for i, (a, b) in enumerate(content):
        start = a
        if i and overlap_tokens:
            k = min(overlap_tokens, max_tokens - tokens.count(a, b))
            first = tokens.first(a)
            if k > 0 and first - k >= 0:
                start = max(tokens.starts[first - k], content[i - 1][0])
                # Move later to a character boundary (never past the content start).
                while start < a and not is_char_boundary(data, start):
                    nxt = tokens.first(start) + 1
                    start = min(tokens.starts[nxt] if nxt < len(tokens.starts) else a, a)
        spans.append((start, b))
    positions = [x for s in spans for x in s]
    chars = dict(zip(positions, byte_to_char(data, positions), strict=True))
    rows = []
    for a, b in spans:
        count = tokens.count(a, b)
        ts = tokens.first(a) if tokens.starts else 0
        rows.append((ts, ts + count, a, b, chars[a], chars[b], int(count > max_tokens)))
    return rows
