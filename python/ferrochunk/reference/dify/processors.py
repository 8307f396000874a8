"""§2 process rules and §8 the index processors."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .cleaner import CleanProcessor
from .text_splitter import (
    Document,
    EnhanceRecursiveCharacterTextSplitter,
    FixedRecursiveCharacterTextSplitter,
    TextSplitter,
)

AUTOMATIC_RULES: dict[str, Any] = {
    "pre_processing_rules": [
        {"id": "remove_extra_spaces", "enabled": True},
        {"id": "remove_urls_emails", "enabled": False},
    ],
    "segmentation": {"delimiter": "\n", "max_tokens": 500, "chunk_overlap": 50},
}
MAX_SEGMENTATION_TOKENS = 4000
CHILD_CHUNKS_PREVIEW_NUMBER = 50
PROCESSOR_SEPARATORS = ["\n\n", "。", ". ", " ", ""]
_LEADING_LINK = re.compile(r"^\[([^\]]+)\]\((https?://[^)]+)\)")
_LEADING_SYMBOLS = re.compile(
    "^[\u2000-\u2025\u2027-\u206f\u2e00-\u2e7f\u3000-\u300f\u3012-\u303f\"#$%&'()*+,./:;<=>?@^_`~]+"
)


class ValidationError(ValueError):
    """A process rule that does not fit the model (pydantic's error, by name)."""


def _lax_int(field: str, value: Any) -> int:
    """pydantic's lax int: ints, bools, integral floats and integer strings."""
    if isinstance(value, bool | int):
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            pass
    raise ValidationError(f"{field}: Input should be a valid integer, got {value!r}")


@dataclass
class Segmentation:
    separator: str
    max_tokens: int
    chunk_overlap: int

    @classmethod
    def validate(cls, field: str, value: Any) -> Segmentation:
        if not isinstance(value, dict):
            raise ValidationError(f"{field}: Input should be a valid dictionary")
        separator = value.get("separator", value.get("delimiter", "\n"))
        if not isinstance(separator, str):
            raise ValidationError(f"{field}.separator: Input should be a valid string")
        if "max_tokens" not in value:
            raise ValidationError(f"{field}.max_tokens: Field required")
        return cls(
            separator=separator,
            max_tokens=_lax_int(f"{field}.max_tokens", value["max_tokens"]),
            chunk_overlap=_lax_int(f"{field}.chunk_overlap", value.get("chunk_overlap", 0)),
        )


@dataclass
class Rule:
    pre_processing_rules: list[dict[str, Any]] | None
    segmentation: Segmentation | None
    parent_mode: str | None
    subchunk_segmentation: Segmentation | None

    @classmethod
    def validate(cls, value: Any) -> Rule:
        if not isinstance(value, dict):
            raise ValidationError("rules: Input should be a valid dictionary")
        pre = value.get("pre_processing_rules")
        if pre is not None and not isinstance(pre, list):
            raise ValidationError("pre_processing_rules: Input should be a valid list")
        parent_mode = value.get("parent_mode")
        if parent_mode not in (None, "full-doc", "paragraph"):
            raise ValidationError("parent_mode: Input should be 'full-doc' or 'paragraph'")

        def segmentation(key: str) -> Segmentation | None:
            raw = value.get(key)
            return None if raw is None else Segmentation.validate(key, raw)

        return cls(
            pre, segmentation("segmentation"), parent_mode, segmentation("subchunk_segmentation")
        )


def get_splitter(
    mode: Any,
    max_tokens: Any,
    chunk_overlap: Any,
    separator: Any,
    *,
    fixed: type[FixedRecursiveCharacterTextSplitter] = FixedRecursiveCharacterTextSplitter,
    enhance: type[EnhanceRecursiveCharacterTextSplitter] = EnhanceRecursiveCharacterTextSplitter,
) -> TextSplitter:
    """§8.1 ``_get_splitter``: custom/hierarchical are validated to 50..4000; any other mode
    is the automatic splitter (500/50), whatever the arguments. ``fixed``/``enhance`` are the
    splitter classes (the compat face passes its native ones)."""
    if mode in ("custom", "hierarchical"):
        if max_tokens < 50 or max_tokens > MAX_SEGMENTATION_TOKENS:
            raise ValueError(
                f"Custom segment length should be between 50 and {MAX_SEGMENTATION_TOKENS}."
            )
        if separator:
            separator = separator.replace("\\n", "\n")
        splitter: TextSplitter = fixed.from_encoder(
            chunk_size=max_tokens,
            chunk_overlap=chunk_overlap,
            fixed_separator=separator,
            separators=PROCESSOR_SEPARATORS,
        )
        return splitter
    splitter = enhance.from_encoder(
        chunk_size=500, chunk_overlap=50, separators=PROCESSOR_SEPARATORS
    )
    return splitter


def remove_leading_symbols(text: str) -> str:
    """§8.3: drops leading punctuation and symbols, unless the text opens with a link."""
    if _LEADING_LINK.match(text):
        return text
    return _LEADING_SYMBOLS.sub("", text)


def _rules(process_rule: Any) -> Rule:
    if not process_rule:
        raise ValueError("No process rule found.")
    if process_rule.get("mode") == "automatic":
        return Rule.validate(AUTOMATIC_RULES)
    if not process_rule.get("rules"):
        raise ValueError("No rules found in process rule.")
    return Rule.validate(process_rule["rules"])


SplitterFactory = Callable[[Any, Any, Any, Any], TextSplitter]


def paragraph_transform(
    texts: list[str],
    process_rule: Any,
    preview: bool = False,
    *,
    splitter: SplitterFactory = get_splitter,
    cleaner: Any = CleanProcessor,
) -> list[str]:
    """§8.2: clean, split, then strip each chunk and its leading symbols."""
    rules = _rules(process_rule)
    if not rules.segmentation:
        raise ValueError("No segmentation found in rules.")
    seg = rules.segmentation
    split = splitter(process_rule.get("mode"), seg.max_tokens, seg.chunk_overlap, seg.separator)
    out = []
    for text in texts:
        doc = Document(page_content=cleaner.clean(text, process_rule))
        for chunk in split.split_documents([doc]):
            if chunk.page_content.strip():
                content = remove_leading_symbols(chunk.page_content).strip()
                if content:
                    out.append(content)
    return out


def _drop_leading_dot(text: str) -> str:
    """§8.4: a chunk opening with "." or "。" loses that one character and is stripped."""
    if text.startswith((".", "。")):
        return text[1:].strip()
    return text


def _split_child_nodes(parent: str, rules: Rule, mode: Any, splitter: SplitterFactory) -> list[str]:
    """§8.5."""
    sub = rules.subchunk_segmentation
    if not sub:
        raise ValueError("No subchunk segmentation found in rules.")
    split = splitter(mode, sub.max_tokens, sub.chunk_overlap, sub.separator)
    children = []
    for chunk in split.split_documents([Document(page_content=parent)]):
        if chunk.page_content.strip():
            content = _drop_leading_dot(chunk.page_content)
            if content:
                children.append(content)
    return children


def parent_child_transform(
    texts: list[str],
    process_rule: Any,
    preview: bool = False,
    *,
    splitter: SplitterFactory = get_splitter,
    cleaner: Any = CleanProcessor,
) -> list[dict[str, Any]]:
    """§8.4: paragraph parents (cleaned, split) or one full-doc parent, each with children."""
    if not process_rule:
        raise ValueError("No process rule found.")
    if not process_rule.get("rules"):
        raise ValueError("No rules found in process rule.")
    rules = Rule.validate(process_rule["rules"])
    mode = process_rule.get("mode")
    if rules.parent_mode == "paragraph":
        if not rules.segmentation:
            raise ValueError("No segmentation found in rules.")
        seg = rules.segmentation
        split = splitter(mode, seg.max_tokens, seg.chunk_overlap, seg.separator)
        parents: list[dict[str, Any]] = []
        for text in texts:
            doc = Document(page_content=cleaner.clean(text, process_rule))
            for chunk in split.split_documents([doc]):
                if chunk.page_content.strip():
                    content = _drop_leading_dot(chunk.page_content)
                    if content:
                        children = _split_child_nodes(content, rules, mode, splitter)
                        parents.append({"content": content, "children": children})
            if preview and len(parents) >= 10:
                break
        return parents
    if rules.parent_mode == "full-doc":
        content = "\n".join(texts)
        _ = texts[0]  # upstream takes the metadata of the first document
        children = _split_child_nodes(content, rules, mode, splitter)
        if preview:
            children = children[:CHILD_CHUNKS_PREVIEW_NUMBER]
        return [{"content": content, "children": children}]
    return []
