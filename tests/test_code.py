"""`Code`: chunks that keep definitions whole, each with the headers of its scopes.

Scopes are checked against py-tree-sitter walked here by a finder of the tests' own (not
the scan), the cap with the context against the tokenizer, and the native cutter against
the reference twin (which parses with py-tree-sitter) on vendored files, the Python
standard library and generated code.
"""

from __future__ import annotations

import importlib
import itertools
import json
import pickle
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ferrochunk as fc
from ferrochunk.errors import ConfigError, ConfigTypeError

ts = pytest.importorskip("tree_sitter", reason="test extra: tree-sitter")

DATA = Path(__file__).resolve().parent / "data" / "code"
FILES = {
    "sample.py": "python",
    "sample.rs": "rust",
    "sample.ts": "typescript",
    "sample.go": "go",
    "sample.java": "java",
    "sample.c": "c",
    "sample.rb": "ruby",
    "sample.sh": "bash",
    "sample.js": "javascript",
    "sample.tsx": "tsx",
    "sample.cpp": "cpp",
    "sample.cs": "c_sharp",
    "sample.php": "php",
}
CL100K = fc.Tokenizer.cl100k()
STDLIB = Path(json.__file__).resolve().parent.parent
STDLIB_FILES = ["json/decoder.py", "textwrap.py", "argparse.py", "dataclasses.py"]

# The scope kinds of docs/code.md, written out again here.
SCOPE_KINDS = {
    "class_definition", "function_definition", "class_declaration", "function_declaration",
    "generator_function_declaration", "method_definition", "abstract_class_declaration",
    "interface_declaration", "enum_declaration", "internal_module", "module",
    "function_item", "impl_item", "trait_item", "mod_item", "struct_item", "enum_item",
    "union_item", "method_declaration", "record_declaration", "annotation_type_declaration",
    "constructor_declaration", "namespace_declaration", "struct_declaration",
    "struct_specifier", "union_specifier", "enum_specifier", "class_specifier",
    "namespace_definition", "class", "method", "singleton_method", "trait_declaration",
}  # fmt: skip


def _parse(source: str, language: str):  # type: ignore[no-untyped-def]
    from ferrochunk._grammars import capsule

    return ts.Parser(ts.Language(capsule(language))).parse(source.encode())


def _line_start(data: bytes, p: int) -> int:
    return data.rfind(b"\n", 0, p) + 1


def _outer_start(data: bytes, p: int) -> int:
    """Where a definition starting at ``p`` starts as a scope: its line's start when only
    white space stands before it there."""
    ls = _line_start(data, p)
    return ls if data[ls:p].strip(b" \t\r\x0c") == b"" else p


def _definitions(source: str, language: str) -> list[tuple[int, int, str, str]]:
    """Every scope as ``(first line start, end, kind, name)``, found by walking the tree
    with a stack of py-tree-sitter nodes."""
    data = source.encode()
    found = []
    stack = [_parse(source, language).root_node]
    while stack:
        node = stack.pop()
        if node.type == "ERROR":
            continue
        stack.extend(reversed(node.children))
        inner = node
        if node.type == "decorated_definition":
            inner = node.child_by_field_name("definition")
        elif node.parent is not None and node.parent.type == "decorated_definition":
            continue  # counted with its decorators
        if inner is None or inner.type not in SCOPE_KINDS:
            continue
        if inner.child_by_field_name("body") is None:
            continue
        name = inner.child_by_field_name("name")
        if name is None and inner.child_by_field_name("declarator") is not None:
            name = inner.child_by_field_name("declarator")
            while True:
                if name.child_by_field_name("declarator") is not None:
                    name = name.child_by_field_name("declarator")
                elif name.type.endswith("_declarator") and name.named_children:
                    name = name.named_children[0]
                else:
                    break
        if name is None:
            name = inner.child_by_field_name("type")
        text = name.text.decode() if name is not None else ""
        found.append((_outer_start(data, node.start_byte), node.end_byte, inner.type, text))
    return found


def _registry_rust() -> list[str]:
    """A few crates' sources from the cargo registry, which building ferrochunk fills."""
    root = Path.home() / ".cargo" / "registry" / "src"
    names = ("memchr", "aho-corasick", "rayon-core")
    files = sorted(
        f for f in root.glob("*/*/src/*.rs") if f.parent.parent.name.rsplit("-", 1)[0] in names
    )
    return [f.read_text(encoding="utf-8") for f in files[:6]]


def _sources() -> list[tuple[str, str]]:
    out = [((DATA / f).read_text(encoding="utf-8"), lang) for f, lang in FILES.items()]
    out += [((STDLIB / f).read_text(encoding="utf-8"), "python") for f in STDLIB_FILES]
    out += [(text, "rust") for text in _registry_rust()]
    return out


CONFIGS = [
    lambda lang: fc.Code(64, language=lang),
    lambda lang: fc.Code(128, language=lang, overlap_tokens=16),
    lambda lang: fc.Code(24, language=lang, context=False),
    lambda lang: fc.Code(64, language=lang, boundaries="content"),
    lambda lang: fc.Code(96, language=lang, overlap_tokens=12, boundaries="content"),
]
IDS = ["64", "128-overlap", "24-no-context", "64-content", "96-overlap-content"]


@pytest.mark.parametrize("make", CONFIGS, ids=IDS)
def test_chunks_cover_the_source_and_hold_the_cap_with_the_context(make) -> None:  # type: ignore[no-untyped-def]
    checked = 0
    for source, lang in _sources():
        config = make(lang)
        chunks = fc.chunk(source, config)
        assert chunks[0].char_start == 0
        assert chunks[-1].char_end == len(source)
        for before, c in itertools.pairwise(chunks):
            assert c.char_start <= before.char_end  # no gap; overlap reaches back
        for c in chunks:
            assert source[c.char_start : c.char_end] == c.text
            embedded = c.metadata["context"] + c.text
            if not config.context:
                assert c.metadata["context"] == ""
            if not c.metadata["oversize"]:
                checked += 1
                assert CL100K.count(embedded) <= config.max_tokens, (lang, embedded)
            else:
                assert CL100K.count(embedded) > config.max_tokens
        if config.overlap_tokens == 0:
            assert "".join(c.text for c in chunks) == source
    assert checked > 100


@pytest.mark.parametrize("max_tokens", [32, 96])
def test_scopes_are_the_definitions_py_tree_sitter_finds(max_tokens: int) -> None:
    for source, lang in _sources():
        data = source.encode()
        defs = _definitions(source, lang)
        for c in fc.chunk(source, fc.Code(max_tokens, language=lang)):
            at = c.byte_start
            holding = [d for d in defs if d[0] <= at < d[1]]
            holding.sort(key=lambda d: (d[0], -d[1]))
            assert c.metadata["scopes"] == tuple((d[2], d[3]) for d in holding), (lang, at)
            # The context is the headers of those the chunk does not open with.
            for start, _, _, _ in holding:
                header = data[start:at].decode().split("\n")[0]
                if start < at and c.metadata["context"]:
                    assert (
                        header.strip() == ""
                        or header in c.metadata["context"]
                        or (
                            header not in c.metadata["context"]  # given way to the cap
                            and CL100K.count(c.metadata["context"]) <= max_tokens // 2
                        )
                    )


def test_scopes_name_what_the_reader_expects() -> None:
    source = (DATA / "sample.py").read_text(encoding="utf-8")
    at = source.index("        while self.SEP")
    chunks = fc.chunk(source, fc.Code(40, language="python"))
    c = next(c for c in chunks if c.char_start <= at < c.char_end)
    assert c.metadata["scopes"][:2] == (
        ("class_definition", "Parser"),
        ("function_definition", "feed"),
    )
    assert c.metadata["context"].startswith("@dataclass\nclass Parser(Base):\n")
    # The method's header is in the context, unless the chunk opens with it.
    assert "    def feed(self, data: bytes) -> None:\n" in c.metadata["context"] + c.text
    rust = (DATA / "sample.rs").read_text(encoding="utf-8")
    at = rust.index("        let found")
    chunks = fc.chunk(rust, fc.Code(16, language="rust"))
    c = next(c for c in chunks if c.char_start <= at < c.char_end)
    assert c.metadata["scopes"] == (("impl_item", "Store"), ("function_item", "get"))


def test_no_definition_that_fits_is_cut() -> None:
    cut = 0
    for source, lang in _sources():
        data = source.encode()
        for max_tokens in (48, 160):
            chunks = fc.chunk(source, fc.Code(max_tokens, language=lang))
            starts = {c.byte_start for c in chunks}
            for start, end, kind, name in _definitions(source, lang):
                # The definition with the comments right above it, as one span.
                above = _line_start(data, max(start - 1, 0))
                while above < start and data[above:start].lstrip()[:1] in (b"#", b"/", b"*", b"@"):
                    start, above = above, _line_start(data, max(above - 1, 0))
                tokens = CL100K.count(data[start:end].decode())
                if tokens > max_tokens - 2:
                    continue  # the one-pass token count at the edges can differ by one
                inside = [s for s in starts if start < s < end]
                cut += bool(inside)
                assert not inside, (lang, kind, name, max_tokens)
    assert cut == 0


def test_native_equals_reference_on_real_code() -> None:
    for source, lang in _sources():
        for make in CONFIGS:
            config = make(lang)
            assert fc.chunk(source, config) == fc.chunk(source, config, backend="reference")


_NAMES = st.sampled_from(["a", "run", "Parser", "x1", "_k"])


@st.composite
def _python(draw, depth: int = 0) -> str:  # type: ignore[no-untyped-def]
    lines: list[str] = []
    pad = "    " * depth
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["def", "class", "stmt", "if", "comment", "blank"]))
        name = draw(_NAMES)
        if kind in ("def", "class") and depth < 4:
            if draw(st.booleans()):
                lines.append(f"{pad}@wrap")
            head = f"def {name}(self, y):" if kind == "def" else f"class {name}(Base):"
            lines.append(pad + head)
            lines.append(draw(_python(depth + 1)))
        elif kind == "if" and depth < 4:
            lines.append(f"{pad}if {name} > 1:")
            lines.append(draw(_python(depth + 1)))
        elif kind == "comment":
            lines.append(f"{pad}# note on {name}")
        elif kind == "blank":
            lines.append("")
        else:
            lines.append(f"{pad}{name} = {name} + {draw(st.integers(0, 10**6))}")
    if not any(line.strip() and not line.strip().startswith("#") for line in lines):
        lines.append(f"{pad}pass")
    return "\n".join(lines)


@settings(max_examples=60, deadline=None)
@given(
    source=_python(),
    max_tokens=st.integers(16, 80),
    overlap=st.integers(0, 8),
    boundaries=st.sampled_from(["greedy", "content"]),
)
def test_native_equals_reference_on_generated_python(
    source: str, max_tokens: int, overlap: int, boundaries: str
) -> None:
    config = fc.Code(max_tokens, language="python", overlap_tokens=overlap, boundaries=boundaries)
    native = fc.chunk(source + "\n", config)
    assert native == fc.chunk(source + "\n", config, backend="reference")
    for c in native:
        if not c.metadata["oversize"]:
            assert CL100K.count(c.metadata["context"] + c.text) <= max_tokens


HOSTILE = {
    "binary": bytes(range(256)).decode("latin-1") * 20,
    "nul": "def f():\n    return '\x00\x00'\n\x00\x00\n",
    "nested": "x = " + "[" * 10_000 + "]" * 10_000 + "\n",
    "one long line": "var a=1;" * 40_000,
    "wrong language": (DATA / "sample.py").read_text(encoding="utf-8"),
    "empty": "",
    "crlf": (DATA / "sample.py").read_text(encoding="utf-8").replace("\n", "\r\n"),
    "tabs": (DATA / "sample.py").read_text(encoding="utf-8").replace("    ", "\t"),
    "broken": "class A(:\n    def f(self\n        return [1, 2\n\ndef g():\n    pass\n",
    # 120 functions each inside the last: the context holds the 32 innermost headers.
    "nested definitions": "".join(
        f"{'    ' * d}def f{d}(x):\n{'    ' * (d + 1)}y = x + {d}\n" for d in range(120)
    )
    + " " * 480
    + "return y\n",
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_input_keeps_every_byte_and_the_cap(name: str) -> None:
    source = HOSTILE[name]
    lang = "rust" if name in ("wrong language", "one long line") else "python"
    config = fc.Code(48, language=lang)
    chunks = fc.chunk(source, config)
    assert "".join(c.text for c in chunks) == source
    for c in chunks:
        assert c.metadata["oversize"] or CL100K.count(c.metadata["context"] + c.text) <= 48
    if len(source) < 100_000:
        assert chunks == fc.chunk(source, config, backend="reference")


def test_many_threads_and_a_python_tokenizer_agree_with_chunk() -> None:
    sources = [s for s, lang in _sources() if lang == "python"]
    config = fc.Code(64, language="python")
    assert fc.chunk_many(sources, config) == [fc.chunk(s, config) for s in sources]

    # A Python tokenizer (runs of white space or not): the cutter calls it back to count
    # the context with the text.
    def words(text: str) -> tuple[list[int], list[int]]:
        starts = [m.start() for m in re.finditer(r"\s+|\S+", text)]
        return [0] * len(starts), starts

    tok = fc.Tokenizer.from_callable(words, name="words")
    chunks = fc.chunk(sources[0], config, tokenizer=tok)
    assert "".join(c.text for c in chunks) == sources[0]
    assert len(chunks) > 3
    for c in chunks:
        assert c.metadata["oversize"] or tok.count(c.metadata["context"] + c.text) <= 64
    assert any(c.metadata["context"] for c in chunks)


def test_a_named_config_pickles_and_a_capsule_says_to_pass_the_name() -> None:
    config = fc.Code(64, language="python", overlap_tokens=4)
    assert pickle.loads(pickle.dumps(config)) == config
    capsule = importlib.import_module("tree_sitter_python").language()
    held = fc.Code(64, language=capsule)
    assert fc.chunk("def f():\n    pass\n", held) == fc.chunk("def f():\n    pass\n", config)
    with pytest.raises(TypeError, match="language='python'"):
        pickle.dumps(held)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"max_tokens": 15}, ConfigError, "Code.max_tokens"),
        ({"overlap_tokens": -1}, ConfigError, "Code.overlap_tokens"),
        ({"overlap_tokens": 64}, ConfigError, "Code.overlap_tokens"),
        ({"context": "yes"}, ConfigTypeError, "Code.context"),
        ({"boundaries": "fastcdc"}, ConfigError, "Code.boundaries must be 'greedy'"),
        ({"language": "cobol"}, ConfigError, "'cobol'"),
        ({"language": None}, ConfigTypeError, "None"),
    ],
)
def test_bad_settings_name_the_field_and_value(kwargs, error, match) -> None:  # type: ignore[no-untyped-def]
    settings_ = {"max_tokens": 64, "language": "python", **kwargs}
    with pytest.raises(error, match=match):
        fc.Code(settings_.pop("max_tokens"), **settings_)


def test_a_missing_grammar_package_names_what_to_install() -> None:
    with pytest.raises(ImportError, match="pip install tree-sitter-no-such-grammar"):
        fc.Code(64, language="tree_sitter_no_such_grammar:language")


WRONG_OBJECTS = """
import datetime, json, tree_sitter, tree_sitter_python
import ferrochunk as fc
from ferrochunk.errors import ConfigError
cases = {
    "module": tree_sitter_python,
    "function": tree_sitter_python.language,
    "Language": tree_sitter.Language(tree_sitter_python.language()),
    "another capsule": datetime.datetime_CAPI,
    "int": 5,
    "None": None,
    "bytes": b"python",
}
out = {}
for name, value in cases.items():
    try:
        fc.chunk("def f():\\n    pass\\n", fc.Code(32, language=value))
        out[name] = "no error"
    except ConfigError as exc:
        out[name] = [type(exc).__name__, str(exc)]
print(json.dumps(out))
"""


def test_wrong_objects_raise_typed_errors_and_never_crash() -> None:
    done = subprocess.run(
        [sys.executable, "-c", WRONG_OBJECTS], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert set(out) == {"module", "function", "Language", "another capsule", "int", "None", "bytes"}
    for name, result in out.items():
        assert result != "no error", name
        assert "Code.language" in result[1], (name, result)
    assert "language()" in out["module"][1]
    assert "call it" in out["function"][1]
    assert "not a Language" in out["Language"][1]
    assert "tree_sitter.Language" in out["another capsule"][1]
    assert "older than 0.22" in out["int"][1]


def test_integrations_carry_the_scope_path_and_keep_the_cap() -> None:
    pytest.importorskip("langchain_text_splitters")
    pytest.importorskip("llama_index.core")
    from llama_index.core import Document
    from llama_index.core.schema import MetadataMode

    from ferrochunk.integrations.langchain import FerroTextSplitter
    from ferrochunk.integrations.llama_index import FerroNodeParser

    source = (DATA / "sample.py").read_text(encoding="utf-8")
    config = fc.Code(48, language="python")
    docs = FerroTextSplitter(config, context_in_content=True).create_documents([source])
    feed = [d for d in docs if d.metadata["scope_path"] == "Parser.feed"]
    assert feed
    assert feed[0].metadata["scopes"][0] == ["class_definition", "Parser"]
    assert all(CL100K.count(d.page_content) <= 48 for d in docs)
    nodes = FerroNodeParser(config=config).get_nodes_from_documents(
        [Document(text=source, metadata={"path": "sample.py"})]
    )
    assert {"Parser.feed", "Parser.close"} <= {n.metadata["scope_path"] for n in nodes}
    for n in nodes:
        embedded = n.get_content(MetadataMode.EMBED)
        assert "scope_path" not in embedded
        assert CL100K.count(embedded) <= 48


def test_haystack_round_trips_a_code_config() -> None:
    pytest.importorskip("haystack")
    from haystack import Document

    from ferrochunk.integrations.haystack import FerroDocumentSplitter

    splitter = FerroDocumentSplitter(config=fc.Code(48, language="python"))
    again = FerroDocumentSplitter.from_dict(splitter.to_dict())
    source = (DATA / "sample.py").read_text(encoding="utf-8")
    out = again.run([Document(content=source)])["documents"]
    assert "".join(d.content for d in out) == source
    assert "Parser.feed" in {d.meta["scope_path"] for d in out}


def test_arrow_table_has_scope_columns() -> None:
    pa = pytest.importorskip("pyarrow")
    from ferrochunk.arrow import chunk_table

    sources = [s for s, lang in _sources() if lang == "python"]
    config = fc.Code(64, language="python")
    table = chunk_table(pa.table({"text": sources}), config)
    expected = [c for s in sources for c in fc.chunk(s, config)]
    assert table.column("text").to_pylist() == [c.text for c in expected]
    assert table.column("scopes").to_pylist() == [
        [{"kind": k, "name": n} for k, n in c.metadata["scopes"]] for c in expected
    ]
    assert table.column("context").to_pylist() == [c.metadata["context"] for c in expected]


def test_cli_auto_picks_grammars_by_extension_and_passes_over_other_files(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    from ferrochunk.cli import main

    (tmp_path / "src").mkdir()
    for name in ("sample.py", "sample.rs", "sample.go"):
        (tmp_path / "src" / name).write_text((DATA / name).read_text(encoding="utf-8"))
    (tmp_path / "src" / "notes.txt").write_text("not code\n")
    (tmp_path / "src" / "logo.png").write_bytes(b"\x89PNG\x00\x01")
    out = tmp_path / "chunks.jsonl"
    code = main(["chunk", str(tmp_path / "src"), "--chunker", "code", "--max-tokens", "64",
                 "-o", str(out)])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 0, err
    assert "2 files not code passed over" in err
    records = [json.loads(line) for line in out.read_text().splitlines()]
    by_file: dict[str, str] = {}
    for r in records:
        by_file[Path(r["source"]).name] = by_file.get(Path(r["source"]).name, "") + r["text"]
    assert by_file == {n: (DATA / n).read_text(encoding="utf-8") for n in by_file}
    assert set(by_file) == {"sample.py", "sample.rs", "sample.go"}
    assert any(r["scopes"] == [{"kind": "impl_item", "name": "Store"}] for r in records)


def test_cli_records_need_an_explicit_language(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    from ferrochunk.cli import main

    records = tmp_path / "code.jsonl"
    records.write_text(json.dumps({"text": "def f():\n    return 1\n"}) + "\n")
    assert main(["chunk", str(records), "--chunker", "code"]) == 2
    assert "--language NAME" in capsys.readouterr().err
    assert main(["chunk", str(records), "--chunker", "code", "--language", "python"]) == 0
    assert '"scopes"' in capsys.readouterr().out


def test_stream_file_spans_and_items_agree_with_chunk(tmp_path) -> None:  # type: ignore[no-untyped-def]
    source = (DATA / "sample.rs").read_text(encoding="utf-8")
    config = fc.Code(32, language="rust")
    whole = fc.chunk(source, config)
    pieces = [source[:100], source[100:333], source[333:]]
    assert list(fc.chunk_stream(iter(pieces), config)) == whole
    path = tmp_path / "sample.rs"
    path.write_bytes(source.encode("utf-8"))
    assert list(fc.chunk_file(path, config)) == whole
    spans = fc.chunk_spans(source, config)
    assert spans[:, 4].tolist() == [c.char_start for c in whole]
    items = fc.chunk_items([{"text": source, "path": "sample.rs"}], config)
    assert [c.text for c in items] == [c.text for c in whole]


def test_bench_code_measures_every_language_with_quality_columns(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    from ferrochunk.cli import main

    for name in ("sample.py", "sample.rs"):
        (tmp_path / name).write_text((DATA / name).read_text(encoding="utf-8"))
    (tmp_path / "notes.txt").write_text("not code\n")
    out = tmp_path / "bench.json"
    argv = ["bench", str(tmp_path), "--chunker", "code", "--max-tokens", "64", "--repeat", "1"]
    assert main([*argv, "--json", str(out)]) == 0
    table = capsys.readouterr().out
    assert "defs cut" in table
    assert "× parse" in table
    rows = json.loads(out.read_text())["results"]
    ours = {r["language"]: r for r in rows if r["label"] == "ferrochunk Code"}
    assert set(ours) == {"python", "rust"}
    for r in ours.values():
        assert r["chunks"] > 3
        assert r["mb_per_s"] > 0
        assert r["quality"]["over_cap"] == 0
        assert r["quality"]["defs_cut"] == 0
    floors = [r for r in rows if r["label"].startswith("tree-sitter")]
    assert len(floors) == 2
    assert all(r["chunks"] is None for r in floors)


CLASS = "".join(
    f"    def method_{i}(self, value_{i}):\n        return value_{i} * {i} + self.base_{i}\n\n"
    for i in range(12)
)
CLASS = f"class Account(Base):\n{CLASS}\nclass Ledger:\n{CLASS.replace('method', 'entry')}"


@pytest.mark.parametrize("backend", ["native", "reference"])
@pytest.mark.parametrize(("max_tokens", "overlap"), [(40, 20), (48, 8), (64, 40), (16, 15)])
def test_the_first_chunk_reserves_no_overlap(backend: str, max_tokens: int, overlap: int) -> None:
    """It takes none, so it is the chunk the config without overlap cuts."""
    with_overlap = fc.chunk(
        CLASS, fc.Code(max_tokens, language="python", overlap_tokens=overlap), backend=backend
    )
    without = fc.chunk(CLASS, fc.Code(max_tokens, language="python"), backend=backend)
    assert with_overlap[0] == without[0]
    if max_tokens >= 40:  # room for a method: not the header alone
        assert with_overlap[0].text != "class Account(Base):\n"


@pytest.mark.parametrize("backend", ["native", "reference"])
@pytest.mark.parametrize(("max_tokens", "overlap"), [(40, 20), (48, 30), (64, 40), (32, 24)])
def test_an_overlap_never_repeats_a_header_its_context_carries(
    backend: str, max_tokens: int, overlap: int
) -> None:
    config = fc.Code(max_tokens, language="python", overlap_tokens=overlap)
    chunks = fc.chunk(CLASS, config, backend=backend)
    assert any(b.char_start < a.char_end for a, b in itertools.pairwise(chunks))  # overlaps
    for c in chunks:
        for header in filter(None, c.metadata["context"].splitlines()):
            assert header not in c.text, (header, c.text)
