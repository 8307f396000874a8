"""Which chunker retrieves best on your documents: retrieval quality, offline, with exact
spans (``ferrochunk eval``; see ``docs/eval.md``)."""

from __future__ import annotations

from .metrics import ChunkSpan
from .questions import Question, QuestionsError, Reference, read_questions
from .retrieve import BM25, Embeddings, Retriever, analyze
from .run import CHROMA_ALL, AtK, ChunkerResult, EvalResult, default_configs, evaluate
from .stats import Score

__all__ = [
    "BM25",
    "CHROMA_ALL",
    "AtK",
    "ChunkSpan",
    "ChunkerResult",
    "Embeddings",
    "EvalResult",
    "Question",
    "QuestionsError",
    "Reference",
    "Retriever",
    "Score",
    "analyze",
    "default_configs",
    "evaluate",
    "read_questions",
]
