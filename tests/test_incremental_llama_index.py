"""LlamaIndex with record ids: after an edit, ``refresh`` embeds only the nodes whose
embedded content is new, and the index holds exactly the current nodes."""

from __future__ import annotations

import itertools

import pytest
from llama_index.core import Document, VectorStoreIndex
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.schema import MetadataMode, NodeRelationship
from pydantic import PrivateAttr
from support import edit, sample_pages

import ferrochunk as fc
from ferrochunk.errors import ConfigError, InputTypeError
from ferrochunk.ids import text_record_ids
from ferrochunk.integrations.llama_index import FerroNodeParser, refresh


class CountingEmbedding(MockEmbedding):
    """LlamaIndex's mock embedder, counting the texts it is asked to embed (its batch call
    embeds one text at a time)."""

    _embedded: list[str] = PrivateAttr(default_factory=list)

    def _get_text_embedding(self, text: str) -> list[float]:
        self._embedded.append(text)
        return super()._get_text_embedding(text)


def _docs(pages: dict[str, str]) -> list[Document]:
    return [Document(id_=n, text=t, metadata={"file_path": n}) for n, t in pages.items()]


PARSER = FerroNodeParser(config=fc.Recursive(48, boundaries="content"), record_ids=True)


def _held(index: VectorStoreIndex) -> set[tuple[str, str]]:
    """(document, embedded content) of every node the index holds, from its docstore and
    its vector store both."""
    ids = set(index.index_struct.nodes_dict)
    assert ids == set(index.vector_store.data.embedding_dict)
    nodes = index.docstore.get_nodes(list(ids))
    return {(n.ref_doc_id, n.get_content(metadata_mode=MetadataMode.EMBED)) for n in nodes}


def _embedded(nodes) -> set[tuple[str, str]]:
    return {(n.ref_doc_id, n.get_content(metadata_mode=MetadataMode.EMBED)) for n in nodes}


def test_an_edit_embeds_only_the_nodes_whose_content_is_new():
    embedder = CountingEmbedding(embed_dim=8)
    index = VectorStoreIndex([], embed_model=embedder)
    pages = sample_pages()
    first = PARSER.get_nodes_from_documents(_docs(pages))
    done = refresh(index, _docs(pages), PARSER)
    assert (done.added, done.deleted, done.kept) == (len(first), 0, 0)
    assert len(embedder._embedded) == len(first)
    assert _held(index) == _embedded(first)

    edit(pages)
    second = PARSER.get_nodes_from_documents(_docs(pages))
    new = _embedded(second) - _embedded(first)
    embedder._embedded.clear()
    done = refresh(index, _docs(pages), PARSER)
    assert 0 < len(embedder._embedded) == len(new) == done.added < len(second) // 4
    assert set(embedder._embedded) == {content for _, content in new}
    assert done.deleted == len(_embedded(first) - _embedded(second)) > 0
    assert done.kept == len(second) - done.added
    assert _held(index) == _embedded(second)
    # Kept nodes carry this run's offsets in the docstore, without being embedded again.
    for n in second:
        stored = index.docstore.get_node(n.id_)
        assert (stored.start_char_idx, stored.end_char_idx) == (n.start_char_idx, n.end_char_idx)

    # Nothing changed: nothing embedded, nothing deleted; a repeat is a no-op.
    embedder._embedded.clear()
    done = refresh(index, _docs(pages), PARSER)
    assert (done.added, done.deleted, embedder._embedded) == (0, 0, [])


def test_record_ids_name_document_content_and_occurrence_and_links_follow():
    text = "Same line here.\n\n" * 12
    doc = Document(id_="d", text=text, metadata={"file_path": "d.md"})
    nodes = FerroNodeParser(config=fc.Recursive(16), record_ids=True).get_nodes_from_documents(
        [doc]
    )
    contents = [n.get_content(metadata_mode=MetadataMode.EMBED) for n in nodes]
    assert len(set(contents)) < len(nodes), "the text must repeat"
    assert [n.id_ for n in nodes] == text_record_ids("d", contents)
    assert len({n.id_ for n in nodes}) == len(nodes)
    for a, b in itertools.pairwise(nodes):
        assert a.relationships[NodeRelationship.NEXT].node_id == b.id_
        assert b.relationships[NodeRelationship.PREVIOUS].node_id == a.id_
    # A metadata change is an embedded change: the ids follow it.
    moved = Document(id_="d", text=text, metadata={"file_path": "moved/d.md"})
    again = FerroNodeParser(config=fc.Recursive(16), record_ids=True).get_nodes_from_documents(
        [moved]
    )
    assert not {n.id_ for n in nodes} & {n.id_ for n in again}
    # Without record_ids, LlamaIndex's own id function names the nodes.
    plain = FerroNodeParser(config=fc.Recursive(16)).get_nodes_from_documents([doc])
    assert not {n.id_ for n in plain} & {n.id_ for n in nodes}


def test_refresh_refuses_what_it_cannot_do_safely():
    index = VectorStoreIndex([], embed_model=CountingEmbedding(embed_dim=8))
    docs = _docs(sample_pages())
    with pytest.raises(ConfigError, match=r"record_ids=True"):
        refresh(index, docs, FerroNodeParser(config=fc.Recursive(48)))
    with pytest.raises(InputTypeError, match=r"'page-0.md' twice"):
        refresh(index, [docs[0], docs[0]], PARSER)
    assert index.index_struct.nodes_dict == {}


def test_llama_indexs_own_refresh_embeds_the_whole_changed_document_again():
    """The baseline ``refresh`` fixes: ``refresh_ref_docs`` re-inserts a changed document."""
    embedder = CountingEmbedding(embed_dim=8)
    pages = sample_pages()
    index = VectorStoreIndex.from_documents(
        _docs(pages), embed_model=embedder, transformations=[PARSER]
    )
    edit(pages)
    embedder._embedded.clear()
    index.refresh_ref_docs(_docs(pages))
    page = [n for n in PARSER.get_nodes_from_documents(_docs(pages)) if n.ref_doc_id == "page-1.md"]
    assert len(embedder._embedded) == len(page) > 4
