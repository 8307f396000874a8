"""RAGFlow's rules that the product and the reference port both need, so they live on
neither side: the delimiter field, ``MergeStrategy`` as upstream shapes it, and the
overlap percentage.

Upstream: ``rag/nlp/__init__.py`` and ``common/float_utils.py`` of infiniflow/ragflow @
b1b8cd6; the behaviour is pinned by the upstream vectors in ``tests/data``. Upstream
declares a plain ``Enum`` and compares with ``==``, so the string ``"under_cap"`` is not
``UNDER_CAP`` there; the native :class:`ferrochunk.MergeStrategy` is a ``(str, Enum)``
because ``DelimiterMerge`` takes strings, and the drop-ins must not inherit that.
"""

from __future__ import annotations

import math
import re
from enum import Enum
from typing import Any

_WRAPPED = re.compile(r"`([^`]+)`")


def normalize_text_newlines(text: Any) -> Any:
    """CRLF, then lone CR, become LF; falsy input is returned unchanged."""
    if not text:
        return text
    return text.replace("\r\n", "\n").replace("\r", "\n")


def has_wrapped_delimiter(field: Any) -> bool:
    """The raw field holds a backtick-wrapped token."""
    if not field:
        return False
    return _WRAPPED.search(field) is not None


def parse_delimiter_field(field: Any) -> list[str]:
    """Wrapped tokens whole, every other character alone; first occurrences, longest first."""
    if not field:
        return []
    field = normalize_text_newlines(field)
    found: list[str] = []
    at = 0
    for m in _WRAPPED.finditer(field):
        found.extend(field[at : m.start()])
        found.append(m.group(1))
        at = m.end()
    found.extend(field[at:])
    unique = list(dict.fromkeys(found))
    return sorted(unique, key=len, reverse=True)


class MergeStrategy(Enum):
    """How ``merge_paragraphs`` groups paragraphs: ``OVER_CAP`` (default) lets one paragraph
    overflow the cap, ``UNDER_CAP`` never does."""

    UNDER_CAP = "under_cap"
    OVER_CAP = "over_cap"


def is_under_cap(strategy: Any) -> bool:
    """True for any enum member named ``UNDER_CAP`` (this one, upstream's own, or the native
    ``ferrochunk.MergeStrategy``); a plain string never counts, as upstream."""
    return isinstance(strategy, Enum) and strategy.name == "UNDER_CAP"


def normalize_overlapped_percent(value: Any) -> int:
    """A percentage in [0, 90] (RAGFlow ``b1b8cd6``, ``common/float_utils.py``).

    Fractions below 1 are scaled by 100, then truncated. Unparsable values, NaN and ±Inf
    give 0 (the seed contract; upstream raises on NaN/Inf).
    """
    try:
        x = float(value)
    except (TypeError, ValueError):
        return 0
    if 0 < x < 1:
        x *= 100
    if math.isnan(x) or math.isinf(x):
        return 0
    return max(0, min(int(x), 90))
