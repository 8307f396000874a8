"""VoltAgent compat (native tokenizer) against the reference on generated inputs, the
spec's invariants on both backends, and its worked examples (of `@voltagent/rag` 1.0.2)."""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import corpus_files, read_corpus

from ferrochunk import _native
from ferrochunk.compat import voltagent as native
from ferrochunk.reference import voltagent as reference
from ferrochunk.reference.voltagent._js import WS_CLASS, from_js, js_slice, js_trim, to_js

MODULES = {"native": native, "reference": reference}
NATIVE = native.NativeTiktokenizer()
REFERENCE = reference.default_tokenizer()
WHITESPACE = reference.whitespace_tokenizer

SPECIAL_TOKENS = ("<|endoftext|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>")


def outcome(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """The result as JSON (the vectors' form: key order, ints vs floats, lone surrogates
    escaped), or the exception's type and message."""
    try:
        return ("ok", json.dumps(fn(*args, **kwargs)))
    except Exception as exc:
        return ("raised", type(exc).__name__, str(exc))


def same(fn: Callable[[Any], Any]) -> Any:
    """``fn(module)`` on both backends: equal results or equal exceptions."""
    got, want = outcome(fn, native), outcome(fn, reference)
    assert got == want
    return want


def sometimes(strategy: st.SearchStrategy[Any], odds: int = 10) -> st.SearchStrategy[Any]:
    """``strategy`` about once in ``odds`` draws, ``None`` otherwise. (The top of a wide
    integer range: hypothesis favours small integers, so a small choice fires far more.)"""
    return st.integers(0, 255).flatmap(
        lambda k: strategy if k * odds >= 255 * (odds - 1) else st.none()
    )


def with_rare(
    base: st.SearchStrategy[list[str]], rare: st.SearchStrategy[str]
) -> st.SearchStrategy[str]:
    """The fragments of ``base``, joined, with one ``rare`` fragment inserted now and then."""
    return st.tuples(sometimes(rare), base, st.integers(0, 64)).map(
        lambda t: "".join(t[1] if t[0] is None else [*t[1][: t[2]], t[0], *t[1][t[2] :]])
    )


# -- §2.2 the tokenizer: js-tiktoken cl100k_base -----------------------------------------
FRAGMENTS = st.sampled_from(
    [
        *["hello", "World", "the", "x", "aaaaaaaa", "données", "naïve", "ſ", "Straße"],
        *["1", "123", "45678", "٣٤", "Ⅻ"],
        *[".", "!", "?", "...", ",", ";", "?!", "—", "(", ")", '"', "'", "``", "<|", "|>"],
        *[" ", "  ", "   ", "\t", "\n", "\n\n", "\r\n", "\r", "\n \n", "\x0b", "\x0c"],
        *["\xa0", "\u3000", "\ufeff", "\u0085", "\u2028", "\u2029", "\u180e", "\u200b"],
        *["你好", "世界", "。", "，", "日本語", "한국어", "ｶﾀｶﾅ"],
        *["😀", "👍🏽", "🇫🇷", "𝔘", "👩‍👩‍👧", "\u200d", "\ufe0f", "e\u0301"],
        *["'s", "'S", "'ſ", "'ll", "'LL", "'Re", "'vE", "'m", "'D", "'t"],
        *["\ud800", "\udc00", "\udbff", "\ufffd", "\xef\xbb\xbf"],
    ]
)
TOKENIZER_TEXT = with_rare(
    st.lists(FRAGMENTS, max_size=40), st.sampled_from([*SPECIAL_TOKENS, "<|endofprompt|>"])
)


def tokenizer_outcome(fn: Callable[[str], Any], js: str) -> Any:
    try:
        return ("ok", fn(js))
    except ValueError as exc:
        return ("raised", str(exc))


def inside_pair(js: str, k: int) -> bool:
    """Whether UTF-16 position ``k`` cuts a surrogate pair of ``js``."""
    return 0 < k < len(js) and "\ud800" <= js[k - 1] <= "\udbff" and "\udc00" <= js[k] <= "\udfff"


@given(TOKENIZER_TEXT)
def test_tokenizer_parity(text):
    js = to_js(text)
    for method in ("spans", "values", "count"):
        got = tokenizer_outcome(getattr(NATIVE, method), js)
        want = tokenizer_outcome(getattr(REFERENCE, method), js)
        assert got == want, method
    spans = tokenizer_outcome(REFERENCE.spans, js)
    if spans[0] == "ok":
        starts, ends = spans[1]
        values = REFERENCE.values(js)
        assert [e - s for s, e in zip(starts, ends, strict=True)] == [len(v) for v in values]
        assert starts[:1] in ([], [0])
        # Offsets are the decoded lengths: exact on text whose pieces rejoin to it (§2.2).
        if "".join(values) == js:
            assert ends[-1:] in ([], [len(js)])
    else:
        assert any(t in text for t in (*SPECIAL_TOKENS, "<|endofprompt|>"))


@given(st.lists(TOKENIZER_TEXT, max_size=6))
def test_counts_parity(texts):
    texts = [to_js(t) for t in texts]
    assert tokenizer_outcome(NATIVE.counts, texts) == tokenizer_outcome(REFERENCE.counts, texts)


@given(TOKENIZER_TEXT, st.data())
def test_prefix_counts_parity(text, data):
    js = to_js(text)
    positions = data.draw(st.lists(st.integers(0, len(js)), max_size=12))
    outside = [k - 1 if inside_pair(js, k) else k for k in positions]
    # countTokens(text.slice(0, k)) for each k, in order: a special token raises only
    # once a prefix holds it.
    want = tokenizer_outcome(lambda t: REFERENCE.prefix_counts(t, outside), js)
    assert want == tokenizer_outcome(
        lambda t: [REFERENCE.count(js_slice(t, 0, k)) for k in outside], js
    )
    assert tokenizer_outcome(lambda t: NATIVE.prefix_counts(t, outside), js) == want
    # A cut inside a surrogate pair falls back to counting that prefix on its own.
    got = tokenizer_outcome(lambda t: NATIVE.prefix_counts(t, positions), js)
    assert got == tokenizer_outcome(lambda t: REFERENCE.prefix_counts(t, positions), js)
    if not any(t in text for t in (*SPECIAL_TOKENS, "<|endofprompt|>")):
        # The Rust one-pass algorithm itself (no fallback), positions in any order.
        raw = _native.voltagent_prefix_counts(native._utf8(js), np.asarray(outside, np.uint64))
        assert ("ok", raw.tolist()) == want


def test_counts_name_the_first_special_token():
    """Upstream counts one text after another, so the first text holding a special token
    is the one named, however the batch is split across threads."""
    heavy = "word " * 200
    texts = [heavy] * 2000 + ["<|fim_prefix|>", "<|endoftext|>"] + [heavy] * 2000
    for _ in range(5):
        with pytest.raises(ValueError, match=r"not allowed: <\|fim_prefix\|>$"):
            NATIVE.counts(texts)
    # Through a chunker: splitIntoParagraphs counts the paragraphs in order.
    filler = ["Some words here. " * 20] * 1000
    text = "\n\n".join([*filler, "A <|fim_prefix|> b.", "C <|endoftext|> d.", *filler])
    for _ in range(10):
        with pytest.raises(ValueError, match=r"not allowed: <\|fim_prefix\|>$"):
            native.RecursiveChunker().chunk(text)


def test_prefix_counts_across_merges_and_pairs():
    js = to_js("a😀b 'sſ  \ufeff  x 你好世界。 aaaaaaaa\r\n\r\n12345")
    positions = list(range(len(js) + 1))
    want = [REFERENCE.count(js_slice(js, 0, k)) for k in positions]
    assert NATIVE.prefix_counts(js, positions) == want
    assert NATIVE.prefix_counts(js, positions[::-1]) == want[::-1]
    assert any(inside_pair(js, k) for k in positions)


def test_special_tokens_raise_in_every_tokenizer_method():
    js = "a <|fim_middle|> b <|endoftext|>"
    for tok in (NATIVE, REFERENCE):
        for call in (tok.spans, tok.values, tok.count, lambda t, tok=tok: tok.counts(["ok", t])):
            with pytest.raises(ValueError, match=r"not allowed: <\|fim_middle\|>$"):
                call(js)
    assert NATIVE.count("<|endoftext") == REFERENCE.count("<|endoftext") > 0


def test_js_whitespace_in_the_split():
    """§2.2 parity note: js-tiktoken's split reads \\s as JS does (U+FEFF in, U+0085 out),
    where stock tiktoken pieces "  \\ufeff  x" differently."""
    from ferrochunk.reference._tiktoken import cl100k

    text = "  \ufeff  x"
    stock = [cl100k().decode_single_token_bytes(t) for t in cl100k().encode_ordinary(text)]
    assert stock == [b" ", b" \xef\xbb\xbf", b" ", b" x"]
    for tok in (NATIVE, REFERENCE):
        assert tok.values(text) == ["  ", "", " ", " x"]  # the BOM token decodes to ""
        assert tok.spans(text) == ([0, 2, 2, 3], [2, 2, 3, 5])
        assert tok.values("a\x85 b") == ["a", "\ufffd", "\ufffd", " b"]


def _corpus_slices() -> list[tuple[str, str]]:
    slices = []
    for path in corpus_files():
        text = read_corpus(path)
        step = max(1, len(text) // 3)
        for at in range(0, len(text), step)[:3]:
            slices.append((f"{path.name}@{at}", text[at : at + 3000]))
    return slices


CORPUS = _corpus_slices()
SENTENCE_END = re.compile(r"[.!?]+")


def test_corpus_tokens():
    assert len(CORPUS) >= 3 * len(corpus_files()) >= 9
    for name, text in CORPUS:
        js = to_js(text)
        assert NATIVE.spans(js) == REFERENCE.spans(js), name
        assert NATIVE.values(js) == REFERENCE.values(js), name
        assert NATIVE.count(js) == REFERENCE.count(js) > 0, name
        cuts = [m.end() for m in SENTENCE_END.finditer(js)][:40]
        assert NATIVE.prefix_counts(js, cuts) == REFERENCE.prefix_counts(js, cuts), name


def test_corpus_chunkers():
    for name, text in CORPUS[::2]:
        for tok in ("cl100k_base", "whitespace"):
            same(lambda m, t=text, k=tok: m.SentenceChunker(k).chunk(t, max_tokens=40))
            got = same(
                lambda m, t=text, k=tok: m.RecursiveChunker(k).chunk(
                    t, max_tokens=48, overlap_tokens=5
                )
            )
            assert got[0] == "ok", name
            assert json.loads(got[1]), name


# -- §5 / §6 / §7 the chunkers: native == reference --------------------------------------
WORDS = ["Alpha", "beta", "gamma", "delta", "x", "It's", "42", "1999", "e.g.", "naïve"]
CHUNK_FRAGMENTS = st.sampled_from(
    [
        *WORDS,
        *[" ", " ", " ", "  ", "\n", "\n\n", "\n\n\n", "\r\n\r\n", "\n \n", "\t"],
        *[". ", "! ", "? ", ".", "...", "?!", ", "],
        *["你好世界", "。", "！", "日本語", "😀", "👩‍👩‍👧", "\u3000", "\ufeff", "\xa0", "\u0085"],
    ]
)
SOUP = st.lists(CHUNK_FRAGMENTS, max_size=60)
# Paragraphs of sentences of words: the shape that reaches sentence groups and windows.
SENTENCE = st.tuples(
    st.lists(st.sampled_from([*WORDS, "你好世界", "😀", "日本語"]), min_size=1, max_size=10),
    st.sampled_from([".", "!", "?", "...", "?!", "", "。"]),
).map(lambda t: " ".join(t[0]) + t[1])
GAP = st.sampled_from([" ", " ", " ", "  ", "\n", "\t", "\xa0", "\u3000", "\ufeff", "\u0085"])
PARAGRAPH = st.lists(st.tuples(SENTENCE, GAP), min_size=1, max_size=5).map(
    lambda ps: "".join(s + gap for s, gap in ps).rstrip(" ")
)
PROSE = st.lists(
    st.tuples(PARAGRAPH, st.sampled_from(["\n\n", "\n\n\n", " \n\n ", "\n", "\r\n\r\n"])),
    max_size=4,
).map(lambda ps: ["".join(p) for p in ps])
CHUNK_TEXT = with_rare(
    st.one_of(SOUP, PROSE),
    st.sampled_from(["<|endoftext|>", "\ud800", "\udc00", "\ufeff\ufeff"]),
)
TOKENIZER = st.sampled_from(["cl100k_base", "whitespace"])
NUMBER = st.one_of(
    st.integers(-2, 12),
    st.integers(-2, 60),
    st.integers(-4, 120).map(lambda x: x / 2),
    st.sampled_from([2.5, 0.5, 1.25, 2.01, -0.5]),
)
SMALL = st.one_of(st.integers(-2, 12), st.sampled_from([2.5, 0.5, 1.5, 3.25]))
OVERLAP = st.one_of(
    st.integers(-2, 70), st.integers(-2, 8), st.integers(-4, 140).map(lambda x: x / 2)
)
METADATA = st.fixed_dictionaries(
    {},
    optional={
        "label": st.sampled_from(["", "lbl", "x-y"]),
        "doc_id": st.sampled_from(["", "doc-1", 0, 7]),
        "source_id": st.sampled_from(["", "src"]),
        "base_metadata": st.sampled_from(
            [{}, {"docId": "from-base", "format": "ignored", "k": 1}, {"sourceId": "s", "n": None}]
        ),
    },
)


def options(
    max_tokens: st.SearchStrategy[Any], overlap_name: str, overlap: st.SearchStrategy[Any]
) -> st.SearchStrategy[dict]:
    """Upstream options in snake_case; ``None`` now and then (JS ``??``: the default)."""

    def present(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        return st.integers(0, 255).flatmap(lambda k: st.none() if k >= 224 else strategy)

    return st.tuples(present(max_tokens), present(overlap), METADATA).map(
        lambda t: {"max_tokens": t[0], overlap_name: t[1], **t[2]}
    )


def run_chunker(name: str, tokenizer: str, via_option: bool, text: str, opts: dict, **init: Any):
    def run(m: Any) -> Any:
        if via_option:  # options.tokenizer overrides the constructor's
            return getattr(m, name)(**init).chunk(text, tokenizer=tokenizer, **opts)
        return getattr(m, name)(tokenizer, **init).chunk(text, **opts)

    return same(run)


@given(CHUNK_TEXT, TOKENIZER, st.booleans(), options(NUMBER, "overlap", OVERLAP))
def test_token_chunker_parity(text, tokenizer, via_option, opts):
    run_chunker("TokenChunker", tokenizer, via_option, text, opts)


@given(CHUNK_TEXT, TOKENIZER, st.booleans(), options(NUMBER, "overlap_sentences", SMALL))
def test_sentence_chunker_parity(text, tokenizer, via_option, opts):
    run_chunker("SentenceChunker", tokenizer, via_option, text, opts)


@pytest.mark.parametrize("unit", ["tokens", "chars"])
@settings(deadline=None)
@given(CHUNK_TEXT, TOKENIZER, st.booleans(), options(NUMBER, "overlap_tokens", OVERLAP))
def test_recursive_chunker_parity(unit, text, tokenizer, via_option, opts):
    run_chunker("RecursiveChunker", tokenizer, via_option, text, opts, overlap_unit=unit)


@given(CHUNK_TEXT, TOKENIZER, st.integers(-3, 40), st.integers(-3, 40))
def test_utility_parity(text, tokenizer, start, end):
    same(lambda m: m.tokenize(text, tokenizer))
    same(lambda m: m.count_tokens(text, tokenizer))
    same(lambda m: m.split_into_sentences(text, tokenizer))
    same(lambda m: m.split_into_paragraphs(text, tokenizer))
    same(lambda m: m.split_into_sentences(text))
    same(lambda m: m.slice_by_token_range(text, m.tokenize(text, tokenizer), start, end / 2))


# -- invariants (§5, §7.1, §7.2, §7.5), on both backends -----------------------------------
INTEGRAL_TEXT = st.one_of(SOUP, PROSE).map("".join)


def check_token_windows(text: str, chunks: list[dict], max_tokens: int, overlap: int) -> None:
    js = to_js(text)
    size = max(1, max_tokens)
    clamped = max(0, min(overlap, size - 1))
    for c in chunks:
        meta = c["metadata"]
        assert 1 <= c["tokens"] == meta["tokenEnd"] - meta["tokenStart"] + 1 <= size
        assert c["content"] == from_js(js_slice(js, c["start"], c["end"]))
    for a, b in itertools.pairwise(chunks):
        # Consecutive windows share exactly the clamped overlap, in token indices.
        assert a["metadata"]["tokenEnd"] - b["metadata"]["tokenStart"] + 1 == clamped
        assert a["tokens"] == size
    if chunks:
        assert chunks[0]["metadata"]["tokenStart"] == 0
        assert [c["id"] for c in chunks] == [f"token-{k}" for k in range(len(chunks))]


@given(INTEGRAL_TEXT, st.integers(-2, 12), st.integers(-2, 14))
def test_token_windows_invariants(text, max_tokens, overlap):
    n = WHITESPACE.count(to_js(text))
    for m in MODULES.values():
        chunks = m.TokenChunker("whitespace").chunk(text, max_tokens=max_tokens, overlap=overlap)
        check_token_windows(text, chunks, max_tokens, overlap)
        assert [c["metadata"]["tokenEnd"] for c in chunks[-1:]] == [n - 1] * (n > 0)
        for c in chunks:  # whitespace windows start and end at a word (§5)
            assert c["tokens"] == WHITESPACE.count(to_js(c["content"]))
        size = max(1, max_tokens)
        step = size - max(0, min(overlap, size - 1))
        assert len(chunks) == (0 if n == 0 else 1 if n <= size else 1 + -(-(n - size) // step))
        cl100k = m.TokenChunker().chunk(text, max_tokens=max_tokens, overlap=overlap)
        check_token_windows(text, cl100k, max_tokens, overlap)


MID_WORD_STOP = re.compile(f"[.!?][^.!?{WS_CLASS}]")


def check_recursive(
    text: str, chunks: list[dict], tokenizer: Any, max_tokens: int, overlap: int, label: str
) -> None:
    """§7.1 step 4 (patched), §7.2 and §7.5 on integral options."""
    size = max(1, max_tokens)
    whitespace = tokenizer is WHITESPACE
    # §7.2's "never" needs every sentence to end where a word ends: in "e.g.Alpha" the
    # group ["g.", "Alpha"] has 2 tokens, but its first token index (3) is missing, so
    # sliceByTokenRange starts at 0 (§3.1) and the content is the whole text.
    words_end_sentences = MID_WORD_STOP.search(to_js(text)) is None
    originals = [c for c in chunks if c["label"] != f"{label}-overlap"]
    for c in originals:
        assert c["tokens"] <= size
        assert c["metadata"]["sourceType"] in ("paragraph", "sentence", "sentence-token")
        if whitespace and words_end_sentences:  # §7.2: a recount fits too
            assert tokenizer.count(to_js(c["content"])) <= size
    if overlap <= 0 or len(originals) < 2:
        assert chunks == originals
        return
    expected: list[dict] = []
    for i, (chunk, following) in enumerate(itertools.pairwise(originals)):
        expected.append(chunk)
        nxt = to_js(following["content"])
        starts, ends = tokenizer.spans(nxt)
        take = min(overlap, len(starts))
        # The leading whole tokens of the following chunk only (sliceByTokenRange, §3.1).
        own = js_slice(nxt, starts[0], ends[take - 1]) if take else ""
        assert nxt.startswith(own)
        if whitespace:
            assert tokenizer.values(own) == tokenizer.values(nxt)[:take]
        if own:
            start = following["start"] + starts[0]
            expected.append(
                {
                    "id": f"{label}-overlap-{i}",
                    "content": from_js(own),
                    "start": start,
                    "end": start + len(own),
                    "label": f"{label}-overlap",
                }
            )
    expected.append(originals[-1])
    assert chunks == expected
    for before, c, after in zip(chunks, chunks[1:], chunks[2:], strict=False):
        if c["label"] == f"{label}-overlap":  # between two real chunks, no tokens/metadata
            assert c["content"]
            assert "tokens" not in c
            assert "metadata" not in c
            assert f"{label}-overlap" not in (before["label"], after["label"])


@given(INTEGRAL_TEXT, st.integers(-2, 14), st.integers(-2, 16), st.sampled_from(["", "r"]))
def test_recursive_invariants(text, max_tokens, overlap, label):
    for m in MODULES.values():
        for name, tokenizer in (("whitespace", WHITESPACE), ("cl100k_base", REFERENCE)):
            chunks = m.RecursiveChunker(name, overlap_unit="tokens").chunk(
                text, max_tokens=max_tokens, overlap_tokens=overlap, label=label
            )
            check_recursive(text, chunks, tokenizer, max_tokens, overlap, label)
            if not js_trim(text):
                assert chunks == []


# -- bad input ----------------------------------------------------------------------------
def test_bad_overlap_unit(backend):
    m = MODULES[backend]
    with pytest.raises(ValueError, match="overlap_unit"):
        m.RecursiveChunker(overlap_unit="bytes")
    with pytest.raises(ValueError, match="overlap_unit"):
        m.RecursiveChunker("whitespace", overlap_unit=None)


def test_unknown_tokenizer(backend):
    m = MODULES[backend]
    with pytest.raises(ValueError, match="tokenizer must be"):
        m.TokenChunker("gpt2")
    with pytest.raises(ValueError, match="'o200k_base'"):
        m.SentenceChunker().chunk("Hi.", tokenizer="o200k_base")
    with pytest.raises(ValueError, match="tokenizer must be"):
        m.count_tokens("hi", "words")
    with pytest.raises(ValueError, match="Could not load tiktoken encoding"):
        m.create_tiktokenizer(encoding="p50k_base")
    with pytest.raises(ValueError, match="Could not load tiktoken encoding"):
        m.create_tiktokenizer(model="no-such-model")


@pytest.mark.parametrize("token", [*SPECIAL_TOKENS, "<|endofprompt|>"])
def test_special_tokens_raise_in_cl100k_chunkers(backend, token):
    m = MODULES[backend]
    text = f"First part. Then {token} here.\n\nMore."
    message = f"special token that is not allowed: {token}"
    for chunker in (m.TokenChunker(), m.SentenceChunker(), m.RecursiveChunker()):
        with pytest.raises(ValueError, match=message.replace("|", r"\|")):
            chunker.chunk(text)
    with pytest.raises(ValueError, match="not allowed"):
        m.count_tokens(token)
    # The whitespace tokenizer has no special tokens.
    chunks = m.TokenChunker("whitespace").chunk(text, max_tokens=3)
    assert chunks[1]["content"] == f"{token} here.\n\nMore."
    assert m.RecursiveChunker().chunk(text, tokenizer="whitespace")[0]["content"] == text[:-7]


def spy_on(monkeypatch: pytest.MonkeyPatch, name: str) -> list[tuple]:
    """Record every call of ``_native.<name>``, still answering it."""
    calls: list[tuple] = []
    real = getattr(_native, name)

    def spy(*args: Any) -> Any:
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(_native, name, spy)
    return calls


def test_native_tokenizer_is_the_default(monkeypatch):
    for chunker in (native.TokenChunker(), native.SentenceChunker(), native.RecursiveChunker()):
        assert isinstance(chunker.tokenizer, native.NativeTiktokenizer)
    assert isinstance(reference.TokenChunker().tokenizer, reference.TiktokenTokenizer)
    # Fractional options take the reference's orchestration over the native tokenizer:
    # one batch of prefix counts, not one call per group.
    calls = spy_on(monkeypatch, "voltagent_prefix_counts")
    text = "One two. Three four five. Six seven eight nine."
    got = native.SentenceChunker().chunk(text, max_tokens=4.5)
    assert len(calls) == 1
    assert got == reference.SentenceChunker().chunk(text, max_tokens=4.5)


@pytest.mark.parametrize(
    ("name", "kwargs", "in_rust"),
    [
        ("TokenChunker", {"max_tokens": 3, "overlap": 1}, True),
        ("TokenChunker", {"max_tokens": 3, "overlap": 0.5}, False),
        ("TokenChunker", {"max_tokens": 2**60}, False),
        ("TokenChunker", {"max_tokens": True}, False),
        ("SentenceChunker", {"max_tokens": 5, "overlap_sentences": 1}, True),
        ("SentenceChunker", {"max_tokens": float("nan")}, False),
        ("RecursiveChunker", {"max_tokens": 6, "overlap_tokens": 2}, True),
        (
            "RecursiveChunker",
            {"max_tokens": 6, "overlap_tokens": 2, "tokenizer": "whitespace"},
            False,
        ),
    ],
)
def test_whole_number_options_run_in_rust(monkeypatch, name, kwargs, in_rust):
    """The usual call runs the chunker in Rust; JS number quirks and injected tokenizers
    take the general path. Both give the reference's chunks."""
    calls = spy_on(monkeypatch, "voltagent_chunks")
    text = "One two three. Four five six seven!\n\nEight 😀 nine? Ten.\n\n\nEleven twelve."
    got = outcome(lambda: getattr(native, name)().chunk(text, **kwargs))
    assert len(calls) == int(in_rust)
    assert got == outcome(lambda: getattr(reference, name)().chunk(text, **kwargs))


@pytest.mark.parametrize("name", ["TokenChunker", "SentenceChunker", "RecursiveChunker"])
@pytest.mark.parametrize(
    "text",
    [
        "Lone \ud800 high. And \udc00 low!\n\nA pair \ud83d\ude00 of halves. 😀 real one.",
        "世界世界世界. 😀😀😀 drift 𝔘𝔘 here.\n\n你好，世界。🇫🇷 flags! " * 3,
    ],
)
def test_surrogates_and_drift_in_rust(monkeypatch, name, text):
    """Text with lone surrogates reaches Rust as UTF-16 (its str has no UTF-8 form), and
    slices that a drifted offset cuts inside a pair keep the lone half, as upstream's do."""
    calls = spy_on(monkeypatch, "voltagent_chunks")
    opts = {"max_tokens": 4, "overlap_tokens" if name == "RecursiveChunker" else "overlap": 1}
    if name == "SentenceChunker":
        opts = {"max_tokens": 4, "overlap_sentences": 1}
    got = outcome(lambda: getattr(native, name)().chunk(text, **opts))
    assert calls, "the usual call runs in Rust"
    assert got[0] == "ok"
    assert got == outcome(lambda: getattr(reference, name)().chunk(text, **opts))


@pytest.mark.parametrize("name", ["TokenChunker", "SentenceChunker", "RecursiveChunker"])
def test_special_token_text_takes_the_general_path(monkeypatch, name):
    calls = spy_on(monkeypatch, "voltagent_chunks")
    text = "Fine. Then <|endoftext|> here.\n\nMore."
    got = outcome(lambda: getattr(native, name)().chunk(text, max_tokens=3))
    assert len(calls) == 1  # asked, and declined
    assert got[0] == "raised"
    assert "<|endoftext|>" in got[2]
    assert got == outcome(lambda: getattr(reference, name)().chunk(text, max_tokens=3))


# -- the spec's worked examples ------------------------------------------------------------
def rows(chunks: list[dict]) -> list[tuple]:
    return [(c["content"], c["start"], c["end"]) for c in chunks]


def test_token_chunker_example(backend):
    """§5 (vectors token-0070 and token-0077)."""
    m = MODULES[backend]
    text = "one two three four five six seven eight nine ten"
    words = m.TokenChunker("whitespace").chunk(text, max_tokens=4, overlap=1)
    assert rows(words) == [
        ("one two three four", 0, 18),
        ("four five six seven", 14, 33),
        ("seven eight nine ten", 28, 48),
    ]
    spans = [(c["metadata"]["tokenStart"], c["metadata"]["tokenEnd"]) for c in words]
    assert spans == [(0, 3), (3, 6), (6, 9)]
    assert [c["id"] for c in words] == ["token-0", "token-1", "token-2"]
    assert words[1]["metadata"]["position"] == {
        "start": {"line": 1, "column": 15},
        "end": {"line": 1, "column": 34},
    }
    cl100k = m.TokenChunker().chunk(text, max_tokens=4, overlap=1, label="ignored-in-id")
    assert rows(cl100k) == [
        ("one two three four", 0, 18),
        (" four five six seven", 13, 33),
        (" seven eight nine ten", 27, 48),
    ]
    assert {c["label"] for c in cl100k} == {"ignored-in-id"}
    assert [c["id"] for c in cl100k] == ["token-0", "token-1", "token-2"]


PR_TEXT = "First part is here. Second part follows soon. Third part concludes."


def test_sentence_chunker_example(backend):
    """§6 (vector sentence-0061)."""
    chunks = MODULES[backend].SentenceChunker().chunk(PR_TEXT, max_tokens=6, overlap_sentences=1)
    assert [c["content"] for c in chunks] == [
        "First part is here.",
        "First part is here. Second part follows soon.",
        " Second part follows soon. Third part concludes.",
    ]
    assert [c["tokens"] for c in chunks] == [5, 10, 9]
    assert [(c["start"], c["end"]) for c in chunks] == [(0, 19), (0, 45), (19, 67)]
    assert [c["metadata"]["sentenceCount"] for c in chunks] == [1, 2, 2]
    assert [c["id"] for c in chunks] == ["sentence-0", "sentence-1", "sentence-2"]


PR_ROWS = [
    ("recursive-0", "recursive-sentence", "First part is here.", 0, 19),
    ("recursive-0", "recursive-token", "First part is here. Second", 0, 26),
    ("recursive-1", "recursive-token", " here. Second part follows soon", 13, 44),
    ("recursive-2", "recursive-token", " part follows soon.", 26, 45),
    ("recursive-0", "recursive-token", " Second part follows soon. Third", 0, 32),
    ("recursive-1", "recursive-token", " soon. Third part concludes.", 20, 48),
]
PR_OVERLAPS = {
    "chars": [("Fir", 0, 3), (" he", 13, 16), (" pa", 26, 29), (" Se", 0, 3), (" so", 20, 23)],
    "tokens": [
        ("First part is", 0, 13),
        (" here. Second", 13, 26),
        (" part follows soon", 26, 44),
        (" Second part follows", 0, 20),
        (" soon. Third", 20, 32),
    ],
}


@pytest.mark.parametrize("unit", ["chars", "tokens"])
def test_recursive_chunker_pr_example(backend, unit):
    """§7.6 (vectors recursive-0109 and recursive_patched-0109)."""
    chunker = MODULES[backend].RecursiveChunker(overlap_unit=unit)
    chunks = chunker.chunk(PR_TEXT, max_tokens=6, overlap_tokens=3)
    assert len(chunks) == 11
    originals, overlaps = chunks[::2], chunks[1::2]
    assert [(c["id"], c["label"], c["content"], c["start"], c["end"]) for c in originals] == (
        PR_ROWS
    )
    assert rows(overlaps) == PR_OVERLAPS[unit]
    assert [c["id"] for c in overlaps] == [f"recursive-overlap-{i}" for i in range(5)]
    assert all(set(c) == {"id", "content", "start", "end", "label"} for c in overlaps)
    assert [c["metadata"]["sourceType"] for c in originals] == ["sentence"] + ["sentence-token"] * 5
    # Without overlap the windows step by 6, yet the sentence overlap still repeats text.
    plain = chunker.chunk(PR_TEXT, max_tokens=6, overlap_tokens=0)
    assert [(c["id"], *row) for c, row in zip(plain, rows(plain), strict=True)] == [
        ("recursive-0", "First part is here.", 0, 19),
        ("recursive-0", "First part is here. Second", 0, 26),
        ("recursive-1", " part follows soon.", 26, 45),
        ("recursive-0", " Second part follows soon. Third", 0, 32),
        ("recursive-1", " part concludes.", 32, 48),
    ]


def test_recursive_fractional_overlap(backend):
    """§7.5: upstream truncates 0.5 to no characters; the patched variant rounds up."""
    m = MODULES[backend]
    text = "Para one.\n\nPara two is longer."
    chars = m.RecursiveChunker(overlap_unit="chars").chunk(text, max_tokens=15, overlap_tokens=0.5)
    assert [c["content"] for c in chars] == ["Para one.", "Para two is longer."]
    tokens = m.RecursiveChunker().chunk(text, max_tokens=15, overlap_tokens=0.5)
    assert [c["content"] for c in tokens] == ["Para one.", "Para", "Para two is longer."]
    assert rows(tokens)[1] == ("Para", 11, 15)


def test_recursive_duplication_example(backend):
    """§7.3 (vector recursive-1789)."""
    text = "Intro.\n\nAlpha beta. Gamma delta epsilon zeta eta theta iota kappa lambda mu."
    chunks = MODULES[backend].RecursiveChunker("whitespace").chunk(text, max_tokens=4)
    assert [(c["id"], c["content"], c["metadata"]["sourceType"]) for c in chunks] == [
        ("recursive-0", "Intro.", "paragraph"),
        ("recursive-1", "Alpha beta.", "sentence"),
        ("recursive-1", "Alpha beta. Gamma delta", "sentence-token"),
        ("recursive-2", "epsilon zeta eta theta", "sentence-token"),
        ("recursive-3", "iota kappa lambda mu.", "sentence-token"),
    ]
    assert (chunks[1]["start"], chunks[1]["end"]) == (8, 19)
    assert (chunks[2]["start"], chunks[2]["end"]) == (8, 31)


def test_recursive_docs_example(backend):
    """§7.7 (vector recursive-1790): two paragraphs and a 5-character overlap chunk."""
    text = "Para one.\n\nPara two is longer and may be split."
    chunker = MODULES[backend].RecursiveChunker(overlap_unit="chars")
    chunks = chunker.chunk(text, max_tokens=15, overlap_tokens=5)
    assert [(c["content"], c["label"]) for c in chunks] == [
        ("Para one.", "recursive"),
        ("Para ", "recursive-overlap"),
        ("Para two is longer and may be split.", "recursive"),
    ]


def test_drift_example(backend):
    """§2.2 (vector token-1428): "世" is two tokens, so every later offset is one too far."""
    m = MODULES[backend]
    text = "你好，世界。"
    tokens = m.tokenize(text)
    assert [(t["value"], t["start"], t["end"]) for t in tokens] == [
        ("你", 0, 1),
        ("好", 1, 2),
        ("，", 2, 3),
        ("\ufffd", 3, 4),
        ("\ufffd", 4, 5),
        ("界", 5, 6),
        ("。", 6, 7),
    ]
    chunks = m.TokenChunker().chunk(text, max_tokens=2)
    assert rows(chunks) == [("你好", 0, 2), ("，世", 2, 4), ("界。", 4, 6), ("", 6, 7)]
    assert [c["tokens"] for c in chunks] == [2, 2, 2, 1]


def test_bom_token_decodes_to_nothing(backend):
    """§2.2: a token holding a BOM decodes to "", so offsets fall short."""
    m = MODULES[backend]
    tokens = m.tokenize("\ufeffHello")
    assert sum(t["end"] - t["start"] for t in tokens) < len("\ufeffHello")
    assert "".join(t["value"] for t in tokens) == "Hello"
