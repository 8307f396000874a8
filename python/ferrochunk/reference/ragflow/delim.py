"""§2 delimiter fields. Parsing the field is shared with the product's
``rules.from_parser_config`` and lives in ``ferrochunk._delimiters``."""

from __future__ import annotations

import re
from typing import Any

from ..._ragflow_rules import (
    has_wrapped_delimiter,
    normalize_text_newlines,
    parse_delimiter_field,
)

__all__ = [
    "compile_delimiter_pattern",
    "has_wrapped_delimiter",
    "normalize_text_newlines",
    "parse_delimiter_field",
    "split_keep",
]


def compile_delimiter_pattern(delimiters: Any) -> str:
    """§2.4: the escaped delimiters joined by ``|`` (the caller sorts them)."""
    return "|".join(re.escape(d) for d in delimiters if d)


def split_keep(text: str, pattern: str) -> list[str]:
    """§2.5: ``re.split`` with the delimiters captured: ``[seg0, d0, seg1, ..., segN]``."""
    return re.split(f"({pattern})", text, flags=re.DOTALL)
