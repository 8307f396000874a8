"""``ferrochunk bench``: every chunker side by side on your own documents, and with
``--chunker code`` the code chunkers on source files, per language (the measuring is
``ferrochunk.bench``'s; this module holds the arguments and the printing)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from .. import bench
from .._grammars import EXTENSIONS
from ..errors import ConfigError
from .extras import need_plot
from .reports import save_figure, write_report
from .sources import Unreadable, read_texts

COLUMNS = [
    ("chunker", "chunker"),
    ("MB/s", "mb_per_s"),
    ("first pass MB/s", "first_mb_per_s"),
    ("chunks", "chunks"),
    ("over cap", "over_cap"),
    ("lost", "lost"),
    ("U+FFFD", "replacement"),
    ("wrong offsets", "wrong_offsets"),
    ("peak MB", "peak_mb"),
]
# Shown when a Markdown chunker is in the table.
MARKDOWN_COLUMNS = [
    ("code cut", "code_cut"),
    ("rows cut", "rows_cut"),
    ("ends on heading", "heading_end"),
]


# Shown with --questions.
RETRIEVAL_COLUMNS = [("recall", "recall"), ("IoU", "iou")]


def _columns(results: Sequence[bench.Result]) -> list[tuple[str, str]]:
    columns = COLUMNS
    if any(r.code_cut is not None for r in results):
        columns = COLUMNS[:-1] + MARKDOWN_COLUMNS + COLUMNS[-1:]
    if any(r.recall is not None for r in results):
        columns = columns + RETRIEVAL_COLUMNS
    return columns


LEGEND = (
    "MB/s: median of the runs, one thread; every run reads the same documents (repeated to a "
    "megabyte when they are smaller, as the title says), so caches "
    "are warm. first pass MB/s: median of three runs, each in a fresh process, as on new "
    "documents. over cap: "
    "chunks whose text alone has more cl100k tokens than the cap (with --tokenizer: the "
    "model's tokens plus the special tokens it adds; — where the contract has "
    "none). lost: non-white-space characters of the text in no chunk (DelimiterMerge drops "
    "its delimiters by contract; those are not counted). U+FFFD: replacement characters "
    "introduced. wrong offsets: chunks whose reported offset does not slice their text (— "
    "where none is reported). peak MB: resident memory a first pass adds at its peak (median). "
    "Markdown rows: over cap counts what is embedded (ferrochunk Markdown: context + text); "
    "code cut: fenced code blocks that fit the cap but no chunk holds whole; rows cut: table "
    "rows no chunk holds whole; ends on heading: chunks (but a document's last) whose last "
    "line is a section heading's (ferrochunk ends one there only when the heading and the "
    "block after it fit apart but not together). recall, IoU (with --questions): Chroma's "
    "scores at k over BM25 retrieval (ferrochunk eval; docs/eval.md), for the rows with "
    "exact offsets."
)


class _Deprecated(argparse.Action):
    """Stores the value of a renamed option, with a note naming the new one."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        print(
            f"ferrochunk bench: {option_string} is deprecated; use --overlap-tokens",
            file=sys.stderr,
        )
        setattr(namespace, self.dest, values)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "paths",
        nargs="*",
        help="files or folders to measure on (default: the bundled sample); *.jsonl and "
        "*.parquet files are read as records",
    )
    p.add_argument("--max-tokens", type=int, default=512, help="chunk size (default 512)")
    p.add_argument(
        "--overlap-tokens", type=int, default=51, help="overlap in tokens, where a chunker has "
        "one (default 51)"
    )  # fmt: skip
    # The old name, kept working; hidden, and it says what replaces it.
    p.add_argument(
        "--overlap", type=int, dest="overlap_tokens", default=argparse.SUPPRESS,
        action=_Deprecated, help=argparse.SUPPRESS
    )  # fmt: skip
    p.add_argument(
        "--chunkers",
        help="comma-separated keys or kinds to run (kinds: "
        f"{', '.join(bench.KINDS)}); default: all",
    )
    p.add_argument("--repeat", type=int, default=5, help="runs per chunker (default 5)")
    p.add_argument(
        "--budget",
        type=float,
        default=10.0,
        help="seconds after which a chunker stops repeating (default 10)",
    )
    p.add_argument("--text-field", default="text", help="records: the text field (default text)")
    p.add_argument(
        "--tokenizer",
        metavar="FILE",
        help="a model's tokenizer.json: sizes in its tokens (with its special tokens), and "
        "the rows that can count in them",
    )
    p.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    p.add_argument("--markdown", metavar="FILE", help="also write the table as Markdown")
    p.add_argument("--plot", metavar="FILE", help="also draw MB/s as a bar chart (matplotlib)")
    p.add_argument("--list", action="store_true", help="list the chunkers and exit")
    p.add_argument(
        "--chunker",
        action="append",
        metavar="SPEC|code",
        help="a chunker spec such as recursive:max_tokens=256,overlap_tokens=25 to measure "
        "(repeat it; with no --chunkers, only these run), or code: the code chunkers "
        "(ferrochunk Code, text-splitter, astchunk, LlamaIndex) beside tree-sitter's parse on "
        "your source files, with quality columns",
    )
    p.add_argument(
        "--questions",
        metavar="FILE",
        help="questions with answer spans (as ferrochunk eval takes them): adds recall and "
        "IoU columns for the rows with exact offsets",
    )
    p.add_argument(
        "-k", type=int, default=5, help="with --questions: chunks retrieved per question "
        "(default 5, as Chroma's evaluation)"
    )  # fmt: skip
    p.add_argument(
        "--language",
        metavar="NAME|auto",
        help="with --chunker code: the grammar of every file, or auto (by extension)",
    )


def _documents(paths: Sequence[str], text_field: str) -> list[str]:
    """The texts to measure on (the bundled sample without paths); any unreadable input is
    an error (a benchmark on part of what was asked for would mislead)."""
    if not paths:
        from .chunk import _sample

        return [_sample().read_text(encoding="utf-8")]
    texts = [t for t in read_texts(paths, text_field=text_field).values() if t]
    if not texts:
        raise Unreadable(f"no text in {', '.join(paths)}")
    return texts


def _cell(result: bench.Result, field: str) -> str:
    if field == "chunker":
        return result.label
    if result.skipped is not None:
        return f"skipped: {result.skipped}" if field == "mb_per_s" else ""
    if result.error is not None:
        return f"error: {result.error}" if field == "mb_per_s" else ""
    value = getattr(result, field)
    if value is None:
        return "—"
    if field in ("mb_per_s", "first_mb_per_s"):
        return f"{value:.1f}" if value < 100 else f"{value:.0f}"
    if field == "peak_mb":
        return f"{value:.2f}" if value < 10 else f"{value:.0f}"
    if field in ("recall", "iou"):
        return f"{value:.3f}"
    return f"{value:,}"


def markdown(results: Sequence[bench.Result]) -> str:
    """The table as Markdown (the form ``BENCHMARKS.md`` publishes)."""
    columns = _columns(results)
    lines = [
        "| " + " | ".join(h for h, _ in columns) + " |",
        "|" + "|".join("---" if i == 0 else "---:" for i in range(len(columns))) + "|",
    ]
    for r in results:
        lines.append("| " + " | ".join(_cell(r, f) for _, f in columns) + " |")
    return "\n".join(lines) + "\n"


def _print_table(results: Sequence[bench.Result], title: str) -> None:
    columns = _columns(results)
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:
        print(title)
        widths = [max(len(h), *(len(_cell(r, f)) for r in results)) for h, f in columns]
        print("  ".join(h.ljust(w) for (h, _), w in zip(columns, widths, strict=True)))
        for r in results:
            cells = [_cell(r, f) for _, f in columns]
            print("  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)))
        return
    table = Table(title=title, title_justify="left")
    for i, (header, _) in enumerate(columns):
        table.add_column(header, justify="left" if i == 0 else "right", overflow="fold")
    for r in results:
        style = "dim" if r.skipped else "red" if r.error else "bold" if r.kind == "native" else ""
        table.add_row(*(_cell(r, f) for _, f in columns), style=style)
    # Piped output keeps whole rows (rich would fold them at 80 columns).
    Console(width=None if sys.stdout.isatty() else 160).print(table)


def _plot(results: Sequence[bench.Result], path: str, title: str) -> None:
    from .._support.optional import require

    require("matplotlib", "bench")
    import matplotlib

    matplotlib.use("Agg")  # no display needed
    import matplotlib.pyplot as plt

    rows = [r for r in results if r.mb_per_s is not None]
    colors = {"native": "#c0392b", "compat": "#e67e22", "reference": "#7f8c8d",
              "peer": "#2980b9", "floor": "#27ae60"}  # fmt: skip
    from matplotlib.ticker import FuncFormatter, NullFormatter

    fig, ax = plt.subplots(figsize=(9, 0.45 * len(rows) + 1.5))
    ys = list(range(len(rows)))
    warm = [r.mb_per_s or 0.0 for r in rows]
    first = [r.first_mb_per_s or 0.0 for r in rows]
    color = [colors[r.kind] for r in rows]
    ax.barh([y - 0.2 for y in ys], warm, height=0.4, color=color, label="median of runs (warm)")
    ax.barh([y + 0.2 for y in ys], first, height=0.4, color=color, alpha=0.45,
            label="first pass (fresh process)")  # fmt: skip
    ax.set_yticks(ys, [r.label for r in rows])
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())
    for y, w, f in zip(ys, warm, first, strict=True):
        ax.text(w, y - 0.2, f" {w:.1f}", va="center", fontsize=7)
        if f:
            ax.text(f, y + 0.2, f" {f:.1f}", va="center", fontsize=7)
    ax.legend(loc="lower right", fontsize=8)
    ax.set_xlabel("MB/s, one thread (log scale)")
    ax.set_title(title, fontsize=10)
    ax.margins(x=0.15)
    fig.tight_layout()
    save_figure(fig, path)


def _retrieval(
    results: list[bench.Result],
    rows: Sequence[bench.Contender],
    documents: dict[str, str],
    args: argparse.Namespace,
) -> list[bench.Result]:
    """The results with Chroma's recall and IoU at k for the rows with exact offsets."""
    from ..eval import evaluate, read_questions

    scored = [(i, r.config) for i, r in enumerate(rows) if r.config is not None]
    if not scored:
        return results
    questions = read_questions(args.questions, documents)
    print(f"  scoring retrieval: {len(questions)} questions, k={args.k}", file=sys.stderr)
    got = evaluate(documents, questions, [c for _, c in scored], k=args.k)
    out = list(results)
    for (i, _), c in zip(scored, got.chunkers, strict=True):
        if out[i].error is None and out[i].skipped is None:
            a = c.score(args.k)
            out[i] = replace(out[i], recall=a.recall.mean, iou=a.iou.mean)
    return out


def main_bench(args: argparse.Namespace) -> int:
    specs = args.chunker or []
    if "code" in specs:
        if specs != ["code"]:
            raise ConfigError("--chunker code runs alone (the code chunkers on source files)")
        return _main_code(args)
    if args.language is not None:
        raise ConfigError("--language applies to --chunker code")
    if args.questions is not None and args.k < 1:
        raise ConfigError(f"-k must be >= 1, got {args.k}")
    # Per core: the compat paths count on rayon's global pool, which reads this once, at
    # its first use (and the memory children inherit it). A value the user set is kept.
    os.environ.setdefault("RAYON_NUM_THREADS", "1")
    threads = os.environ["RAYON_NUM_THREADS"]
    keys = [k.strip() for k in args.chunkers.split(",") if k.strip()] if args.chunkers else None
    for name, value in (("--max-tokens", args.max_tokens), ("--repeat", args.repeat)):
        if value < 1:
            raise ConfigError(f"{name} must be >= 1, got {value}")
    overlap = args.overlap_tokens
    if overlap < 0 or overlap >= args.max_tokens:
        raise ConfigError(
            f"--overlap-tokens must be >= 0 and < --max-tokens ({args.max_tokens}), got {overlap}"
        )
    if not args.budget > 0:
        raise ConfigError(f"--budget must be > 0 seconds, got {args.budget}")
    try:
        rows = bench.contenders(args.max_tokens, overlap, keys, args.tokenizer)
    except ValueError as exc:
        if isinstance(exc, ConfigError):
            raise ConfigError(f"--tokenizer {args.tokenizer}: {exc}") from exc
        raise ConfigError(f"--{exc}") from exc
    if specs:
        if args.tokenizer is not None:
            raise ConfigError("--chunker SPEC counts in cl100k; it cannot take --tokenizer")
        given = [bench.spec_row(s, args.max_tokens, overlap) for s in specs]
        rows = [*given, *rows] if keys else given
    if args.list:
        for c in rows:
            print(f"{c.key:30} {c.kind:10} {c.label}")
        return 0
    need_plot(args.plot)  # before the run, not after every chunker has been measured
    documents: dict[str, str] = {}
    try:
        if args.questions is not None:
            from .chunk import _sample
            from .eval import read_documents

            documents = read_documents(args.paths or [str(_sample())], args.text_field)
            texts = [t for t in documents.values() if t]
        else:
            texts = _documents(args.paths, args.text_field)
    except Unreadable as exc:
        print(f"ferrochunk bench: cannot read {exc}", file=sys.stderr)
        return 2
    size = sum(len(t.encode("utf-8", "surrogatepass")) for t in texts)
    title = (
        f"{len(texts)} document(s), {size / 1e6:.2f} MB; max {args.max_tokens} tokens, "
        f"overlap {overlap}; "
        + (f"tokens of {args.tokenizer}; " if args.tokenizer else "")
        + ("one thread each" if threads == "1" else f"RAYON_NUM_THREADS={threads}")
    )
    if bench.passes(size) > 1:  # say so: the MB/s column reads them that many times
        title += f"; timed runs read the documents {bench.passes(size)}× (1 MB)"
    print(f"ferrochunk bench: {title}", file=sys.stderr)

    def progress(r: bench.Result) -> None:
        state = "skipped" if r.skipped else "error" if r.error else f"{r.mb_per_s:.1f} MB/s"
        print(f"  {r.label}: {state}", file=sys.stderr)

    results = bench.run(texts, rows, repeat=args.repeat, budget=args.budget, on_result=progress)
    if args.questions is not None:
        results = _retrieval(results, rows, documents, args)
    _print_table(results, title)
    print(LEGEND)
    if args.json:
        payload: dict[str, Any] = {
            "documents": len(texts),
            "bytes": size,
            "max_tokens": args.max_tokens,
            "overlap": overlap,
            "environment": bench.environment(),
            "results": [r.as_dict() for r in results],
        }
        write_report(args.json, json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
    if args.markdown:
        write_report(args.markdown, f"{title}\n\n{markdown(results)}\n{LEGEND}\n")
    if args.plot:
        _plot(results, args.plot, title)
    # Our own rows must run; a peer's failure is only reported.
    ours = [r for r in results if r.kind in ("native", "compat") and r.error]
    return 1 if ours else 0


# -- --chunker code ---------------------------------------------------------------------

CODE_COLUMNS = (
    "language",
    "chunker",
    "MB/s",
    "× parse",
    "chunks",
    "defs cut",
    "over cap",
    "no scope",
)

CODE_LEGEND = (
    "MB/s: median of the runs, one thread. × parse: time over tree-sitter's bare parse of "
    "the same files. defs cut: definitions that fit the cap (less 2 tokens) with a chunk "
    "boundary inside. over cap: chunks whose embedded text (ferrochunk: context + text) has "
    "more cl100k tokens than the cap; peers that count characters get 4 per token "
    "(LlamaIndex) or 25/8 non-space ones (astchunk). no scope: chunks that start inside a "
    "definition with no context naming it."
)


def _code_files(args: argparse.Namespace) -> dict[str, list[str]]:
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


def _cells(row: bench.CodeRow, floor: float | None) -> list[str]:
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


def _main_code(args: argparse.Namespace) -> int:
    os.environ.setdefault("RAYON_NUM_THREADS", "1")
    if args.plot is not None:
        raise ConfigError("--plot does not apply to --chunker code (use --json or --markdown)")
    if args.max_tokens < 16:
        raise ConfigError(f"--max-tokens must be >= 16 for Code, got {args.max_tokens}")
    try:
        by_language = _code_files(args)
    except Unreadable as exc:
        print(f"ferrochunk bench: cannot read {exc}", file=sys.stderr)
        return 2
    table: list[list[str]] = []
    rows: list[bench.CodeRow] = []
    for language, files in sorted(by_language.items()):
        size = sum(len(f.encode("utf-8")) for f in files)
        print(f"ferrochunk bench: {language}, {len(files)} files, {size / 1e6:.2f} MB",
              file=sys.stderr)  # fmt: skip
        measured = bench.measure_code(files, language, args.max_tokens, args.repeat, args.budget)
        floor = next((r.seconds for r in measured if r.label.startswith("tree-sitter")), None)
        table += [_cells(r, floor) for r in measured]
        rows += measured
    widths = [max(len(h), *(len(r[i]) for r in table)) for i, h in enumerate(CODE_COLUMNS)]
    print("  ".join(h.ljust(w) for h, w in zip(CODE_COLUMNS, widths, strict=True)))
    for r in table:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)))
    print(CODE_LEGEND)
    if args.json:
        payload: dict[str, Any] = {
            "max_tokens": args.max_tokens,
            "results": [{**r.__dict__, "mb_per_s": r.mb_per_s} for r in rows],
        }
        write_report(args.json, json.dumps(payload, indent=2) + "\n")
    if args.markdown:
        lines = ["| " + " | ".join(CODE_COLUMNS) + " |", "|" + "---|" * len(CODE_COLUMNS)]
        lines += ["| " + " | ".join(r) + " |" for r in table]
        write_report(args.markdown, "\n".join(lines) + "\n\n" + CODE_LEGEND + "\n")
    ours = [r for r in rows if r.label.startswith("ferrochunk") and r.skipped]
    return 1 if ours else 0
