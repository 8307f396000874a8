"""``Html``: the rendering's parity (native against the reference), the tokenizer against
html5lib's, and the contract of ``docs/html.md``: text, drops, context, offsets, encodings,
hostile input."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import ferrochunk as fc
from ferrochunk import _native
from ferrochunk._html_encoding import decode, sniff
from ferrochunk.errors import ConfigError, ConfigTypeError
from ferrochunk.html import render
from ferrochunk.reference import html_tokenize as T
from ferrochunk.reference.html_render import Skip
from ferrochunk.reference.html_render import render as reference_render

PAGES = sorted((Path(__file__).parent / "data" / "html").glob("*.html"))
FRAGMENTS = [
    "<", ">", "/", "!", "-", "<!--", "-->", "&", ";", "#", "x", "a", "amp", "not", "=", "'",
    '"', " ", "\n", "\r", "\0", "é", "日本", "<p>", "</p>", "<script>", "</script>", "<title>",
    "</title>", "<style>", "<textarea>", "<![CDATA[", "]]>", "<svg>", "</svg>", "<math>",
    "</math>", "<h1>", "</h1>", "<h2>", "<ul>", "<ol start=3>", "<li>", "</li>", "</ul>",
    "<table>", "<tr>", "<td>", "<th>", "</td>", "</tr>", "</table>", "<caption>", "<pre>",
    "</pre>", "<br>", "</br>", "<hr>", "<blockquote>", "</blockquote>", "<div hidden>",
    "<div>", "</div>", "<b>", "</b>", "<span class=ad>", "</span>", "1.", "- ", "|", "`",
    "```", "* ", "&amp;", "&#x41;", "&nbsp;", "&notin", "<dd>", "<dt>", "<nav>", "</nav>",
    "<plaintext>", "<xmp>", "<tbody>", "<font color=r>", "\t", "<a href='x&amp;y'>", "</a>",
    "<listing>", "<!DOCTYPE html>", "<?x>", "</>", "<select><option>",
]  # fmt: skip
SOUP = st.lists(st.sampled_from(FRAGMENTS), max_size=40).map("".join)
SKIP = fc.Html(16, skip=("nav", ".ad", "#main"))


def both(page: str, config: fc.Html = SKIP) -> tuple[tuple[object, ...], tuple[object, ...]]:
    text, starts, ends, title = render(page, config)
    ref = render(page, config, backend="reference")
    return (text, list(starts), list(ends), title), (ref[0], list(ref[1]), list(ref[2]), ref[3])


# -- parity ---------------------------------------------------------------------------


@given(SOUP)
@example("<script><!--<script></script>x</script>b")
@example("<table><tr><td>a<table><td>b</table>c</table>d")
@example("<svg><p>out</svg><math><![CDATA[x]]></math>")
def test_render_native_equals_reference_on_tag_soup(page: str) -> None:
    native, ref = both(page)
    assert native == ref


@given(st.text(max_size=200))
def test_render_native_equals_reference_on_any_text(page: str) -> None:
    native, ref = both(page)
    assert native == ref


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.name)
def test_render_native_equals_reference_on_real_pages(path: Path) -> None:
    native, ref = both(path.read_text(encoding="utf-8"))
    assert native == ref


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.name)
def test_chunks_native_equal_reference_on_real_pages(path: Path) -> None:
    page = path.read_text(encoding="utf-8")
    config = fc.Html(128, overlap_tokens=16)
    assert fc.chunk(page, config) == fc.chunk(page, config, backend="reference")


# -- the tokenizer against html5lib's (an independent WHATWG implementation) -----------

_RAW = {
    "title": T.RCDATA, "textarea": T.RCDATA, "style": T.RAWTEXT, "xmp": T.RAWTEXT,
    "iframe": T.RAWTEXT, "noembed": T.RAWTEXT, "noframes": T.RAWTEXT, "noscript": T.RAWTEXT,
    "script": T.SCRIPT, "plaintext": T.PLAINTEXT,
}  # fmt: skip


def _merge_text(out: list[tuple[object, ...]], text: str) -> None:
    if out and out[-1][0] == "T":
        out[-1] = ("T", str(out[-1][1]) + text)
    else:
        out.append(("T", text))


def _ours(src: str) -> list[tuple[object, ...]]:
    tok = T.Tokenizer(src)
    out: list[tuple[object, ...]] = []
    for t in tok:
        if isinstance(t, T.Text):
            _merge_text(out, t.text)
        elif isinstance(t, T.StartTag):
            out.append(("S", t.name, tuple(sorted(t.attrs.items())), t.self_closing))
            if t.name in _RAW:
                tok.switch(_RAW[t.name], t.name)
        elif isinstance(t, T.EndTag):
            out.append(("E", t.name))
        else:
            out.append(("C",))
    return out


def _html5lib(src: str) -> list[tuple[object, ...]]:
    from html5lib._tokenizer import HTMLTokenizer
    from html5lib.constants import tokenTypes

    tok = HTMLTokenizer(src)
    states = {
        T.RCDATA: tok.rcdataState,
        T.RAWTEXT: tok.rawtextState,
        T.SCRIPT: tok.scriptDataState,
        T.PLAINTEXT: tok.plaintextState,
    }
    out: list[tuple[object, ...]] = []
    for t in tok:
        kind = t["type"]
        if kind in (tokenTypes["Characters"], tokenTypes["SpaceCharacters"]):
            _merge_text(out, t["data"])
        elif kind == tokenTypes["StartTag"]:
            attrs: dict[str, str] = {}
            for k, v in t["data"].items() if hasattr(t["data"], "items") else t["data"]:
                attrs.setdefault(k, v)
            out.append(("S", t["name"], tuple(sorted(attrs.items())), bool(t.get("selfClosing"))))
            if t["name"] in _RAW:
                tok.state = states[_RAW[t["name"]]]
        elif kind == tokenTypes["EndTag"]:
            out.append(("E", t["name"]))
        elif kind in (tokenTypes["Comment"], tokenTypes["Doctype"]):
            out.append(("C",))
    return out


@given(SOUP)
@example("<p>a &amp; b &notit; &notin; &#x41;&#0;&#x80;</p>")
@example("<a href=x&amp=1 title='a&ampb'>t</a>")
@example("<!-- c --> <!--> x <!---> y <!-- a --!> z")
@example("</>x</ y>z<?php ?>w<div class=a\r\nb>x\r\ny\rz</div>")
def test_tokenizer_agrees_with_html5lib(src: str) -> None:
    # html5lib 1.1 stays in its comment start state after a NUL (the standard moves to
    # the comment state), so a NUL right after "<!--" is left out.
    src = src.replace("<!--\0", "<!--")
    assert _ours(src) == _html5lib(src)


# -- the contract ---------------------------------------------------------------------


def test_rendering_is_light_markdown() -> None:
    page = (
        "<html><head><title> My  page </title><style>p{}</style></head><body>"
        "<nav>menu</nav><h1>Intro <a href=x>to</a> it</h1><p>Hello   <b>world</b>.<br>"
        "- dash line<p>Second<ul><li>one<li>two<ol start=3><li>x<li>y</ol></ul>"
        "<table><tr><th>A<th>B|x<tr><td>1<td>2</table><pre>\ncode ``` here\n x</pre>"
        "<blockquote>q1<p>q2</blockquote><div hidden>no</div>"
        '<script>var x="</div>";</script>end &amp; &copy; &notin;'
    )
    text, _, _, title = render(page, fc.Html(16))
    assert title == "My page"
    assert text == (
        "# Intro to it\n\nHello world.\n\\- dash line\n\nSecond\n\n- one\n- two\n  3. x\n"
        "  4. y\n\n| A | B\\|x |\n| --- | --- |\n| 1 | 2 |\n\n````\ncode ``` here\n x\n````"
        "\n\n> q1\n> q2\n\nend & © ∉"
    )


def test_dropped_elements_and_skip_selectors() -> None:
    page = (
        "<p>keep</p><script>s</script><style>t</style><template>u</template>"
        "<noscript>v</noscript><svg><text>w</text></svg><iframe>x</iframe><!-- y -->"
        "<p hidden>z</p><nav>n</nav><div class='a ad'>ad</div><div id=main>m</div><p>end</p>"
    )
    assert render(page, SKIP)[0] == "keep\n\nend"
    assert render(page, fc.Html(16, skip=()))[0] == "keep\n\nn\n\nad\n\nm\n\nend"


@given(SOUP)
def test_chunks_tile_the_rendering_and_keep_the_cap(page: str) -> None:
    config = fc.Html(16)
    chunks = fc.chunk(page, config)
    assert "".join(c.text for c in chunks) == render(page, config)[0]
    tok = fc.Tokenizer.from_name("cl100k")
    for c in chunks:
        assert c.metadata["oversize"] or tok.count(c.metadata["context"] + c.text) <= 16


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.name)
def test_offsets_span_each_chunks_visible_text(path: Path) -> None:
    page = path.read_text(encoding="utf-8")
    data = page.encode("utf-8")
    for c in fc.chunk(page, fc.Html(96)):
        source = page[c.char_start : c.char_end]
        assert data[c.byte_start : c.byte_end].decode("utf-8") == source
        words = re.findall(r"[A-Za-z]{4,}", c.text)
        if words:
            # The first and last plain words of the text are in the source range.
            assert words[0] in source
            assert words[-1] in source


def test_table_header_is_the_context_of_a_continued_table() -> None:
    rows = "".join(f"<tr><td>row {i}</td><td>value {i}</td></tr>" for i in range(40))
    page = f"<h2>Data</h2><table><tr><th>Name</th><th>Value</th></tr>{rows}</table>"
    chunks = fc.chunk(page, fc.Html(40))
    assert len(chunks) > 2
    for c in chunks[1:]:
        assert c.metadata["context"] == "## Data\n\n| Name | Value |\n| --- | --- |\n"
        assert c.metadata["headings"] == ((2, "Data"),)


def test_heading_inner_elements_stay_in_the_heading() -> None:
    # LangChain's HTMLHeaderTextSplitter splits a heading at its inner elements.
    page = '<h2><span class="n">53.61.</span> <code>pg_stats</code></h2><p>Statistics.</p>'
    c = fc.chunk(page, fc.Html(32))[0]
    assert c.metadata["headings"] == ((2, "53.61. pg_stats"),)
    assert c.text == "## 53.61. pg_stats\n\nStatistics."


def test_str_bytes_and_files_agree(tmp_path: Path) -> None:
    page = PAGES[0].read_text(encoding="utf-8")
    path = tmp_path / "page.html"
    path.write_bytes(page.encode("utf-8"))
    config = fc.Html(64)
    from_str = fc.chunk(page, config)
    assert [c.text for c in fc.chunk(page.encode("utf-8"), config)] == [c.text for c in from_str]
    assert [c.text for c in fc.chunk_file(path, config)] == [c.text for c in from_str]
    assert [c.text for c in fc.chunk_stream([page[:99], page[99:]], config)] == [
        c.text for c in from_str
    ]
    assert fc.chunk_many([page, ""], config, threads=1) == [from_str, []]
    assert {c.metadata["encoding"] for c in fc.chunk_file(path, config)} == {"UTF-8"}
    assert {c.metadata["encoding"] for c in from_str} == {None}


# -- encodings ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        (b"\xef\xbb\xbf<meta charset=euc-kr>", "UTF-8"),
        (b"\xff\xfe<", "UTF-16LE"),
        (b'<meta charset="EUC-KR">', "EUC-KR"),
        (b"<META HTTP-EQUIV='Content-Type' CONTENT='text/html; charset=Shift_JIS'>", "Shift_JIS"),
        (b"<meta charset=iso-8859-1>", "windows-1252"),
        (b"<meta charset=gb2312>", "gb18030"),
        (b"<meta charset=utf-16>", "UTF-8"),
        (b"<!-- <meta charset=euc-kr> --><p>", "UTF-8"),
        (b"<meta charset=no-such-thing>", "UTF-8"),
        (b"<p>" + b"x" * 2000 + b"<meta charset=euc-kr>", "UTF-8"),
    ],
)
def test_sniffing(head: bytes, expected: str) -> None:
    assert sniff(head) == expected


@pytest.mark.parametrize(
    ("label", "codec"), [("euc-kr", "cp949"), ("shift_jis", "cp932"), ("gbk", "gb18030")]
)
def test_legacy_pages_decode_and_report_their_encoding(
    tmp_path: Path, label: str, codec: str
) -> None:
    page = f"<meta charset={label}><title>題名</title><h1>見出し</h1><p>本文です。</p>"
    path = tmp_path / "page.html"
    path.write_bytes(page.encode(codec))
    (c,) = fc.chunk_file(path, fc.Html(64))
    assert c.text == "# 見出し\n\n本文です。"
    assert c.metadata["title"] == "題名"
    assert c.metadata["encoding"] == sniff(page.encode(codec))
    assert page[c.char_start : c.char_end] == "見出し</h1><p>本文です。"


def test_windows_1252_maps_its_c1_bytes_and_encoding_overrides() -> None:
    text, name = decode(b"<p>caf\xe9 \x80 \x81", "latin1")
    assert (text, name) == ("<p>café € \x81", "windows-1252")
    with pytest.raises(ConfigError, match="WHATWG"):
        decode(b"x", "no-such-label")


# -- hostile input --------------------------------------------------------------------


def test_deep_nesting_long_lines_and_garbage_do_not_fail() -> None:
    config = fc.Html(256)
    deep = "<div>" * 100_000 + "deep" + "</div>" * 100_000
    assert "deep" in "".join(c.text for c in fc.chunk(deep, config))
    line = "<p>" + "word " * 200_000
    assert sum(c.text.count("word") for c in fc.chunk(line, config)) == 200_000
    garbage = bytes(range(256)) * 64
    chunks = fc.chunk(garbage, config)
    assert all(c.token_count <= 256 for c in chunks)
    small = "<ul><li>" * 2000 + "x"
    native, ref = both(small)
    assert native == ref


def test_a_long_attribute_value_is_never_content() -> None:
    page = '<img src="data:' + "A" * 1_000_000 + '"><p>after</p>'
    assert [c.text for c in fc.chunk(page, fc.Html(32))] == ["after"]


# -- configs --------------------------------------------------------------------------


def test_config_validation_names_the_field() -> None:
    with pytest.raises(ConfigError, match=r"Html\.max_tokens"):
        fc.Html(8)
    with pytest.raises(ConfigError, match=r"Html\.overlap_tokens"):
        fc.Html(32, overlap_tokens=32)
    with pytest.raises(ConfigTypeError, match=r"Html\.skip"):
        fc.Html(32, skip="nav")
    with pytest.raises(ConfigError, match=r"Html\.skip\[0\]"):
        fc.Html(32, skip=("div > p",))
    with pytest.raises(ConfigError, match="boundaries"):
        fc.Html(32, boundaries="fast")
    with pytest.raises(ConfigError, match="clean"):
        fc.chunk("<p>x", fc.Html(32), clean=fc.CleanRules())


def test_spec_and_mapping_round_trip() -> None:
    config = fc.config_from_spec('html:max_tokens=512,skip=["nav",".ad"]')
    assert config == fc.Html(512, skip=("nav", ".ad"))
    assert fc.config_from_spec(fc.config_spec(config)) == config
    assert fc.config_from_mapping(fc.config_to_mapping(config))[0] == config


@settings(max_examples=20)
@given(SOUP)
def test_content_boundaries_apply(page: str) -> None:
    config = fc.Html(16, boundaries="content")
    assert fc.chunk(page, config) == fc.chunk(page, config, backend="reference")


def test_native_render_reports_chars_not_bytes() -> None:
    text, starts, ends, _ = _native.html_render("<p>日本 &amp;</p>", [], [], [])
    assert text == "日本 &"
    assert list(starts) == [3, 4, -1, 6]
    assert list(ends) == [4, 5, -1, 11]


def test_reference_render_skip_type() -> None:
    assert reference_render("<i class=x>a</i>b", Skip(classes=frozenset({"x"}))).text == "b"


def test_cli_chunks_legacy_pages_as_sniffed(tmp_path: Path) -> None:
    import json

    from ferrochunk.cli import main

    page = tmp_path / "page.html"
    page.write_bytes("<meta charset=euc-kr><h1>제목</h1><p>본문</p>".encode("cp949"))
    out = tmp_path / "out.jsonl"
    assert (
        main(["chunk", str(page), "--chunker", "html", "--max-tokens", "32", "-o", str(out)]) == 0
    )
    (row,) = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert (row["text"], row["encoding"], row["headings"]) == (
        "# 제목\n\n본문",
        "EUC-KR",
        [{"level": 1, "title": "제목"}],
    )
