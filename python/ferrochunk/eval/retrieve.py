"""Retrievers: rank every chunk for each question, best first, ties in chunk order.

* :class:`BM25` (the default) scores as ``bm25s`` does (Lucene's BM25, k1 1.5, b 0.75). Its
  analyzer is Unicode words, case-folded, with each run of CJK characters cut into
  overlapping character bigrams (the usual ``\\w\\w+`` pattern would make a whole CJK run
  one token and drop one-letter words). It needs no model and no network.
* :class:`Embeddings` ranks by cosine similarity of the vectors a user's function returns
  (``texts -> 2-D array``), with an optional separate function for questions. Vectors are
  cached on the function's name and the exact text, so chunkers that give the same chunks
  are embedded once.
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from ..errors import ConfigError

_WORD = re.compile(r"\w+")
# Han (with extensions), kana and Hangul: scripts written without spaces between words.
_CJK = (
    "\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
    "\uf900-\ufaff\U00020000-\U0003134f"
)
_SPLIT = re.compile(r"(\w+)")
_HAS_CJK = re.compile(f"[{_CJK}]")
_RUNS = re.compile(f"[{_CJK}]+|[^{_CJK}]+")


def analyze(text: str) -> list[str]:
    """BM25's terms of ``text``: its Unicode words, each case-folded, with CJK runs cut
    into bigrams. Words are found before case folding, so a chunk's terms are its
    document's words clipped to the chunk.

    >>> analyze("Tokyo 東京都 is big")
    ['tokyo', '東京', '京都', 'is', 'big']
    """
    words = [w.casefold() for w in _WORD.findall(text)]
    if not _HAS_CJK.search(text):
        return words
    out: list[str] = []
    for word in words:
        if not _HAS_CJK.search(word):
            out.append(word)
            continue
        for run in _RUNS.findall(word):
            if len(run) > 1 and _HAS_CJK.match(run):
                out.extend(run[i : i + 2] for i in range(len(run) - 1))
            else:
                out.append(run)
    return out


def _ranked(scores: np.ndarray[Any, Any], k: int) -> list[int]:
    """The ``k`` best indices, ties in index order."""
    order = np.argsort(-scores, kind="stable")
    return [int(i) for i in order[:k]]


@dataclass(frozen=True, slots=True)
class Indexed:
    """What a retriever indexes for one chunk: ``text``. When ``start >= 0``, ``text`` is
    ``context + documents[doc][start:end]``, which lets BM25 reuse the document's analysis."""

    text: str
    doc: str = ""
    start: int = -1
    end: int = -1
    context: str = ""


class Retriever(Protocol):
    """What :func:`ferrochunk.eval.evaluate` asks of a retriever."""

    @property
    def name(self) -> str: ...

    def rank(
        self,
        documents: Mapping[str, str],
        chunks: Sequence[Indexed],
        questions: Sequence[str],
        k: int,
    ) -> list[list[int]]:
        """For each question, the indices of its ``k`` best chunks (``k`` is at most
        ``len(chunks)``), best first, ties in chunk order."""
        ...


class _Vocabulary:
    """Term ids, and each document's words (character spans) with their term ids."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}
        # By id and text: a reused BM25 given new text under an old id analyses it anew.
        self.docs: dict[tuple[str, str], tuple[np.ndarray[Any, Any], ...]] = {}

    def terms(self, text: str) -> list[int]:
        ids = self.ids
        return [ids.setdefault(t, len(ids)) for t in analyze(text)]

    def document(self, doc: str, text: str) -> tuple[np.ndarray[Any, Any], ...]:
        """Word starts, word ends, each word's first term, and the term ids in order."""
        key = (doc, text)
        if key not in self.docs:
            # Split with the words captured: text between words, word, text, word, ...
            parts = _SPLIT.split(text)
            bounds = np.cumsum([0, *map(len, parts)])
            words = parts[1::2]
            ids = self.ids
            if _HAS_CJK.search(text):
                per_word = [self.terms(w) for w in words]
                first = np.cumsum([0, *map(len, per_word)])
                flat = [t for terms in per_word for t in terms]
            else:  # a word is one term
                first = np.arange(len(words) + 1)
                flat = [ids.setdefault(w, len(ids)) for w in map(str.casefold, words)]
            self.docs[key] = (
                bounds[1:-1:2],
                bounds[2::2],
                np.asarray(first, dtype=np.int64),
                np.asarray(flat, dtype=np.int64),
            )
        return self.docs[key]

    def chunk(self, text: str, start: int, end: int, arrays: tuple[Any, ...]) -> list[Any]:
        """The term ids of ``text[start:end]``: the document's words inside, and the words
        the span cuts analysed as cut."""
        starts, ends, first, flat = arrays
        lo = int(np.searchsorted(starts, start, side="left"))
        hi = int(np.searchsorted(ends, end, side="right"))
        parts: list[Any] = []
        if lo > 0 and ends[lo - 1] > start:  # a word the span starts inside
            parts.append(self.terms(text[start : min(int(ends[lo - 1]), end)]))
        if hi > lo:
            parts.append(flat[first[lo] : first[hi]])
        if hi < len(starts) and starts[hi] < end and hi >= lo:  # a word it ends inside
            parts.append(self.terms(text[max(int(starts[hi]), start) : end]))
        return parts


class BM25:
    """Lucene's BM25 over :func:`analyze`'s terms: the scores of ``bm25s`` (method
    ``lucene``; the tests check them against it), computed with numpy over each document's
    analysis, shared by every chunker."""

    def __init__(self, k1: float = 1.5, b: float = 0.75) -> None:
        for field, value, ok in (("k1", k1, k1 >= 0), ("b", b, 0 <= b <= 1)):
            if isinstance(value, bool) or not isinstance(value, int | float) or not ok:
                raise ConfigError(f"BM25.{field} must be a number in its range, got {value!r}")
        self.k1, self.b = float(k1), float(b)
        self.vocabulary = _Vocabulary()

    @property
    def name(self) -> str:
        return f"bm25 (k1={self.k1:g}, b={self.b:g})"

    def _chunk_terms(self, documents: Mapping[str, str], c: Indexed) -> Any:
        v = self.vocabulary
        source = documents.get(c.doc) if c.start >= 0 else None
        if source is None or c.text != c.context + source[c.start : c.end]:
            return np.asarray(v.terms(c.text), dtype=np.int64)
        parts = [v.terms(c.context)] if c.context else []
        parts += v.chunk(source, c.start, c.end, v.document(c.doc, source))
        return np.concatenate([np.asarray(p, dtype=np.int64) for p in parts]) if parts else []

    def scores(self, documents: Mapping[str, str], chunks: Sequence[Indexed]) -> Any:
        """The index: a function from a question to every chunk's score."""
        terms = [self._chunk_terms(documents, c) for c in chunks]
        n = len(chunks)
        lengths = np.array([len(t) for t in terms], dtype=np.float64)
        avg = float(lengths.mean()) if n and lengths.sum() else 1.0
        vocab = len(self.vocabulary.ids)
        flat = np.concatenate([np.asarray(t, dtype=np.int64) for t in terms]) if n else np.zeros(0)
        owner = np.repeat(np.arange(n, dtype=np.int64), lengths.astype(np.int64))
        keys, tf = np.unique(np.asarray(flat, dtype=np.int64) * n + owner, return_counts=True)
        term, chunk = np.divmod(keys, max(n, 1))  # sorted by term, then chunk
        df = np.bincount(term, minlength=vocab)
        idf = np.log(1 + (n - df + 0.5) / (df + 0.5))
        norm = self.k1 * (1 - self.b + self.b * lengths[chunk] / avg)
        weight = idf[term] * tf / (norm + tf)
        bounds = np.searchsorted(term, np.arange(vocab + 1))

        def score(question: str) -> Any:
            out = np.zeros(n)
            ids = self.vocabulary.ids
            for t in analyze(question):
                i = ids.get(t)
                if i is not None and i < vocab:
                    lo, hi = bounds[i], bounds[i + 1]
                    out[chunk[lo:hi]] += weight[lo:hi]
            return out

        return score

    def rank(
        self,
        documents: Mapping[str, str],
        chunks: Sequence[Indexed],
        questions: Sequence[str],
        k: int,
    ) -> list[list[int]]:
        score = self.scores(documents, chunks)
        return [_ranked(score(q), k) for q in questions]


EmbedFn = Callable[[list[str]], Any]


def load_callable(spec: str, option: str) -> EmbedFn:
    """``MODULE:CALLABLE`` (the callable may be a dotted attribute path)."""
    module, _, attr = spec.partition(":")
    if not module or not attr:
        raise ConfigError(f"{option} must be MODULE:CALLABLE, got {spec!r}")
    try:
        target: Any = importlib.import_module(module)
    except ImportError as exc:
        raise ConfigError(f"{option} {spec}: cannot import {module!r}: {exc}") from exc
    for part in attr.split("."):
        if not hasattr(target, part):
            raise ConfigError(f"{option} {spec}: {module!r} has no {attr!r}")
        target = getattr(target, part)
    if not callable(target):
        raise ConfigError(f"{option} {spec}: {attr!r} is not callable")
    return target  # type: ignore[no-any-return]


def _name(fn: EmbedFn) -> str:
    return f"{getattr(fn, '__module__', '?')}:{getattr(fn, '__qualname__', repr(fn))}"


class Embeddings:
    """Cosine similarity of embeddings; ``query`` embeds the questions when it is given
    (e5- and bge-style models expect a prefix there)."""

    def __init__(self, embed: EmbedFn, query: EmbedFn | None = None, batch: int = 256) -> None:
        for field, fn in (("embed", embed), ("query", query)):
            if fn is not None and not callable(fn):
                raise ConfigError(f"Embeddings.{field} must be callable, got {fn!r}")
        self.embed, self.query, self.batch = embed, query, batch
        self.cache: dict[tuple[str, str], np.ndarray[Any, Any]] = {}

    @property
    def name(self) -> str:
        query = f", questions {_name(self.query)}" if self.query is not None else ""
        return f"embeddings {_name(self.embed)}{query}"

    def vectors(self, fn: EmbedFn, texts: Sequence[str]) -> np.ndarray[Any, Any]:
        """Unit vectors of ``texts``, from the cache where it has them."""
        name = _name(fn)
        todo = list(dict.fromkeys(t for t in texts if (name, t) not in self.cache))
        for at in range(0, len(todo), self.batch):
            part = todo[at : at + self.batch]
            try:
                got = np.asarray(fn(part), dtype=np.float64)
            except Exception as exc:  # the user's function: say whose error it is
                raise ConfigError(f"{name} raised {type(exc).__name__}: {exc}") from exc
            if got.ndim != 2 or got.shape[0] != len(part):
                raise ConfigError(
                    f"{name} must return a 2-D array with one row per text: {len(part)} texts "
                    f"gave shape {got.shape}"
                )
            if not np.isfinite(got).all():
                raise ConfigError(f"{name} returned a vector with NaN or infinity")
            norms = np.linalg.norm(got, axis=1, keepdims=True)
            got = np.divide(got, norms, out=np.zeros_like(got), where=norms > 0)
            for text, row in zip(part, got, strict=True):
                self.cache[(name, text)] = row
            done = min(at + self.batch, len(todo))
            print(f"\r  embedding {done:,}/{len(todo):,}", end="", file=sys.stderr, flush=True)
        if todo:
            print(file=sys.stderr)
        return np.stack([self.cache[(name, t)] for t in texts]) if texts else np.zeros((0, 0))

    def rank(
        self,
        documents: Mapping[str, str],
        chunks: Sequence[Indexed],
        questions: Sequence[str],
        k: int,
    ) -> list[list[int]]:
        c = self.vectors(self.embed, [x.text for x in chunks])
        q = self.vectors(self.query or self.embed, questions)
        if c.shape[1] != q.shape[1]:
            raise ConfigError(
                f"the question vectors have {q.shape[1]} dimensions, the chunks' {c.shape[1]}"
            )
        scores = q @ c.T
        return [_ranked(row, k) for row in scores]
