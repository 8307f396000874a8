"""eval: the default grid's evaluation (chunk, BM25 index and retrieval, scores, bootstrap)
beside the chunking alone, one thread each, on about 1.5 MB of English and 472 questions
(Chroma's evaluation is 472 questions over about 1.5 MB).

The questions are planted: each answer is one or two sentences of a document that occur
there once, and the question is six of their words, drawn with a fixed seed. With
``--benchmark-disable`` (the default, as smoke tests) the input shrinks to 150 KB and 60
questions and every result is still checked.
"""

from __future__ import annotations

import gzip
import random
import re

import pytest
from conftest import BUNDLED, SHARED, _smoke

import ferrochunk as fc
from ferrochunk.eval import Question, Reference, default_configs, evaluate

# (shared corpus file, bundled fallback, characters taken)
_DOCS = [
    ("en/debian-faq-en.txt", None, 180_000),
    ("en/debian-handbook-en.txt", None, 700_000),
    ("en/jargon-4.4.7.txt", None, 620_000),
]
_FALLBACK = ("en__python311-docs-library-part1.rst.txt.gz", "en__fortunes-en.txt.gz")
_SENTENCE = re.compile(r"[A-Z][^.!?\n]{60,300}[.!?]")


def _documents(scale: int) -> dict[str, str]:
    if all((SHARED / path).exists() for path, _, _ in _DOCS):
        return {
            path: (SHARED / path).read_text(encoding="utf-8")[: n // scale] for path, _, n in _DOCS
        }
    out = {}
    for name in _FALLBACK:
        out[name] = gzip.decompress((BUNDLED / name).read_bytes()).decode()[: 750_000 // scale]
    return out


def planted(docs: dict[str, str], n: int, seed: int = 0) -> list[Question]:
    """``n`` questions, each answered by one sentence, or by two (40 %), of one document."""
    rng = random.Random(seed)
    found = {
        d: [m for m in _SENTENCE.finditer(t) if t.count(m.group()) == 1] for d, t in docs.items()
    }
    usable = [d for d in docs if len(found[d]) > 3]
    out = []
    while len(out) < n:
        doc = rng.choice(usable)
        i = rng.randrange(len(found[doc]) - 3)
        picks = [found[doc][i]] + ([found[doc][i + 2]] if rng.random() < 0.4 else [])
        words = [w for m in picks for w in re.findall(r"[A-Za-z]{4,}", m.group())]
        text = " ".join(rng.sample(words, min(6, len(words))))
        refs = tuple(Reference(doc, m.start(), m.end()) for m in picks)
        out.append(Question(f"q{len(out)}", text, refs))
    return out


@pytest.fixture(scope="module")
def setup(request):
    smoke = _smoke(request.config)
    docs = _documents(10 if smoke else 1)
    return docs, planted(docs, 60 if smoke else 472), default_configs(docs)


def test_eval_default_grid(benchmark, setup):
    docs, questions, grid = setup
    size = sum(len(t.encode()) for t in docs.values())
    benchmark.extra_info.update(bytes=size, questions=len(questions), configs=len(grid))
    result = benchmark(lambda: evaluate(docs, questions, grid, threads=1))
    assert [c.config for c in result.chunkers] == grid
    for c in result.chunkers:
        a = c.score()
        assert 0.5 < a.recall.mean <= 1.0  # BM25 finds planted sentences
        assert a.iou.low <= a.iou.mean <= a.iou.high
    assert sum(c.best for c in result.chunkers) == 1


def test_chunk_default_grid_alone(benchmark, setup):
    docs, _, grid = setup
    texts = list(docs.values())
    out = benchmark(lambda: [fc.chunk_many(texts, config, threads=1) for config in grid])
    assert all(sum(len(cs) for cs in per) > 0 for per in out)
