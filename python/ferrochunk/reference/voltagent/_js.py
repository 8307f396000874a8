"""JavaScript string and number semantics (as ``@voltagent/rag`` 1.0.2 runs on Node).

Inside the port every string is in *JS form*: a Python ``str`` in which each astral
character is written as its two surrogate code points, so ``len()``, indexing and slicing
count UTF-16 code units exactly as JavaScript does. :func:`to_js` converts once at entry
and :func:`from_js` converts results back; lone surrogates survive both ways.

Numbers follow JS doubles: options may be fractional, negative or NaN, and ``Math.max``,
``Math.min``, ``slice`` and array lookups treat them the way the upstream code sees them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any, TypeVar, overload

T = TypeVar("T")

# §0.2: ECMAScript WhiteSpace + LineTerminator. Not Unicode White_Space: U+FEFF is in,
# U+0085 and U+180E are out, so neither str.isspace nor str.strip() may be used.
WHITESPACE = (
    "\t\n\x0b\x0c\r \xa0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
WS_CLASS = (
    "\\t\\n\\x0b\\x0c\\r \\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff"
)
"""The body of a Python ``re`` character class equal to JS ``\\s`` (use as ``[{WS_CLASS}]``)."""

LINE_TERMINATORS = "\n\r\u2028\u2029"
"""What JS ``.`` does not match and where a multiline ``^`` may start."""

MAX_SAFE_INTEGER = 2**53 - 1

_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _surrogate_pair(match: re.Match[str]) -> str:
    code = ord(match.group()) - 0x10000
    return chr(0xD800 + (code >> 10)) + chr(0xDC00 + (code & 0x3FF))


def to_js(text: str) -> str:
    """``text`` in JS form: every astral character becomes its surrogate pair."""
    if not text or max(text) < "\U00010000":
        return text  # fast path: BMP-only text is already JS form
    return _ASTRAL.sub(_surrogate_pair, text)


def from_js(text: str) -> str:
    """The normal Python string for JS-form ``text``: surrogate pairs are re-joined,
    lone surrogates stay (they are what upstream returns when a slice cuts a pair)."""
    if _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def js_trim(text: str) -> str:
    """``String.prototype.trim``: strips the JS whitespace set only."""
    return text.strip(WHITESPACE)


def _relative_index(index: float, length: int) -> int:
    """A ``slice`` argument as JS resolves it: NaN -> 0, truncated toward zero,
    negative counted from the end, clamped to ``[0, length]``."""
    if math.isnan(index):
        return 0
    if math.isinf(index):
        return length if index > 0 else 0
    at = int(index)
    return max(length + at, 0) if at < 0 else min(at, length)


@overload
def js_slice(seq: str, start: float, end: float | None = None) -> str: ...
@overload
def js_slice(seq: list[T], start: float, end: float | None = None) -> list[T]: ...
def js_slice(seq: str | list[T], start: float, end: float | None = None) -> str | list[T]:
    """``String.prototype.slice`` / ``Array.prototype.slice`` (§0.4); empty when start >= end."""
    length = len(seq)
    a = _relative_index(start, length)
    b = length if end is None else _relative_index(end, length)
    return seq[a:b] if a < b else seq[:0]


def js_index(seq: Sequence[T], index: float) -> T | None:
    """``seq[index]`` as JS reads an array: ``None`` (undefined) unless ``index`` is an
    integral number inside the array. Negative indices do not count from the end."""
    if isinstance(index, float):
        if not index.is_integer():
            return None  # also NaN and the infinities
        index = int(index)
    if 0 <= index < len(seq):
        return seq[int(index)]
    return None


def js_max(*values: float) -> float:
    """``Math.max``: NaN if any argument is NaN."""
    if any(math.isnan(v) for v in values):
        return math.nan
    return max(values)


def js_min(*values: float) -> float:
    """``Math.min``: NaN if any argument is NaN."""
    if any(math.isnan(v) for v in values):
        return math.nan
    return min(values)


def js_ceil(value: float) -> float:
    """``Math.ceil``: NaN and the infinities pass through."""
    return value if math.isnan(value) or math.isinf(value) else math.ceil(value)


def js_truthy(value: Any) -> bool:
    """JS truthiness: ``undefined``/``null``, ``false``, ``0``, ``NaN`` and ``""`` are falsy;
    every object, empty arrays included, is truthy."""
    if value is None or value is False:
        return False
    if isinstance(value, int | float):
        return not (value == 0 or math.isnan(value))
    if isinstance(value, str):
        return value != ""
    return True


def num(value: float) -> float:
    """A JS number as output: an ``int`` when integral, so JSON prints ``3`` not ``3.0``."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value
