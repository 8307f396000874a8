"""RSS over many small calls: it must stay flat (no per-call leak in the extension).

Run: ``.venv/bin/python scripts/leaks.py [--calls N]``. Prints the resident set size after
warm-up and at checkpoints, over mixed configs, streams and tokenizer calls.
"""

from __future__ import annotations

import argparse
import sys

import ferrochunk as fc

CONFIGS = [
    fc.TokenWindows(16, overlap_tokens=3),
    fc.Recursive(20, overlap_tokens=2),
    fc.SentenceWindows(24),
    fc.DelimiterMerge(12, child_delimiters=(",",), overlap=20, joiner="\n"),
    fc.ParentChild(fc.Recursive(40), child=fc.Recursive(10)),
]
TEXT = "A small document, with a comma. 第二句，中文。\nAnother line here. " * 3


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def call(k: int) -> None:
    config = CONFIGS[k % len(CONFIGS)]
    if k % 3 == 0:
        fc.chunk(TEXT, config)
    elif k % 3 == 1:
        list(fc.chunk_stream([TEXT[:20], TEXT[20:]], config))
    else:
        fc.Tokenizer.cl100k().count(TEXT)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=100_000)
    args = parser.parse_args()
    for k in range(2_000):  # warm-up: engines, caches, the allocator's pools
        call(k)
    start = rss_mb()
    print("| calls | RSS (MB) |\n|---:|---:|")
    print(f"| 0 (after warm-up) | {start:.1f} |")
    checkpoints = {args.calls // 10, args.calls // 2, args.calls}
    for k in range(1, args.calls + 1):
        call(k)
        if k in checkpoints:
            print(f"| {k:,} | {rss_mb():.1f} |", flush=True)
    grown = rss_mb() - start
    print(f"\ngrowth: {grown:.1f} MB")
    return 1 if grown > 10 else 0


if __name__ == "__main__":
    sys.exit(main())
