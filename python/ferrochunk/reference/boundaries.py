"""Content-defined boundaries (``boundaries="content"``), written from their contract
(``docs/incremental.md``).

A *point* is a byte where a chunk may end, with a rank (lower is a better break). Its key
is ``(rank, -H, position)``, smaller is better, where ``H`` is the XXH3-128 of the
``HASH_BYTES`` bytes from the point (fewer where its segment ends first). Positions are
measured in tokens: ``T(b)`` is the number of tokens that start before byte ``b``.

A point is an **anchor** when no other point of its segment within ``reach`` tokens on
either side (``|T(q) - T(p)| <= reach``) has a smaller key, and it lies more than ``reach``
tokens from both ends of its segment. So whether a point is an anchor reads only the text
within reach of it: an edit moves only the anchors near it, and the chunks between two
anchors that it does not reach come out the same.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence

from .._support.xxh3 import xxh3_128

HASH_BYTES = 32
# A point that is not a cut moves forward over at most this many bytes of ASCII white space.
SKIP_SPACE = 64
_SPACE = frozenset(b" \t\n\r\x0b\x0c")

Key = tuple[int, int, int]


def key(data: bytes, p: int, rank: int, end: int) -> Key:
    return (rank, -xxh3_128(data[p : min(p + HASH_BYTES, end)]), p)


def moved(data: bytes, c: int, end: int, is_cut: Callable[[int], bool]) -> int | None:
    """``c`` itself when a chunk may end there, else the first cut after white space."""
    if is_cut(c):
        return c
    q = c
    while q < min(end, c + SKIP_SPACE) and data[q] in _SPACE:
        q += 1
    return q if q > c and q < end and is_cut(q) else None


def anchors(
    points: Sequence[tuple[int, int]],
    keys: Sequence[Key],
    t: Callable[[int], int],
    segment: tuple[int, int],
    reach: int,
) -> list[int]:
    """The anchors among ``points`` (sorted ``(position, rank)`` of one segment)."""
    ts = [t(p) for p, _ in points]
    first, last = t(segment[0]), t(segment[1])
    out = []
    window: deque[int] = deque()  # indices in reach, keys increasing from the left
    right = 0
    for i, (p, _) in enumerate(points):
        while right < len(points) and ts[right] <= ts[i] + reach:
            while window and keys[window[-1]] >= keys[right]:
                window.pop()
            window.append(right)
            right += 1
        while ts[window[0]] < ts[i] - reach:
            window.popleft()
        if window[0] == i and ts[i] - first > reach and last - ts[i] > reach:
            out.append(p)
    return out
