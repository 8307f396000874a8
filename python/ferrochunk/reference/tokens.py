"""A tokenizer's token starts as UTF-8 byte offsets, checked and converted in plain Python."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..errors import OffsetsError


def _check(starts: Sequence[int], limit: int) -> None:
    prev = 0
    for i, s in enumerate(starts):
        if s < prev:
            raise OffsetsError(
                f"tokenizer offsets[{i}] = {s}: offsets must be non-decreasing, previous is {prev}"
            )
        if s > limit:
            raise OffsetsError(f"tokenizer offsets[{i}] = {s}: is past the end of the text")
        prev = s


class Starts(list[int]):
    """Token starts (UTF-8 bytes) and, for a tokenizer with pre-tokens, whether each token
    begins a word (``words``; ``None``: every token may begin a chunk)."""

    words: list[bool] | None = None


def word_flags(word_ids: Sequence[int | None]) -> list[bool]:
    """A token begins a word when its pre-token differs from the previous token's."""
    return [i == 0 or w is None or w != word_ids[i - 1] for i, w in enumerate(word_ids)]


JOIN_WINDOW = 64


def unjoin(
    data: bytes, starts: Sequence[int], words: list[bool], normalize: Callable[[str], str]
) -> None:
    """Clears the word flag of every boundary ``normalize`` joins across: where the text
    on each side (up to the neighbouring word starts, at most 64 bytes) does not
    normalize alone to its share of the two normalized together."""

    def char_start(at: int, forward: bool) -> int:
        while 0 < at < len(data) and data[at] & 0xC0 == 0x80:
            at += 1 if forward else -1
        return at

    firsts = [i for i, w in enumerate(words) if w]
    for k in range(1, len(firsts)):
        i = firsts[k]
        p = starts[i]
        a = char_start(max(starts[firsts[k - 1]], p - JOIN_WINDOW), True)
        nxt = starts[firsts[k + 1]] if k + 1 < len(firsts) else len(data)
        b = char_start(min(nxt, p + JOIN_WINDOW, len(data)), False)
        if a >= p or b <= p:
            continue
        left = normalize(data[a:p].decode("utf-8"))
        right = normalize(data[p:b].decode("utf-8"))
        if normalize(data[a:b].decode("utf-8")) != left + right:
            words[i] = False


def byte_starts(text: str, unit: str, starts: Sequence[int]) -> list[int]:
    """``starts`` (``"bytes"`` of the UTF-8 text, or ``"chars"``: code points) as bytes."""
    if unit == "bytes":
        _check(starts, len(text.encode("utf-8", "surrogatepass")))
        return list(starts)
    _check(starts, len(text))
    out = []
    at = chars = 0
    for s in starts:
        while chars < s:
            code = ord(text[chars])
            at += 1 if code < 0x80 else 2 if code < 0x800 else 3 if code < 0x10000 else 4
            chars += 1
        out.append(at)
    return out
