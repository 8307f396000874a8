"""RAGFlow's delimiter field, parsed: needed by ``rules.from_parser_config`` (the product)
and by the reference's RAGFlow port, so it lives on neither side.

Upstream: ``rag/nlp/__init__.py`` of infiniflow/ragflow (the delimiter handling of
``naive_merge``); the behaviour is pinned by the upstream vectors in ``tests/data``.
"""

from __future__ import annotations

import re
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
