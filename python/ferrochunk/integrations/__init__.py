"""Drop-ins for the frameworks users already chunk with.

- :mod:`ferrochunk.integrations.langchain`: ``FerroTextSplitter``, a LangChain
  ``TextSplitter`` (extra ``ferrochunk[langchain]``).
- :mod:`ferrochunk.integrations.llama_index`: ``FerroNodeParser``, a LlamaIndex
  ``NodeParser`` (extra ``ferrochunk[llama-index]``).
- :mod:`ferrochunk.integrations.haystack`: ``FerroDocumentSplitter``, a Haystack
  component (extra ``ferrochunk[haystack]``).

Importing one without its framework raises an ``ImportError`` naming the extra.
"""

from __future__ import annotations

import sys

from .._support.validate import describe
from ..config import CONFIGS, Config, DelimiterMerge, ParentChild, SentenceWindows
from ..errors import ConfigTypeError

__all__ = ["budget", "require_config", "scope_path"]


def scope_path(scopes: tuple[tuple[str, str], ...]) -> str:
    """A ``Code`` chunk's scopes as one dotted string: ``"Parser.feed"``."""
    return ".".join(name for _, name in scopes)


def require_config(field: str, config: object) -> Config:
    """``config`` if it is a native config, else a ``ConfigTypeError`` naming ``field``."""
    if not isinstance(config, CONFIGS):
        names = ", ".join(c.__name__ for c in CONFIGS)
        raise ConfigTypeError(f"{field} must be one of {names}, got {describe(config)}")
    return config


def budget(config: Config) -> tuple[int, int]:
    """The (size, overlap) in tokens a framework reports as its chunk size and overlap:
    the top-level chunks' cap (a full-document parent has none)."""
    if isinstance(config, ParentChild):
        return budget(config.parent) if not isinstance(config.parent, str) else (sys.maxsize, 0)
    if isinstance(config, SentenceWindows):
        return config.safe_max, config.overlap_tokens
    if isinstance(config, DelimiterMerge):
        return config.token_size, config.token_size * int(config.overlap) // 100
    return config.max_tokens, config.overlap_tokens
