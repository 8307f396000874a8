"""`ferrochunk.eval.metrics`: each score against values worked out by hand, with Chroma's
quirks (touching ranges, other documents and overlaps in the precision denominator)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ferrochunk.eval import ChunkSpan, Reference
from ferrochunk.eval import metrics as m


def c(s: int, e: int, doc: str = "a") -> ChunkSpan:
    return ChunkSpan(doc, ((s, e),))


def r(s: int, e: int, doc: str = "a") -> Reference:
    return Reference(doc, s, e)


def test_a_chunk_equal_to_the_reference_scores_one():
    assert m.chroma([r(5, 10)], [c(5, 10)]) == m.Triple(1.0, 1.0, 1.0)


def test_overlapping_chunks_count_the_reference_once_and_their_lengths_twice():
    # Both chunks hold part of (3, 12): the numerator is the union, 9 characters; the
    # precision denominator sums both lengths, 20, though they share 5 characters.
    t = m.chroma([r(3, 12)], [c(0, 10), c(5, 15)])
    assert t == m.Triple(recall=1.0, precision=9 / 20, iou=9 / 20)


def test_a_reference_spanning_two_chunks_with_one_retrieved():
    # (5, 15) over chunks (0, 10) and (10, 20); only the first is retrieved: 5 of the 10
    # reference characters are found, 5 are left, so IoU is 5 / (10 + 5).
    t = m.chroma([r(5, 15)], [c(0, 10)])
    assert t == m.Triple(recall=0.5, precision=0.5, iou=5 / 15)
    both = m.chroma([r(5, 15)], [c(0, 10), c(10, 20)])
    assert both == m.Triple(recall=1.0, precision=10 / 20, iou=10 / 20)


def test_chunks_of_another_document_count_in_the_precision_denominator():
    t = m.chroma([r(0, 5)], [c(0, 10, "b"), c(0, 10)])
    assert t == m.Triple(recall=1.0, precision=5 / 20, iou=5 / 20)


def test_several_references_and_the_unused_characters():
    # (0, 5) found whole, (20, 25) not at all.
    t = m.chroma([r(0, 5), r(20, 25)], [c(0, 10)])
    assert t == m.Triple(recall=5 / 10, precision=5 / 10, iou=5 / (10 + 5))


def test_a_touching_chunk_intersects_with_length_zero():
    # Chroma's rule: (10, 20) touches (0, 10), which makes it "highlighted" with nothing
    # found in it.
    assert m.intersect((10, 20), (0, 10)) == (10, 10)
    assert m.intersect((11, 20), (0, 10)) is None
    assert m.chroma([r(0, 10)], [c(10, 20)]) == m.Triple(0.0, 0.0, 0.0)
    # Precision Ω counts it among the chunks that "contain" the reference: 2 chunks, and
    # the union of both, 20 characters, in the denominator.
    assert m.precision_omega([r(0, 10)], [c(0, 10), c(10, 20)]) == (10 / 20, 2)
    assert m.precision_omega([r(0, 10)], [c(0, 10), c(11, 20)]) == (1.0, 1)


def test_precision_omega_takes_the_union_of_the_touching_chunks_and_what_is_left():
    # Chunks (0, 8) and (6, 14) overlap; the reference (4, 20) reaches past both.
    assert m.precision_omega([r(4, 20)], [c(0, 8), c(6, 14)]) == (10 / 20, 2)


def test_a_chunk_of_several_spans_is_their_union():
    # DelimiterMerge: the chunk joins (0, 4) and (5, 9); the delimiter at 4 is in neither.
    chunk = ChunkSpan("a", ((0, 4), (5, 9)))
    assert chunk.length == 8
    assert m.chroma([r(2, 7)], [chunk]) == m.Triple(recall=4 / 5, precision=4 / 8, iou=4 / 9)
    assert chunk.holds(r(5, 8))
    assert not chunk.holds(r(2, 7))
    assert not chunk.holds(r(5, 8, "b"))


def test_hits_rank_every_reference_and_the_first():
    refs = [r(0, 5), r(20, 25)]
    ranked = [c(0, 10), c(30, 40), c(18, 30)]
    assert m.hits(refs, ranked) == (3, 1)
    assert m.hits(refs, ranked[:2]) == (0, 1)
    # A chunk that holds only part of a reference is no hit.
    assert m.hits([r(5, 15)], [c(0, 10), c(10, 20)]) == (0, 0)
    assert m.hits([r(5, 15)], [c(0, 10), c(0, 20)]) == (2, 2)


def test_token_union_scores():
    ident = lambda doc, s, e: (s, e)  # noqa: E731 - one token per character
    t = m.tokens([r(3, 12)], [c(0, 10), c(5, 15)], ident)
    # U = (0, 15), F = (3, 12): overlap counted once here, unlike Chroma's precision.
    assert t == m.Triple(recall=1.0, precision=9 / 15, iou=9 / 15)
    assert m.tokens([r(0, 5)], [c(0, 5, "b")], ident) == m.Triple(0.0, 0.0, 0.0)


def test_union_and_difference_follow_chroma():
    assert m.union([(5, 8), (0, 5), (9, 10)]) == [(0, 8), (9, 10)]
    assert m.difference([(0, 10)], (3, 5)) == [(0, 3), (5, 10)]
    assert m.difference([(0, 10)], (0, 10)) == []
    assert m.difference([(0, 10)], (10, 10)) == [(0, 10)]


spans = st.lists(
    st.tuples(st.integers(0, 60), st.integers(1, 20)).map(lambda p: (p[0], p[0] + p[1])),
    min_size=1,
    max_size=6,
)


@given(spans, spans)
def test_scores_stay_in_range_and_recall_is_the_covered_fraction(chunks, refs):
    retrieved = [c(s, e) for s, e in chunks]
    references = [r(s, e) for s, e in m.union(refs)]  # Chroma's references do not overlap
    t = m.chroma(references, retrieved)
    assert 0 <= t.iou <= min(t.recall, t.precision) + 1e-12 <= 1 + 1e-12
    covered = {i for s, e in chunks for i in range(s, e)}
    wanted = [i for ref in references for i in range(ref.start, ref.end)]
    assert t.recall == pytest.approx(sum(i in covered for i in wanted) / len(wanted))
