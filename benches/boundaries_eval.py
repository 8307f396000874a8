"""Retrieval quality of content-defined boundaries (#54) beside greedy, at the same cap.

``ferrochunk.eval`` with BM25 over planted questions (``bench_eval.planted``: one or two
sentences of a document, six of their words as the question) on two sets of documents from
the shared corpus: the English of ``bench_eval.py`` and, held out from every other bench,
the Linux admin guide and the Python library docs. For each pair the paired difference in
IoU (and recall@k) with its 95 % bootstrap interval is printed; the goal is an interval that
holds 0. Without the shared corpus it runs on the bundled fallback of ``bench_eval.py``::

    python benches/boundaries_eval.py
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from bench_eval import _documents, planted
from conftest import SHARED

import ferrochunk as fc
from ferrochunk.eval import evaluate

HELD_OUT = [
    ("en/linux-6.1-admin-guide-part1.rst", 500_000),
    ("en/python311-docs-library-part2.rst.txt", 500_000),
]


def _held_out() -> dict[str, str] | None:
    if not all((SHARED / p).exists() for p, _ in HELD_OUT):
        return None
    return {p: (SHARED / p).read_text(encoding="utf-8")[:n] for p, n in HELD_OUT}


def main() -> int:
    sets = {"bench_eval English": _documents(1)}
    held = _held_out()
    if held is not None:
        sets["held out: Linux admin guide + Python library docs"] = held
    for cap in (256, 512):
        greedy = fc.Recursive(cap)
        content = fc.Recursive(cap, boundaries="content")
        for name, docs in sets.items():
            questions = planted(docs, 472, seed=cap)
            result = evaluate(docs, questions, [greedy, content], k=(1, 5), threads=1)
            g, c = result.chunkers
            print(f"\n{name}, cap {cap}: {len(questions)} questions, "
                  f"{sum(len(t) for t in docs.values()):,} characters")  # fmt: skip
            print("| boundaries | chunks | mean tokens | IoU@5 | recall@1 | recall@5 | MRR@5 |")
            print("|---|---|---|---|---|---|---|")
            for label, r in (("greedy", g), ("content", c)):
                a1, a5 = r.score(1), r.score(5)
                cells = [a5.iou, a1.recall_at_k, a5.recall_at_k, a5.mrr]
                print(f"| {label} | {r.chunks} | {r.mean_tokens:.0f} | "
                      + " | ".join(f"{x.mean:.3f} [{x.low:.3f}, {x.high:.3f}]" for x in cells)
                      + " |")  # fmt: skip
            other = c if g.best else g
            d = other.difference
            assert d is not None
            print(f"IoU@5 of the other minus the best's: {d.mean:+.4f} "
                  f"[{d.low:+.4f}, {d.high:+.4f}]; within noise: {other.within_noise}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
