"""ferrochunk: exact, fast, token-aware chunking for RAG ingestion.

>>> import ferrochunk
>>> chunks = ferrochunk.chunk("Hello world. " * 100, ferrochunk.TokenWindows(64, overlap_tokens=8))
>>> chunks[0].token_count
64
"""

from __future__ import annotations

from .chunkers import chunk, chunk_items, chunk_many, chunk_spans
from .config import (
    CleanRules,
    DelimiterMerge,
    MergeStrategy,
    ParentChild,
    Recursive,
    SentenceWindows,
    TokenWindows,
)
from .errors import FerrochunkError
from .process_rule import from_process_rule
from .tokenizers import Tokenizer
from .types import SPAN_COLUMNS, Chunk

__all__ = [
    "SPAN_COLUMNS",
    "Chunk",
    "CleanRules",
    "DelimiterMerge",
    "FerrochunkError",
    "MergeStrategy",
    "ParentChild",
    "Recursive",
    "SentenceWindows",
    "TokenWindows",
    "Tokenizer",
    "chunk",
    "chunk_items",
    "chunk_many",
    "chunk_spans",
    "from_process_rule",
]
__version__ = "0.1.0"
