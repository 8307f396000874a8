"""Chunk ids and record ids: the scheme pinned, both twins equal, and stable everywhere."""

from __future__ import annotations

import io
import json
import pickle
import subprocess
import sys

import pytest
import xxhash
from hypothesis import example, given, settings
from hypothesis import strategies as st
from support import DATA
from test_chunk_type import CONFIGS as TRAVELLING

import ferrochunk as fc
from ferrochunk import _native, ids
from ferrochunk._support.xxh3 import xxh3_128_hex
from ferrochunk.records import record

MARKDOWN = (
    "# Guide\n\nIntro text that explains the guide.\n\n"
    "## Install\n\n" + "Run the installer and wait for it. " * 25 + "\n\n"
    "## Use\n\n" + "Call the function with a path. " * 25 + "\n\n"
    "## Notes\n\nDuplicate line.\n\nDuplicate line.\n"
)
CODE = "class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        return 2\n" * 6
CONFIGS = [
    *TRAVELLING,  # the configs whose chunks test_chunk_type sends through pickle and dicts
    fc.Markdown(40),
    fc.Markdown(40, context=False),
    fc.Code(40, language="python"),
]
TEXTS = {"Code": CODE}


def _text(config: fc.Config) -> str:
    return TEXTS.get(type(config).__name__, MARKDOWN)


def _embedded(c: fc.Chunk) -> str:
    return c.metadata.get("context", "") + c.text


def _every(chunks: list[fc.Chunk]) -> list[fc.Chunk]:
    """Chunks and their children."""
    return [k for c in chunks for k in (c, *c.metadata.get("children", ()))]


def test_golden_ids():
    # `printf %s TEXT | xxhsum -H2`, and for a record id
    # `printf 'DOC\0%s\0%s' CHUNK_ID N | xxhsum -H2`; Python's `xxhash` prints the same.
    assert ids.SCHEME == "xxh3-128/v1"
    assert ids.chunk_id("") == "99aa06d3014798d86001c324468d497f"
    assert ids.chunk_id("abc") == "06b05ab6733a618578af5f94892f3950"
    assert ids.chunk_id("Hello world.") == "1c95225ac4b1353e73b47bf1a3f7cb52"
    assert ids.chunk_id("Body.", context="# T\n\n") == ids.chunk_id("# T\n\nBody.")
    assert ids.chunk_id("日本語") == "cf540541fa85fd53750ff417a7ae0479"
    assert ids.record_id("guide.md", ids.chunk_id("abc"), 0) == "32910f714a34601fbc2816925a488b77"
    assert ids.record_id("guide.md", ids.chunk_id("abc"), 1) == "1dd765e35f4c0f7a1883d86758e221d8"
    assert [c.chunk_id for c in fc.chunk("Hello world.", fc.TokenWindows(8))] == [
        "1c95225ac4b1353e73b47bf1a3f7cb52"
    ]


@settings(max_examples=500, deadline=None)
@given(st.text(), st.text(max_size=20), st.binary(max_size=3000))
@example("", "", b"")
@example("x\u00b2 \u200d\U0001f469", "# h\n", b"\x00" * 241)
def test_the_rust_hash_and_the_python_twin_equal_the_xxhash_library(text, context, data):
    # Three implementations: the core's (xxhash-rust), the reference's twin, and the C
    # library behind Python's `xxhash`.
    want = xxhash.xxh3_128_hexdigest((context + text).encode("utf-8", "surrogatepass"))
    assert ids.chunk_id(text, context) == want == xxh3_128_hex(ids.utf8(context + text))
    assert _native.hash_ids([data]) == [xxhash.xxh3_128_hexdigest(data)] == [xxh3_128_hex(data)]


def test_the_twin_agrees_on_every_length_class():
    lengths = [*range(0, 300), 1023, 1024, 1025, 2047, 2048, 2049, 70_000]
    data = bytes(range(256)) * 300
    for n in lengths:
        assert xxh3_128_hex(data[:n]) == xxhash.xxh3_128_hexdigest(data[:n]), n
        assert _native.hash_ids([data[:n]]) == [xxh3_128_hex(data[:n])], n


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: type(c).__name__)
def test_every_chunk_id_is_the_id_of_its_embedded_text(config):
    chunks = fc.chunk(_text(config), config)
    assert len(chunks) > 2
    every = _every(chunks)
    assert [c.chunk_id for c in every] == [ids.chunk_id(_embedded(c)) for c in every]
    # The reference's ids come from the Python twin, the native ones from Rust.
    assert [c.chunk_id for c in _every(fc.chunk(_text(config), config, backend="reference"))] == [
        c.chunk_id for c in every
    ]


def test_context_is_in_the_id():
    chunks = fc.chunk(MARKDOWN, fc.Markdown(40))
    with_context = [c for c in chunks if c.metadata["context"]]
    assert with_context
    c = with_context[0]
    assert c.chunk_id == ids.chunk_id(c.text, c.metadata["context"]) != ids.chunk_id(c.text)


@pytest.mark.parametrize("config", CONFIGS[:6], ids=lambda c: type(c).__name__)
def test_ids_are_equal_through_chunk_stream_and_chunk_file(config, tmp_path):
    text = _text(config) * 3
    want = [c.chunk_id for c in fc.chunk(text, config)]
    pieces = [text[i : i + 37] for i in range(0, len(text), 37)]
    assert [c.chunk_id for c in fc.chunk_stream(pieces, config)] == want
    path = tmp_path / "doc.md"
    path.write_text(text, encoding="utf-8")
    assert [c.chunk_id for c in fc.chunk_file(path, config)] == want
    assert [[c.chunk_id for c in cs] for cs in fc.chunk_many([text, text], config)] == [want] * 2


def test_ids_are_equal_across_processes():
    script = (
        "import json, sys, ferrochunk as fc\n"
        "text = sys.stdin.read()\n"
        "print(json.dumps([c.chunk_id for c in fc.chunk(text, fc.Markdown(40))]))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], input=MARKDOWN, capture_output=True, text=True, check=True
    )
    assert json.loads(out.stdout) == [c.chunk_id for c in fc.chunk(MARKDOWN, fc.Markdown(40))]


def test_a_lone_surrogate_is_hashed_as_itself():
    text = "one \udc80 two three four five"
    chunks = fc.chunk(text, fc.TokenWindows(4))
    assert "".join(c.text for c in chunks) == text
    assert [c.chunk_id for c in chunks] == [ids.chunk_id(c.text) for c in chunks]
    assert [c.chunk_id for c in chunks] == [
        c.chunk_id for c in fc.chunk(text, fc.TokenWindows(4), backend="reference")
    ]
    assert ids.chunk_id("\udc80") != ids.chunk_id("\ufffd")
    assert ids.chunk_id("a\udc80") == xxh3_128_hex(b"a\xed\xb2\x80")


def test_chunks_written_before_ids_load_with_them():
    saved = json.loads((DATA / "chunks_before_ids.json").read_text(encoding="utf-8"))
    for protocol in ("protocol2", "protocol5"):
        old = pickle.loads(bytes.fromhex(saved[protocol]))
        assert old
        assert all(c.chunk_id == ids.chunk_id(_embedded(c)) for c in old)
    dicts = saved["dicts"]
    assert all("chunk_id" not in d for d in dicts)
    made = [fc.Chunk.from_dict(d) for d in dicts]
    assert [c.chunk_id for c in made] == [c.chunk_id for c in old]
    assert made[1].metadata["context"]
    assert made[1].chunk_id != ids.chunk_id(made[1].text)


def test_from_dict_refuses_an_id_that_is_not_the_texts():
    c = fc.chunk("Hello world.", fc.TokenWindows(8))[0]
    d = c.to_dict()
    assert d["chunk_id"] == c.chunk_id
    assert fc.Chunk.from_dict(d) == c
    d["chunk_id"] = "0" * 32
    with pytest.raises(ValueError, match="is not the id of the chunk's text"):
        fc.Chunk.from_dict(d)


def test_records_and_tables_carry_the_id():
    pa = pytest.importorskip("pyarrow")
    from ferrochunk.arrow import chunk_table

    config = fc.ParentChild(fc.Recursive(40), child=fc.Recursive(10))
    chunks = fc.chunk(MARKDOWN, config)
    assert [record(c, config)["chunk_id"] for c in chunks] == [c.chunk_id for c in chunks]
    table = chunk_table(pa.table({"text": [MARKDOWN, None, MARKDOWN]}), config)
    assert table.schema.field("chunk_id").type == pa.large_string()
    assert table.column("chunk_id").to_pylist() == [c.chunk_id for c in chunks] * 2
    kids = [
        k["chunk_id"] for row in table.column("children").to_pylist()[: len(chunks)] for k in row
    ]
    assert kids == [k.chunk_id for c in chunks for k in c.metadata["children"]]


def test_the_cli_writes_the_id(tmp_path):
    from ferrochunk.cli import main

    (tmp_path / "a.md").write_text(MARKDOWN, encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert main(["chunk", str(tmp_path / "a.md"), "--max-tokens", "40", "-o", str(out)]) == 0
    rows = [json.loads(line) for line in io.StringIO(out.read_text(encoding="utf-8"))]
    assert rows
    assert all(r["chunk_id"] == ids.chunk_id(r["text"]) for r in rows)


def test_record_ids_are_unique_and_survive_an_edit_elsewhere():
    config = fc.Markdown(40)
    before = fc.chunk(MARKDOWN, config)
    first = ids.record_ids("guide.md", before)
    assert len(set(first)) == len(first)
    edited = MARKDOWN.replace("Duplicate line.\n\nDuplicate line.\n", "Changed line.\n")
    after = fc.chunk(edited, config)
    second = ids.record_ids("guide.md", after)
    # The chunks before the edited section are the same chunks, with the same record ids.
    k = sum(c.char_end <= MARKDOWN.index("## Notes") for c in before)
    assert 2 < k < len(before)
    assert [c.chunk_id for c in after[:k]] == [c.chunk_id for c in before[:k]]
    assert second[:k] == first[:k]
    assert set(second[k:]).isdisjoint(first[k:])
    assert ids.record_ids("other.md", before) != first


def test_repeated_text_gets_one_record_id_per_occurrence():
    chunks = fc.chunk("same. same. same.", fc.TokenWindows(2))
    assert len({c.chunk_id for c in chunks}) == 2  # "same." and " same." twice
    rids = ids.record_ids("d", chunks)
    assert len(set(rids)) == 3
    assert rids[2] == ids.record_id("d", chunks[2].chunk_id, 1)


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: ids.chunk_id(b"bytes"), TypeError, "chunk_id takes str"),
        (lambda: ids.record_id(7, "0" * 32, 0), TypeError, r"doc_id must be a str, got 7 \(int\)"),
        (lambda: ids.record_id("d", "XYZ", 0), ValueError, "chunk_id must be 32 lowercase hex"),
        (lambda: ids.record_id("d", "0" * 32, -1), ValueError, "occurrence must be >= 0, got -1"),
        (lambda: ids.record_id("d", "0" * 32, 1.0), TypeError, "occurrence must be an int"),
    ],
)
def test_bad_input_is_named(call, error, message):
    with pytest.raises(error, match=message):
        call()


def _versions() -> tuple[dict[str, str], dict[str, str]]:
    old = {f"doc-{i}.md": MARKDOWN.replace("Guide", f"Guide {i}") for i in range(4)}
    new = dict(old)
    new["doc-1.md"] = old["doc-1.md"].replace("Call the function", "Call the method", 1)
    del new["doc-2.md"]
    new["doc-9.md"] = "A new page.\n"
    return old, new


def _table(docs: dict[str, str]):
    pa = pytest.importorskip("pyarrow")
    from ferrochunk.arrow import chunk_table

    data = pa.table({"doc_id": list(docs), "text": list(docs.values())})
    return chunk_table(data, fc.Markdown(40), keep_columns=["doc_id"], id_column="doc_id")


def test_chunk_tables_carry_record_ids_and_diff_by_them():
    from ferrochunk.arrow import diff_tables

    old, new = _versions()
    table = _table(old)
    assert table.column("record_id").to_pylist() == [
        r for d, t in old.items() for r in ids.record_ids(d, fc.chunk(t, fc.Markdown(40)))
    ]
    diff = diff_tables(_table(old), _table(new))
    before = set(_table(old).column("record_id").to_pylist())
    after = set(_table(new).column("record_id").to_pylist())
    assert set(diff.added.column("record_id").to_pylist()) == after - before
    assert set(diff.removed.column("record_id").to_pylist()) == before - after
    assert set(diff.added.column("doc_id").to_pylist()) == {"doc-1.md", "doc-9.md"}
    assert set(diff.removed.column("doc_id").to_pylist()) == {"doc-1.md", "doc-2.md"}
    assert diff.added.schema == _table(new).schema


def test_record_ids_in_tables_refuse_bad_id_columns():
    pa = pytest.importorskip("pyarrow")
    from ferrochunk.arrow import chunk_table, diff_tables

    data = pa.table({"n": [1], "doc": ["a"], "text": ["x"]})
    with pytest.raises(ValueError, match="must be one of keep_columns"):
        chunk_table(data, fc.Recursive(8), id_column="doc")
    with pytest.raises(ValueError, match="must be a string column"):
        chunk_table(data, fc.Recursive(8), keep_columns=["n"], id_column="n")
    with pytest.raises(ValueError, match="null document id"):
        chunk_table(
            pa.table(
                {"doc": [None], "text": ["x"]},
                schema=pa.schema([("doc", pa.string()), ("text", pa.string())]),
            ),
            fc.Recursive(8),
            keep_columns=["doc"],
            id_column="doc",
        )
    plain = chunk_table(data, fc.Recursive(8))
    with pytest.raises(ValueError, match="no record_id column"):
        diff_tables(plain, plain)


def test_a_table_with_one_document_id_twice_is_refused():
    pa = pytest.importorskip("pyarrow")
    from ferrochunk.arrow import chunk_table

    data = pa.table({"doc": ["a.md", "b.md", "a.md"], "text": ["Header. x", "y", "Header. z"]})
    with pytest.raises(ValueError, match=r"holds 'a\.md' more than once"):
        chunk_table(data, fc.Recursive(4), keep_columns=["doc"], id_column="doc")
