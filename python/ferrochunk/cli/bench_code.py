"""``ferrochunk bench --chunker code``: the code chunkers on your source files, per language
(see ``ferrochunk/bench_code.py``)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from .. import bench_code
from .._grammars import EXTENSIONS
from ..errors import ConfigError
from .reports import write_report
from .sources import Unreadable, read_texts

COLUMNS = ("language", "chunker", "MB/s", "× parse", "chunks", "defs cut", "over cap", "no scope")

LEGEND = (
    "MB/s: median of the runs, one thread. × parse: time over tree-sitter's bare parse of "
    "the same files. defs cut: definitions that fit the cap (less 2 tokens) with a chunk "
    "boundary inside. over cap: chunks whose embedded text (ferrochunk: context + text) has "
    "more cl100k tokens than the cap; peers that count characters get 4 per token "
    "(LlamaIndex) or 25/8 non-space ones (astchunk). no scope: chunks that start inside a "
    "definition with no context naming it."
)


def _files(args: argparse.Namespace) -> dict[str, list[str]]:
    """The files to measure on, by language: --language NAME takes them all, auto (the
    default) goes by extension and passes over the rest."""
    if not args.paths:
        raise ConfigError("--chunker code needs files or folders of source code")
    language = args.language or "auto"
    out: dict[str, list[str]] = {}
    for ident, text in read_texts(args.paths).items():
        lang = EXTENSIONS.get(Path(ident).suffix.lower()) if language == "auto" else language
        if lang is not None:
            out.setdefault(lang, []).append(text)
    if not out:
        raise ConfigError("no source files with a known extension (docs/code.md lists them)")
    return out


def _cells(row: bench_code.Row, floor: float | None) -> list[str]:
    if row.skipped is not None:
        return [row.language, row.label, f"skipped: {row.skipped}", "", "", "", "", ""]
    mb = row.mb_per_s or 0.0
    ratio = "" if not floor or not row.seconds else f"{row.seconds / floor:.2f}"
    q = row.quality
    return [
        row.language,
        row.label,
        f"{mb:.2f}",
        ratio,
        "" if row.chunks is None else f"{row.chunks:,}",
        *(str(q[k]) if k in q else "" for k in ("defs_cut", "over_cap", "no_scope")),
    ]


def main_code(args: argparse.Namespace) -> int:
    os.environ.setdefault("RAYON_NUM_THREADS", "1")
    if args.plot is not None:
        raise ConfigError("--plot does not apply to --chunker code (use --json or --markdown)")
    if args.max_tokens < 16:
        raise ConfigError(f"--max-tokens must be >= 16 for Code, got {args.max_tokens}")
    try:
        by_language = _files(args)
    except Unreadable as exc:
        print(f"ferrochunk bench: cannot read {exc}", file=sys.stderr)
        return 2
    table: list[list[str]] = []
    rows: list[bench_code.Row] = []
    for language, files in sorted(by_language.items()):
        size = sum(len(f.encode("utf-8")) for f in files)
        print(f"ferrochunk bench: {language}, {len(files)} files, {size / 1e6:.2f} MB",
              file=sys.stderr)  # fmt: skip
        measured = bench_code.measure(files, language, args.max_tokens, args.repeat, args.budget)
        floor = next((r.seconds for r in measured if r.label.startswith("tree-sitter")), None)
        table += [_cells(r, floor) for r in measured]
        rows += measured
    widths = [max(len(h), *(len(r[i]) for r in table)) for i, h in enumerate(COLUMNS)]
    print("  ".join(h.ljust(w) for h, w in zip(COLUMNS, widths, strict=True)))
    for r in table:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)))
    print(LEGEND)
    if args.json:
        payload: dict[str, Any] = {
            "max_tokens": args.max_tokens,
            "results": [{**r.__dict__, "mb_per_s": r.mb_per_s} for r in rows],
        }
        write_report(args.json, json.dumps(payload, indent=2) + "\n")
    if args.markdown:
        lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
        lines += ["| " + " | ".join(r) + " |" for r in table]
        write_report(args.markdown, "\n".join(lines) + "\n\n" + LEGEND + "\n")
    ours = [r for r in rows if r.label.startswith("ferrochunk") and r.skipped]
    return 1 if ours else 0
