"""§2 delimiter fields."""

from __future__ import annotations

import re
from typing import Any

_WRAPPED = re.compile(r"`([^`]+)`")


def normalize_text_newlines(text: Any) -> Any:
    """§2.1: CRLF, then lone CR, become LF; falsy input is returned unchanged."""
    if not text:
        return text
    return text.replace("\r\n", "\n").replace("\r", "\n")


def has_wrapped_delimiter(field: Any) -> bool:
    """§2.2: the raw field holds a backtick-wrapped token."""
    if not field:
        return False
    return _WRAPPED.search(field) is not None


def parse_delimiter_field(field: Any) -> list[str]:
    """§2.3: wrapped tokens whole, every other character alone; first occurrences, longest first."""
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


def compile_delimiter_pattern(delimiters: Any) -> str:
    """§2.4: the escaped delimiters joined by ``|`` (the caller sorts them)."""
    return "|".join(re.escape(d) for d in delimiters if d)


def split_keep(text: str, pattern: str) -> list[str]:
    """§2.5: ``re.split`` with the delimiters captured: ``[seg0, d0, seg1, ..., segN]``."""
    return re.split(f"({pattern})", text, flags=re.DOTALL)
