"""Haystack with record ids: a pipeline of ``FerroDocumentSplitter(doc_id_key=...)``,
``FerroSkipStored``, an embedder and a writer embeds, after an edit, only the splits whose
text is new, and the store then holds exactly the current splits."""

from __future__ import annotations

from dataclasses import replace

import pytest

import ferrochunk as fc

haystack = pytest.importorskip("haystack", reason="test extra: haystack-ai")
from haystack import Document, Pipeline, component  # noqa: E402
from haystack.components.writers import DocumentWriter  # noqa: E402
from haystack.document_stores.in_memory import InMemoryDocumentStore  # noqa: E402
from haystack.document_stores.types import DuplicatePolicy  # noqa: E402
from support import edit, sample_pages  # noqa: E402

from ferrochunk.errors import ConfigError, ConfigTypeError, InputTypeError  # noqa: E402
from ferrochunk.ids import text_record_ids  # noqa: E402
from ferrochunk.integrations.haystack import FerroDocumentSplitter, FerroSkipStored  # noqa: E402


@component
class CountingEmbedder:
    """A document embedder that records every text it is asked to embed."""

    def __init__(self) -> None:
        self.embedded: list[str] = []

    @component.output_types(documents=list[Document])
    def run(self, documents: list[Document]) -> dict[str, list[Document]]:
        self.embedded += [d.content for d in documents]
        return {"documents": [replace(d, embedding=[len(d.content), 1.0]) for d in documents]}


def _docs(pages: dict[str, str]) -> list[Document]:
    return [Document(content=text, meta={"file_path": name}) for name, text in pages.items()]


def _pipeline(store: InMemoryDocumentStore) -> tuple[Pipeline, CountingEmbedder]:
    embedder = CountingEmbedder()
    pipe = Pipeline()
    pipe.add_component(
        "split",
        FerroDocumentSplitter(fc.Recursive(48, boundaries="content"), doc_id_key="file_path"),
    )
    pipe.add_component("skip", FerroSkipStored(store))
    pipe.add_component("embed", embedder)
    pipe.add_component("write", DocumentWriter(store, policy=DuplicatePolicy.OVERWRITE))
    pipe.connect("split", "skip")
    pipe.connect("skip.documents", "embed")
    pipe.connect("embed", "write")
    return pipe, embedder


def _splits(pages: dict[str, str]) -> set[tuple[str, str]]:
    splitter = FerroDocumentSplitter(fc.Recursive(48, boundaries="content"), doc_id_key="file_path")
    docs = splitter.run(_docs(pages))["documents"]
    return {(d.meta["file_path"], d.content) for d in docs}


def _held(store: InMemoryDocumentStore) -> set[tuple[str, str]]:
    docs = store.filter_documents()
    assert all(d.embedding is not None for d in docs)
    return {(d.meta["file_path"], d.content) for d in docs}


def test_an_edit_embeds_only_the_splits_whose_text_is_new():
    store = InMemoryDocumentStore()
    pipe, embedder = _pipeline(store)
    pages = sample_pages()
    first = _splits(pages)
    out = pipe.run({"split": {"documents": _docs(pages)}})
    assert len(embedder.embedded) == len(first) == out["write"]["documents_written"]
    assert _held(store) == first

    edit(pages)
    second = _splits(pages)
    new = second - first
    embedder.embedded.clear()
    out = pipe.run({"split": {"documents": _docs(pages)}})
    assert 0 < len(embedder.embedded) == len(new) < len(second) // 4
    assert set(embedder.embedded) == {text for _, text in new}
    assert out["skip"]["deleted"] == len(first - second) > 0
    assert _held(store) == second

    embedder.embedded.clear()
    out = pipe.run({"split": {"documents": _docs(pages)}})
    assert embedder.embedded == []
    assert out["skip"]["deleted"] == 0
    assert _held(store) == second


def test_split_ids_are_record_ids_of_the_content():
    text = "Same line here.\n\n" * 12
    splitter = FerroDocumentSplitter(fc.Recursive(8), doc_id_key="file_path")
    docs = splitter.run([Document(content=text, meta={"file_path": "d.md"})])["documents"]
    contents = [d.content for d in docs]
    assert len(set(contents)) < len(docs), "the text must repeat"
    assert [d.id for d in docs] == text_record_ids("d.md", contents)
    # The Document's own id hashes its metadata: without doc_id_key it follows the offsets.
    plain = FerroDocumentSplitter(fc.Recursive(8)).run([Document(content=text)])["documents"]
    assert len({d.id for d in plain}) == len(plain)
    assert not {d.id for d in plain} & {d.id for d in docs}


def test_the_pipeline_round_trips_through_yaml():
    store = InMemoryDocumentStore()
    pipe, _ = _pipeline(store)
    data = pipe.get_component("skip").to_dict()
    again = FerroSkipStored.from_dict(data)
    assert again.doc_id_key == "file_path"
    assert isinstance(again.document_store, InMemoryDocumentStore)
    split = pipe.get_component("split")
    assert FerroDocumentSplitter.from_dict(split.to_dict()).doc_id_key == "file_path"


def test_bad_input_is_named():
    with pytest.raises(ConfigTypeError, match="doc_id_key"):
        FerroDocumentSplitter(doc_id_key=3)
    with pytest.raises(ConfigError, match="ParentChild"):
        FerroDocumentSplitter(fc.ParentChild("full-doc", child=fc.Recursive(6)), doc_id_key="p")
    with pytest.raises(InputTypeError, match=r"meta\['file_path'\] as a str"):
        FerroDocumentSplitter(doc_id_key="file_path").run([Document(content="text")])
    with pytest.raises(ConfigTypeError, match="DocumentStore"):
        FerroSkipStored(object())
    store = InMemoryDocumentStore()
    with pytest.raises(InputTypeError, match="list of Documents"):
        FerroSkipStored(store).run("text")
    assert FerroSkipStored(store).run([]) == {"documents": [], "deleted": 0}
