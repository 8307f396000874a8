"""Code chunkers side by side: speed beside tree-sitter's bare parse, and what each did to
the code.

The engine of ``ferrochunk bench --chunker code`` and of ``benches/bench_code.py``, so what
users run and what ``BENCHMARKS.md`` publishes are one thing. Every contender runs in this
process on one thread over the same files of one language:

* ferrochunk's ``Code`` (``chunk_many(..., threads=1)``);
* tree-sitter's bare parse of the same files (py-tree-sitter, the floor any tree-sitter
  chunker pays);
* the peers that are installed: text-splitter's ``CodeSplitter`` with a cl100k counter
  (``semantic-text-splitter``), astchunk (Python and Java), LlamaIndex's ``CodeSplitter``
  (given a parser, so it downloads nothing).

The quality columns (:func:`quality`) count what a reader of the chunks would notice: a
definition that fits the cap but is cut, a chunk over the cap (ferrochunk's counted with its
context), and a chunk that starts inside a definition without saying which.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ._grammars import capsule
from .config import Code
from .pipeline import chunk_many
from .tokenizers import Tokenizer

__all__ = ["CONTENDERS", "Pieces", "Row", "definitions", "measure", "quality"]

# One file's chunks: (text, character offset or None, context).
Pieces = list[tuple[str, int | None, str]]
Run = Callable[[list[str]], list[Pieces]]

# What astchunk names the languages it runs.
_ASTCHUNK = {"python": "python", "java": "java", "c_sharp": "csharp", "typescript": "typescript"}

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


def _ferrochunk(language: str, cap: int) -> Run:
    config = Code(cap, language=language)

    def run(files: list[str]) -> list[Pieces]:
        out = chunk_many(files, config, threads=1)
        return [[(c.text, c.char_start, c.metadata["context"]) for c in cs] for cs in out]

    return run


def _text_splitter(language: str, cap: int) -> Run:
    sts = importlib.import_module("semantic_text_splitter")
    splitter = sts.CodeSplitter.from_tiktoken_model(capsule(language), "gpt-4", cap)
    return lambda files: [[(t, i, "") for i, t in splitter.chunk_indices(f)] for f in files]


def _astchunk(language: str, cap: int) -> Run:
    if language not in _ASTCHUNK:
        raise ImportError(f"astchunk has no {language}")
    builder = importlib.import_module("astchunk").ASTChunkBuilder(
        max_chunk_size=cap * 25 // 8, language=_ASTCHUNK[language], metadata_template="default"
    )
    return lambda files: [[(c["content"], None, "") for c in builder.chunkify(f)] for f in files]


def _llama_index(language: str, cap: int) -> Run:
    splitter_cls = importlib.import_module("llama_index.core.node_parser").CodeSplitter
    ts = importlib.import_module("tree_sitter")
    parser = ts.Parser(ts.Language(capsule(language)))
    splitter = splitter_cls(language=language, parser=parser, max_chars=cap * 4)
    return lambda files: [[(t, None, "") for t in splitter.split_text(f)] for f in files]


def _parse(language: str, cap: int) -> Run:
    ts = importlib.import_module("tree_sitter")
    parser = ts.Parser(ts.Language(capsule(language)))

    def run(files: list[str]) -> list[Pieces]:
        for f in files:
            parser.parse(f.encode("utf-8"))
        return []

    return run


# label: (build(language, cap), what its cap counts)
CONTENDERS: dict[str, tuple[Callable[[str, int], Run], str]] = {
    "ferrochunk Code": (_ferrochunk, "tokens of context + text"),
    "tree-sitter parse (floor)": (_parse, "no chunks"),
    "text-splitter CodeSplitter": (_text_splitter, "cl100k tokens"),
    "astchunk": (_astchunk, "non-space characters, 25/8 per token"),
    "LlamaIndex CodeSplitter": (_llama_index, "characters, 4 per token"),
}


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


def _located(source: str, pieces: Pieces) -> list[tuple[int, int, str, str]]:
    """Each piece's span in ``source``: its offset, else found after the previous one."""
    out, at = [], 0
    for text, start, context in pieces:
        if start is None:
            found = source.find(text, max(at - len(text), 0))
            start = found if found >= 0 else at
        out.append((start, start + len(text), text, context))
        at = start + len(text)
    return out


def quality(
    files: Sequence[str], language: str, results: Sequence[Pieces], cap: int
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


@dataclass(frozen=True)
class Row:
    """One contender on one language's files."""

    label: str
    language: str
    counts: str
    bytes: int
    seconds: float | None
    chunks: int | None
    quality: dict[str, int]
    skipped: str | None = None

    @property
    def mb_per_s(self) -> float | None:
        return None if not self.seconds else self.bytes / 1e6 / self.seconds


def measure(
    files: list[str], language: str, cap: int = 512, repeat: int = 5, budget: float = 10.0
) -> list[Row]:
    """Every contender on ``files`` (all of ``language``): the median time of up to
    ``repeat`` runs (fewer once ``budget`` seconds have gone), chunks and quality."""
    size = sum(len(f.encode("utf-8")) for f in files)
    rows = []
    for label, (build, counts) in CONTENDERS.items():
        try:
            run = build(language, cap)
        except ImportError as exc:
            rows.append(Row(label, language, counts, size, None, None, {}, f"{exc}"))
            continue
        times: list[float] = []
        results: list[Pieces] = []
        while len(times) < repeat and sum(times) < budget:
            start = time.perf_counter()
            results = run(files)
            times.append(time.perf_counter() - start)
        seconds = float(np.median(times))
        if label.startswith("tree-sitter"):
            rows.append(Row(label, language, counts, size, seconds, None, {}))
            continue
        chunks = sum(len(p) for p in results)
        rows.append(
            Row(
                label,
                language,
                counts,
                size,
                seconds,
                chunks,
                quality(files, language, results, cap),
            )
        )
    return rows
