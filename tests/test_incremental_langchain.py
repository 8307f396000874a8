"""LangChain's ``index()`` with ``record_key``: after an edit, only the chunks whose text is
new are embedded, even with ``add_start_index=True``, and the store holds the current ones."""

from __future__ import annotations

import pytest
from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.indexing import InMemoryRecordManager, index
from langchain_core.vectorstores import InMemoryVectorStore
from pydantic import Field
from support import edit, sample_pages

import ferrochunk as fc
from ferrochunk.errors import ConfigError
from ferrochunk.integrations.langchain import FerroTextSplitter, RecordKey, record_key


class CountingEmbedding(DeterministicFakeEmbedding):
    """The embedder, counting the texts it is asked to embed."""

    embedded: list[str] = Field(default_factory=list)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.embedded.extend(texts)
        return super().embed_documents(texts)


def _split(pages: dict[str, str]) -> list[Document]:
    splitter = FerroTextSplitter(fc.Recursive(48), add_start_index=True)
    return splitter.create_documents(list(pages.values()), [{"source": s} for s in pages])


def _held(store: InMemoryVectorStore) -> set[tuple[str, str]]:
    return {(d["metadata"]["source"], d["text"]) for d in store.store.values()}


def _fresh(namespace: str) -> tuple[CountingEmbedding, InMemoryVectorStore, InMemoryRecordManager]:
    embedder = CountingEmbedding(size=8)
    manager = InMemoryRecordManager(namespace)
    manager.create_schema()
    return embedder, InMemoryVectorStore(embedder), manager


def _index(docs, manager, store, **kwargs):
    return index(docs, manager, store, cleanup="incremental", source_id_key="source", **kwargs)


def test_an_edit_embeds_only_the_chunks_whose_text_is_new():
    embedder, store, manager = _fresh("ferrochunk")
    pages = sample_pages()
    first = _split(pages)
    result = _index(first, manager, store, key_encoder=record_key)
    assert result["num_added"] == len(first) == len(embedder.embedded)

    # One paragraph near the start of page 1 grows: every later chunk of the page moves
    # (its start_index changes), but only the chunks around the edit change their text.
    edit(pages)
    second = _split(pages)
    new_texts = {(d.metadata["source"], d.page_content) for d in second} - {
        (d.metadata["source"], d.page_content) for d in first
    }
    moved = {d.page_content for d in second if d.metadata["source"] == "page-1.md"} & {
        d.page_content for d in first if d.metadata["source"] == "page-1.md"
    }
    starts_before = {
        d.page_content: d.metadata["start_index"]
        for d in first
        if d.metadata["source"] == "page-1.md"
    }
    assert any(
        starts_before[d.page_content] != d.metadata["start_index"]
        for d in second
        if d.page_content in moved
    ), "the edit must move some kept chunks"
    embedder.embedded = []
    result = _index(second, manager, store, key_encoder=record_key)
    assert 0 < len(embedder.embedded) == len(new_texts) < len(second) // 4
    assert set(embedder.embedded) == {text for _, text in new_texts}
    assert result["num_added"] == len(new_texts)
    assert _held(store) == {(d.metadata["source"], d.page_content) for d in second}


def test_with_langchains_own_key_every_moved_chunk_is_embedded_again():
    """The baseline record_key fixes: sha256 over content and metadata (start_index)."""
    embedder, store, manager = _fresh("baseline")
    pages = sample_pages()
    _index(_split(pages), manager, store, key_encoder="sha256")
    edit(pages)
    second = _split(pages)
    embedder.embedded = []
    _index(second, manager, store, key_encoder="sha256")
    page = [d for d in second if d.metadata["source"] == "page-1.md"]
    assert len(embedder.embedded) > len(page) // 2


def test_record_key_names_a_missing_source():
    with pytest.raises(ConfigError, match=r"metadata\['source'\] as a str"):
        record_key(Document("text"))
    assert RecordKey("url")(Document("t", metadata={"url": "u"})) == record_key(
        Document("t", metadata={"source": "u"})
    )
