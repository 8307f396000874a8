"""``SentenceWindows`` in plain Python (the twin of ``rust/breaks.rs`` and
``rust/sentence_windows.rs``).

Token ``i`` starts at ``byte_starts[i]`` (the first at 0). Boundary ``i`` is where token
``i`` starts; ``0`` and ``n`` are the ends of the text.

* Breaks: a break character ends a break after itself, credited to the start of the token
  holding that position; a boundary inside a UTF-8 character is never a break, and a
  boundary's class is the best one credited to it. The first two classes end sentences.
* A window of at most ``safe_max`` tokens ends at its last sentence end; else at the best
  break (right-most in its class) in its last 200 characters; else at its last boundary
  that is a character boundary; else at the first one after it (``oversize``).
* The next window starts with a proper tail of at most ``overlap_tokens`` tokens, at its
  best break (left-most in its class), else at its first character boundary.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ._offsets import byte_to_char, is_char_boundary
from .rows import Batch, Rows, row

if TYPE_CHECKING:
    from ..config import SentenceWindows

Row = tuple[int, int, int, int, int, int, int, int]
"""token_start, token_end, byte_start, byte_end, char_start, char_end, overlap_tokens,
oversize"""

WHITE_SPACE = frozenset(
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
    "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
"""Unicode ``White_Space`` (Rust's ``char::is_whitespace``; ``str.isspace`` differs)."""
NO_BREAK = 255
_SENTENCE_CLASSES = 2
_LOOKBACK_CHARS = 200


def class_of(classes: Sequence[Sequence[str]], ch: str, spaced: bool) -> int:
    """The best class of break character ``ch`` (``spaced``: white space or the end
    follows), or :data:`NO_BREAK`."""
    for k, group in enumerate(classes):
        for entry in group:
            if entry[0] == ch and (spaced or len(entry) == 1):
                return k
    return NO_BREAK


def classify(
    text: str, data: bytes, starts: Sequence[int], classes: Sequence[Sequence[str]]
) -> list[int]:
    """The class of every boundary ``0..=len(starts)``."""
    n = len(starts)
    out = [NO_BREAK] * (n + 1)
    words = getattr(starts, "words", None)
    token = 0
    at = 0  # byte offset of the current character
    for i, ch in enumerate(text):
        after = at + len(ch.encode("utf-8"))
        at = after
        if after == len(data):
            continue
        spaced = text[i + 1] in WHITE_SPACE if i + 1 < len(text) else True
        k = class_of(classes, ch, spaced)
        if k == NO_BREAK:
            continue
        while token + 1 < n and starts[token + 1] <= after:
            token += 1
        if token > 0 and is_char_boundary(data, starts[token]) and (words is None or words[token]):
            out[token] = min(out[token], k)
    return out


def sentence_windows(
    text: str,
    byte_starts: Sequence[int],
    safe_max: int,
    overlap_tokens: int,
    classes: Sequence[Sequence[str]],
) -> list[Row]:
    """The windows as rows (see :data:`Row`)."""
    data = text.encode("utf-8")
    n = len(byte_starts)
    if n == 0:
        # No tokens: a non-empty text is one window, kept whole.
        return [(0, 0, 0, len(data), 0, len(text), 0, 0)] if text else []

    def byte(i: int) -> int:
        return 0 if i == 0 else (len(data) if i >= n else byte_starts[i])

    words = getattr(byte_starts, "words", None)

    def cuttable(i: int) -> bool:
        if i == 0 or i >= n:
            return True
        return is_char_boundary(data, byte(i)) and (words is None or words[i])

    cls = classify(text, data, byte_starts, classes)
    chars = byte_to_char(data, [byte(i) for i in range(n + 1)])

    def window_end(fresh: int, limit: int) -> tuple[int, bool]:
        inside = range(fresh + 1, limit + 1)
        for i in reversed(inside):
            if cls[i] < _SENTENCE_CLASSES:
                return i, False
        near = chars[limit] - _LOOKBACK_CHARS
        found = [i for i in inside if cls[i] != NO_BREAK and chars[i] >= near]
        if found:
            return min(found, key=lambda i: (cls[i], -i)), False
        for i in reversed(inside):
            if cuttable(i):
                return i, False
        return next((i for i in range(limit + 1, n + 1) if cuttable(i)), n), True

    def overlap_start(start: int, end: int) -> int:
        if overlap_tokens == 0:
            return end
        tail = range(max(start + 1, end - overlap_tokens), end)
        found = [i for i in tail if cls[i] != NO_BREAK]
        if found:
            return min(found, key=lambda i: (cls[i], i))
        return next((i for i in tail if cuttable(i)), end)

    windows: list[tuple[int, int, int, bool]] = []
    start = fresh = 0
    while True:
        limit = start + safe_max
        end, oversize = (n, False) if limit >= n else window_end(fresh, limit)
        windows.append((start, fresh, end, oversize))
        if end >= n:
            break
        start, fresh = overlap_start(start, end), end

    return [
        (s, e, byte(s), byte(e), chars[s], chars[e], f - s, int(big)) for s, f, e, big in windows
    ]


def batch(text: str, byte_starts: Sequence[int], config: SentenceWindows) -> Batch:
    """The windows as a batch (see ``rows.py``)."""
    classes = [list(c) for c in config.break_classes]
    windows = sentence_windows(text, byte_starts, config.safe_max, config.overlap_tokens, classes)
    table = []
    prev_end = 0
    for i, (ts, te, bs, be, cs, ce, overlap, oversize) in enumerate(windows):
        table.append(
            row(
                i,
                -1,
                (ts, te),
                (bs, be, cs, ce),
                oversize=oversize,
                overlap_tokens=overlap,
                overlap_chars=prev_end - cs if i else 0,
            )
        )
        prev_end = ce
    return Rows(table, [], [text[r[6] : r[7]] for r in table], None)
