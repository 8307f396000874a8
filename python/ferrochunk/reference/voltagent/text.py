"""Upstream's ``utils/``: token-range slicing, sentence and paragraph segments, text
normalisation, format detection, cosine similarity, metadata and positions
(as ``@voltagent/rag`` 1.0.2 does them).

Offsets are UTF-16 code units: the functions that take or return offsets expect JS-form
text (``_js.to_js``). Regexes follow upstream's dialect (§0.6): no ``u`` flag, so ``\\w``
and ``\\d`` are ASCII, ``\\s`` is the JS whitespace set, ``.`` stops at every JS line
terminator and ``$`` is the end of the input.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ...types import VoltAgentSegment
from ._js import (
    LINE_TERMINATORS,
    MAX_SAFE_INTEGER,
    WS_CLASS,
    from_js,
    js_index,
    js_max,
    js_min,
    js_slice,
    js_trim,
    js_truthy,
    num,
)
from .tokenizers import JsTokenizer


# -- §3.1 sliceByTokenRange -----------------------------------------------------------
def slice_by_token_range(
    text: str, starts: Sequence[int], ends: Sequence[int], start: float, end: float
) -> str:
    """The text from token ``start``'s first unit to token ``end``'s last. A missing token
    (fractional or out-of-range index) reads as offset 0 at the start and
    ``len(text)`` at the end."""
    if not starts:
        return ""
    first = js_index(starts, js_max(0, start))
    last = js_index(ends, js_min(len(ends) - 1, end))
    return js_slice(text, 0 if first is None else first, len(text) if last is None else last)


# -- §3.2 / §3.3 segments -------------------------------------------------------------
class Segment(NamedTuple):
    """A sentence or paragraph: its raw text and offsets, and its token count."""

    text: str
    start: int
    end: int
    tokens: int

    def as_dict(self) -> VoltAgentSegment:
        return {
            "text": from_js(self.text),
            "start": self.start,
            "end": self.end,
            "tokens": self.tokens,
        }


# Only ASCII .!? end a sentence; the trailing run counts only at the very end (\Z, not $).
_SENTENCE = re.compile(r"[^.!?]+[.!?]+|[^.!?]+\Z")
_PARAGRAPH_BREAK = re.compile(r"\n{2,}")


def split_into_sentences(text: str, tokenizer: JsTokenizer) -> list[Segment]:
    """§3.2: each match keeps its leading whitespace; its count is of the trimmed match.
    Text made only of terminators falls back to one trimmed segment counted untrimmed."""
    matches = [m for m in _SENTENCE.finditer(text) if js_trim(m.group())]
    counts = tokenizer.counts([js_trim(m.group()) for m in matches])
    segments = [
        Segment(m.group(), m.start(), m.end(), n) for m, n in zip(matches, counts, strict=True)
    ]
    if not segments and js_trim(text):
        segments.append(Segment(js_trim(text), 0, len(text), tokenizer.count(text)))
    return segments


def split_into_paragraphs(text: str, tokenizer: JsTokenizer) -> list[Segment]:
    """§3.3: split on literal ``\\n\\n+`` only, trim, drop empty parts, and locate each
    part with ``indexOf`` from the end of the previous one."""
    parts = [p for p in (js_trim(s) for s in _PARAGRAPH_BREAK.split(text)) if p]
    counts = tokenizer.counts(parts)
    segments = []
    cursor = 0
    for part, n in zip(parts, counts, strict=True):
        found = text.find(part, cursor)
        start = cursor if found == -1 else found  # upstream's guard; never taken
        cursor = start + len(part)
        segments.append(Segment(part, start, cursor, n))
    return segments


# -- §3.4 normalizeText ----------------------------------------------------------------
_ZERO_WIDTH = re.compile("[\u200b\u200c\u200d\ufeff]")
_SPACE_BEFORE_NEWLINE = re.compile(f"[{WS_CLASS}]+\n")
_SPACE_AFTER_NEWLINE = re.compile(f"\n[{WS_CLASS}]+")


def normalize_text(text: str) -> str:
    """§3.4: NFC, zero-width characters removed, NBSP -> space, CR/CRLF -> LF, white space
    around newlines collapsed (so every blank line and indentation goes), trimmed.
    Offsets play no part, so ``text`` may be in either form."""
    out = unicodedata.normalize("NFC", from_js(text))
    out = _ZERO_WIDTH.sub("", out).replace("\xa0", " ")
    out = out.replace("\r\n", "\n").replace("\r", "\n")
    out = _SPACE_BEFORE_NEWLINE.sub("\n", out)
    out = _SPACE_AFTER_NEWLINE.sub("\n", out)
    return js_trim(out)


# -- §8.12 detectFormat ----------------------------------------------------------------
_DOT = f"[^{LINE_TERMINATORS}]"  # JS "." without the s flag
_LINE_START = f"(?:\\A|(?<=[{LINE_TERMINATORS}]))"  # JS "^" with the m flag
_S = f"[{WS_CLASS}]"
# The i flag without u folds ASCII letters only, hence re.ASCII (no \w, \s or \d below).
_DOCTYPE = re.compile(r"<!doctype html>", re.IGNORECASE | re.ASCII)
_HTML_TAG = re.compile(
    r"<(html|body|head|div|span|p|h[1-6]|section|article|main|nav|table|ul|ol|li)[^>]*>",
    re.IGNORECASE | re.ASCII,
)
_LATEX = re.compile(r"\\(section|subsection|subsubsection|begin\{document\})")
_TABLE_ROW = re.compile(f"\\n\\|{_DOT}+\\|\\n")
_TABLE_RULE = re.compile(f"\\|{_S}*-{{2,}}{_S}*\\|")
_MARKDOWN_SIGNALS = (
    re.compile(f"{_LINE_START}#{{1,6}}{_S}+"),
    re.compile(f"{_LINE_START}(\\*|-|\\+|[0-9]+\\.){_S}+"),
    re.compile(f"{_LINE_START}>{_S}"),
    re.compile(r"```[\s\S]*?```"),
    re.compile(f"\\[{_DOT}+?\\]\\({_DOT}+?\\)"),
)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"JSON.parse rejects {name}")  # Python accepts NaN/Infinity; JS not


def _parses_as_json(text: str) -> bool:
    try:
        # parse_int=float: validity is all that matters, and it lifts Python's int-digit limit
        json.loads(text, parse_constant=_reject_constant, parse_int=float)
    except (ValueError, RecursionError):
        return False
    return True


def detect_format(text: str) -> str:
    """§8.12: the first of json, html, latex, code, table, markdown whose test hits the
    trimmed text, else ``"text"``. Offsets play no part, so ``text`` may be in either form."""
    text = js_trim(text)
    if not text:
        return "text"
    # A top-level array must end with "}" to be tried, so arrays are never json.
    if text.startswith(("{", "[")) and text.endswith("}") and _parses_as_json(text):
        return "json"
    if _DOCTYPE.search(text) or _HTML_TAG.search(text):
        return "html"
    if _LATEX.search(text):
        return "latex"
    if "```" in text:
        return "code"
    if _TABLE_ROW.search(text) and _TABLE_RULE.search(text):
        return "table"
    if any(signal.search(text) for signal in _MARKDOWN_SIGNALS):
        return "markdown"
    return "text"


# -- §8.9 cosineSimilarity --------------------------------------------------------------
def cosine_similarity(a: Sequence[float | None], b: Sequence[float | None]) -> float:
    """0 for empty or unequal-length vectors or a zero norm; otherwise the dot product
    over the norms, summed left to right in doubles (a missing entry reads as 0)."""
    if not a or not b or len(a) != len(b):
        return 0
    dot = norm_a = norm_b = 0.0
    for x, y in zip(a, b, strict=True):
        va = 0.0 if x is None else x
        vb = 0.0 if y is None else y
        dot += va * vb
        norm_a += va * va
        norm_b += vb * vb
    denominator = math.sqrt(norm_a) * math.sqrt(norm_b)
    if denominator == 0:
        return 0
    return num(dot / denominator)


# -- §1.1 buildMetadata ----------------------------------------------------------------
@dataclass(frozen=True)
class MetadataInput:
    """Upstream's ``ChunkMetadataInput``: ``docId``, ``sourceId``, ``baseMetadata``."""

    doc_id: Any = None
    source_id: Any = None
    base_metadata: Mapping[str, Any] | None = field(default=None)


def build_metadata(
    format: str,
    source_type: str,
    base: MetadataInput | None = None,
    path: Sequence[Any] | None = None,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """§1.1. ``baseMetadata`` only fills keys that are still unset (it may supply ``docId``
    when the options have none); ``extra`` overrides everything, ``format`` included."""
    meta: dict[str, Any] = {"format": format, "sourceType": source_type}
    if path:
        meta["path"] = list(path)
    if base is not None:
        if js_truthy(base.doc_id):
            meta["docId"] = base.doc_id
        if js_truthy(base.source_id):
            meta["sourceId"] = base.source_id
        for key, value in (base.base_metadata or {}).items():
            meta.setdefault(key, value)
    meta.update(extra or {})
    return meta


# -- §1.2 positions --------------------------------------------------------------------
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def build_line_map(text: str) -> list[int]:
    """Line start offsets: 0, then after every ``\\n``, lone ``\\r`` and ``\\r\\n`` pair."""
    return [0, *(m.end() for m in _LINE_BREAK.finditer(text))]


def offset_to_line_col(offset: float, line_map: Sequence[int]) -> dict[str, float]:
    """1-based ``{line, column}`` by upstream's binary search: the line whose
    ``[start, next start)`` holds ``offset`` (the last line runs to infinity). An offset
    no line holds (negative) falls through to the last line."""
    if isinstance(offset, int) and offset >= 0:
        # The common case, by C bisection: the last line starting at or before offset.
        line = bisect_right(line_map, offset)
        return {"line": line, "column": offset - line_map[line - 1] + 1}
    low, high = 0, len(line_map) - 1
    while low <= high:
        mid = (low + high) >> 1
        start = line_map[mid]
        following = line_map[mid + 1] if mid + 1 < len(line_map) else MAX_SAFE_INTEGER
        if offset < start:
            high = mid - 1
        elif offset >= following:
            low = mid + 1
        else:
            return {"line": mid + 1, "column": num(offset - start + 1)}
    return {"line": len(line_map), "column": num(js_max(1, offset - line_map[-1] + 1))}


def position_for_range(start: float, end: float, line_map: Sequence[int]) -> dict[str, Any]:
    """``{position: {start, end}}``; ``end`` is exclusive, one column past the last char."""
    return {
        "position": {
            "start": offset_to_line_col(start, line_map),
            "end": offset_to_line_col(end, line_map),
        }
    }


__all__ = [
    "MetadataInput",
    "Segment",
    "build_line_map",
    "build_metadata",
    "cosine_similarity",
    "detect_format",
    "normalize_text",
    "offset_to_line_col",
    "position_for_range",
    "slice_by_token_range",
    "split_into_paragraphs",
    "split_into_sentences",
]
