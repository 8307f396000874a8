"""The token-aware chunker of the ingestion plan (``docs/token-aware.md``; no upstream).

``TokenAwareChunker`` keeps the plan's surface (``safe_max``, ``overlap_tokens``,
``count_tokens``, ``find_best_breakpoint``, ``chunk_with_overlap``, ``chunk_document``) and
runs the chunking as :class:`ferrochunk.SentenceWindows`: one tokenization per text, exact
cl100k counts, ranked break points, whole-token overlap. Chunks are dicts with
``content`` plus ``start``/``end`` (code points) and ``tokens``.

>>> from ferrochunk.compat.token_aware import TokenAwareChunker
>>> chunker = TokenAwareChunker(10, 0.0)
>>> chunks = chunker.chunk_with_overlap("First sentence here. Second one! Third?")
>>> [(c["content"], c["tokens"]) for c in chunks]
[('First sentence here. Second one!', 7), (' Third?', 2)]
"""

from __future__ import annotations

from collections.abc import Sequence

from .._support.validate import require_str
from ..config import BREAK_CLASSES, SentenceWindows
from ..pipeline import chunk
from ..reference.sentence_windows import NO_BREAK, WHITE_SPACE, class_of
from ..tokenizers import Tokenizer, resolve
from ..types import TokenAwareChunk

__all__ = ["TokenAwareChunker"]

SAFETY_MARGIN = 0.85
LOOKBACK_CHARS = 200


def _rank(text: str, i: int) -> int | None:
    """The break class of ``text[i]`` (0 is best), or ``None``."""
    spaced = i + 1 >= len(text) or text[i + 1] in WHITE_SPACE
    k = class_of(BREAK_CLASSES, text[i], spaced)
    return None if k == NO_BREAK else k


class TokenAwareChunker:
    """Chunks of at most ``safe_max`` exact cl100k tokens that overlap by whole tokens."""

    def __init__(
        self,
        max_tokens: int = 8000,
        overlap_ratio: float = 0.1,
        tokenizer: Tokenizer | str | None = None,
    ) -> None:
        self._config = SentenceWindows(
            max_tokens,
            safety_margin=SAFETY_MARGIN,
            overlap_ratio=overlap_ratio,
            tokenizer=tokenizer,
        )
        self._tokenizer = resolve(tokenizer)
        self.max_tokens = self._config.max_tokens
        self.overlap_ratio = self._config.overlap_ratio
        self.safe_max = self._config.safe_max
        # The plan's test asserts 10 % of max_tokens (not of safe_max).
        self.overlap_tokens = int(self.max_tokens * self.overlap_ratio)

    def count_tokens(self, text: str) -> int:
        """Exact cl100k count; special-token text counts as ordinary text."""
        return self._tokenizer.count(require_str("text", text))

    def find_best_breakpoint(self, text: str, max_pos: int) -> int:
        """The position just after the best break in ``text[max(0, max_pos - 200):max_pos]``
        (newline, sentence end, clause, white space; right-most within a class), or
        ``max_pos`` when the window holds none."""
        require_str("text", text)
        if isinstance(max_pos, bool) or not isinstance(max_pos, int):
            raise TypeError(f"max_pos must be an int, got {max_pos!r}")
        end = max(0, min(max_pos, len(text)))
        best: tuple[int, int] | None = None  # (class, position after the break)
        for i in range(end - 1, max(0, end - LOOKBACK_CHARS) - 1, -1):
            k = _rank(text, i)
            if k is not None and (best is None or k < best[0]):
                best = (k, i + 1)
                if k == 0:
                    break
        return max_pos if best is None else best[1]

    def chunk_with_overlap(self, text: str) -> list[TokenAwareChunk]:
        """``[{content, start, end, tokens}]``; blank chunks are not emitted."""
        return [
            {"content": c.text, "start": c.char_start, "end": c.char_end, "tokens": c.token_count}
            for c in chunk(require_str("text", text), self._config)
            if c.text.strip()
        ]

    def chunk_document(self, summary: str, nodes: Sequence[str]) -> list[TokenAwareChunk]:
        """The summary's chunks (``node`` None), then each node's (``node`` its index)."""
        if isinstance(nodes, str) or not isinstance(nodes, Sequence):
            raise TypeError(f"nodes must be a sequence of str, got {type(nodes).__name__}")
        out: list[TokenAwareChunk] = []
        for index, text in [(None, summary), *enumerate(nodes)]:
            for c in self.chunk_with_overlap(text):
                c["node"] = index
                out.append(c)
        return out
