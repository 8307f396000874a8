"""§9 ``RAGFlowTxtParser.parser_txt``."""

from __future__ import annotations

from typing import Any

from ..._ragflow_rules import MergeStrategy
from .delim import (
    compile_delimiter_pattern,
    normalize_text_newlines,
    parse_delimiter_field,
    split_keep,
)
from .merge import Count, merge_paragraphs
from .tokens import num_tokens_from_string


class RAGFlowTxtParser:
    """Upstream's plain-text parser; only ``parser_txt`` is chunking logic."""

    @classmethod
    def parser_txt(
        cls,
        txt: Any,
        chunk_token_num: Any = 128,
        delimiter: str = "\n!?;。；！？",
        keep_delimiters: bool = False,
        *,
        count: Count = num_tokens_from_string,
    ) -> list[list[str]]:
        """Split on the delimiters (backticks are soft here), merge by tokens, join by ``\\n``."""
        if not isinstance(txt, str):
            raise TypeError("txt type should be str!")
        txt = normalize_text_newlines(txt)
        pattern = compile_delimiter_pattern(parse_delimiter_field(delimiter))
        parts = split_keep(txt, pattern) if pattern else [txt]
        pieces = []
        for k in range(0, len(parts), 2):
            if not parts[k]:
                continue  # a delimiter after an empty segment is lost, even when kept
            delim = parts[k + 1] if keep_delimiters and k + 1 < len(parts) else ""
            pieces.append(parts[k] + delim)
        groups = merge_paragraphs(pieces, chunk_token_num, MergeStrategy.OVER_CAP, size=count)
        return [["\n".join(group), ""] for group in groups]
