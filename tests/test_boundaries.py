"""Content-defined boundaries: every anchor is a cut, an edit moves only the cuts near it,
and greedy stays the default. (Parity with the reference and streaming are in the
families' own tests, whose strategies draw ``boundaries="content"`` too.)"""

from __future__ import annotations

import dataclasses
import itertools

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from support import corpus_files, read_corpus

import ferrochunk as fc
from ferrochunk.reference import recursive
from ferrochunk.tokenizers import resolve

CL100K = resolve("cl100k")
SEPARATORS = [s.encode() for s in fc.Recursive(8).separators if s]
WORDS = st.sampled_from(["alpha ", "beta ", "gamma. ", "delta\n", "epsilon, ", "中文", "\n\n"])
PARAGRAPH = st.lists(WORDS, min_size=3, max_size=40).map("".join)
DOC = st.lists(PARAGRAPH, min_size=16, max_size=60).map("\n\n".join)


def anchors(text: str, config: fc.Recursive) -> tuple[list[int], list[int]]:
    """The reference's anchors of ``text`` (bytes), and its tokens' byte starts."""
    data = text.encode()
    starts = list(CL100K.encode_with_offsets(text)[1])
    tokens = recursive.whole_text_tokens(data, starts)
    budget = config.max_tokens - config.overlap_tokens
    content = recursive._Content(tokens, (0, len(data)), SEPARATORS, True, budget // 2)
    return content.anchors, starts


def test_greedy_is_the_default_and_content_differs():
    text = read_corpus(corpus_files()[0])[:60_000]
    greedy = fc.chunk(text, fc.Recursive(256))
    assert greedy == fc.chunk(text, fc.Recursive(256, boundaries="greedy"))
    content = fc.chunk(text, fc.Recursive(256, boundaries="content"))
    assert [c.byte_end for c in content] != [c.byte_end for c in greedy]
    assert "".join(c.text for c in content) == text


@pytest.mark.parametrize("size", [64, 512])
def test_every_anchor_is_a_cut_and_chunks_stay_large(size):
    config = fc.Recursive(size, boundaries="content")
    for path in corpus_files()[::4]:
        text = read_corpus(path)[:80_000]
        chunks = fc.chunk(text, config)
        found, _ = anchors(text, config)
        assert found, path
        assert set(found) <= {c.byte_end for c in chunks}, path
        assert all(c.token_count <= size for c in chunks)
        # Anchors are more than half the budget apart; the mean chunk is well above it.
        mean = sum(c.token_count for c in chunks) / len(chunks)
        assert mean >= 0.55 * size, (path, mean)


@given(DOC, st.integers(0, 10**6), PARAGRAPH)
@example(
    doc="alpha alpha alpha \n\n" * 3
    + "alpha alpha \n\n\n\n" * 2
    + "alpha \n\n\n\n\n\n" * 2
    + "alpha alpha alpha \n\n" * 4
    + "alpha alpha alpha alpha gamma. \n\nalpha \n\ngamma. \n\n\n\ngamma. \n\n\n\n"
    "delta\ndelta\nalpha alpha \n\n\n\nalpha alpha gamma. gamma. gamma. gamma. \n\n"
    "epsilon, \n\nalpha \n\nalpha \n\nalpha alpha alpha \n\n"
    + "alpha alpha \n\n\n\n" * 2
    + "alpha alpha \n\n",
    where=132616,
    inserted="alpha alpha beta ",
)  # a neighbour's key reads bytes past the edit: that anchor is not far
def test_an_edit_moves_only_the_cuts_near_it(doc, where, inserted):
    """Between two anchors that an edit does not reach (beyond half the budget, and the
    bytes their keys hash), the chunks are the same text before and after the edit."""
    config = fc.Recursive(48, boundaries="content")
    paragraphs = doc.split("\n\n")
    k = where % len(paragraphs)
    after = "\n\n".join([*paragraphs[:k], inserted, *paragraphs[k:]])
    old_anchors, old_starts = anchors(doc, config)
    new_anchors, _ = anchors(after, config)
    lo = len("\n\n".join(paragraphs[:k]).encode())  # the edit is at bytes lo..lo + shift
    shift = len(after.encode()) - len(doc.encode())
    t_lo = sum(1 for s in old_starts if s < lo)
    margin = 24 + 4  # half the budget, and a few tokens the edit may merge with

    def far(p: int) -> bool:
        t = sum(1 for s in old_starts if s < p)
        if p > lo + 8:
            return t > t_lo + margin
        # Left of the edit, the points within reach after p must be clear of it too, with
        # the 32 bytes their keys hash.
        last = old_starts[min(t + margin, len(old_starts) - 1)]
        return t < t_lo - margin and max(p, last) + 32 < lo - 8

    kept = [p for p in old_anchors if far(p)]
    moved = {p if p < lo else p + shift for p in kept}
    assert moved <= set(new_anchors)
    old = {(c.byte_start if c.byte_start < lo else c.byte_start + shift, c.text)
           for c in fc.chunk(doc, config)}  # fmt: skip
    new = {(c.byte_start, c.text) for c in fc.chunk(after, config)}
    for a, b in itertools.pairwise(kept):
        if (a < lo) == (b < lo):  # both on one side of the edit
            pa = a if a < lo else a + shift
            between = {x for x in old if pa <= x[0] < (b if b < lo else b + shift)}
            assert between <= new


def test_the_structure_chunkers_take_content_boundaries():
    text = read_corpus(corpus_files()[0])[:40_000]
    for config in (fc.Markdown(256), fc.Code(256, language="python")):
        content = dataclasses.replace(config, boundaries="content")
        chunks = fc.chunk(text, content)
        assert chunks == fc.chunk(text, content, backend="reference")
        assert chunks != fc.chunk(text, config)
