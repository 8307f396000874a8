"""ferrochunk: exact, fast, token-aware chunking for RAG ingestion.

>>> import ferrochunk
>>> chunks = ferrochunk.chunk("Hello world. " * 100, ferrochunk.TokenWindows(64, overlap_tokens=8))
>>> chunks[0].token_count
64
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import ids as ids  # ferrochunk.ids: chunk and record ids
from .config import (
    CleanRules,
    Code,
    DelimiterMerge,
    Html,
    Markdown,
    MergeStrategy,
    ParentChild,
    Recursive,
    SentenceWindows,
    TokenWindows,
)
from .errors import FerrochunkError
from .ledger import Changes, Ledger
from .pipeline import chunk, chunk_file, chunk_items, chunk_many, chunk_spans, chunk_stream
from .rules import config_from_mapping, config_to_mapping, from_parser_config, from_process_rule
from .spec import config_from_spec, config_spec
from .tokenizers import Tokenizer
from .types import SPAN_COLUMNS, Chunk, Metadata, Spans

__all__ = [
    "SPAN_COLUMNS",
    "Changes",
    "Chunk",
    "CleanRules",
    "Code",
    "DelimiterMerge",
    "FerrochunkError",
    "Html",
    "Ledger",
    "Markdown",
    "MergeStrategy",
    "Metadata",
    "ParentChild",
    "Recursive",
    "SentenceWindows",
    "Spans",
    "TokenWindows",
    "Tokenizer",
    "chunk",
    "chunk_file",
    "chunk_items",
    "chunk_many",
    "chunk_spans",
    "chunk_stream",
    "config_from_mapping",
    "config_from_spec",
    "config_spec",
    "config_to_mapping",
    "from_parser_config",
    "from_process_rule",
]
# The installed distribution's version: maturin takes it from Cargo.toml, the one source.
# Read on first use: importing importlib.metadata took a third of `import ferrochunk`.
__version__: str

if not TYPE_CHECKING:  # mypy sees the annotation above, and no catch-all attribute

    def __getattr__(name: str) -> str:
        if name == "__version__":
            from importlib.metadata import version

            globals()["__version__"] = value = version("ferrochunk")
            return value
        raise AttributeError(f"module 'ferrochunk' has no attribute {name!r}")
