"""``evaluate``: chunk the documents with each config, retrieve for each question, score.

The scores per question are kept, so the JSON can hold each question's retrieved spans and
any metric can be recomputed outside.
"""

from __future__ import annotations

import bisect
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from .._support.validate import describe
from ..config import Config, Markdown, Recursive, SentenceWindows, TokenWindows
from ..errors import ConfigError, ConfigTypeError
from ..pipeline import chunk_many
from ..spec import config_from_spec, config_spec
from ..tokenizers import Tokenizer
from ..types import Chunk
from . import metrics
from .metrics import ChunkSpan
from .questions import Question, check_questions, read_questions
from .retrieve import BM25, Indexed, Retriever
from .stats import Score, interval

CHROMA_ALL = -1
"""A ``k`` that reproduces Chroma's ``retrieve=-1``: for each question, as many chunks as
touch its references, at most 20 (``maximum_n`` is the largest such count, at most 20)."""
CHROMA_CAP = 20


def default_configs(documents: Mapping[str, str]) -> list[Config]:
    """The grid ``eval`` runs when no chunker is named (Markdown only for Markdown input)."""
    grid: list[Config] = [Recursive(n) for n in (128, 256, 512, 1024)]
    grid += [TokenWindows(256), TokenWindows(512)]
    if any(Path(d.partition("#")[0]).suffix.lower() in (".md", ".markdown") for d in documents):
        grid.append(Markdown(512))
    grid.append(SentenceWindows(256))
    return grid


@dataclass(frozen=True, slots=True)
class AtK:
    """One chunker's scores at one ``k`` (:data:`CHROMA_ALL` for Chroma's ``-1``)."""

    k: int
    recall: Score
    precision: Score
    iou: Score
    recall_at_k: Score  # every reference whole in some retrieved chunk
    recall_at_k_any: Score  # some reference whole in some retrieved chunk
    mrr: Score
    tokens: metrics.Triple | None = None  # token-union means, when asked for


@dataclass(frozen=True, slots=True)
class ChunkerResult:
    """How one config did: its chunks, its scores at each ``k``, and against the best."""

    label: str
    config: Config
    chunks: int
    mean_tokens: float
    precision_omega: Score
    at: tuple[AtK, ...]
    best: bool = False
    within_noise: bool = False
    difference: Score | None = None  # IoU at the largest k minus the best's (paired)
    seconds: Mapping[str, float] = field(default_factory=dict)
    spans: tuple[ChunkSpan, ...] = ()
    retrieved: tuple[tuple[int, ...], ...] = ()  # per question, chunk indices best first

    def score(self, k: int | None = None) -> AtK:
        """The scores at ``k`` (the largest positive k by default)."""
        want = k if k is not None else max(a.k for a in self.at)
        for a in self.at:
            if a.k == want:
                return a
        raise KeyError(f"no scores at k={want}")


@dataclass(frozen=True, slots=True)
class EvalResult:
    """Every chunker's result on the same questions, best first by nothing: in the order
    given. ``best`` is the highest IoU at the largest ``k``."""

    chunkers: tuple[ChunkerResult, ...]
    questions: tuple[Question, ...]
    k: tuple[int, ...]
    retriever: str
    documents: int
    characters: int
    tokenizer: str = "cl100k_base"  # what chunk sizes (and token metrics) count in

    @property
    def best(self) -> ChunkerResult:
        return next(c for c in self.chunkers if c.best)

    def to_dict(self) -> dict[str, Any]:
        """Plain data for JSON: every score, and each question's retrieved spans."""

        def score(s: Score | None) -> dict[str, float] | None:
            return None if s is None else {"mean": s.mean, "low": s.low, "high": s.high}

        def at(a: AtK) -> dict[str, Any]:
            out: dict[str, Any] = {"k": a.k}
            for name in ("recall", "precision", "iou", "recall_at_k", "recall_at_k_any", "mrr"):
                out[name] = score(getattr(a, name))
            if a.tokens is not None:
                out["tokens"] = {
                    "recall": a.tokens.recall,
                    "precision": a.tokens.precision,
                    "iou": a.tokens.iou,
                }
            return out

        return {
            "retriever": self.retriever,
            "tokenizer": self.tokenizer,
            "documents": self.documents,
            "characters": self.characters,
            "k": list(self.k),
            "questions": [
                {
                    "id": q.id,
                    "question": q.text,
                    "references": [[r.doc, r.start, r.end] for r in q.references],
                }
                for q in self.questions
            ],
            "chunkers": [
                {
                    "label": c.label,
                    "chunks": c.chunks,
                    "mean_tokens": c.mean_tokens,
                    "best": c.best,
                    "within_noise": c.within_noise,
                    "difference": score(c.difference),
                    "precision_omega": score(c.precision_omega),
                    "seconds": dict(c.seconds),
                    "at": [at(a) for a in c.at],
                    # Each question's retrieved chunks, best first: [doc, [[start, end], ...]].
                    "retrieved": [
                        [[c.spans[i].doc, [list(s) for s in c.spans[i].spans]] for i in ranked]
                        for ranked in c.retrieved
                    ],
                }
                for c in self.chunkers
            ],
        }


def _spans(doc: str, chunk: Chunk) -> ChunkSpan:
    spans = chunk.metadata.get("spans")
    if spans is not None:  # DelimiterMerge: its text joins these
        return ChunkSpan(doc, tuple((int(s), int(e)) for s, e in spans))
    return ChunkSpan(doc, ((chunk.char_start, chunk.char_end),))


def _indexed(doc: str, chunk: Chunk, index: str) -> Indexed:
    context = str(chunk.metadata.get("context") or "") if index == "embedded" else ""
    return Indexed(context + chunk.text, doc, chunk.char_start, chunk.char_end, context)


class _Layout:
    """Each document's chunk spans in order, to find the chunks near a reference fast."""

    def __init__(self, spans: Sequence[ChunkSpan]) -> None:
        by_doc: dict[str, list[tuple[int, int, int]]] = {}
        for i, c in enumerate(spans):
            for s, e in c.spans:
                by_doc.setdefault(c.doc, []).append((s, e, i))
        self.docs = {}
        for doc, rows in by_doc.items():
            rows.sort()
            arr = np.array(rows, dtype=np.int64).reshape(-1, 3)
            # A running maximum of the ends makes "ends at or after x" a binary search.
            self.docs[doc] = (arr[:, 0], np.maximum.accumulate(arr[:, 1]), arr)
        self.spans = spans

    def near(self, refs: Sequence[Any]) -> list[ChunkSpan]:
        """The chunks with a span that intersects or touches a reference, in chunk order."""
        found: set[int] = set()
        for r in refs:
            if r.doc not in self.docs:
                continue
            starts, max_ends, arr = self.docs[r.doc]
            lo = int(np.searchsorted(max_ends, r.start, side="left"))
            hi = int(np.searchsorted(starts, r.end, side="right"))
            part = arr[lo:hi]
            found.update(int(i) for i in part[part[:, 1] >= r.start][:, 2])
        return [self.spans[i] for i in sorted(found)]


class _TokenMap:
    """Character offsets to token indices, for the token-union metrics."""

    def __init__(self, documents: Mapping[str, str], tokenizer: Tokenizer) -> None:
        self.maps: dict[str, tuple[list[int], np.ndarray[Any, Any]]] = {}
        self.documents, self.tokenizer = documents, tokenizer

    def __call__(self, doc: str, start: int, end: int) -> metrics.Span:
        if doc not in self.maps:
            text = self.documents[doc]
            _, byte_starts = self.tokenizer.encode_with_offsets(text)
            units = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
            widths = 1 + (units >= 0x80) + (units >= 0x800) + (units >= 0x10000)
            char_bytes = np.concatenate([[0], np.cumsum(widths)])
            self.maps[doc] = (list(np.asarray(byte_starts)), char_bytes)
        starts, char_bytes = self.maps[doc]
        b0, b1 = int(char_bytes[start]), int(char_bytes[end])
        first = max(0, bisect.bisect_right(starts, b0) - 1)
        return first, max(first, bisect.bisect_left(starts, b1))


def _configs(configs: Sequence[Config | str] | None, documents: Mapping[str, str]) -> list[Config]:
    if configs is None:
        return default_configs(documents)
    if isinstance(configs, str) or not isinstance(configs, Sequence) or not configs:
        raise ConfigTypeError(f"configs must be a non-empty list, got {describe(configs)}")
    return [config_from_spec(c) if isinstance(c, str) else c for c in configs]


def _label(config: Config) -> str:
    try:
        return config_spec(config)
    except ConfigError:
        return repr(config)


def _ks(k: Any) -> tuple[int, ...]:
    ks = (k,) if isinstance(k, int) else tuple(k)
    bad = [v for v in ks if isinstance(v, bool) or not isinstance(v, int) or v < -1 or v == 0]
    if not ks or bad:
        raise ConfigError(f"k must be integers >= 1 (or -1, Chroma's retrieve=-1), got {k!r}")
    return tuple(sorted(set(ks), key=lambda v: (v == CHROMA_ALL, v)))


def evaluate(
    documents: Mapping[str, str],
    questions: Sequence[Question] | str | Path,
    configs: Sequence[Config | str] | None = None,
    *,
    retriever: Retriever | None = None,
    k: int | Sequence[int] = (1, 3, 5, 10),
    index: str = "embedded",
    token_metrics: bool = False,
    tokenizer: Tokenizer | str = "cl100k_base",
    resamples: int = 2000,
    seed: int = 0,
    threads: int | None = None,
) -> EvalResult:
    """How well each config's chunks let ``retriever`` find the answers to ``questions``.

    ``documents`` maps ids to texts; ``questions`` is a list of :class:`Question` or a
    questions file (JSON lines, or Chroma's CSV). ``configs`` are configs or specs
    (``"recursive:max_tokens=256"``); by default :func:`default_configs`. ``retriever`` is
    :class:`BM25` by default. ``index="embedded"`` indexes ``context + text`` where a config
    gives context (Markdown, Code), ``"text"`` the text alone. ``tokenizer`` is what the
    configs' sizes (and the token metrics) count in: an encoding's name or any
    :class:`~ferrochunk.Tokenizer`, such as a model's ``tokenizer.json``. See
    ``docs/eval.md``.

    >>> from ferrochunk.eval import Question, Reference, evaluate
    >>> text = "The sky is blue. " * 40 + "The answer is forty-two. " + "Grass is green. " * 40
    >>> docs = {"a.txt": text}
    >>> q = [Question("q1", "what is the answer", (Reference("a.txt", 680, 704),))]
    >>> r = evaluate(docs, q, ["recursive:max_tokens=32", "windows:max_tokens=256"], k=1)
    >>> [(c.label, c.score().recall_at_k.mean) for c in r.chunkers]
    [('recursive:max_tokens=32', 1.0), ('windows:max_tokens=256', 1.0)]
    """
    if not isinstance(documents, Mapping) or not all(
        isinstance(d, str) and isinstance(t, str) for d, t in documents.items()
    ):
        raise ConfigTypeError(f"documents must map ids to texts, got {describe(documents)}")
    if isinstance(questions, str | Path):
        questions = read_questions(questions, documents)
    questions = list(questions)
    if not questions or not all(isinstance(q, Question) for q in questions):
        raise ConfigTypeError(
            f"questions must be a non-empty list of Question, got {questions!r:.80}"
        )
    check_questions(questions, documents)  # as the file readers check them
    if index not in ("embedded", "text"):
        raise ConfigError(f"index must be 'embedded' or 'text', got {index!r}")
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 1:
        raise ConfigError(f"resamples must be an integer >= 1, got {resamples!r}")
    ks = _ks(k)
    retriever = retriever if retriever is not None else BM25()
    cfgs = _configs(configs, documents)
    if isinstance(tokenizer, str):
        tokenizer = Tokenizer.from_name(tokenizer)
    elif not isinstance(tokenizer, Tokenizer):
        raise ConfigTypeError(
            f"tokenizer must be a Tokenizer or an encoding's name, got {describe(tokenizer)}"
        )
    token_map = _TokenMap(documents, tokenizer) if token_metrics else None
    runs = [
        _one(config, documents, questions, retriever, ks, index, token_map, tokenizer, threads)
        for config in cfgs
    ]
    result = _ranked_result(runs, questions, ks, retriever, documents, resamples, seed)
    return replace(result, tokenizer=tokenizer.name)


@dataclass(frozen=True, slots=True)
class _Run:
    """One config's run before the intervals: ``rows`` holds the scores per question (k ×
    metric, then precision Ω as the last row)."""

    label: str
    config: Config
    chunks: int
    mean_tokens: float
    seconds: Mapping[str, float]
    spans: tuple[ChunkSpan, ...]
    retrieved: tuple[tuple[int, ...], ...]
    rows: np.ndarray[Any, Any]
    tokens: list[metrics.Triple] | None


# The rows of the per-question score matrix at each k.
_METRICS = ("recall", "precision", "iou", "recall_at_k", "recall_at_k_any", "mrr")


def _one(
    config: Config,
    documents: Mapping[str, str],
    questions: list[Question],
    retriever: Retriever,
    ks: tuple[int, ...],
    index: str,
    token_map: _TokenMap | None,
    tokenizer: Tokenizer,
    threads: int | None,
) -> _Run:
    """One config's chunks, retrievals and per-question scores."""
    t0 = time.perf_counter()
    chunked = chunk_many(list(documents.values()), config, tokenizer=tokenizer, threads=threads)
    t1 = time.perf_counter()
    flat = [(doc, c) for doc, cs in zip(documents, chunked, strict=True) for c in cs]
    spans = tuple(_spans(doc, c) for doc, c in flat)
    layout = _Layout(spans)
    omega, touched = [], []
    for q in questions:
        o, n = metrics.precision_omega(q.references, layout.near(q.references))
        omega.append(o)
        touched.append(n)
    chroma_n = min(CHROMA_CAP, max(touched))
    depth = min(len(spans), max(chroma_n if v == CHROMA_ALL else v for v in ks))
    indexed = [_indexed(doc, c, index) for doc, c in flat]
    ranked = retriever.rank(documents, indexed, [q.text for q in questions], depth)
    t2 = time.perf_counter()
    rows = np.zeros((len(ks), len(_METRICS), len(questions)))
    tokens = np.zeros((len(ks), 3))
    for qi, q in enumerate(questions):
        got = [spans[i] for i in ranked[qi]]
        cuts = [min(touched[qi], chroma_n) if v == CHROMA_ALL else v for v in ks]
        every, first = metrics.hits(q.references, got)
        for ki, tri in enumerate(metrics.chroma_prefixes(q.references, got, cuts)):
            n = cuts[ki]
            rr = 1 / first if 0 < first <= n else 0.0
            found = (tri.recall, tri.precision, tri.iou, 0 < every <= n, rr > 0, rr)
            rows[ki, :, qi] = found
            if token_map is not None:
                t = metrics.tokens(q.references, got[:n], token_map)
                tokens[ki] += (t.recall, t.precision, t.iou)
    t3 = time.perf_counter()
    n_chunks = len(flat)
    return _Run(
        label=_label(config),
        config=config,
        chunks=n_chunks,
        mean_tokens=sum(c.token_count for _, c in flat) / n_chunks if n_chunks else 0.0,
        seconds={"chunk": t1 - t0, "retrieve": t2 - t1, "score": t3 - t2},
        spans=spans,
        retrieved=tuple(tuple(r) for r in ranked),
        rows=np.concatenate([rows.reshape(-1, len(questions)), [omega]]),
        tokens=[metrics.Triple(*t) for t in tokens / len(questions)] if token_map else None,
    )


def _ranked_result(
    runs: list[_Run],
    questions: list[Question],
    ks: tuple[int, ...],
    retriever: Retriever,
    documents: Mapping[str, str],
    resamples: int,
    seed: int,
) -> EvalResult:
    """The intervals, the best chunker (highest mean IoU at the largest k; the first of
    equals) and which others are within noise of it (paired bootstrap)."""
    # The IoU row at the largest positive k (or at Chroma's -1 when it is the only k).
    main = max(range(len(ks)), key=lambda i: (ks[i] != CHROMA_ALL, ks[i]))
    m = len(_METRICS)
    iou_row = main * m + _METRICS.index("iou")
    best = int(np.argmax([run.rows[iou_row].mean() for run in runs]))
    best_iou = runs[best].rows[iou_row]
    out = []
    for i, run in enumerate(runs):
        scores = interval(np.vstack([run.rows, run.rows[iou_row] - best_iou]), resamples, seed)
        at = tuple(
            AtK(
                k=kv,
                **dict(zip(_METRICS, scores[ki * m : ki * m + m], strict=True)),
                tokens=run.tokens[ki] if run.tokens is not None else None,
            )
            for ki, kv in enumerate(ks)
        )
        out.append(
            ChunkerResult(
                label=run.label,
                config=run.config,
                chunks=run.chunks,
                mean_tokens=run.mean_tokens,
                precision_omega=scores[-2],
                at=at,
                best=i == best,
                within_noise=scores[-1].contains(0.0),
                difference=scores[-1],
                seconds=run.seconds,
                spans=run.spans,
                retrieved=run.retrieved,
            )
        )
    return EvalResult(
        chunkers=tuple(out),
        questions=tuple(questions),
        k=ks,
        retriever=retriever.name,
        documents=len(documents),
        characters=sum(len(t) for t in documents.values()),
    )
