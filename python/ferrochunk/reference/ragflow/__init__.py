"""RAGFlow (``infiniflow/ragflow`` @ b1b8cd6) in plain Python, written to read like its
``rag/nlp/`` and ``rag/flow/chunker/``; counts tokens with tiktoken's ``cl100k_base``, as
upstream does.

Section numbers in the docstrings refer to that spec.
"""

from __future__ import annotations

from ..._ragflow_rules import MergeStrategy
from .delim import (
    compile_delimiter_pattern,
    has_wrapped_delimiter,
    normalize_text_newlines,
    parse_delimiter_field,
)
from .images import LazyImage, concat_img
from .merge import (
    merge_paragraphs,
    naive_merge,
    naive_merge_docx,
    naive_merge_with_images,
)
from .overlap import compute_overlap_prefix, normalize_overlapped_percent, remove_tag
from .titles import (
    BULLET_PATTERN,
    bullets_category,
    hierarchical_merge,
    not_bullet,
    not_title,
    title_frequency,
    tree_merge,
)
from .token_chunker import TokenChunker, TokenChunkerParam
from .tokens import num_tokens_from_string
from .txt_parser import RAGFlowTxtParser

# Upstream's private name, reachable for the vectors.
_compute_overlap_prefix = compute_overlap_prefix

__all__ = [
    "BULLET_PATTERN",
    "LazyImage",
    "MergeStrategy",
    "RAGFlowTxtParser",
    "TokenChunker",
    "TokenChunkerParam",
    "bullets_category",
    "compile_delimiter_pattern",
    "compute_overlap_prefix",
    "concat_img",
    "has_wrapped_delimiter",
    "hierarchical_merge",
    "merge_paragraphs",
    "naive_merge",
    "naive_merge_docx",
    "naive_merge_with_images",
    "normalize_overlapped_percent",
    "normalize_text_newlines",
    "not_bullet",
    "not_title",
    "num_tokens_from_string",
    "parse_delimiter_field",
    "remove_tag",
    "title_frequency",
    "tree_merge",
]
