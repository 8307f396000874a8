"""Unigram scores from an in-memory ``tokenizers.Tokenizer`` are taken exactly.

``to_str()`` writes each score as its shortest repr; serde_json's default parser (which
``tokenizers.Tokenizer.from_str`` uses too) is not correctly rounded and moves some by an
ulp, which flips near-ties. ``from_huggingface`` must give the live object's ids, while
``from_json`` keeps giving what ``tokenizers`` gives for the same JSON. The oracle here is
always the live object, never one reloaded from its JSON.
"""

from __future__ import annotations

import pickle
import random

import pytest
from hf_models import corpus, live
from hypothesis import example, given, settings
from hypothesis import strategies as st

import ferrochunk as fc

pytest.importorskip("tokenizers")


def _unigram(vocab: list[tuple[str, float]]):  # type: ignore[no-untyped-def]
    from tokenizers import Tokenizer, models, pre_tokenizers

    tok = Tokenizer(models.Unigram(vocab, unk_id=0, byte_fallback=False))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return tok


def _ties(n: int, seed: int) -> tuple[list[tuple[str, float]], list[str]]:
    """Pieces p, q and pq with score(pq) == score(p) + score(q): exact ties, which a
    one-ulp move of any of the three decides."""
    rng = random.Random(seed)
    vocab, words = [("<unk>", 0.0)], []
    for i in range(n):
        p, q = chr(0x4E00 + 2 * i), chr(0x4E01 + 2 * i)
        x, y = -rng.uniform(1, 20), -rng.uniform(1, 20)
        vocab += [(p, x), (q, y), (p + q, x + y)]
        words.append(p + q)
    return vocab, words


def _ids(tok, text: str) -> list[int]:  # type: ignore[no-untyped-def]
    return tok.encode(text, add_special_tokens=False).ids  # type: ignore[no-any-return]


def test_near_ties_resolve_as_the_live_object_does() -> None:
    from tokenizers import Tokenizer

    vocab, words = _ties(400, seed=1)
    ref = _unigram(vocab)
    reloaded = Tokenizer.from_str(ref.to_str())
    # The premise: a reload through JSON does move some ties (else this proves nothing).
    assert sum(_ids(ref, w) != _ids(reloaded, w) for w in words) > 10
    tok = fc.Tokenizer.from_huggingface(ref)
    assert tok.engine == "native"
    assert [tok.encode(w).tolist() for w in words] == [_ids(ref, w) for w in words]
    back = pickle.loads(pickle.dumps(tok))
    assert [back.encode(w).tolist() for w in words] == [_ids(ref, w) for w in words]
    # from_json is the document's semantics: the same ids as tokenizers' own reload.
    doc = fc.Tokenizer.from_json(ref.to_str())
    assert [doc.encode(w).tolist() for w in words] == [_ids(reloaded, w) for w in words]


def test_reference_backend_reads_the_live_scores_too() -> None:
    vocab, words = _ties(200, seed=2)
    ref = _unigram(vocab)
    tok = fc.Tokenizer.from_huggingface(ref, reserve_special_tokens=False)
    text = " ".join(words)
    config = fc.TokenWindows(7)
    native = fc.chunk(text, config, tokenizer=tok)
    assert native == fc.chunk(text, config, tokenizer=tok, backend="reference")
    assert [c.token_count for c in native] == [len(_ids(ref, c.text)) for c in native[:-1]] + [
        native[-1].token_count
    ]


@st.composite
def _vocab_and_text(draw: st.DrawFn) -> tuple[list[tuple[str, float]], str]:
    letters = "abcd"
    score = st.floats(-30, -0.01, allow_nan=False)
    singles = {c: draw(score) for c in letters}
    vocab = [("<unk>", 0.0), *list(singles.items())]
    pieces = draw(st.lists(st.text(letters, min_size=2, max_size=4), unique=True, max_size=25))
    for piece in pieces:
        tie = draw(st.booleans())  # a sum of its letters' scores: a tie by construction
        vocab.append((piece, sum(singles[c] for c in piece) if tie else draw(score)))
    words = draw(st.lists(st.text(letters, min_size=1, max_size=12), max_size=8))
    return vocab, " ".join(words)


@settings(max_examples=300, deadline=None)
@given(case=_vocab_and_text())
@example(case=([("<unk>", 0.0), ("a", -1.1), ("b", -2.2), ("ab", -1.1 + -2.2)], "ab ba"))
def test_random_scores_give_the_live_ids(case: tuple[list[tuple[str, float]], str]) -> None:
    vocab, text = case
    ref = _unigram(vocab)
    tok = fc.Tokenizer.from_huggingface(ref)
    assert tok.encode(text).tolist() == _ids(ref, text)


def test_a_trained_unigram_model_agrees_on_the_corpus() -> None:
    ref = live("unigram")
    tok = fc.Tokenizer.from_huggingface(ref)
    rng = random.Random(3)
    for text in corpus():
        for _ in range(40):
            a = rng.randrange(len(text))
            piece = text[a : a + rng.randrange(1, 400)]
            assert tok.encode(piece).tolist() == _ids(ref, piece), piece[:60]
