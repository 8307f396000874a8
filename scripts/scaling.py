"""Linear time on hostile input: each case timed at n and 4n; a ratio above 6x is flagged.

Run: ``.venv/bin/python scripts/scaling.py [--scale S]`` (S multiplies every size; the
figures in RELIABILITY.md are from the default). Prints a Markdown table and exits 1
when a case scales worse than 6x for 4x the input. Inputs are built before the clock starts;
each size runs three times and the fastest counts.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import ferrochunk as fc
from ferrochunk.compat import dify, ragflow

Case = tuple[str, int, Callable[[int], Callable[[], object]]]

NATIVE = {
    "TokenWindows": fc.TokenWindows(512, overlap_tokens=51),
    "Recursive": fc.Recursive(512, overlap_tokens=51),
    "Recursive, content boundaries": fc.Recursive(512, overlap_tokens=51, boundaries="content"),
    "SentenceWindows": fc.SentenceWindows(512),
    "DelimiterMerge": fc.DelimiterMerge(512, delimiters=("\n\n", "\n", "。", ". ")),
    "ParentChild": fc.ParentChild(fc.Recursive(512), child=fc.Recursive(128)),
}
HOSTILE_TEXTS: dict[str, Callable[[int], str]] = {
    "no delimiter (letters and spaces)": lambda n: ("lorem ipsum " * (n // 12 + 1))[:n],
    "consecutive delimiters": lambda n: "\n" * n,
    "one word": lambda n: "a" * n,
    "one emoji repeated": lambda n: "😀" * (n // 4),
    "CJK without punctuation": lambda n: ("人工智能正在改变世界的每一个角落" * (n // 48 + 1))[
        : n // 3
    ],
}


# Markdown's own hostile inputs: blocks that never end, and nesting on one line.
MARKDOWN = fc.Markdown(512, overlap_tokens=51)
CONTENT = fc.Markdown(512, overlap_tokens=51, boundaries="content")
MARKDOWN_TEXTS: dict[str, Callable[[int], str]] = {
    "an unclosed fence": lambda n: "```\n" + "x = 1\n" * (n // 6),
    "one line": lambda n: "word " * (n // 5),
    "one table": lambda n: "| a | b |\n|---|---|\n" + "| 1 | 2 |\n" * (n // 10),
    "only headings": lambda n: "".join(f"{'#' * (k % 6 + 1)} h{k}\n" for k in range(n // 8)),
    "nested quotes on one line": lambda n: ">" * n + " x\n",
    "nested list markers on one line": lambda n: "- " * (n // 2) + "x\n",
}


def _bound(fn: Callable[..., object], *args: object, **kwargs: object) -> Callable[[], object]:
    """``fn(*args)`` with the inputs built before the clock starts."""
    return lambda: fn(*args, **kwargs)


def _cases() -> list[Case]:
    cases: list[Case] = []
    for text_name, make in HOSTILE_TEXTS.items():
        for config_name, config in NATIVE.items():
            cases.append(
                (
                    f"`{config_name}` on {text_name}",
                    2_500_000,
                    lambda n, make=make, config=config: _bound(fc.chunk, make(n), config),
                )
            )
    for text_name, make in MARKDOWN_TEXTS.items():
        for label, config in (("Markdown", MARKDOWN), ("Markdown, content boundaries", CONTENT)):
            cases.append(
                (
                    f"`{label}` on {text_name}",
                    2_500_000,
                    lambda n, make=make, config=config: _bound(fc.chunk, make(n), config),
                )
            )
    urls = fc.CleanRules(remove_urls_emails=True)
    rule = {"rules": {"pre_processing_rules": [{"id": "remove_urls_emails", "enabled": True}]}}
    cases += [
        (
            "`CleanRules(remove_urls_emails=True)` on one word",
            200_000,
            lambda n: _bound(fc.chunk, "a" * n, fc.TokenWindows(512), clean=urls),
        ),
        (
            "`CleanRules(remove_urls_emails=True)` on `[` repeated",
            200_000,
            lambda n: _bound(fc.chunk, "[" * n, fc.TokenWindows(512), clean=urls),
        ),
        (
            "compat `CleanProcessor.clean` (URLs and emails) on one word",
            200_000,
            lambda n: _bound(dify.CleanProcessor.clean, "a" * n, rule),
        ),
        (
            "compat `CleanProcessor.clean` on `![` repeated",
            200_000,
            lambda n: _bound(dify.CleanProcessor.clean, "![" * (n // 2), rule),
        ),
        (
            "`DelimiterMerge` with one delimiter of n / 25 characters",
            400_000,
            lambda n: _bound(
                fc.chunk,
                ("x" * (n // 25) + "lorem ipsum ") * 25,
                fc.DelimiterMerge(512, delimiters=("x" * (n // 25),)),
            ),
        ),
        (
            "`DelimiterMerge` with n / 50 duplicate delimiters",
            2_000_000,
            lambda n: _bound(
                fc.chunk,
                "lorem ipsum; " * (n // 13),
                fc.DelimiterMerge(512, delimiters=(";",) * (n // 50)),
            ),
        ),
        (
            "compat `naive_merge` on consecutive delimiters",
            1_000_000,
            lambda n: _bound(ragflow.naive_merge, "\n" * n, 128, "\n"),
        ),
        (
            "`chunk_stream` of 1-byte pieces (`TokenWindows`)",
            200_000,
            lambda n: (
                lambda: list(fc.chunk_stream(iter("lorem ipsum " * (n // 12)), fc.TokenWindows(64)))
            ),
        ),
    ]
    cases += _long_piece_cases()
    cases += _tokenizer_json_cases()
    return cases


def _long_piece_cases() -> list[Case]:
    """The embedded encodings on one piece of n bytes (the long-piece encoder)."""
    texts = {"letters": lambda n: "a" * n, "spaces": lambda n: " " * n,
             "dashes": lambda n: "-" * n}  # fmt: skip
    return [
        (
            f"{name} `count` on one piece of {text_name}",
            2_500_000,
            lambda n, make=make, tok=tok: _bound(tok.count, make(n)),
        )
        for name, tok in (("cl100k", fc.Tokenizer.cl100k()), ("o200k", fc.Tokenizer.o200k()))
        for text_name, make in texts.items()
    ]


def _tokenizer_json_cases() -> list[Case]:
    """The native tokenizer.json engine on one word of n letters (4n = 10 MB) and on one
    character repeated, for each model family (trained as in the tests)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from hf_models import json_of

    cases: list[Case] = []
    for model in ("bert", "bpe", "unigram", "spm"):
        texts = {"a word of n letters": lambda n: ("abcdefghij" * (n // 10 + 1))[:n],
                 "one character repeated": lambda n: "a" * n}  # fmt: skip
        for text_name, make in texts.items():
            cases.append(
                (
                    f"tokenizer.json {model} `encode` on {text_name}",
                    2_500_000,
                    lambda n, make=make, model=model: _bound(
                        fc.Tokenizer.from_json(json_of(model)).encode, make(n)
                    ),
                )
            )
    return cases


def _time(run: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every size")
    parser.add_argument("--only", default="", help="run the cases whose name holds this")
    args = parser.parse_args()
    print("| case | n | time at n (s) | time at 4n (s) | ratio |")
    print("|---|---:|---:|---:|---:|")
    flagged = []
    for name, size, build in _cases():
        if args.only not in name:
            continue
        n = max(int(size * args.scale), 64)
        small, large = _time(build(n)), _time(build(4 * n))
        ratio = large / max(small, 1e-6)
        mark = " **over 6x**" if ratio > 6 else ""
        print(f"| {name} | {n:,} | {small:.3f} | {large:.3f} | {ratio:.1f}x{mark} |", flush=True)
        if ratio > 6:
            flagged.append(name)
    if flagged:
        print(f"\nflagged: {', '.join(flagged)}", file=sys.stderr)
    return 1 if flagged else 0


if __name__ == "__main__":
    sys.exit(main())
