"""The LangChain and LlamaIndex drop-ins, against the real packages."""

from __future__ import annotations

import pickle
import subprocess
import sys

import pytest
from langchain_core.documents import Document as LCDocument
from langchain_core.runnables import RunnableLambda
from langchain_text_splitters import TextSplitter
from llama_index.core import Document as LIDocument
from llama_index.core.ingestion import IngestionPipeline
from llama_index.core.node_parser import NodeParser
from llama_index.core.schema import MetadataMode, NodeRelationship
from support import corpus_files, read_corpus

import ferrochunk as fc
from ferrochunk.errors import ConfigError, ConfigTypeError
from ferrochunk.integrations import budget
from ferrochunk.integrations.langchain import FerroTextSplitter
from ferrochunk.integrations.llama_index import FerroNodeParser

# Repeats make text search (what both frameworks do for offsets) land on the wrong copy.
REPEATS = "abc abc abc abc abc abc abc abc abc abc abc abc. " * 6
CONFIGS = [
    fc.TokenWindows(7, overlap_tokens=3),
    fc.Recursive(9, overlap_tokens=4),
    fc.SentenceWindows(12, overlap_ratio=0.3),
    fc.DelimiterMerge(6, delimiters=(". ", " "), overlap=30),
    fc.ParentChild(fc.Recursive(16), child=fc.Recursive(5)),
]


@pytest.fixture(scope="module")
def texts() -> list[str]:
    return [REPEATS, "第一句。第二句！\n\nA second paragraph. " * 5] + [
        read_corpus(p)[:3000] for p in corpus_files()[:3]
    ]


# -- LangChain --------------------------------------------------------------------------


def test_the_splitter_is_a_langchain_text_splitter():
    splitter = FerroTextSplitter()
    assert isinstance(splitter, TextSplitter)
    assert splitter.config == fc.Recursive(512)
    assert splitter._chunk_size == 512


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: type(c).__name__)
def test_documents_match_ferrochunk_and_start_index_slices_the_source(config, texts):
    splitter = FerroTextSplitter(config, add_start_index=True, add_token_count=True)
    metadatas = [{"source": f"doc{i}", "nested": {"k": [i]}} for i in range(len(texts))]
    docs = splitter.create_documents(texts, metadatas)
    expected = [(i, c) for i, t in enumerate(texts) for c in fc.chunk(t, config)]
    assert len(docs) == len(expected)
    for doc, (i, c) in zip(docs, expected, strict=True):
        assert doc.page_content == c.text
        assert doc.metadata["source"] == f"doc{i}"
        assert doc.metadata["token_count"] == c.token_count
        start = doc.metadata["start_index"]
        assert start == c.char_start
        if "spans" not in c.metadata:  # DelimiterMerge joins pieces; the rest are slices
            assert texts[i][start : start + len(doc.page_content)] == doc.page_content
    # Each document gets its own copy of the metadata.
    docs[0].metadata["nested"]["k"].append(99)
    assert metadatas[0]["nested"] == {"k": [0]}
    assert splitter.split_text(texts[0]) == [c.text for c in fc.chunk(texts[0], config)]


def test_start_index_is_exact_where_langchain_search_is_not():
    config = fc.TokenWindows(5, overlap_tokens=4)
    ours = FerroTextSplitter(config, add_start_index=True).create_documents([REPEATS])
    assert [d.metadata["start_index"] for d in ours] == [
        c.char_start for c in fc.chunk(REPEATS, config)
    ]

    class Searching(TextSplitter):  # LangChain's own start_index, on the same chunks
        def split_text(self, text: str) -> list[str]:
            return [c.text for c in fc.chunk(text, config)]

    theirs = Searching(chunk_size=5, chunk_overlap=4, add_start_index=True)
    found = [d.metadata["start_index"] for d in theirs.create_documents([REPEATS])]
    assert found != [d.metadata["start_index"] for d in ours]


def test_split_and_transform_documents_keep_metadata():
    splitter = FerroTextSplitter(fc.Recursive(6))
    docs = [
        LCDocument(page_content="alpha beta gamma. delta epsilon zeta eta.", metadata={"a": 1}),
        LCDocument(page_content="one two", metadata={"b": 2}),
    ]
    split = splitter.split_documents(docs)
    assert splitter.transform_documents(docs) == split
    assert [d.metadata for d in split] == [{"a": 1}] * (len(split) - 1) + [{"b": 2}]
    assert "".join(d.page_content for d in split[:-1]) == docs[0].page_content


def test_langchain_constructors():
    s = FerroTextSplitter.from_tiktoken_encoder(chunk_size=100, chunk_overlap=10)
    assert s.config == fc.Recursive(100, overlap_tokens=10)
    assert FerroTextSplitter.from_tiktoken_encoder("o200k_base")._tokenizer.name == "o200k_base"
    gpt4o = FerroTextSplitter.from_tiktoken_encoder(
        model_name="gpt-4o-mini", chunk_size=50, chunk_overlap=5
    )
    assert gpt4o._tokenizer.name == "o200k_base"
    gpt4 = FerroTextSplitter.from_tiktoken_encoder(
        model_name="gpt-4", chunk_size=50, chunk_overlap=5
    )
    assert gpt4._tokenizer.name == "cl100k_base"
    config = fc.SentenceWindows(64)
    assert FerroTextSplitter.from_config(config).config is config
    assert FerroTextSplitter(chunk_size=30, chunk_overlap=5).config == fc.Recursive(
        30, overlap_tokens=5
    )


@pytest.mark.parametrize(
    ("build", "error", "needle"),
    [
        (lambda: FerroTextSplitter(chunk_size=10, chunk_overlap=10), ConfigError, "overlap"),
        (lambda: FerroTextSplitter(chunk_size=0), ConfigError, "max_tokens"),
        (lambda: FerroTextSplitter("recursive"), ConfigTypeError, "config"),
        (lambda: FerroTextSplitter(fc.Recursive(5), chunk_size=5), ConfigError, "not both"),
        (lambda: FerroTextSplitter(tokenizer=3), ConfigTypeError, "tokenizer"),
        (lambda: FerroTextSplitter(tokenizer="p50k"), ValueError, "p50k"),
        (lambda: FerroTextSplitter(add_start_index="yes"), ConfigTypeError, "add_start_index"),
        (lambda: FerroTextSplitter(threads=0), ConfigError, "threads"),
        (
            lambda: FerroTextSplitter.from_tiktoken_encoder("p50k_base"),
            ConfigError,
            "encoding_name",
        ),
        (
            lambda: FerroTextSplitter.from_tiktoken_encoder(model_name="davinci"),
            ConfigError,
            "model_name",
        ),
    ],
)
def test_the_splitter_rejects_bad_settings_at_construction(build, error, needle):
    with pytest.raises(error, match=needle):
        build()


def test_the_splitter_runs_in_a_runnable_and_pickles():
    splitter = FerroTextSplitter(fc.Recursive(6, overlap_tokens=2), add_start_index=True)
    text = "one two three four five six seven eight nine ten eleven twelve"
    assert RunnableLambda(splitter.split_text).invoke(text) == splitter.split_text(text)
    again = pickle.loads(pickle.dumps(splitter))
    assert again.create_documents([text]) == splitter.create_documents([text])


def test_create_documents_rejects_mismatched_metadata():
    with pytest.raises(ConfigError, match="metadatas"):
        FerroTextSplitter().create_documents(["a", "b"], [{}])


# -- LlamaIndex -------------------------------------------------------------------------


def test_the_parser_is_a_llama_index_node_parser():
    parser = FerroNodeParser()
    assert isinstance(parser, NodeParser)
    assert parser.config == fc.Recursive(512)


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: type(c).__name__)
def test_nodes_carry_exact_offsets_relationships_metadata_and_tokens(config, texts):
    # "source" is not embedded, so the text gets the whole cap.
    docs = [
        LIDocument(text=t, metadata={"source": f"doc{i}"}, excluded_embed_metadata_keys=["source"])
        for i, t in enumerate(texts)
    ]
    nodes = FerroNodeParser(config=config).get_nodes_from_documents(docs)
    expected = [(i, c) for i, t in enumerate(texts) for c in fc.chunk(t, config)]
    assert len(nodes) == len(expected)
    for k, (node, (i, c)) in enumerate(zip(nodes, expected, strict=True)):
        assert node.text == c.text
        assert (node.start_char_idx, node.end_char_idx) == (c.char_start, c.char_end)
        assert node.metadata == {"source": f"doc{i}", "token_count": c.token_count}
        assert node.relationships[NodeRelationship.SOURCE].node_id == docs[i].doc_id
        assert "token_count" not in node.get_content(metadata_mode=MetadataMode.EMBED)
        prev_same = k > 0 and expected[k - 1][0] == i
        next_same = k + 1 < len(expected) and expected[k + 1][0] == i
        assert (NodeRelationship.PREVIOUS in node.relationships) == prev_same
        assert (NodeRelationship.NEXT in node.relationships) == next_same
        if prev_same:
            assert node.relationships[NodeRelationship.PREVIOUS].node_id == nodes[k - 1].node_id


# Caps a document's metadata leaves room in, with overlaps larger than what is left.
EMBED_CONFIGS = [
    fc.TokenWindows(128, overlap_tokens=100),
    fc.Recursive(128, overlap_tokens=16),
    fc.SentenceWindows(150, overlap_ratio=0.3),
    fc.DelimiterMerge(128, delimiters=(". ", " ", "\n", "-"), strategy="under_cap", overlap=30),
    fc.Markdown(160, overlap_tokens=8),
    fc.ParentChild(fc.Recursive(128), child=fc.Recursive(32)),
]


@pytest.mark.parametrize("config", EMBED_CONFIGS, ids=lambda c: type(c).__name__)
def test_what_llama_index_embeds_fits_the_cap(config, texts):
    counter = fc.Tokenizer.cl100k()
    title = "Quarterly report on the regional distribution of renewable energy projects " * 10
    docs = [
        LIDocument(text=t, metadata={"title": title, "path": f"/data/reports/{i}.md"})
        for i, t in enumerate(texts)
    ]
    assert 90 <= counter.count(title) <= 110  # as the reported case: ~100 of 128
    nodes = FerroNodeParser(config=config).get_nodes_from_documents(docs)
    cap = budget(config)[0]
    assert nodes
    for n in nodes:
        embedded = n.get_content(metadata_mode=MetadataMode.EMBED)
        assert title.strip() in embedded
        assert n.text.strip() in embedded
        size = counter.count(embedded)
        if isinstance(config, fc.DelimiterMerge):
            # Its contract caps the sum of its pieces' counts, not the joined text's.
            size += n.metadata["token_count"] - counter.count(n.text)
        assert size <= cap, embedded
    if isinstance(config, fc.DelimiterMerge):
        return  # its chunks are joined spans: delimiters are not kept, by its contract
    # Nothing is lost: each document's nodes still cover its text.
    for i, doc in enumerate(docs):
        mine = [n for n in nodes if n.metadata["path"] == f"/data/reports/{i}.md"]
        covered = max(n.end_char_idx for n in mine) if mine else 0
        assert covered == len(doc.text.rstrip()) or covered == len(doc.text)


def test_metadata_that_fills_the_cap_is_a_config_error():
    doc = LIDocument(text="Some text.", metadata={"title": "word " * 200})
    with pytest.raises(ConfigError, match="metadata LlamaIndex embeds"):
        FerroNodeParser(config=fc.Recursive(128)).get_nodes_from_documents([doc])


def test_without_include_metadata_the_text_gets_the_whole_cap(texts):
    config = fc.Recursive(64, overlap_tokens=8)
    docs = [LIDocument(text=t, metadata={"title": "x " * 100}) for t in texts]
    parser = FerroNodeParser(config=config, include_metadata=False)
    nodes = parser.get_nodes_from_documents(docs)
    assert [n.text for n in nodes] == [c.text for t in texts for c in fc.chunk(t, config)]


def test_offsets_stay_exact_where_llama_index_search_is_not():
    config = fc.TokenWindows(8, overlap_tokens=2)
    echo = "abc " * 60  # every window's text also occurs a few characters after the last start
    nodes = FerroNodeParser(config=config).get_nodes_from_documents([LIDocument(text=echo)])
    chunks = fc.chunk(echo, config)
    assert [n.start_char_idx for n in nodes] == [c.char_start for c in chunks]
    # What the base class's text search would have said: the same text earlier on.
    searched, at = [], 0
    for c in chunks:
        at = echo.find(c.text, at)
        searched.append(at)
        at += 1
    assert searched != [c.char_start for c in chunks]


def test_an_ingestion_pipeline_runs_the_parser_on_several_documents():
    docs = [
        LIDocument(text="First document. It has two sentences.", metadata={"n": 1}),
        LIDocument(text="Second document, longer: " + "word " * 40, metadata={"n": 2}),
        LIDocument(text="", metadata={"n": 3}),
    ]
    pipeline = IngestionPipeline(transformations=[FerroNodeParser(config=fc.Recursive(8))])
    nodes = pipeline.run(documents=docs)
    assert nodes
    assert {n.metadata["n"] for n in nodes} == {1, 2}
    for n in nodes:
        doc = docs[n.metadata["n"] - 1]
        assert doc.text[n.start_char_idx : n.end_char_idx] == n.text
        assert n.metadata["token_count"] <= 8


def test_nodes_of_nodes_point_into_the_original_document():
    doc = LIDocument(text="alpha beta gamma delta. " * 10)
    first = FerroNodeParser(config=fc.Recursive(20)).get_nodes_from_documents([doc])
    second = FerroNodeParser(config=fc.Recursive(6))(first)
    for n in second:
        assert doc.text[n.start_char_idx : n.end_char_idx] == n.text


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"config": 3}, "config"),
        ({"config": fc.Recursive(5), "tokenizer": 3}, "tokenizer"),
        ({"tokenizer": "p50k"}, "p50k"),
    ],
)
def test_the_parser_rejects_bad_settings_at_construction(kwargs, needle):
    with pytest.raises(ValueError, match=needle):
        FerroNodeParser(**kwargs)


def test_a_missing_framework_names_its_extra():
    code = (
        "import sys; sys.modules['{mod}'] = None\n"
        "try:\n    import ferrochunk.integrations.{name}\n"
        "except ImportError as e:\n    print(e)\n"
    )
    for mod, name, extra in [
        ("langchain_text_splitters", "langchain", "ferrochunk[langchain]"),
        ("llama_index.core", "llama_index", "ferrochunk[llama-index]"),
    ]:
        run = subprocess.run(
            [sys.executable, "-c", code.format(mod=mod, name=name)],
            capture_output=True,
            text=True,
            check=True,
        )
        assert extra in run.stdout


MD_DOC = (
    "# Guide\n\nRead this first.\n\n## Install\n\nRun the installer, then restart.\n"
    + "More steps here. " * 12
)


def test_langchain_markdown_headers_and_context():
    splitter = FerroTextSplitter(fc.Markdown(20), context_in_content=True, add_start_index=True)
    docs = splitter.create_documents([MD_DOC], [{"source": "guide.md"}])
    chunks = fc.chunk(MD_DOC, fc.Markdown(20))
    assert len(docs) == len(chunks)
    counter = fc.Tokenizer.cl100k()
    for d, c in zip(docs, chunks, strict=True):
        assert d.page_content == c.metadata["context"] + c.text
        assert counter.count(d.page_content) <= 20  # what gets embedded fits the cap
        # start_index points at the chunk's own text, after the context.
        start = d.metadata["start_index"]
        assert d.page_content[len(c.metadata["context"]) :] == MD_DOC[start : start + len(c.text)]
        want = {f"Header {level}": title for level, title in c.metadata["headings"]}
        assert {k: v for k, v in d.metadata.items() if k.startswith("Header")} == want
    assert docs[-1].metadata["Header 2"] == "Install"
    plain = FerroTextSplitter(fc.Markdown(20)).split_text(MD_DOC)
    assert plain == [c.text for c in chunks]
    with pytest.raises(fc.FerrochunkError, match="context_in_content"):
        FerroTextSplitter(fc.Recursive(20), context_in_content=True)


def test_llama_index_markdown_header_path_is_kept_out_of_the_embedding():
    parser = FerroNodeParser(config=fc.Markdown(20))
    nodes = parser.get_nodes_from_documents([LIDocument(text=MD_DOC)])
    assert [n.metadata["header_path"] for n in nodes[:3]] == ["/", "/Guide/", "/Guide/Install/"]
    counter = fc.Tokenizer.cl100k()
    for n in nodes:
        embedded = n.get_content(metadata_mode=MetadataMode.EMBED)
        assert "header_path" not in embedded
        assert "context" not in embedded
        assert counter.count(n.metadata["context"] + n.text) <= 20


def test_llama_index_header_path_leaves_out_only_the_heading_a_node_opens_with():
    # A setext section whose body starts with its title's words does not open it again.
    words = "Usage of the tool is simple. " * 12
    doc = "Usage\n=====\n\n" + words + "\n"
    parser = FerroNodeParser(config=fc.Markdown(24, context=False))
    nodes = parser.get_nodes_from_documents([LIDocument(text=doc)])
    assert nodes[0].text.startswith("Usage\n=====")
    paths = [n.metadata["header_path"] for n in nodes]
    assert paths[0] == "/"
    assert len(paths) > 1
    assert all(p == "/Usage/" for p in paths[1:])
