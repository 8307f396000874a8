"""What each chunker did to the text: the audit of ferrochunk's chunks (lost characters,
U+FFFD, caps, offsets, order), the same counts for any chunker's pieces, Markdown's
structure columns, and the code columns (definitions cut, chunks with no scope).

Used by ``scripts/lossless.py`` (every native config over the corpus), the test suite and
``ferrochunk bench``. Everything counted should be 0.
"""

from __future__ import annotations

import bisect
import functools
import importlib
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import _native
from .._grammars import capsule
from ..config import (
    Config,
    DelimiterMerge,
    Markdown,
    MergeStrategy,
    ParentChild,
    Recursive,
    SentenceWindows,
    TokenWindows,
)
from ..tokenizers import Tokenizer, offset_safe
from ..types import Chunk
from .contenders import _REPLACEMENT, CodePieces, Contender, Pieces, Result

__all__ = ["Audit", "MarkdownQuality", "audit", "audit_texts", "code_quality", "markdown_quality"]


@dataclass(frozen=True)
class Audit:
    """Counts for one text; every field but ``chunks`` should be 0."""

    chunks: int
    lost: int
    """Non-white-space characters of the text in no chunk (beyond what the contract drops)."""
    replacement: int
    """U+FFFD characters the chunks hold that the text does not hold there."""
    over_cap: int
    """Chunks over their token cap and not flagged ``oversize``."""
    wrong_offsets: int
    """Chunks whose text is not what their offsets slice from the text."""
    out_of_order: int
    """Chunks that start before the previous one, or with the wrong index."""

    def __add__(self, other: Audit) -> Audit:
        return Audit(*(a + b for a, b in zip(self._values(), other._values(), strict=True)))

    def _values(self) -> tuple[int, ...]:
        return (
            self.chunks,
            self.lost,
            self.replacement,
            self.over_cap,
            self.wrong_offsets,
            self.out_of_order,
        )

    @property
    def clean(self) -> bool:
        return not any(self._values()[1:])


@functools.cache
def _cl100k() -> Tokenizer:
    return Tokenizer.cl100k()


@functools.cache
def _white_space() -> np.ndarray[Any, Any]:
    """The code points ``str.isspace`` accepts."""
    return np.array([c for c in range(sys.maxunicode + 1) if chr(c).isspace()], dtype=np.uint32)


def _code_points(text: str) -> np.ndarray[Any, Any]:
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


def _cap(config: Config) -> int | None:
    """The token cap a chunk must keep unless flagged, or None where the contract has none."""
    if isinstance(config, TokenWindows | Recursive | Markdown):
        return config.max_tokens
    if isinstance(config, SentenceWindows):
        return config.safe_max
    if isinstance(config, DelimiterMerge):
        return config.token_size if config.strategy == MergeStrategy.UNDER_CAP else None
    if isinstance(config, ParentChild):
        return config.parent.max_tokens if isinstance(config.parent, Recursive) else None
    return None


def _droppable(text: str, config: Config | None) -> np.ndarray[Any, Any] | None:
    """Characters the contract may drop: a ``DelimiterMerge``'s delimiter matches."""
    if not isinstance(config, DelimiterMerge):
        return None
    data = text.encode("utf-8", "surrogatepass")
    starts = (np.frombuffer(data, dtype=np.uint8) & 0xC0) != 0x80
    char_of_byte = np.concatenate(([0], np.cumsum(starts)))
    keep = np.ones(len(text), dtype=bool)
    # U+FFFD stands in for a surrogate: both are one character and three bytes.
    for a, b in _native.delimiter_pieces(offset_safe(text), config).tolist():
        keep[char_of_byte[a] : char_of_byte[b]] = False
    return keep


def audit(text: str, chunks: Sequence[Chunk], config: Config | None = None) -> Audit:
    """Audits ``chunks`` of ``text`` (cut by ``config``, when it is a native config)."""
    points = _code_points(text)
    covered = np.zeros(len(text), dtype=bool)
    cap = _cap(config) if config is not None else None
    data = text.encode("utf-8", "surrogatepass")
    replacement = over = wrong = disorder = 0
    prev_start = -1
    for i, c in enumerate(chunks):
        spans = c.metadata.get("spans") or ((c.char_start, c.char_end),)
        joiner = getattr(config, "joiner", "")
        expected = joiner.join(text[a:b] for a, b in spans)
        for a, b in spans:
            covered[a:b] = True
        if (
            c.text != expected
            or c.token_count != c.token_end - c.token_start
            or (
                data[c.byte_start : c.byte_end].decode("utf-8", "surrogatepass")
                != text[c.char_start : c.char_end]
            )
        ):
            wrong += 1
        replacement += max(c.text.count("\ufffd") - expected.count("\ufffd"), 0)
        if cap is not None and not c.metadata.get("oversize", False):
            # Markdown's cap counts the context with the text, as one string.
            context = c.metadata.get("context", "")
            size = _cl100k().count(context + c.text) if context else c.token_count
            over += size > cap
        if c.index != i or c.char_start < prev_start:
            disorder += 1
        prev_start = c.char_start
        kids = c.metadata.get("children", ())
        if isinstance(config, ParentChild):
            child_cap = config.child.max_tokens
            over += sum(
                1 for k in kids if k.token_count > child_cap and not k.metadata.get("oversize")
            )
        for k in kids:
            if k.text != text[k.char_start : k.char_end]:
                wrong += 1
    missing = ~covered & ~np.isin(points, _white_space())
    drop = _droppable(text, config)
    if drop is not None:
        missing &= ~drop
    return Audit(len(chunks), int(missing.sum()), replacement, over, wrong, disorder)


def audit_texts(texts: Sequence[str], results: Sequence[Sequence[Chunk]], config: Any) -> Audit:
    """The sum of :func:`audit` over documents."""
    total = Audit(0, 0, 0, 0, 0, 0)
    for text, chunks in zip(texts, results, strict=True):
        total = total + audit(text, chunks, config)
    return total


@dataclass(frozen=True)
class MarkdownQuality:
    """What a chunker did to Markdown's structure; every count should be 0."""

    code_cut: int
    """Fenced code blocks that fit the cap but that no chunk holds whole."""
    rows_cut: int
    """Table rows that no chunk holds whole."""
    heading_end: int
    """Chunks (but a document's last) whose last line is a line of a section heading."""


def _squeeze(text: str) -> str:
    return " ".join(text.split())


def markdown_quality(
    texts: Sequence[str], pieces: Sequence[Sequence[tuple[str, int | None]]], cap: int
) -> MarkdownQuality:
    """Judged by an independent CommonMark parser (markdown-it-py, extra ``[bench]``).
    A piece is ``(text, char offset)``; where a chunker reports no offset, blocks are
    looked for in the pieces' text, with white space compared loosely (some splitters
    rejoin lines)."""
    from .._support.optional import require

    markdown_it = require("markdown_it", "bench")
    parser = markdown_it.MarkdownIt("commonmark").enable("table")
    tok = _cl100k()
    code = rows = heading = 0
    for text, chunks in zip(texts, pieces, strict=True):
        lines = text.splitlines(keepends=True)
        starts = [0]
        for line in lines:
            starts.append(starts[-1] + len(line))
        located = all(start is not None for _, start in chunks)
        spans = [(start or 0, (start or 0) + len(p)) for p, start in chunks]
        held = [_squeeze(p) for p, _ in chunks]
        heading_lines: set[int] = set()
        for t in parser.parse(text):
            if t.type == "heading_open" and t.level == 0 and t.map is not None:
                # A setext heading's underline ends its lines; alone it is no heading.
                end = t.map[1] - (t.markup in ("=", "-"))
                heading_lines.update(range(t.map[0], end))
            if t.map is None or t.type not in ("fence", "tr_open"):
                continue
            a, b = starts[t.map[0]], starts[min(t.map[1], len(lines))]
            block = text[a:b]
            if t.type == "fence" and tok.count(block) > cap:
                continue
            if located:
                b = a + len(block.rstrip())
                whole = any(s <= a and b <= e for s, e in spans)
            else:
                whole = any(_squeeze(block) in p for p in held)
            if not whole:
                code += t.type == "fence"
                rows += t.type == "tr_open"
        heading_text = {_squeeze(lines[k]) for k in heading_lines}
        for p, start in chunks[:-1]:
            body = p.rstrip()
            if not body:
                continue
            if start is not None:
                last_line = bisect.bisect_right(starts, start + len(body) - 1) - 1
                heading += last_line in heading_lines
            else:
                heading += _squeeze(body.splitlines()[-1]) in heading_text
    return MarkdownQuality(code, rows, heading)


# -- any chunker's pieces ------------------------------------------------------------------


def _non_space(text: str) -> Counter[str]:
    return Counter(c for c in text if not c.isspace())


def _lost(text: str, pieces: Pieces) -> int:
    """Non-white-space characters of ``text`` that no chunk holds (as a multiset)."""
    held: Counter[str] = Counter()
    for piece, _ in pieces:
        held.update(piece)
    return sum((_non_space(text) - held).values())


def _introduced(text: str, pieces: Pieces) -> int:
    """U+FFFD in chunks that the text does not hold there (a chunk that is a slice of the
    text introduces none)."""
    if _REPLACEMENT not in "".join(p for p, _ in pieces):
        return 0
    return sum(
        max(p.count(_REPLACEMENT) - (text.count(_REPLACEMENT) if p in text else 0), 0)
        for p, _ in pieces
    )


def _wrong(text: str, pieces: Pieces) -> int | None:
    if any(start is None for _, start in pieces):
        return None
    return sum(1 for p, s in pieces if s is None or text[s : s + len(p)] != p)


def _counter(contender: Contender) -> Callable[[list[str]], Any]:
    """How a row's chunks are counted against its cap: cl100k, or the row's model with
    the special tokens it adds to each chunk."""
    if contender.tokenizer is None:
        return Tokenizer.cl100k().count_batch
    model = Tokenizer.from_file(contender.tokenizer)
    return lambda texts: model.count_batch(texts) + model.special_tokens


def _measure(contender: Contender, texts: Sequence[str], fn: Callable[[str], Any]) -> Result:
    count = _counter(contender)
    outputs = [fn(t) for t in texts]
    if contender.pieces is None:
        return Result(contender.key, contender.label, contender.kind)
    pieces = [contender.pieces(o) for o in outputs]
    flat = [p for doc in pieces for p, _ in doc]
    over = None
    if contender.cap is not None:
        over = int((count(flat) > contender.cap).sum()) if flat else 0
    wrong: int | None
    if contender.config is not None:
        checked = audit_texts(texts, outputs, contender.config)
        lost, replacement, wrong = checked.lost, checked.replacement, checked.wrong_offsets
        if isinstance(contender.config, Markdown):
            over = checked.over_cap  # its cap counts the context with the text
    else:
        lost = sum(_lost(t, p) for t, p in zip(texts, pieces, strict=True))
        replacement = sum(_introduced(t, p) for t, p in zip(texts, pieces, strict=True))
        wrongs = [_wrong(t, p) for t, p in zip(texts, pieces, strict=True)]
        wrong = None if any(w is None for w in wrongs) else sum(w or 0 for w in wrongs)
    structure = None
    if contender.markdown:
        structure = markdown_quality(texts, pieces, contender.cap or contender.max_tokens)
    return Result(
        contender.key,
        contender.label,
        contender.kind,
        chunks=len(flat),
        over_cap=over,
        lost=lost,
        replacement=replacement,
        wrong_offsets=wrong,
        code_cut=structure.code_cut if structure else None,
        rows_cut=structure.rows_cut if structure else None,
        heading_end=structure.heading_end if structure else None,
    )


# -- code ---------------------------------------------------------------------------------

_SCOPES = frozenset(
    {
        "class_definition", "function_definition", "class_declaration",
        "function_declaration", "generator_function_declaration", "method_definition",
        "abstract_class_declaration", "interface_declaration", "enum_declaration",
        "internal_module", "module", "function_item", "impl_item", "trait_item", "mod_item",
        "struct_item", "enum_item", "union_item", "method_declaration", "record_declaration",
        "annotation_type_declaration", "constructor_declaration", "namespace_declaration",
        "struct_declaration", "struct_specifier", "union_specifier", "enum_specifier",
        "class_specifier", "namespace_definition", "class", "method", "singleton_method",
        "trait_declaration",
    }
)  # fmt: skip


def definitions(source: str, language: str) -> list[tuple[int, int]]:
    """The character spans of the scopes of docs/code.md's table, each from its line's
    start when only white space stands before it there, found with py-tree-sitter."""
    ts = importlib.import_module("tree_sitter")
    data = source.encode("utf-8")
    ends = np.cumsum([len(ch.encode("utf-8")) for ch in source])  # each char's byte end
    root = ts.Parser(ts.Language(capsule(language))).parse(data).root_node
    out = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "ERROR":
            continue
        stack.extend(node.children)
        inner = (
            node.child_by_field_name("definition") if node.type == "decorated_definition" else node
        )
        if node.parent is not None and node.parent.type == "decorated_definition":
            continue
        if inner is None or inner.type not in _SCOPES or inner.child_by_field_name("body") is None:
            continue
        line = data.rfind(b"\n", 0, node.start_byte) + 1
        start = line if not data[line : node.start_byte].strip() else node.start_byte
        a = int(np.searchsorted(ends, start, side="right"))
        b = int(np.searchsorted(ends, node.end_byte, side="left")) + 1
        out.append((a, min(b, len(source))))
    return sorted(out)


def _located(source: str, pieces: CodePieces) -> list[tuple[int, int, str, str]]:
    """Each piece's span in ``source``: its offset, else found after the previous one."""
    out, at = [], 0
    for text, start, context in pieces:
        if start is None:
            found = source.find(text, max(at - len(text), 0))
            start = found if found >= 0 else at
        out.append((start, start + len(text), text, context))
        at = start + len(text)
    return out


def code_quality(
    files: Sequence[str], language: str, results: Sequence[CodePieces], cap: int
) -> dict[str, int]:
    """``defs_cut``: definitions whose text fits ``cap - 2`` cl100k tokens (the margin for
    a one-pass count at their edges) with a chunk boundary inside; ``over_cap``: chunks
    whose embedded text (context and text) is over ``cap`` cl100k tokens; ``no_scope``:
    chunks that start inside a definition with no context naming it."""
    tok = Tokenizer.cl100k()
    cut = over = no_scope = 0
    for source, pieces in zip(files, results, strict=True):
        spans = _located(source, pieces)
        bounds = np.array(sorted({a for a, _, _, _ in spans} | {b for _, b, _, _ in spans}))
        defs = definitions(source, language)
        for a, b in defs:
            inside = np.searchsorted(bounds, b, side="left") - np.searchsorted(bounds, a, "right")
            if inside > 0 and tok.count(source[a:b]) <= cap - 2:
                cut += 1
        for a, _, text, context in spans:
            over += tok.count(context + text) > cap
            no_scope += not context and any(d0 < a < d1 for d0, d1 in defs)
    return {"defs_cut": cut, "over_cap": over, "no_scope": no_scope}
