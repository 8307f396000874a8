"""§4-§6 the splitters: ``TextSplitter``, the recursive splitters and the fixed one."""

from __future__ import annotations

import codecs
import copy
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

LengthFunction = Callable[[list[str]], list[int]]
"""Upstream's batch protocol: texts -> their lengths."""


def _characters(texts: list[str]) -> list[int]:
    return [len(t) for t in texts]


@dataclass
class ChildDocument:
    """Dify's ``ChildDocument`` (``core/rag/models/document.py``), its fields as a dataclass."""

    page_content: str
    vector: list[float] | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass
class Document:
    """Dify's ``Document``, its fields as a dataclass (pydantic is not needed to use it)."""

    page_content: str
    vector: list[float] | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    provider: str | None = "dify"
    children: list[ChildDocument] | None = None
    attachments: list[Any] | None = None


def _split_text_with_regex(text: str, separator: str, keep_separator: bool) -> list[str]:
    """§4.4: ``""`` -> characters; kept separators end the piece before them; without
    keeping, the separator is a regex. Pieces equal to ``""`` or ``"\\n"`` are dropped."""
    if separator:
        if keep_separator:
            parts = re.split(f"({re.escape(separator)})", text)
            splits = [parts[i - 1] + parts[i] for i in range(1, len(parts), 2)]
            if len(parts) % 2 == 1:
                splits += parts[-1:]
        else:
            splits = re.split(separator, text)
    else:
        splits = list(text)
    return [s for s in splits if s not in ("", "\n")]


class TextSplitter:
    """§4: the base splitter (``split_text`` is the subclasses')."""

    def __init__(
        self,
        chunk_size: int = 4000,
        chunk_overlap: int = 200,
        length_function: LengthFunction = _characters,
        keep_separator: bool = False,
        add_start_index: bool = False,
    ) -> None:
        if chunk_overlap > chunk_size:
            raise ValueError(
                f"Got a larger chunk overlap ({chunk_overlap}) than chunk size "
                f"({chunk_size}), should be smaller."
            )
        self._chunk_size = chunk_size
        self._chunk_overlap = chunk_overlap
        self._length_function = length_function
        self._keep_separator = keep_separator
        self._add_start_index = add_start_index

    def split_text(self, text: str) -> list[str]:
        raise NotImplementedError

    def create_documents(
        self, texts: list[str], metadatas: list[dict[str, Any]] | None = None
    ) -> list[Document]:
        """§4.3: one document per chunk; ``start_index`` by ``find`` from the previous one."""
        metas = metadatas or [{}] * len(texts)
        documents = []
        for i, text in enumerate(texts):
            index = -1
            for chunk in self.split_text(text):
                metadata = copy.deepcopy(metas[i])
                if self._add_start_index:
                    index = text.find(chunk, index + 1)
                    metadata["start_index"] = index
                documents.append(Document(page_content=chunk, metadata=metadata))
        return documents

    def split_documents(self, documents: Iterable[Document]) -> list[Document]:
        texts, metadatas = [], []
        for doc in documents:
            texts.append(doc.page_content)
            metadatas.append(doc.metadata or {})
        return self.create_documents(texts, metadatas=metadatas)

    def _join_docs(self, docs: list[str], separator: str) -> str | None:
        """§4.1."""
        text = separator.join(docs).strip()
        return None if text == "" else text

    def _merge_splits(self, splits: Iterable[str], separator: str, lengths: list[int]) -> list[str]:
        """§4.2: greedy packing with a sliding window of whole pieces as overlap."""
        size, overlap = self._chunk_size, self._chunk_overlap
        sep_len = self._length_function([separator])[0]
        docs: list[str] = []
        current: list[str] = []
        total = 0
        for d, n in zip(splits, lengths, strict=False):
            if total + n + (sep_len if current else 0) > size and current:
                doc = self._join_docs(current, separator)
                if doc is not None:
                    docs.append(doc)
                while total > overlap or (
                    total + n + (sep_len if current else 0) > size and total > 0
                ):
                    total -= self._length_function([current[0]])[0] + (
                        sep_len if len(current) > 1 else 0
                    )
                    current = current[1:]
            current.append(d)
            total += n + (sep_len if len(current) > 1 else 0)
        doc = self._join_docs(current, separator)
        if doc is not None:
            docs.append(doc)
        return docs


class RecursiveCharacterTextSplitter(TextSplitter):
    """§4.5: pick a separator by regex search, split, merge, recurse into long pieces."""

    def __init__(
        self,
        separators: list[str] | None = None,
        keep_separator: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(keep_separator=keep_separator, **kwargs)
        self._separators = separators or ["\n\n", "\n", " ", ""]

    def _split_text(self, text: str, separators: Sequence[str]) -> list[str]:
        separator = separators[-1]
        rest: Sequence[str] = []
        for i, s in enumerate(separators):
            if s == "":
                separator = s
                break
            if re.search(s, text):
                separator, rest = s, separators[i + 1 :]
                break
        splits = _split_text_with_regex(text, separator, self._keep_separator)
        joiner = "" if self._keep_separator else separator
        return self._pack(splits, self._length_function(splits), joiner, rest)

    def _pack(
        self, splits: list[str], lengths: list[int], joiner: str, rest: Sequence[str]
    ) -> list[str]:
        """Short pieces merge; a piece that does not fit recurses (or stays whole)."""
        final: list[str] = []
        good: list[str] = []
        good_lengths: list[int] = []
        for piece, n in zip(splits, lengths, strict=True):
            if n < self._chunk_size:
                good.append(piece)
                good_lengths.append(n)
                continue
            if good:
                final.extend(self._merge_splits(good, joiner, good_lengths))
                good, good_lengths = [], []
            if not rest:
                final.append(piece)
            else:
                final.extend(self._split_text(piece, rest))
        if good:
            final.extend(self._merge_splits(good, joiner, good_lengths))
        return final

    def split_text(self, text: str) -> list[str]:
        return self._split_text(text, self._separators)


class EnhanceRecursiveCharacterTextSplitter(RecursiveCharacterTextSplitter):
    """§5: the recursive splitter whose ``from_encoder`` always measures characters."""

    @classmethod
    def from_encoder(
        cls,
        embedding_model_instance: Any = None,
        allowed_special: Any = None,
        disallowed_special: Any = "all",
        **kwargs: Any,
    ) -> Any:
        # Upstream builds a token encoder and then discards it (§3).
        return cls(length_function=_characters, **kwargs)


class FixedRecursiveCharacterTextSplitter(EnhanceRecursiveCharacterTextSplitter):
    """§6: split on a fixed separator first; only over-long chunks are split further."""

    def __init__(
        self,
        fixed_separator: str = "\n\n",
        separators: list[str] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self._fixed_separator = codecs.decode(fixed_separator, "unicode_escape")
        self._separators = separators or ["\n\n", "\n", "。", ". ", " ", ""]

    def split_text(self, text: str) -> list[str]:
        """§6.2: chunks that fit are returned verbatim (empty ones too)."""
        chunks = text.split(self._fixed_separator) if self._fixed_separator else [text]
        final: list[str] = []
        for chunk, n in zip(chunks, self._length_function(chunks), strict=True):
            if n > self._chunk_size:
                final.extend(self.recursive_split_text(chunk))
            else:
                final.append(chunk)
        return final

    def recursive_split_text(self, text: str) -> list[str]:
        """§6.3: literal separator choice; space runs collapse; own character packer."""
        separator = self._separators[-1]
        rest: list[str] = []
        for i, s in enumerate(self._separators):
            if s == "":
                separator = s
                break
            if s in text:
                separator, rest = s, self._separators[i + 1 :]
                break
        if separator:
            splits = re.split(r" +", text) if separator == " " else text.split(separator)
            if self._keep_separator:
                splits = [s + separator for s in splits[:-1]] + splits[-1:]
        else:
            splits = list(text)
        if separator == "\n":
            splits = [s for s in splits if s != ""]
        else:
            splits = [s for s in splits if s not in ("", "\n")]
        lengths = self._length_function(splits)
        if separator == "":
            return self._pack_characters(splits, lengths)
        joiner = "" if self._keep_separator else separator
        return self._pack(splits, lengths, joiner, rest)

    def _pack_characters(self, chars: list[str], lengths: list[int]) -> list[str]:
        """§6.3 character packer: the overlap is what went in during the last units."""
        size, overlap = self._chunk_size, self._chunk_overlap
        out: list[str] = []
        cur, cur_len, ov, ov_len = "", 0, "", 0
        for ch, n in zip(chars, lengths, strict=True):
            if cur_len + n <= size - overlap:
                cur += ch
                cur_len += n
            elif cur_len + n <= size:
                cur += ch
                cur_len += n
                ov += ch
                ov_len += n
            else:
                out.append(cur)
                cur, cur_len = ov + ch, n + ov_len
                ov, ov_len = "", 0
        if cur:
            out.append(cur)
        return out
