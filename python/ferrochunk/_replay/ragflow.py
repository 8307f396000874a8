"""RAGFlow records (as RAGFlow ``b1b8cd6``'s vectors hold them): argument names, decoding,
result shapes."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any

from .codec import decode

Args = Mapping[str, Any]


def _strategy(module: Any, args: Args) -> Any:
    """The enum member named in the record (absent -> OVER_CAP)."""
    return module.MergeStrategy[args.get("strategy", "OVER_CAP")]


def _opt(args: Args, *names: str, decoded: tuple[str, ...] = ()) -> dict[str, Any]:
    """The named arguments present in the record, decoding the listed ones."""
    return {n: (decode(args[n]) if n in decoded else args[n]) for n in names if n in args}


def _pairs(items: Any) -> Any:
    """A 2- or 3-element JSON list inside a section list stands for a tuple."""
    if not isinstance(items, list):
        return items
    return [tuple(x) if isinstance(x, list) else x for x in items]


def _merge_paragraphs(m: Any, a: Args) -> Any:
    kwargs = _opt(a, "overlapped_percent", decoded=("overlapped_percent",))
    if "sizes" in a:
        table = dict(zip(a["paragraphs"], a["sizes"], strict=True))
        kwargs["size"] = table.__getitem__
    return m.merge_paragraphs(a["paragraphs"], a["token_size"], _strategy(m, a), **kwargs)


def _naive_merge(m: Any, a: Args) -> Any:
    kwargs = _opt(
        a, "chunk_token_num", "delimiter", "overlapped_percent", decoded=("overlapped_percent",)
    )
    return m.naive_merge(_pairs(a["sections"]), strategy=_strategy(m, a), **kwargs)


def _images(module: Any, ids: list[Any]) -> list[Any]:
    """Equal ids are the same ``LazyImage`` object, whose one blob is the id (latin-1)."""
    by_id: dict[Any, Any] = {}
    out: list[Any] = []
    for i in ids:
        if i is None:
            out.append(None)
            continue
        if i not in by_id:
            by_id[i] = module.LazyImage([str(i).encode("latin-1")])
        out.append(by_id[i])
    return out


def _encode_image(image: Any) -> Any:
    if image is None:
        return None
    return {"__image__": [b.decode("latin-1") for b in image._blobs]}


def _naive_merge_with_images(m: Any, a: Args) -> Any:
    kwargs = _opt(
        a,
        "chunk_token_num",
        "delimiter",
        "overlapped_percent",
        decoded=("overlapped_percent",),
    )
    chunks, images = m.naive_merge_with_images(
        decode(a["texts"]), _images(m, a["images"]), strategy=_strategy(m, a), **kwargs
    )
    return {"chunks": chunks, "images": [_encode_image(i) for i in images]}


def _naive_merge_docx(m: Any, a: Args) -> Any:
    kwargs = _opt(a, "chunk_token_num", "delimiter", "table_context_size", "image_context_size")
    chunks, image_idxs = m.naive_merge_docx(_pairs(a["sections"]), **kwargs)
    return {"chunks": chunks, "image_idxs": image_idxs}


def _token_chunker(m: Any, a: Args) -> Any:
    """Upstream's constructor checks the param; ``check: false`` records set their raw
    values after it, so they reach ``_invoke`` unchecked (spec §0)."""
    param = m.TokenChunkerParam()
    raw = {key: decode(value) for key, value in a["param"].items()}
    if a.get("check"):
        vars(param).update(raw)
    component = m.TokenChunker(None, "TokenChunker:0", param)
    if not a.get("check"):
        vars(param).update(raw)
    asyncio.run(component._invoke(**a["input"]))
    error = component.error()
    if error is not None:
        return {"_ERROR": error.split("\n")[0]}
    return {"chunks": component.output("chunks")}


HANDLERS: dict[str, Callable[[Any, Args], Any]] = {
    "num_tokens_from_string": lambda m, a: m.num_tokens_from_string(a["text"]),
    "normalize_overlapped_percent": lambda m, a: m.normalize_overlapped_percent(decode(a["value"])),
    "parse_delimiter_field": lambda m, a: m.parse_delimiter_field(a["field"]),
    "has_wrapped_delimiter": lambda m, a: m.has_wrapped_delimiter(a["field"]),
    "compile_delimiter_pattern": lambda m, a: m.compile_delimiter_pattern(a["delimiters"]),
    "normalize_text_newlines": lambda m, a: m.normalize_text_newlines(a["text"]),
    "remove_tag": lambda m, a: m.remove_tag(a["text"]),
    "_compute_overlap_prefix": lambda m, a: list(
        m._compute_overlap_prefix(a["prev_text"], decode(a["overlapped_percent"]))
    ),
    "token_chunker._compile_delimiter_pattern": lambda m, a: (
        m.TokenChunker._compile_delimiter_pattern(a["delimiters"])
    ),
    "token_chunker._split_text_by_pattern": lambda m, a: m.TokenChunker._split_text_by_pattern(
        a["text"], a["pattern"]
    ),
    "TokenChunker": _token_chunker,
    "merge_paragraphs": _merge_paragraphs,
    "naive_merge": _naive_merge,
    "naive_merge_with_images": _naive_merge_with_images,
    "naive_merge_docx": _naive_merge_docx,
    "bullets_category": lambda m, a: m.bullets_category(a["sections"]),
    "not_bullet": lambda m, a: m.not_bullet(a["line"]),
    "not_title": lambda m, a: bool(m.not_title(a["txt"])),
    "title_frequency": lambda m, a: list(m.title_frequency(a["bull"], _pairs(a["sections"]))),
    "hierarchical_merge": lambda m, a: m.hierarchical_merge(
        a["bull"], _pairs(a["sections"]), a["depth"]
    ),
    "tree_merge": lambda m, a: m.tree_merge(a["bull"], _pairs(a["sections"]), a["depth"]),
    "parser_txt": lambda m, a: m.RAGFlowTxtParser.parser_txt(
        a["txt"], **_opt(a, "chunk_token_num", "delimiter", "keep_delimiters")
    ),
}
