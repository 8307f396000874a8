"""Dify (``langgenius/dify`` @ e738086) in plain Python, written to read like its
``api/core/rag/splitter/``. Lengths are characters unless a length function says otherwise.
"""

from __future__ import annotations

from .cleaner import CleanProcessor
from .lengths import length_function
from .processors import (
    get_splitter,
    paragraph_transform,
    parent_child_transform,
    remove_leading_symbols,
)
from .text_splitter import (
    Document,
    EnhanceRecursiveCharacterTextSplitter,
    FixedRecursiveCharacterTextSplitter,
    RecursiveCharacterTextSplitter,
    TextSplitter,
    _split_text_with_regex,
)

__all__ = [
    "CleanProcessor",
    "Document",
    "EnhanceRecursiveCharacterTextSplitter",
    "FixedRecursiveCharacterTextSplitter",
    "RecursiveCharacterTextSplitter",
    "TextSplitter",
    "_split_text_with_regex",
    "get_splitter",
    "length_function",
    "paragraph_transform",
    "parent_child_transform",
    "remove_leading_symbols",
]
