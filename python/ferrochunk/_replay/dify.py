"""Dify records (as Dify ``e738086``'s vectors record them): argument names and result shapes."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

Args = Mapping[str, Any]


def _opt(args: Args, *names: str) -> dict[str, Any]:
    return {n: args[n] for n in names if n in args}


def _length(module: Any, args: Args) -> dict[str, Any]:
    """The length function a record names (characters when absent)."""
    name = args.get("length", "char")
    if name == "char":
        return {}
    return {"length_function": module.length_function(name)}


def _fixed(m: Any, a: Args) -> Any:
    splitter = m.FixedRecursiveCharacterTextSplitter(
        **_opt(a, "fixed_separator", "separators", "chunk_size", "chunk_overlap", "keep_separator"),
        **_length(m, a),
    )
    return splitter.split_text(a["text"])


def _recursive(cls_name: str) -> Callable[[Any, Args], Any]:
    def run(m: Any, a: Args) -> Any:
        cls = getattr(m, cls_name)
        splitter = cls(**_opt(a, "separators", "chunk_size", "chunk_overlap", "keep_separator"))
        return splitter.split_text(a["text"])

    return run


def _merge_splits(m: Any, a: Args) -> Any:
    splitter = m.TextSplitter(**_opt(a, "chunk_size", "chunk_overlap"))
    lengths = [len(s) for s in a["splits"]]
    return splitter._merge_splits(a["splits"], a["separator"], lengths)


def _create_documents(m: Any, a: Args) -> Any:
    splitter = m.FixedRecursiveCharacterTextSplitter(
        **_opt(a, "fixed_separator", "separators", "chunk_size", "chunk_overlap", "add_start_index")
    )
    docs = splitter.create_documents(a["texts"])
    return [{"page_content": d.page_content, "metadata": d.metadata} for d in docs]


HANDLERS: dict[str, Callable[[Any, Args], Any]] = {
    "fixed_split": _fixed,
    "enhance_split": _recursive("EnhanceRecursiveCharacterTextSplitter"),
    "recursive_split": _recursive("RecursiveCharacterTextSplitter"),
    "merge_splits": _merge_splits,
    "split_text_with_regex": lambda m, a: m._split_text_with_regex(
        a["text"], a["separator"], a["keep_separator"]
    ),
    "clean": lambda m, a: m.CleanProcessor.clean(a["text"], a["process_rule"]),
    "remove_leading_symbols": lambda m, a: m.remove_leading_symbols(a["text"]),
    "create_documents": _create_documents,
    "get_splitter_split": lambda m, a: m.get_splitter(
        a["mode"], a["max_tokens"], a["chunk_overlap"], a["separator"]
    ).split_text(a["text"]),
    "paragraph_transform": lambda m, a: m.paragraph_transform(
        a["texts"], a["process_rule"], **_opt(a, "preview")
    ),
    "parent_child_transform": lambda m, a: m.parent_child_transform(
        a["texts"], a["process_rule"], **_opt(a, "preview")
    ),
}
