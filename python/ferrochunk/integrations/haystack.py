"""``FerroDocumentSplitter``: any ferrochunk config as a Haystack component.

>>> import ferrochunk as fc
>>> from haystack import Document
>>> from ferrochunk.integrations.haystack import FerroDocumentSplitter
>>> splitter = FerroDocumentSplitter(config=fc.Recursive(5))
>>> docs = splitter.run([Document(content="One sentence here. Another one.")])["documents"]
>>> [(d.content, d.meta["split_id"], d.meta["split_idx_start"]) for d in docs]
[('One sentence here. ', 0, 0), ('Another one.', 1, 19)]
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping, Sequence
from copy import deepcopy
from typing import Any

from .._support.optional import require
from .._support.validate import describe
from ..config import Code, Config, DelimiterMerge, Markdown, ParentChild, Recursive
from ..errors import ConfigError, ConfigTypeError, InputTypeError, UnknownTokenizerError
from ..ids import text_record_ids
from ..pipeline import _threads, chunk_many
from ..rules import config_from_mapping, config_to_mapping
from ..tokenizers import Tokenizer
from ..types import Chunk
from . import budget, require_config, scope_path

_haystack = require("haystack", "haystack")
Document = _haystack.Document

__all__ = ["FerroDocumentSplitter", "FerroSkipStored"]


def _page_breaks(text: str) -> list[int]:
    """Where the form feeds are, in order."""
    at, found = text.find("\f"), []
    while at >= 0:
        found.append(at)
        at = text.find("\f", at + 1)
    return found


def _page(breaks: list[int], c: Chunk) -> int:
    """Haystack's ``page_number``: the page of the chunk's first character that is not a
    form feed (the page it starts on when it is all form feeds), counting from 1."""
    lead = len(c.text) - len(c.text.lstrip("\f"))
    first = c.char_start + (lead if lead < len(c.text) else 0)
    return 1 + bisect_right(breaks, first - 1)


def _link_overlaps(docs: list[Any], chunks: Sequence[Chunk], leads: Sequence[int]) -> None:
    """``_split_overlap`` as ``DocumentSplitter`` writes it, from the exact offsets of two
    neighbouring chunks that are slices of their source; ``leads[i]`` is how far into
    document ``i``'s content its chunk's text starts (past a heading context)."""
    for doc in docs:
        doc.meta["_split_overlap"] = []
    for i in range(1, len(chunks)):
        prev, cur = chunks[i - 1], chunks[i]
        if cur.char_start < prev.char_end:
            end = min(prev.char_end, cur.char_end)
            at, into = leads[i - 1] - prev.char_start, leads[i] - cur.char_start
            docs[i].meta["_split_overlap"].append(
                {"doc_id": docs[i - 1].id, "range": (cur.char_start + at, end + at)}
            )
            docs[i - 1].meta["_split_overlap"].append(
                {"doc_id": docs[i].id, "range": (cur.char_start + into, end + into)}
            )


def _doc_id(doc: Any, key: str, owner: str) -> str:
    """The stable id of a source document: its ``meta[key]``."""
    value = doc.meta.get(key)
    if not isinstance(value, str):
        raise InputTypeError(
            f"{owner}.doc_id_key needs each document's meta[{key!r}] as a str, "
            f"got {describe(value)} in document {doc.id}"
        )
    return value


def _tokenizer_name(tokenizer: Any) -> str | None:
    if tokenizer is None or isinstance(tokenizer, str):
        return tokenizer
    if isinstance(tokenizer, Tokenizer) and tokenizer.engine == "embedded":
        return tokenizer.native_encoding
    raise ConfigError(
        "FerroDocumentSplitter.to_dict needs the tokenizer as a name ('cl100k', 'o200k') or a "
        f"tokenizer.json path, got {describe(tokenizer)}"
    )


def _resolve_tokenizer(value: Any) -> Tokenizer | None:
    if value is None or isinstance(value, Tokenizer):
        return value
    if isinstance(value, str):
        try:
            return Tokenizer.from_name(value)
        except UnknownTokenizerError:
            return Tokenizer.from_file(value)
    raise ConfigTypeError(
        "FerroDocumentSplitter.tokenizer must be a Tokenizer, a name, a tokenizer.json path or "
        f"None, got {describe(value)}"
    )


@_haystack.component
class FerroDocumentSplitter:
    """A Haystack ``DocumentSplitter`` that cuts with a ferrochunk config.

    ``config`` is any native config (default ``Recursive(512)``) or its mapping
    (:func:`ferrochunk.config_to_mapping`); ``tokenizer`` a ferrochunk tokenizer, a name
    (``"cl100k"``, ``"o200k"``) or a ``tokenizer.json`` path (default: cl100k).

    Each output ``Document`` has its source's metadata and what ``DocumentSplitter``
    writes: ``source_id``, ``split_id``, ``split_idx_start`` (exact, from the core),
    ``page_number`` (counted by form feeds, 1 without them), and ``_split_overlap`` when the
    config overlaps. With ``token_counts=True`` each also gets ``token_count`` (off by
    default: a Document's id hashes its metadata, and without it a ``TokenWindows`` split
    gives the very Documents, ids included, that ``DocumentSplitter(split_by="token")``
    gives). ``DelimiterMerge`` chunks are delimiter spans
    joined, not slices of the source: they get ``spans`` (a ``[start, end]`` pair per span)
    and no ``_split_overlap``. With :class:`~ferrochunk.Markdown`, ``header`` and
    ``parent_headers`` name the section as Haystack's ``MarkdownHeaderSplitter`` does, and
    ``context_in_content=True`` puts the chunk's heading context in front of its text in
    ``content`` (what an embedder then sees, within the cap; ``split_idx_start`` still
    points at the chunk's own text in the source).
    ``doc_id_key`` names the meta key that holds each source's stable id (``"file_path"``,
    as Haystack's converters write it; a Document's own id hashes its content, so it
    changes with every edit). With it each split's id is its record id
    (:func:`ferrochunk.ids.text_record_ids` over its ``content``): a split that survives an
    edit keeps its id, and :class:`FerroSkipStored` then keeps it out of the embedder.
    ``ParentChild`` gives each parent (``__level`` 1) followed by its children
    (``__level`` 2), linked by ``__parent_id`` / ``__children_ids`` with ``__block_size``,
    as ``HierarchicalDocumentSplitter`` names them for ``AutoMergingRetriever``. Empty
    documents give no splits; a document without text raises ``InputTypeError``.
    """

    def __init__(
        self,
        config: Config | Mapping[str, Any] | None = None,
        tokenizer: Tokenizer | str | None = None,
        threads: int | None = 1,
        token_counts: bool = False,
        context_in_content: bool = False,
        doc_id_key: str | None = None,
    ) -> None:
        if config is None:
            config = Recursive(512)
        elif isinstance(config, Mapping):
            config = config_from_mapping(config)[0]
        self.config = require_config("FerroDocumentSplitter.config", config)
        self.tokenizer = tokenizer
        self._tokenizer = _resolve_tokenizer(tokenizer)
        self.threads = _threads(threads)
        if not isinstance(token_counts, bool):
            raise ConfigTypeError(
                f"FerroDocumentSplitter.token_counts must be a bool, got {describe(token_counts)}"
            )
        self.token_counts = token_counts
        if not isinstance(context_in_content, bool):
            raise ConfigTypeError(
                "FerroDocumentSplitter.context_in_content must be a bool, got "
                f"{describe(context_in_content)}"
            )
        if context_in_content and not isinstance(self.config, Markdown | Code):
            raise ConfigError(
                "FerroDocumentSplitter.context_in_content needs a Markdown or Code config, got "
                f"{type(self.config).__name__}"
            )
        self.context_in_content = context_in_content
        if doc_id_key is not None and not isinstance(doc_id_key, str):
            raise ConfigTypeError(
                "FerroDocumentSplitter.doc_id_key must be a meta key or None, got "
                f"{describe(doc_id_key)}"
            )
        if doc_id_key is not None and isinstance(self.config, ParentChild):
            raise ConfigError(
                "FerroDocumentSplitter.doc_id_key does not work with ParentChild yet: a parent "
                "and a child with the same text would share a record id"
            )
        self.doc_id_key = doc_id_key

    def to_dict(self) -> dict[str, Any]:
        """The component as Haystack serializes it (a YAML pipeline's entry)."""
        return _haystack.default_to_dict(  # type: ignore[no-any-return]
            self,
            config=config_to_mapping(self.config),
            tokenizer=_tokenizer_name(self.tokenizer),
            threads=self.threads,
            token_counts=self.token_counts,
            context_in_content=self.context_in_content,
            doc_id_key=self.doc_id_key,
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> FerroDocumentSplitter:
        """The component :meth:`to_dict` wrote."""
        return _haystack.default_from_dict(cls, data)  # type: ignore[no-any-return]

    def _documents(self, doc: Any, chunks: Sequence[Chunk], config: Config) -> list[Any]:
        """One Document per chunk of ``doc`` that ``config`` (the splitter's, or its
        children's) cut."""
        breaks = _page_breaks(doc.content)
        out, leads = [], []
        for i, c in enumerate(chunks):
            # DocumentSplitter's keys in its order: a Document's id hashes its metadata.
            meta = deepcopy(doc.meta)
            meta["source_id"] = doc.id
            meta["page_number"] = _page(breaks, c)
            meta["split_id"] = i
            meta["split_idx_start"] = c.char_start
            if self.token_counts:
                meta["token_count"] = c.token_count
            if isinstance(config, DelimiterMerge):
                meta["spans"] = [list(span) for span in c.metadata["spans"]]
            if isinstance(config, Markdown):
                titles = [title for _, title in c.metadata["headings"]]
                meta["header"] = titles[-1] if titles else ""
                meta["parent_headers"] = titles[:-1]
            if isinstance(config, Code):
                meta["scopes"] = [list(s) for s in c.metadata["scopes"]]
                meta["scope_path"] = scope_path(c.metadata["scopes"])
            context = c.metadata["context"] if self.context_in_content else ""
            leads.append(len(context))
            out.append(Document(content=context + c.text, meta=meta))
        if self.doc_id_key is not None:
            source = _doc_id(doc, self.doc_id_key, "FerroDocumentSplitter")
            ids = text_record_ids(source, [d.content for d in out])
            out = [
                Document(id=rid, content=d.content, meta=d.meta)
                for rid, d in zip(ids, out, strict=True)
            ]
        if budget(config)[1] > 0 and not isinstance(config, DelimiterMerge):
            _link_overlaps(out, chunks, leads)
        return out

    def _hierarchy(self, doc: Any, parents: Sequence[Chunk]) -> list[Any]:
        assert isinstance(self.config, ParentChild)
        blocks = budget(self.config)[0], budget(self.config.child)[0]
        # A full-document parent has no config of its own, and no overlap.
        parent = self.config.parent
        tops = self._documents(doc, parents, self.config if isinstance(parent, str) else parent)
        out = []
        for split_id, (top, chunk) in enumerate(zip(tops, parents, strict=True)):
            top.meta.update(__level=1, __parent_id=None, __block_size=blocks[0])
            kids = self._documents(doc, chunk.metadata["children"], self.config.child)
            for kid in kids:
                kid.meta.update(
                    __level=2, __parent_id=top.id, __children_ids=[], __block_size=blocks[1]
                )
                kid.meta["parent_split_id"] = split_id
            top.meta["__children_ids"] = [kid.id for kid in kids]
            out += [top, *kids]
        return out

    @_haystack.component.output_types(documents=list[Document])  # type: ignore[untyped-decorator,valid-type]
    def run(self, documents: list[Any]) -> dict[str, list[Any]]:
        """Split each document; returns ``{"documents": [...]}``."""
        if not isinstance(documents, list) or not all(isinstance(d, Document) for d in documents):
            raise InputTypeError(
                f"FerroDocumentSplitter expects a list of Documents, got {describe(documents)}"
            )
        for doc in documents:
            if doc.content is None:
                raise InputTypeError(
                    f"FerroDocumentSplitter only splits text: document {doc.id} has no content"
                )
        results = chunk_many(
            [d.content for d in documents],
            self.config,
            tokenizer=self._tokenizer,
            threads=self.threads,
        )
        out: list[Any] = []
        for doc, chunks in zip(documents, results, strict=True):
            if isinstance(self.config, ParentChild):
                out += self._hierarchy(doc, chunks)
            else:
                out += self._documents(doc, chunks, self.config)
        return {"documents": out}


@_haystack.component
class FerroSkipStored:
    """Put it between a ``FerroDocumentSplitter(doc_id_key=...)`` and the embedder: it
    passes on only the splits whose id the store lacks, and deletes the stored splits of
    the same sources that are gone, so after an edit the embedder sees only new text.

    It finds a source's stored splits by ``meta[doc_id_key]``, with a filter every
    Haystack store takes. Stale splits are deleted before the new ones are written: a run
    that fails in between leaves the store short of them until it is run again, and the
    re-run writes them (use ``DocumentWriter(policy=DuplicatePolicy.OVERWRITE)``). A kept
    split is not written again, so its ``split_idx_start`` and ``split_id`` in the store
    are those of the run that first wrote it. Only the sources given are touched; delete a
    removed source's splits (or one edited down to no text) with ``filter_documents``
    and ``delete_documents``.

    >>> import ferrochunk as fc
    >>> from haystack import Document
    >>> from haystack.document_stores.in_memory import InMemoryDocumentStore
    >>> store = InMemoryDocumentStore()
    >>> split = FerroDocumentSplitter(fc.Recursive(5), doc_id_key="file_path")
    >>> docs = split.run([Document(content="One sentence here. Another one.",
    ...                            meta={"file_path": "a.md"})])["documents"]
    >>> store.write_documents(docs[:1])
    1
    >>> [d.content for d in FerroSkipStored(store).run(docs)["documents"]]
    ['Another one.']
    """

    def __init__(self, document_store: Any, doc_id_key: str = "file_path") -> None:
        if not isinstance(doc_id_key, str):
            raise ConfigTypeError(
                f"FerroSkipStored.doc_id_key must be a meta key, got {describe(doc_id_key)}"
            )
        for method in ("filter_documents", "delete_documents"):
            if not callable(getattr(document_store, method, None)):
                raise ConfigTypeError(
                    f"FerroSkipStored.document_store must be a Haystack DocumentStore, got "
                    f"{describe(document_store)}"
                )
        self.document_store = document_store
        self.doc_id_key = doc_id_key

    def to_dict(self) -> dict[str, Any]:
        """The component as Haystack serializes it."""
        return _haystack.default_to_dict(  # type: ignore[no-any-return]
            self, document_store=self.document_store, doc_id_key=self.doc_id_key
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> FerroSkipStored:
        """The component :meth:`to_dict` wrote."""
        return _haystack.default_from_dict(cls, data)  # type: ignore[no-any-return]

    @_haystack.component.output_types(documents=list[Document], deleted=int)  # type: ignore[untyped-decorator,valid-type]
    def run(self, documents: list[Any]) -> dict[str, Any]:
        """``{"documents": the splits to embed, "deleted": how many stale splits went}``."""
        if not isinstance(documents, list) or not all(isinstance(d, Document) for d in documents):
            raise InputTypeError(
                f"FerroSkipStored expects a list of Documents, got {describe(documents)}"
            )
        sources = sorted({_doc_id(d, self.doc_id_key, "FerroSkipStored") for d in documents})
        if not sources:
            return {"documents": [], "deleted": 0}
        field = f"meta.{self.doc_id_key}"
        stored = self.document_store.filter_documents(
            filters={"field": field, "operator": "in", "value": sources}
        )
        held = {d.id for d in stored}
        current = {d.id for d in documents}
        stale = sorted(held - current)
        if stale:
            self.document_store.delete_documents(stale)
        return {"documents": [d for d in documents if d.id not in held], "deleted": len(stale)}
