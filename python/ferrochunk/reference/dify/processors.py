"""§2 process rules and §8 the index processors."""

from __future__ import annotations

import copy
import functools
import hashlib
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .cleaner import CleanProcessor
from .text_splitter import (
    ChildDocument,
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
    """A process rule that does not fit the model, where pydantic is not installed.

    With pydantic installed, rules are validated by upstream's own models, so the error is
    ``pydantic.ValidationError`` itself (``except pydantic.ValidationError`` catches it).
    """


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
    def validate(cls, value: Any) -> Any:
        """Upstream's ``Rule.model_validate`` when pydantic is installed, else a check by
        hand that accepts the same rules."""
        model = _pydantic_rule()
        if model is not None:
            return model.model_validate(value)
        if not isinstance(value, dict):
            raise ValidationError("rules: Input should be a valid dictionary")
        pre = value.get("pre_processing_rules")
        if pre is not None and not isinstance(pre, list):
            raise ValidationError("pre_processing_rules: Input should be a valid list")
        for i, item in enumerate(pre or []):
            if not isinstance(item, dict):
                raise ValidationError(f"pre_processing_rules.{i}: Input should be an object")
            if not isinstance(item.get("id"), str):
                raise ValidationError(f"pre_processing_rules.{i}.id: Input should be a string")
            if "enabled" not in item:
                raise ValidationError(f"pre_processing_rules.{i}.enabled: Field required")
        parent_mode = value.get("parent_mode")
        if parent_mode not in (None, "full-doc", "paragraph"):
            raise ValidationError("parent_mode: Input should be 'full-doc' or 'paragraph'")

        def segmentation(key: str) -> Segmentation | None:
            raw = value.get(key)
            return None if raw is None else Segmentation.validate(key, raw)

        return cls(
            pre, segmentation("segmentation"), parent_mode, segmentation("subchunk_segmentation")
        )


@functools.cache
def _pydantic_rule() -> Any:
    """Upstream's ``core/rag/entities/processing_entities.py`` models, or None."""
    try:
        from typing import Literal

        from pydantic import AliasChoices, BaseModel, Field
    except ImportError:
        return None

    class PreProcessingRule(BaseModel):
        id: str
        enabled: bool

    class Segmentation(BaseModel):
        separator: str = Field(
            default="\n", validation_alias=AliasChoices("separator", "delimiter")
        )
        max_tokens: int
        chunk_overlap: int = 0

    class Rule(BaseModel):
        pre_processing_rules: list[PreProcessingRule] | None = None
        segmentation: Segmentation | None = None
        parent_mode: Literal["full-doc", "paragraph"] | None = None
        subchunk_segmentation: Segmentation | None = None

    return Rule


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


def _rules(process_rule: Any) -> Any:
    if not process_rule:
        raise ValueError("No process rule found.")
    if process_rule.get("mode") == "automatic":
        return Rule.validate(AUTOMATIC_RULES)
    if not process_rule.get("rules"):
        raise ValueError("No rules found in process rule.")
    return Rule.validate(process_rule["rules"])


SplitterFactory = Callable[[Any, Any, Any, Any], TextSplitter]


def _text_hash(text: str) -> str:
    """Dify's ``helper.generate_text_hash``."""
    return hashlib.sha256((str(text) + "None").encode()).hexdigest()


def _drop_leading_dot(text: str) -> str:
    """§8.4: a chunk opening with "." or "。" loses that one character and is stripped."""
    if text.startswith((".", "。")):
        return text[1:].strip()
    return text


class _IndexProcessor:
    """What both processors build on: the splitter factory and the cleaner (the compat face
    swaps in native ones)."""

    _splitter: SplitterFactory = staticmethod(get_splitter)
    _cleaner: Any = CleanProcessor

    def _split(self, mode: Any, seg: Any) -> TextSplitter:
        """upstream ``_get_splitter`` for one segmentation rule."""
        return self._splitter(mode, seg.max_tokens, seg.chunk_overlap, seg.separator)


class ParagraphIndexProcessor(_IndexProcessor):
    """§8.2 Dify's ``ParagraphIndexProcessor.transform``, on any document objects.

    A document is anything with ``page_content`` and ``metadata``; chunks come back as the
    caller's own document type, built with ``type(doc)(page_content=..., metadata=...)``.
    As upstream, each input document's ``page_content`` is replaced by its cleaned text,
    and each chunk's metadata gets a random ``doc_id`` and the ``doc_hash`` of its text.
    ``current_user``, ``session`` and ``embedding_model_instance`` are accepted and unused:
    upstream reads them only to look up image attachments in its database, and its
    splitters measure characters whatever model is given.
    """

    def transform(
        self,
        documents: list[Any],
        current_user: Any = None,
        *,
        session: Any = None,
        **kwargs: Any,
    ) -> list[Any]:
        process_rule: Any = kwargs.get("process_rule")
        rules = _rules(process_rule)
        if not rules.segmentation:
            raise ValueError("No segmentation found in rules.")
        split = self._split(process_rule.get("mode"), rules.segmentation)
        out = []
        for document in documents:
            document.page_content = self._cleaner.clean(
                document.page_content, kwargs.get("process_rule", {})
            )
            for node in _split_nodes(split, document):
                if not node.page_content.strip():
                    continue
                if node.metadata is not None:
                    node.metadata["doc_id"] = str(uuid.uuid4())
                    node.metadata["doc_hash"] = _text_hash(node.page_content)
                content = remove_leading_symbols(node.page_content).strip()
                if content:
                    node.page_content = content
                    out.append(node)
        return out


class ParentChildIndexProcessor(_IndexProcessor):
    """§8.4 Dify's ``ParentChildIndexProcessor.transform``, on any document objects.

    Parents are the caller's document type; their ``children`` are :class:`ChildDocument`
    objects (Dify's fields), each with a copy of its parent's metadata plus its own
    ``doc_id`` and ``doc_hash``. The same arguments are unused as in
    :class:`ParagraphIndexProcessor`.
    """

    def transform(
        self,
        documents: list[Any],
        current_user: Any = None,
        *,
        session: Any = None,
        **kwargs: Any,
    ) -> list[Any]:
        process_rule: Any = kwargs.get("process_rule")
        if not process_rule:
            raise ValueError("No process rule found.")
        if not process_rule.get("rules"):
            raise ValueError("No rules found in process rule.")
        rules = Rule.validate(process_rule["rules"])
        mode = process_rule.get("mode")
        preview = kwargs.get("preview")
        out: list[Any] = []
        if rules.parent_mode == "paragraph":
            if not rules.segmentation:
                raise ValueError("No segmentation found in rules.")
            split = self._split(mode, rules.segmentation)
            for document in documents:
                if preview and len(out) >= 10:
                    return out
                document.page_content = self._cleaner.clean(document.page_content, process_rule)
                for node in _split_nodes(split, document):
                    if not node.page_content.strip():
                        continue
                    node.metadata["doc_id"] = str(uuid.uuid4())
                    node.metadata["doc_hash"] = _text_hash(node.page_content)
                    content = _drop_leading_dot(node.page_content)
                    if content:
                        node.page_content = content
                        out.append(_with_children(node, self._children(node, rules, mode)))
        elif rules.parent_mode == "full-doc":
            first = documents[0]
            content = "\n".join(d.page_content for d in documents)
            parent = type(first)(page_content=content, metadata=dict(first.metadata))
            children = self._children(parent, rules, mode)
            if preview:
                children = children[:CHILD_CHUNKS_PREVIEW_NUMBER]
            parent = _with_children(parent, children)
            parent.metadata["doc_id"] = str(uuid.uuid4())
            parent.metadata["doc_hash"] = _text_hash(parent.page_content)
            out.append(parent)
        return out

    def _children(self, parent: Any, rules: Any, mode: Any) -> list[ChildDocument]:
        """§8.5 ``_split_child_nodes``."""
        sub = rules.subchunk_segmentation
        if not sub:
            raise ValueError("No subchunk segmentation found in rules.")
        split = self._split(mode, sub)
        children = []
        for node in _split_nodes(split, parent):
            if not node.page_content.strip():
                continue
            child = ChildDocument(page_content=node.page_content, metadata=dict(parent.metadata))
            child.metadata["doc_id"] = str(uuid.uuid4())
            child.metadata["doc_hash"] = _text_hash(child.page_content)
            content = _drop_leading_dot(child.page_content)
            if content:
                child.page_content = content
                children.append(child)
        return children


def _with_children(doc: Any, children: list[ChildDocument]) -> Any:
    """``doc`` with its ``children`` set; a type that cannot hold them (LangChain's
    ``Document`` refuses unknown fields) becomes this module's :class:`Document`."""
    try:
        doc.children = children
    except (AttributeError, TypeError, ValueError):
        return Document(page_content=doc.page_content, metadata=doc.metadata, children=children)
    return doc


def _split_nodes(split: TextSplitter, document: Any) -> list[Any]:
    """Upstream ``split_documents([document])``, as the caller's document type."""
    make = type(document)
    metadata = document.metadata or {}
    return [
        make(page_content=chunk, metadata=copy.deepcopy(metadata))
        for chunk in split.split_text(document.page_content)
    ]


def paragraph_transform(
    texts: list[str],
    process_rule: Any,
    preview: bool = False,
    *,
    splitter: SplitterFactory = get_splitter,
    cleaner: Any = CleanProcessor,
) -> list[str]:
    """§8.2 over plain texts: the chunk texts of :class:`ParagraphIndexProcessor`."""
    processor = ParagraphIndexProcessor()
    processor._splitter = splitter
    processor._cleaner = cleaner
    docs = [Document(page_content=t) for t in texts]
    return [d.page_content for d in processor.transform(docs, process_rule=process_rule)]


def parent_child_transform(
    texts: list[str],
    process_rule: Any,
    preview: bool = False,
    *,
    splitter: SplitterFactory = get_splitter,
    cleaner: Any = CleanProcessor,
) -> list[dict[str, Any]]:
    """§8.4 over plain texts: each parent's text with its children's texts."""
    processor = ParentChildIndexProcessor()
    processor._splitter = splitter
    processor._cleaner = cleaner
    docs = [Document(page_content=t) for t in texts]
    parents = processor.transform(docs, process_rule=process_rule, preview=preview)
    return [
        {"content": p.page_content, "children": [c.page_content for c in p.children]}
        for p in parents
    ]
