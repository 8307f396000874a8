"""Lossless over the corpus: every native config, two sizes, with and without overlap.

Run: ``.venv/bin/python scripts/lossless.py [--corpus DIR] [--limit-mb N]``. Counts, per
config, the non-white-space characters lost (beyond the delimiters ``DelimiterMerge``
drops), U+FFFD introduced, chunks over the cap and not flagged, wrong offsets and chunks
out of order (``ferrochunk.bench.quality``). Prints a Markdown table; exits 1 unless all are 0.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import ferrochunk as fc
from ferrochunk.bench.quality import Audit, audit

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"


def configs() -> dict[str, fc.Config]:
    out: dict[str, fc.Config] = {}
    for size in (128, 512):
        for overlap in (0, size // 10):
            out[f"TokenWindows({size}, {overlap})"] = fc.TokenWindows(size, overlap_tokens=overlap)
            out[f"Recursive({size}, {overlap})"] = fc.Recursive(size, overlap_tokens=overlap)
            out[f"SentenceWindows({size}, {overlap / size:.1f})"] = fc.SentenceWindows(
                size, overlap_ratio=overlap / size
            )
            for strategy in fc.MergeStrategy:
                out[f"DelimiterMerge({size}, {strategy.name}, {overlap * 100 // size}%)"] = (
                    fc.DelimiterMerge(
                        size,
                        delimiters=("\n\n", "\n", "。", ". "),
                        strategy=strategy,
                        overlap=overlap * 100 // size,
                        child_delimiters=("，", ", "),
                        joiner="\n",
                    )
                )
            out[f"ParentChild({size * 4}/{size}, {overlap})"] = fc.ParentChild(
                fc.Recursive(size * 4, overlap_tokens=overlap), child=fc.Recursive(size)
            )
    return out


def corpus(root: Path, limit: int | None) -> list[tuple[str, str]]:
    files = sorted(p for p in root.rglob("*") if p.is_file() and p.name != "MANIFEST.md")
    texts, total = [], 0
    for path in files:
        text = path.read_text(encoding="utf-8")
        texts.append((str(path.relative_to(root)), text))
        total += len(text.encode("utf-8"))
        if limit is not None and total >= limit:
            break
    return texts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--limit-mb", type=float, help="stop after this much of the corpus")
    args = parser.parse_args()
    limit = None if args.limit_mb is None else int(args.limit_mb * 1e6)
    texts = corpus(args.corpus, limit)
    size = sum(len(t.encode("utf-8")) for _, t in texts)
    print(f"{len(texts)} files, {size / 1e6:.1f} MB from {args.corpus}\n")
    print("| config | chunks | lost | U+FFFD | over cap | wrong offsets | out of order | s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    dirty = []
    for name, config in configs().items():
        start = time.perf_counter()
        total = Audit(0, 0, 0, 0, 0, 0)
        for _, text in texts:
            total = total + audit(text, fc.chunk(text, config), config)
        cells = [total.chunks, total.lost, total.replacement, total.over_cap]
        cells += [total.wrong_offsets, total.out_of_order]
        seconds = time.perf_counter() - start
        print(
            f"| `{name}` | " + " | ".join(f"{v:,}" for v in cells) + f" | {seconds:.0f} |",
            flush=True,
        )
        if not total.clean:
            dirty.append(name)
    if dirty:
        print(f"\nnot lossless: {', '.join(dirty)}", file=sys.stderr)
    return 1 if dirty else 0


if __name__ == "__main__":
    sys.exit(main())
