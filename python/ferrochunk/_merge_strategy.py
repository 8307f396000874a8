"""RAGFlow's ``MergeStrategy`` as upstream shapes it, shared by the reference and compat.

Upstream (``rag/nlp/__init__.py`` @ b1b8cd6) declares a plain ``Enum`` and compares with
``==``, so the string ``"under_cap"`` is not ``UNDER_CAP`` there. The native
:class:`ferrochunk.MergeStrategy` is a ``(str, Enum)`` because ``DelimiterMerge`` takes
strings; the drop-ins must not inherit that.
"""

from __future__ import annotations

from enum import Enum
from typing import Any


class MergeStrategy(Enum):
    """How ``merge_paragraphs`` groups paragraphs: ``OVER_CAP`` (default) lets one paragraph
    overflow the cap, ``UNDER_CAP`` never does."""

    UNDER_CAP = "under_cap"
    OVER_CAP = "over_cap"


def is_under_cap(strategy: Any) -> bool:
    """True for any enum member named ``UNDER_CAP`` (this one, upstream's own, or the native
    ``ferrochunk.MergeStrategy``); a plain string never counts, as upstream."""
    return isinstance(strategy, Enum) and strategy.name == "UNDER_CAP"
