"""``TokenChunker``, ``SentenceChunker`` and ``RecursiveChunker`` of ``@voltagent/rag``
1.0.2, quirks included.

Design notes:

* The algorithms (``token_windows``, ``sentence_groups``, ``recursive_chunks``) work on
  JS-form text and return chunks whose ``content`` is still JS form, because
  RecursiveChunker feeds chunk contents back into the other two. The classes convert at
  the boundary: ``to_js`` once on entry, ``from_js`` on each content on exit.
* Tokens stay span lists (starts, ends). Each text is tokenized once, and counts are asked
  for in batches (``counts``, ``prefix_counts``), so an injected native tokenizer answers
  in a few calls. No per-token dict is built here.
* Numbers keep JS semantics: fractional or negative options flow through ``js_max``,
  ``js_slice`` and ``js_index`` as upstream's code sees them (§5, §7.5).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Literal, TypeVar

from ..._support.validate import require_choice
from ...types import VoltAgentChunk
from . import tokenizers
from ._js import from_js, js_ceil, js_index, js_max, js_min, js_slice, num, to_js
from .text import (
    MetadataInput,
    Segment,
    build_line_map,
    build_metadata,
    position_for_range,
    slice_by_token_range,
    split_into_paragraphs,
    split_into_sentences,
)
from .tokenizers import JsTokenizer

__all__ = [
    "OverlapUnit",
    "RecursiveChunker",
    "SentenceChunker",
    "TokenChunker",
    "recursive_chunks",
    "sentence_groups",
    "token_windows",
]

Chunk = VoltAgentChunk
OverlapUnit = Literal["tokens", "chars"]
T = TypeVar("T")


def _default(value: T | None, default: T) -> T:
    """JS ``value ?? default``: only a missing value takes the default."""
    return default if value is None else value


# -- §5 TokenChunker ---------------------------------------------------------------------
def token_windows(
    text: str,
    tokenizer: JsTokenizer,
    *,
    max_tokens: float,
    overlap: float,
    label: str,
    meta: MetadataInput,
) -> list[Chunk]:
    """Windows of ``max_tokens`` tokens that advance by ``max_tokens - overlap``; the last
    window is the one that reaches the final token. A fractional step gives fractional
    token indices, whose missing tokens read as offset 0 / the text's end (§5)."""
    size = js_max(1, max_tokens)
    overlap = js_max(0, js_min(overlap, size - 1))
    line_map = build_line_map(text)
    starts, ends = tokenizer.spans(text)
    n = len(starts)
    if n == 0:
        return []
    step = js_max(1, size - overlap)
    chunks: list[Chunk] = []
    first: float = 0
    index = 0
    while first < n:
        last = js_min(n - 1, first + size - 1)
        content = slice_by_token_range(text, starts, ends, first, last)
        start = _default(js_index(starts, first), 0)
        end = _default(js_index(ends, last), len(content))  # content's length, not text's
        extra = {"tokenStart": num(first), "tokenEnd": num(last)}
        chunks.append(
            {
                "id": f"token-{index}",  # ignores label
                "content": content,
                "start": start,
                "end": end,
                "metadata": build_metadata(
                    "text",
                    "token",
                    meta,
                    extra={**extra, **position_for_range(start, end, line_map)},
                ),
                "tokens": num(last - first + 1),
                "label": label,
            }
        )
        if last == n - 1:
            break
        first += step
        index += 1
    return chunks


# -- §6 SentenceChunker ------------------------------------------------------------------
def _pack(sentences: list[Segment], max_tokens: float, keep: float) -> list[list[Segment]]:
    """§6 step 4: greedy packing. A sentence that pushes a group over ``max_tokens`` starts
    the next group after the last ``keep`` sentences of this one; the new group is not
    re-checked, and a lone oversized sentence stays whole."""
    groups: list[list[Segment]] = []
    current: list[Segment] = []
    for sentence in sentences:
        current.append(sentence)
        if sum(s.tokens for s in current) > max_tokens and len(current) > 1:
            overflow = current.pop()
            groups.append(current)
            # slice(-keep) truncates toward zero: 1.5 keeps 1, and 0.5 keeps all of them.
            carried = js_slice(current, -keep) if keep > 0 else []
            current = [*carried, overflow]
    if current:
        groups.append(current)
    return groups


def sentence_groups(
    text: str,
    tokenizer: JsTokenizer,
    *,
    max_tokens: float,
    overlap_sentences: float,
    label: str,
    meta: MetadataInput,
) -> list[Chunk]:
    """§6: sentences packed under ``max_tokens``. ``tokens`` is the sum of the sentence
    counts; ``content`` is the token range from ``countTokens(text[:first.start])`` to
    ``countTokens(text[:last.end]) - 1``, so it need not equal ``text[start:end]``."""
    size = js_max(1, max_tokens)
    keep = js_max(0, overlap_sentences)
    sentences = split_into_sentences(text, tokenizer)
    if not sentences:
        return []
    starts, ends = tokenizer.spans(text)
    line_map = build_line_map(text)
    groups = _pack(sentences, size, keep)
    # Every group's two prefix counts in one batch: [first.start, last.end] per group.
    prefix = tokenizer.prefix_counts(text, [p for g in groups for p in (g[0].start, g[-1].end)])
    chunks: list[Chunk] = []
    for index, group in enumerate(groups):
        start, end = group[0].start, group[-1].end
        first_token, last_token = prefix[2 * index], prefix[2 * index + 1] - 1
        extra = {"chunkIndex": index, "sentenceCount": len(group)}
        chunks.append(
            {
                "id": f"sentence-{index}",  # ignores label
                "content": slice_by_token_range(text, starts, ends, first_token, last_token),
                "start": start,
                "end": end,
                "metadata": build_metadata(
                    "text",
                    "sentence",
                    meta,
                    extra={**extra, **position_for_range(start, end, line_map)},
                ),
                "tokens": sum(s.tokens for s in group),
                "label": label,
            }
        )
    return chunks


# -- §7 RecursiveChunker -----------------------------------------------------------------
def _expand_paragraph(
    paragraph: Segment,
    index: int,
    first_id: int,
    tokenizer: JsTokenizer,
    *,
    max_tokens: float,
    overlap_tokens: float,
    label: str,
    meta: MetadataInput,
) -> list[Chunk]:
    """§7.1 step 3 for a paragraph over budget: sentence groups with a hard-coded
    one-sentence overlap; a group still over budget becomes token windows of its content.
    Ids restart at ``first_id`` for every group (§7.4), and window offsets are relative
    to the group's content, not to the paragraph (the §7.1 offset bug)."""
    out: list[Chunk] = []
    groups = sentence_groups(
        paragraph.text,
        tokenizer,
        max_tokens=max_tokens,
        overlap_sentences=1,
        label=f"{label}-sentence",
        meta=meta,
    )
    for group in groups:
        if group["tokens"] <= max_tokens:
            tags = build_metadata("text", "sentence", meta, extra={"paragraphIndex": index})
            out.append(
                {
                    **group,
                    "id": f"recursive-{first_id}",
                    "start": paragraph.start + group["start"],
                    "end": paragraph.start + group["end"],
                    "metadata": {**group["metadata"], **tags},
                }
            )
            continue
        windows = token_windows(
            group["content"],
            tokenizer,
            max_tokens=max_tokens,
            overlap=overlap_tokens,
            label=f"{label}-token",
            meta=meta,
        )
        tags = build_metadata("text", "sentence-token", meta, extra={"paragraphIndex": index})
        for j, window in enumerate(windows):
            out.append(
                {
                    **window,
                    "id": f"recursive-{first_id + j}",
                    "start": paragraph.start + window["start"],
                    "end": paragraph.start + window["end"],
                    "metadata": {**window["metadata"], **tags},
                }
            )
    return out


def _overlap(
    following: Chunk, overlap_tokens: float, unit: OverlapUnit, tokenizer: JsTokenizer
) -> tuple[str, float]:
    """The overlap taken from the chunk that follows, and where it starts (§7.1 step 4).

    ``"chars"`` (upstream): its first ``overlap_tokens`` UTF-16 units. ``"tokens"``
    (patched): its first ``overlap_tokens`` whole tokens, never more than it has."""
    content: str = following["content"]
    if unit == "chars":
        return js_slice(content, 0, overlap_tokens), following["start"]
    starts, ends = tokenizer.spans(content)
    take = js_min(overlap_tokens, len(starts))
    if not take > 0:
        return "", following["start"]
    return (
        slice_by_token_range(content, starts, ends, 0, take - 1),
        following["start"] + starts[0],
    )


def recursive_chunks(
    text: str,
    tokenizer: JsTokenizer,
    *,
    max_tokens: float,
    overlap_tokens: float,
    label: str,
    meta: MetadataInput,
    overlap_unit: OverlapUnit,
) -> list[Chunk]:
    """§7.1: paragraph -> sentence group -> token window, then overlap chunks placed
    between neighbours. Small paragraphs are never merged."""
    size = js_max(1, max_tokens)
    if overlap_unit == "tokens":
        overlap_tokens = js_ceil(overlap_tokens)  # the patched variant rounds up first
    overlap_tokens = js_max(0, overlap_tokens)
    paragraphs = split_into_paragraphs(text, tokenizer)
    chunks: list[Chunk] = []
    for index, paragraph in enumerate(paragraphs):
        if paragraph.tokens <= size:
            chunks.append(
                {
                    "id": f"recursive-{len(chunks)}",  # ignores label
                    "content": paragraph.text,
                    "start": paragraph.start,
                    "end": paragraph.end,
                    "tokens": paragraph.tokens,
                    "label": label,
                    "metadata": build_metadata(
                        "text", "paragraph", meta, extra={"paragraphIndex": index}
                    ),
                }
            )
        else:
            chunks += _expand_paragraph(
                paragraph,
                index,
                len(chunks),
                tokenizer,
                max_tokens=size,
                overlap_tokens=overlap_tokens,
                label=label,
                meta=meta,
            )
    if not (overlap_tokens > 0 and len(chunks) > 1):
        return chunks
    # Overlap chunks are extra chunks between their neighbours, without tokens or
    # metadata; an empty overlap is skipped, so their ids can skip numbers.
    smoothed: list[Chunk] = []
    for i, chunk in enumerate(chunks):
        smoothed.append(chunk)
        if i == len(chunks) - 1:
            break
        content, start = _overlap(chunks[i + 1], overlap_tokens, overlap_unit, tokenizer)
        if content:
            smoothed.append(
                {
                    "id": f"{label}-overlap-{i}",
                    "content": content,
                    "start": start,
                    "end": start + len(content),
                    "label": f"{label}-overlap",
                }
            )
    return smoothed


# -- the upstream classes ------------------------------------------------------------------
def _python_form(chunks: list[Chunk]) -> list[Chunk]:
    """Contents back from JS form (a slice that cut a surrogate pair keeps the lone half)."""
    for chunk in chunks:
        chunk["content"] = from_js(chunk["content"])
    return chunks


class _JsChunker:
    """The constructor's tokenizer and its resolution.

    ``None`` and ``"cl100k_base"`` mean :attr:`default_tokenizer`, ``"whitespace"`` means
    :attr:`whitespace_tokenizer`. Both are class-level hooks, so a subclass can inject
    other implementations (a native tokenizer) without touching the algorithms.
    """

    default_tokenizer: ClassVar[Callable[[], JsTokenizer]] = staticmethod(
        tokenizers.default_tokenizer
    )
    whitespace_tokenizer: ClassVar[Callable[[], JsTokenizer]] = staticmethod(
        lambda: tokenizers.whitespace_tokenizer
    )

    def __init__(self, tokenizer: JsTokenizer | str | None = None) -> None:
        self.tokenizer = self._resolve(tokenizer)

    def _resolve(self, tokenizer: JsTokenizer | str | None) -> JsTokenizer:
        if tokenizer is None or tokenizer == "cl100k_base":
            return type(self).default_tokenizer()
        if tokenizer == "whitespace":
            return type(self).whitespace_tokenizer()
        return tokenizers.resolve_tokenizer(tokenizer)

    def _pick(self, tokenizer: JsTokenizer | str | None) -> JsTokenizer:
        """``options.tokenizer ?? this.tokenizer``."""
        return self.tokenizer if tokenizer is None else self._resolve(tokenizer)


class TokenChunker(_JsChunker):
    """§5: fixed windows of ``max_tokens`` tokens (default 200) with ``overlap`` (default 0)."""

    def chunk(
        self,
        text: str,
        *,
        max_tokens: float | None = None,
        overlap: float | None = None,
        tokenizer: JsTokenizer | str | None = None,
        label: str | None = None,
        doc_id: Any = None,
        source_id: Any = None,
        base_metadata: Mapping[str, Any] | None = None,
    ) -> list[Chunk]:
        chunks = token_windows(
            to_js(text),
            self._pick(tokenizer),
            max_tokens=_default(max_tokens, 200),
            overlap=_default(overlap, 0),
            label=_default(label, "token"),
            meta=MetadataInput(doc_id, source_id, base_metadata),
        )
        return _python_form(chunks)


class SentenceChunker(_JsChunker):
    """§6: ASCII-punctuated sentences packed under ``max_tokens`` (default 200), carrying
    ``overlap_sentences`` (default 0) into the next group."""

    def chunk(
        self,
        text: str,
        *,
        max_tokens: float | None = None,
        overlap_sentences: float | None = None,
        tokenizer: JsTokenizer | str | None = None,
        label: str | None = None,
        doc_id: Any = None,
        source_id: Any = None,
        base_metadata: Mapping[str, Any] | None = None,
    ) -> list[Chunk]:
        chunks = sentence_groups(
            to_js(text),
            self._pick(tokenizer),
            max_tokens=_default(max_tokens, 200),
            overlap_sentences=_default(overlap_sentences, 0),
            label=_default(label, "sentence"),
            meta=MetadataInput(doc_id, source_id, base_metadata),
        )
        return _python_form(chunks)


class RecursiveChunker(_JsChunker):
    """§7: paragraphs, then sentence groups, then token windows (``max_tokens`` default
    300), plus overlap chunks of ``overlap_tokens`` (default 0).

    ``overlap_unit="tokens"`` (the default) is the patched whole-token overlap (§7.1 step 4,
    ``recursive_patched`` vectors); ``"chars"`` reproduces upstream's character slice.
    """

    def __init__(
        self,
        tokenizer: JsTokenizer | str | None = None,
        *,
        overlap_unit: OverlapUnit = "tokens",
    ) -> None:
        super().__init__(tokenizer)
        require_choice("overlap_unit", overlap_unit, ("tokens", "chars"))
        self.overlap_unit: OverlapUnit = overlap_unit

    def chunk(
        self,
        text: str,
        *,
        max_tokens: float | None = None,
        overlap_tokens: float | None = None,
        tokenizer: JsTokenizer | str | None = None,
        label: str | None = None,
        doc_id: Any = None,
        source_id: Any = None,
        base_metadata: Mapping[str, Any] | None = None,
    ) -> list[Chunk]:
        chunks = recursive_chunks(
            to_js(text),
            self._pick(tokenizer),
            max_tokens=_default(max_tokens, 300),
            overlap_tokens=_default(overlap_tokens, 0),
            label=_default(label, "recursive"),
            meta=MetadataInput(doc_id, source_id, base_metadata),
            overlap_unit=self.overlap_unit,
        )
        return _python_form(chunks)
