"""``FerroNodeParser``: any ferrochunk config as a LlamaIndex ``NodeParser``.

>>> import ferrochunk as fc
>>> from llama_index.core import Document
>>> from ferrochunk.integrations.llama_index import FerroNodeParser
>>> parser = FerroNodeParser(config=fc.Recursive(5))
>>> nodes = parser.get_nodes_from_documents([Document(text="One sentence here. Another one.")])
>>> [(n.text, n.start_char_idx, n.end_char_idx, n.metadata["token_count"]) for n in nodes]
[('One sentence here. ', 0, 19, 5), ('Another one.', 19, 31, 3)]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from .._caps import lowered
from .._support.optional import require
from .._support.validate import describe
from ..config import Code, Config, Markdown, ParentChild, Recursive
from ..errors import ConfigError, ConfigTypeError, InputTypeError
from ..ids import text_record_ids
from ..pipeline import _tokenizer, chunk_many
from ..tokenizers import Tokenizer
from ..types import Chunk
from . import require_config, scope_path

_core = require("llama_index.core", "llama-index")
_interface = require("llama_index.core.node_parser.interface", "llama-index")
_schema = require("llama_index.core.schema", "llama-index")
_pydantic = require("pydantic", "llama-index")

__all__ = ["FerroNodeParser", "Refreshed", "refresh"]

TOKEN_COUNT = "token_count"
HEADER_PATH = "header_path"
CONTEXT = "context"
SCOPE_PATH = "scope_path"


def _opens_with(text: str, level: int, title: str) -> bool:
    """Whether ``text`` starts with the heading ``(level, title)``: an ATX line of that
    level starting with the title (which may be cut to 1 000 characters), or a first line
    that is the setext title's first line. Chunks open with a heading only at its start,
    so the text decides."""
    first = text.lstrip(" ").split("\n", 1)[0].rstrip("\r")
    if first.startswith("#" * level + " ") or first == "#" * level:
        return first[level:].strip(" \t").startswith(title)
    return bool(title) and first.strip(" \t") == title.split("\n", 1)[0]


def _header_path(c: Chunk) -> str:
    """``MarkdownNodeParser``'s ``"/h1/h2/"``, less the heading the chunk opens with."""
    headings = c.metadata["headings"]
    if headings and _opens_with(c.text, *headings[-1]):
        headings = headings[:-1]
    return "/" + "".join(title + "/" for _, title in headings)


class FerroNodeParser(_interface.NodeParser):  # type: ignore[misc,name-defined]
    """A LlamaIndex ``NodeParser`` that cuts with a ferrochunk config.

    >>> import ferrochunk as fc
    >>> from llama_index.core import Document
    >>> parser = FerroNodeParser(config=fc.TokenWindows(3))
    >>> [n.text for n in parser.get_nodes_from_documents([Document(text="One two three four.")])]
    ['One two three', ' four.']

    ``config`` is any native config (default ``Recursive(512)``), ``tokenizer`` any
    ferrochunk tokenizer or name (default: the embedded cl100k). Each ``TextNode`` has
    exact ``start_char_idx`` / ``end_char_idx`` in its source (LlamaIndex's own
    post-processing searches for the text, which can land on an earlier repeat), a
    ``SOURCE`` relationship and ``PREVIOUS`` / ``NEXT`` links, the source's metadata, and
    ``metadata["token_count"]``, which is kept out of the embedding and LLM text. A
    ``ParentChild`` config gives its parents.

    With a :class:`~ferrochunk.Markdown` config a node's ``metadata["header_path"]`` is its
    section path as ``MarkdownNodeParser`` writes it (``"/Guide/Install/"``, or ``"/"``),
    leaving out the heading the node's text opens with; ``metadata["context"]`` holds the
    chunk's heading context; both keys are kept out of the embedding and LLM text. With
    :class:`~ferrochunk.Code`, ``metadata["scope_path"]`` (``"Parser.feed"``) and
    ``metadata["context"]`` (the scopes' headers), kept out of both the same way.

    **The cap holds for what LlamaIndex embeds.** With ``include_metadata`` (the default),
    LlamaIndex copies a document's metadata into each node and embeds it with the text
    (``node.get_content(MetadataMode.EMBED)``). Each document's text is therefore cut to
    the cap less the tokens of that metadata in the node's templates, the overlap clamped
    below what is left, so the embedded content fits the cap. When the metadata leaves no
    room, a ``ConfigError`` says so. ``SentenceSplitter`` does the same, by a looser count.

    **Record ids.** With ``record_ids=True`` each node's ``id_`` is its record id
    (:func:`ferrochunk.ids.text_record_ids`): its document's id, the content LlamaIndex
    embeds for it (``get_content(MetadataMode.EMBED)``: metadata and text) and its
    occurrence in the document. A node that survives an edit keeps its id, a node whose
    embedded content changed gets a new one, and :func:`refresh` then embeds only those.
    """

    config: Any = _pydantic.Field(
        default_factory=lambda: Recursive(512), description="The ferrochunk config."
    )
    tokenizer: Any = _pydantic.Field(
        default=None, description="A ferrochunk Tokenizer, 'cl100k', 'o200k' or None."
    )
    threads: int | None = _pydantic.Field(
        default=1, description="Threads for a batch of documents (None: every core)."
    )
    record_ids: bool = _pydantic.Field(
        default=False,
        description="Give each node its record id (document id, embedded content, occurrence).",
    )

    @_pydantic.field_validator("config")  # type: ignore[untyped-decorator]
    @classmethod
    def _check_config(cls, value: Any) -> Config:
        return require_config("FerroNodeParser.config", value)

    @_pydantic.field_validator("tokenizer")  # type: ignore[untyped-decorator]
    @classmethod
    def _check_tokenizer(cls, value: Any) -> Any:
        if value is not None and not isinstance(value, Tokenizer | str):
            raise ConfigTypeError(
                "FerroNodeParser.tokenizer must be a Tokenizer, a name or None, got "
                f"{describe(value)}"
            )
        if isinstance(value, str):
            Tokenizer.from_name(value)
        return value

    @classmethod
    def class_name(cls) -> str:
        return "FerroNodeParser"

    @classmethod
    def from_config(cls, config: Config, **kwargs: Any) -> FerroNodeParser:
        """``FerroNodeParser(config=config, **kwargs)``."""
        return cls(config=config, **kwargs)

    def _room(self, node: Any, tok: Tokenizer, excluded: list[str]) -> int:
        """The tokens a child of ``node`` embeds besides its text: the metadata LlamaIndex
        copies into it (less the excluded keys), in the node's templates and separators."""
        if not self.include_metadata:
            return 0
        probe = _schema.TextNode(
            text="",
            metadata=dict(node.metadata),
            excluded_embed_metadata_keys=[*node.excluded_embed_metadata_keys, *excluded],
            metadata_seperator=node.metadata_separator,
            metadata_template=node.metadata_template,
        )
        shown = probe.get_metadata_str(_schema.MetadataMode.EMBED)
        if not shown:
            return 0
        # The template unstripped: its separators stand between the metadata and the text.
        return tok.count(node.text_template.format(metadata_str=shown, content=""))

    def _budgeted(self, room: int) -> Config:
        """The config with ``room`` tokens taken off the cap of what becomes a node (a
        ``ParentChild``'s parents: its children are not nodes), the overlap clamped."""
        what = f"the {room} tokens of metadata LlamaIndex embeds with each node"
        fix = "leave keys out with excluded_embed_metadata_keys, or raise the cap"
        config: Config = self.config
        if isinstance(config, ParentChild):
            if isinstance(config.parent, str):
                return config  # a whole-document parent has no cap
            return replace(config, parent=lowered(config.parent, room, what, fix, clamp=True))
        return lowered(config, room, what, fix, clamp=True)

    def _parse_nodes(
        self, nodes: Sequence[Any], show_progress: bool = False, **kwargs: Any
    ) -> list[Any]:
        tok = _tokenizer(self.config, self.tokenizer)
        structured = isinstance(self.config, Markdown)
        code = isinstance(self.config, Code)
        excluded = [TOKEN_COUNT]
        excluded += [HEADER_PATH, CONTEXT] if structured else [SCOPE_PATH, CONTEXT] if code else []
        # Each node's text gets the cap less what its metadata embeds; nodes whose
        # metadata takes the same room are cut in one batch.
        rooms: dict[int, list[int]] = {}
        for i, node in enumerate(nodes):
            rooms.setdefault(self._room(node, tok, excluded), []).append(i)
        results: list[Any] = [None] * len(nodes)
        for room, which in rooms.items():
            config = self._budgeted(room)
            texts = [nodes[i].get_content() for i in which]
            cut = chunk_many(texts, config, tokenizer=tok, threads=self.threads)
            for i, chunks in zip(which, cut, strict=True):
                results[i] = chunks
        out: list[Any] = []
        for node, chunks in zip(nodes, results, strict=True):
            base = node.start_char_idx if isinstance(node, _schema.TextNode) else None
            shift = base or 0
            source = {_schema.NodeRelationship.SOURCE: node.as_related_node_info()}
            for i, c in enumerate(chunks):
                metadata: dict[str, Any] = {TOKEN_COUNT: c.token_count}
                if structured:
                    metadata[HEADER_PATH] = _header_path(c)
                    metadata[CONTEXT] = c.metadata["context"]
                elif code:
                    metadata[SCOPE_PATH] = scope_path(c.metadata["scopes"])
                    metadata[CONTEXT] = c.metadata["context"]
                child = _schema.TextNode(
                    id_=self.id_func(i, node),
                    text=c.text,
                    start_char_idx=shift + c.char_start,
                    end_char_idx=shift + c.char_end,
                    metadata=metadata,
                    excluded_embed_metadata_keys=[*node.excluded_embed_metadata_keys, *excluded],
                    excluded_llm_metadata_keys=[*node.excluded_llm_metadata_keys, *excluded],
                    metadata_seperator=node.metadata_separator,
                    metadata_template=node.metadata_template,
                    text_template=node.text_template,
                    relationships=dict(source),
                )
                out.append(child)
        return out

    def _postprocess_parsed_nodes(
        self, nodes: list[Any], parent_doc_map: dict[str, Any]
    ) -> list[Any]:
        # The base class re-finds each node's text in its document to set the offsets;
        # ours are exact already, so keep them.
        spans = [(n.start_char_idx, n.end_char_idx) for n in nodes]
        nodes = super()._postprocess_parsed_nodes(nodes, parent_doc_map)
        for n, (start, end) in zip(nodes, spans, strict=True):
            n.start_char_idx, n.end_char_idx = start, end
        if self.record_ids:
            _name_by_record(nodes)
        return nodes


def _name_by_record(nodes: list[Any]) -> None:
    """Give each node its record id: its document's id, what LlamaIndex embeds for it
    (metadata and text, so a metadata change re-embeds too) and its occurrence, then
    relink ``PREVIOUS`` / ``NEXT`` to the new ids."""
    embed = _schema.MetadataMode.EMBED
    by_doc: dict[str, list[Any]] = {}
    for n in nodes:
        by_doc.setdefault(n.ref_doc_id or "", []).append(n)
    for doc_id, group in by_doc.items():
        ids = text_record_ids(doc_id, [n.get_content(metadata_mode=embed) for n in group])
        for n, rid in zip(group, ids, strict=True):
            n.id_ = rid
    links = (_schema.NodeRelationship.PREVIOUS, _schema.NodeRelationship.NEXT)
    for i, n in enumerate(nodes):
        for link, j in zip(links, (i - 1, i + 1), strict=True):
            if link in n.relationships:
                n.relationships[link] = nodes[j].as_related_node_info()


@dataclass(frozen=True)
class Refreshed:
    """What :func:`refresh` did: nodes embedded and inserted, deleted, and kept (not
    embedded again; their offsets and links updated in the docstore).

    >>> Refreshed(added=1, deleted=1, kept=11).added
    1
    """

    added: int
    deleted: int
    kept: int


def refresh(index: Any, documents: Sequence[Any], parser: FerroNodeParser) -> Refreshed:
    """Bring a ``VectorStoreIndex`` up to date with ``documents``, embedding only the nodes
    whose record id is new.

    LlamaIndex's ``refresh_ref_docs`` and ``IngestionPipeline`` re-embed every node of a
    document that changed. Here each document is cut by ``parser`` (``record_ids=True``),
    nodes whose id the index already holds for that document are kept, the new ones are
    inserted (the only ones embedded), and the document's nodes that are gone are deleted.
    Inserting before deleting makes a run that fails midway safe to repeat. Only the
    documents given are touched; ``index.delete_ref_doc(doc_id, delete_from_docstore=True)``
    removes one. Document ids must be stable across runs (``SimpleDirectoryReader(...,
    filename_as_id=True)``, or ``Document(id_=...)``), and the index must keep its nodes
    in its docstore: the default store does; a store that holds text needs
    ``VectorStoreIndex(..., store_nodes_override=True)``.

    >>> import ferrochunk as fc
    >>> from llama_index.core import Document, VectorStoreIndex
    >>> from llama_index.core.embeddings import MockEmbedding
    >>> parser = FerroNodeParser(config=fc.Recursive(5), record_ids=True)
    >>> index = VectorStoreIndex([], embed_model=MockEmbedding(embed_dim=4))
    >>> refresh(index, [Document(id_="a.md", text="One sentence here. Another one.")], parser)
    Refreshed(added=2, deleted=0, kept=0)
    >>> refresh(index, [Document(id_="a.md", text="One sentence here. Another two.")], parser)
    Refreshed(added=1, deleted=1, kept=1)
    """
    if not isinstance(parser, FerroNodeParser) or not parser.record_ids:
        raise ConfigError(
            f"refresh needs a FerroNodeParser(record_ids=True), got {describe(parser)}"
        )
    store = getattr(index, "_vector_store", None)
    if store is None or (store.stores_text and not index._store_nodes_override):
        raise ConfigError(
            "refresh needs a VectorStoreIndex that keeps its nodes in its docstore: build it "
            "with store_nodes_override=True when its vector store holds text"
        )
    seen: set[str] = set()
    for doc in documents:
        if doc.id_ in seen:
            raise InputTypeError(f"refresh got the document id {doc.id_!r} twice")
        seen.add(doc.id_)
    nodes = parser.get_nodes_from_documents(list(documents))
    held: set[str] = set()
    for doc_id in seen:
        info = index.docstore.get_ref_doc_info(doc_id)
        held.update(info.node_ids if info is not None else ())
    fresh = [n for n in nodes if n.id_ not in held]
    kept = [n for n in nodes if n.id_ in held]
    index.insert_nodes(fresh)
    index.docstore.add_documents(kept, allow_update=True)
    gone = sorted(held - {n.id_ for n in nodes})
    if gone:
        index.delete_nodes(gone, delete_from_docstore=True)
    return Refreshed(added=len(fresh), deleted=len(gone), kept=len(kept))
