"""The eval metrics against records of Chroma's own scoring code (``tests/data/eval``): the
same recall, precision, IoU, precision Ω and touched-chunk count, with duplicate and
overlapping references and references in two documents."""

from __future__ import annotations

import gzip
import itertools
import json
import math
from pathlib import Path

from ferrochunk.eval import ChunkSpan, Reference
from ferrochunk.eval.metrics import chroma_prefixes, precision_omega

RECORDS = Path(__file__).parent / "data" / "eval" / "chroma_scores.jsonl.gz"


def _cases() -> list[tuple[list[ChunkSpan], dict[str, object]]]:
    out = []
    with gzip.open(RECORDS, "rt", encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            chunks = [ChunkSpan(d, ((s, e),)) for d, s, e in record["chunks"]]
            out += [(chunks, q) for q in record["questions"]]
    return out


CASES = _cases()


def test_the_records_hold_the_hard_cases() -> None:
    refs = [[tuple(r) for r in q["references"]] for _, q in CASES]  # type: ignore[attr-defined]
    assert len(CASES) > 500
    assert sum(len(set(r)) < len(r) for r in refs) > 20  # duplicates
    assert sum(len({d for d, _, _ in r}) > 1 for r in refs) > 100  # two documents
    overlapping = 0
    for r in refs:
        spans = sorted(set(r))
        overlapping += any(a[0] == b[0] and b[1] < a[2] for a, b in itertools.pairwise(spans))
    assert overlapping > 20


def test_scores_equal_chromas() -> None:
    wrong = []
    for chunks, q in CASES:
        refs = [Reference(d, s, e) for d, s, e in q["references"]]  # type: ignore[attr-defined]
        want: dict[str, float] = q["expected"]  # type: ignore[assignment]
        ranked = [chunks[j] for j in q["ranked"]]  # type: ignore[attr-defined]
        (got,) = chroma_prefixes(refs, ranked, [q["n"]])  # type: ignore[list-item]
        omega, touched = precision_omega(refs, chunks)
        mine = {"recall": got.recall, "precision": got.precision, "iou": got.iou,
                "precision_omega": omega, "highlighted": touched}  # fmt: skip
        if any(not math.isclose(mine[k], want[k], rel_tol=1e-12) for k in want):
            wrong.append((q, mine))
    assert not wrong, wrong[:3]
