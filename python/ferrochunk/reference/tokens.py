"""A tokenizer's token starts as UTF-8 byte offsets, checked and converted in plain Python."""

from __future__ import annotations

from collections.abc import Sequence

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
