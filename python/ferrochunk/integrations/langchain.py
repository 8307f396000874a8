"""``FerroTextSplitter``: any ferrochunk config as a LangChain ``TextSplitter``.

>>> import ferrochunk as fc
>>> from ferrochunk.integrations.langchain import FerroTextSplitter
>>> splitter = FerroTextSplitter(fc.Recursive(5), add_start_index=True)
>>> docs = splitter.create_documents(["One sentence here. Another one there."], [{"id": 1}])
>>> [(d.page_content, d.metadata["start_index"]) for d in docs]
[('One sentence here. ', 0), ('Another one there.', 19)]
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from .._support.optional import require
from .._support.validate import describe
from ..config import Code, Config, Markdown, Recursive
from ..errors import ConfigError, ConfigTypeError
from ..ids import chunk_id, record_id
from ..pipeline import _tokenizer, chunk, chunk_many
from ..tokenizers import Tokenizer
from ..types import Chunk
from . import budget, require_config, scope_path

_splitters = require("langchain_text_splitters", "langchain")
_documents = require("langchain_core.documents", "langchain")
Document = _documents.Document

__all__ = ["FerroTextSplitter", "RecordKey", "record_key"]

# The encodings ferrochunk embeds, by tiktoken name, and the models that use them.
_ENCODINGS = {"cl100k_base": "cl100k", "o200k_base": "o200k"}
_MODEL_PREFIXES = (
    ("gpt-4o", "o200k"),
    ("gpt-4.1", "o200k"),
    ("gpt-4.5", "o200k"),
    ("gpt-5", "o200k"),
    ("o1", "o200k"),
    ("o3", "o200k"),
    ("o4", "o200k"),
    ("gpt-4", "cl100k"),
    ("gpt-3.5", "cl100k"),
    ("text-embedding-3", "cl100k"),
    ("text-embedding-ada-002", "cl100k"),
)


def _flag(field: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ConfigTypeError(f"FerroTextSplitter.{field} must be a bool, got {describe(value)}")
    return value


def _embedded(encoding_name: str, model_name: str | None) -> str:
    """The embedded tokenizer for a tiktoken encoding or model name."""
    if model_name is not None:
        for prefix, name in _MODEL_PREFIXES:
            if model_name == prefix or model_name.startswith((prefix + "-", prefix + ".")):
                return name
        raise ConfigError(
            f"FerroTextSplitter model_name must be an OpenAI model using cl100k_base or "
            f"o200k_base, got {describe(model_name)}"
        )
    if encoding_name not in _ENCODINGS:
        raise ConfigError(
            f"FerroTextSplitter encoding_name must be one of {', '.join(_ENCODINGS)}, "
            f"got {describe(encoding_name)}"
        )
    return _ENCODINGS[encoding_name]


class FerroTextSplitter(_splitters.TextSplitter):  # type: ignore[misc,name-defined]
    r"""A LangChain ``TextSplitter`` that cuts with a ferrochunk config.

    >>> import ferrochunk as fc
    >>> FerroTextSplitter(fc.TokenWindows(3)).split_text("One two three four five.")
    ['One two three', ' four five.']

    ``config`` is any native config (default ``Recursive(512)``), ``tokenizer`` any
    ferrochunk tokenizer (default: the embedded cl100k). ``split_text``,
    ``create_documents``, ``split_documents`` and ``transform_documents`` work as in
    LangChain. With ``add_start_index=True`` each document's ``metadata["start_index"]``
    is the chunk's exact character offset in its source (LangChain's own splitters
    search for the text and can miss with overlap); ``add_token_count=True`` adds
    ``metadata["token_count"]``. A ``ParentChild`` config gives its parents; use
    :func:`ferrochunk.chunk` for the children.

    ``chunk_size`` and ``chunk_overlap`` (in tokens) build a ``Recursive`` when no
    ``config`` is given, the way LangChain's splitters take them.

    With a :class:`~ferrochunk.Markdown` config each document's metadata names its section
    path as ``MarkdownHeaderTextSplitter`` does (``"Header 1"``, ``"Header 2"``, ...); with
    :class:`~ferrochunk.Code`, ``scopes`` (``[kind, name]`` pairs) and ``scope_path``
    (``"Parser.feed"``).
    ``context_in_content=True`` puts the chunk's heading context in front of its text in
    ``page_content`` (what an embedding model then sees, within the cap); ``start_index``
    still points at the chunk's own text in the source, which begins after the context.

    >>> import ferrochunk as fc
    >>> doc = "# Guide\n\nRead this first.\n\n## Install\n\nRun the installer, then restart.\n"
    >>> docs = FerroTextSplitter(fc.Markdown(16), context_in_content=True).split_text(doc)
    >>> docs[1]
    '# Guide\n\n## Install\n\nRun the installer, then restart.\n'
    """

    def __init__(
        self,
        config: Config | None = None,
        *,
        tokenizer: Tokenizer | str | None = None,
        add_start_index: bool = False,
        add_token_count: bool = False,
        chunk_size: int | None = None,
        chunk_overlap: int | None = None,
        threads: int | None = 1,
        context_in_content: bool = False,
    ) -> None:
        if config is None:
            config = Recursive(
                512 if chunk_size is None else chunk_size,
                overlap_tokens=0 if chunk_overlap is None else chunk_overlap,
            )
        elif chunk_size is not None or chunk_overlap is not None:
            raise ConfigError(
                "FerroTextSplitter takes either config or chunk_size/chunk_overlap, not both"
            )
        config = require_config("FerroTextSplitter.config", config)
        if tokenizer is not None and not isinstance(tokenizer, Tokenizer | str):
            raise ConfigTypeError(
                "FerroTextSplitter.tokenizer must be a Tokenizer, a name or None, got "
                f"{describe(tokenizer)}"
            )
        self._config = config
        self._tokenizer = _tokenizer(config, tokenizer)
        self._add_token_count = _flag("add_token_count", add_token_count)
        self._context_in_content = _flag("context_in_content", context_in_content)
        if context_in_content and not isinstance(config, Markdown | Code):
            raise ConfigError(
                "FerroTextSplitter.context_in_content needs a Markdown or Code config, got "
                f"{type(config).__name__}"
            )
        self._threads = threads
        chunk_many([], config, threads=threads)  # checks threads now, not on the first call
        size, overlap = budget(config)
        super().__init__(
            chunk_size=size,
            chunk_overlap=overlap,
            length_function=self._tokenizer.count,
            add_start_index=_flag("add_start_index", add_start_index),
            strip_whitespace=False,
        )

    @property
    def config(self) -> Config:
        """The ferrochunk config this splitter cuts with."""
        return self._config

    @classmethod
    def from_config(cls, config: Config, **kwargs: Any) -> FerroTextSplitter:
        """``FerroTextSplitter(config, **kwargs)``, in LangChain's constructor style."""
        return cls(config, **kwargs)

    @classmethod
    def from_tiktoken_encoder(
        cls,
        encoding_name: str = "cl100k_base",
        model_name: str | None = None,
        chunk_size: int = 4000,
        chunk_overlap: int = 200,
        **kwargs: Any,
    ) -> FerroTextSplitter:
        """A token-measured recursive splitter, as LangChain's ``from_tiktoken_encoder``
        builds one, on the embedded tokenizer (no download). Special-token text such as
        ``<|endoftext|>`` is ordinary text here (tiktoken's ``encode_ordinary``)."""
        tokenizer = _embedded(encoding_name, model_name)
        config = Recursive(chunk_size, overlap_tokens=chunk_overlap)
        return cls(config, tokenizer=tokenizer, **kwargs)

    @classmethod
    def from_huggingface_tokenizer(
        cls,
        tokenizer: Any,
        chunk_size: int = 4000,
        chunk_overlap: int = 200,
        **kwargs: Any,
    ) -> FerroTextSplitter:
        """A token-measured recursive splitter in a Hugging Face tokenizer's own tokens, as
        LangChain's ``from_huggingface_tokenizer`` builds one. ``tokenizer`` is a
        ``tokenizers.Tokenizer`` or a transformers fast tokenizer; it runs natively when
        its pipeline allows (see :meth:`ferrochunk.Tokenizer.from_huggingface`), and each
        chunk leaves room for the special tokens the model adds."""
        tok = Tokenizer.from_huggingface(tokenizer)
        config = Recursive(chunk_size, overlap_tokens=chunk_overlap)
        return cls(config, tokenizer=tok, **kwargs)

    def _content(self, c: Chunk) -> str:
        return c.metadata["context"] + c.text if self._context_in_content else c.text

    def split_text(self, text: str) -> list[str]:
        """The chunk texts of ``text`` (with their context, for ``context_in_content``)."""
        return [self._content(c) for c in chunk(text, self._config, tokenizer=self._tokenizer)]

    def create_documents(
        self, texts: list[str], metadatas: list[dict[Any, Any]] | None = None
    ) -> list[Any]:
        """One ``Document`` per chunk of each text, with a copy of that text's metadata."""
        if metadatas is not None and len(metadatas) != len(texts):
            raise ConfigError(
                f"metadatas must have one entry per text ({len(texts)}), got {len(metadatas)}"
            )
        if isinstance(texts, str) or not isinstance(texts, Sequence):
            raise ConfigTypeError(f"texts must be a list of str, got {describe(texts)}")
        results = chunk_many(
            list(texts), self._config, tokenizer=self._tokenizer, threads=self._threads
        )
        documents = []
        for i, chunks in enumerate(results):
            for c in chunks:
                metadata = copy.deepcopy(metadatas[i]) if metadatas is not None else {}
                if self._add_start_index:
                    metadata["start_index"] = c.char_start
                if self._add_token_count:
                    metadata["token_count"] = c.token_count
                for level, title in c.metadata.get("headings", ()):
                    metadata[f"Header {level}"] = title
                if "scopes" in c.metadata:
                    metadata["scopes"] = [list(s) for s in c.metadata["scopes"]]
                    metadata["scope_path"] = scope_path(c.metadata["scopes"])
                documents.append(Document(page_content=self._content(c), metadata=metadata))
        return documents


class RecordKey:
    """A key encoder for LangChain's ``index()``: each chunk's record id
    (:func:`ferrochunk.ids.record_id`) from its source and its ``page_content``.

    LangChain's own encoders hash the content and the metadata, so a chunk whose
    ``start_index`` moved gets a new key and is embedded again; this key changes only when
    the embedded text (``page_content``) or its source does. With ``cleanup="incremental"``
    and ``source_id_key`` set to the same key, ``index()`` embeds only the chunks whose text
    is new and deletes the ones that are gone.

    A kept chunk is not written again, so in the store it keeps the metadata it was added
    with: its ``start_index`` (and ``Header`` keys) are those of the sync that first embedded
    it. A text repeated within one source is one key, and ``index()`` stores it once.

    >>> from langchain_core.documents import Document
    >>> record_key(Document("Text.", metadata={"source": "a.md", "start_index": 40}))
    '11b0239908c80f3d80ec265b67cf4688'
    """

    def __init__(self, source_key: str = "source") -> None:
        if not isinstance(source_key, str):
            raise ConfigTypeError(f"RecordKey.source_key must be a str, got {describe(source_key)}")
        self.source_key = source_key

    def __call__(self, document: Any) -> str:
        source = document.metadata.get(self.source_key)
        if not isinstance(source, str):
            raise ConfigError(
                f"record_key needs each document's metadata[{self.source_key!r}] as a str "
                f"(its source), got {describe(source)}; RecordKey(source_key=...) names "
                "another key"
            )
        return record_id(source, chunk_id(document.page_content), 0)

    def __repr__(self) -> str:
        return f"RecordKey(source_key={self.source_key!r})"


record_key = RecordKey()
"""The :class:`RecordKey` of ``metadata["source"]``."""
