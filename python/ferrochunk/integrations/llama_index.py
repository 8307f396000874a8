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
from dataclasses import replace
from typing import Any

from .._caps import lowered
from .._support.optional import require
from .._support.validate import describe
from ..config import Code, Config, Markdown, ParentChild, Recursive
from ..errors import ConfigTypeError
from ..pipeline import _tokenizer, chunk_many
from ..tokenizers import Tokenizer
from ..types import Chunk
from . import require_config, scope_path

_core = require("llama_index.core", "llama-index")
_interface = require("llama_index.core.node_parser.interface", "llama-index")
_schema = require("llama_index.core.schema", "llama-index")
_pydantic = require("pydantic", "llama-index")

__all__ = ["FerroNodeParser"]

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
        return nodes
