"""``ferrochunk churn``: replay a repository's history and see what each chunker re-embeds."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import TextIO

from ..churn import Churn, churn, revisions
from ..errors import FerrochunkError
from ..spec import config_from_spec
from .chunk import tokenizer_of

DEFAULT_CHUNKERS = ("recursive:max_tokens=512", "windows:max_tokens=512")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("repo", help="a git repository (a work tree or a bare one)")
    p.add_argument(
        "--paths",
        action="append",
        metavar="GLOB",
        help="the files to replay, as git pathspecs such as '*.md' (repeat; default: all)",
    )
    p.add_argument("--since", metavar="DATE", help="only commits after DATE (git's --since)")
    p.add_argument(
        "--max-revisions",
        type=int,
        default=300,
        metavar="N",
        help="the last N revisions that modify those files (default 300)",
    )
    p.add_argument(
        "--chunker",
        action="append",
        metavar="SPEC",
        help="a chunker spec such as markdown:max_tokens=512 (repeat); default: "
        + " and ".join(DEFAULT_CHUNKERS),
    )
    p.add_argument("--tokenizer", default="cl100k", metavar="NAME|FILE")
    p.add_argument("--json", metavar="FILE", help="write the figures as JSON")
    p.add_argument("--plot", metavar="FILE.png", help="bars of re-embedded and excess chunks")


def table(rows: list[Churn]) -> str:
    """The figures, one row per chunker."""
    head = ["chunker", "re-embedded chunks/rev", "tokens/rev", "excess/rev", "mean tokens"]
    body = [
        [r.chunker, f"{r.reembedded_chunks:.2f}", f"{r.reembedded_tokens:.0f}",
         f"{r.excess:.2f}", f"{r.mean_tokens:.0f}"]
        for r in rows
    ]  # fmt: skip
    widths = [max(len(x) for x in col) for col in zip(head, *body, strict=True)]
    lines = [
        "  ".join(x.ljust(w) for x, w in zip(line, widths, strict=True)) for line in [head, *body]
    ]
    return "\n".join(line.rstrip() for line in lines)


def _plot(rows: list[Churn], path: str) -> None:
    from .._support.optional import require

    plt = require("matplotlib.pyplot", "bench")
    fig, ax = plt.subplots(figsize=(8, 1 + 0.6 * len(rows)))
    names = [r.chunker for r in rows]
    ax.barh(names, [r.reembedded_chunks for r in rows], label="re-embedded")
    ax.barh(names, [r.excess for r in rows], label="excess (a boundary moved)")
    ax.set_xlabel("chunks per revision")
    ax.invert_yaxis()
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if args.max_revisions < 1:
        raise FerrochunkError(f"--max-revisions must be >= 1, got {args.max_revisions}")
    configs = [config_from_spec(s) for s in (args.chunker or DEFAULT_CHUNKERS)]
    tok = tokenizer_of(args.tokenizer)
    history = revisions(
        args.repo, args.paths or (), since=args.since, max_revisions=args.max_revisions
    )
    rows = churn(history, configs, tokenizer=tok)
    if rows[0].revisions == 0:
        raise FerrochunkError(f"no commit of {args.repo} modifies a file of those paths")
    print(table(rows), file=out)
    print(
        f"{rows[0].revisions} revisions, {rows[0].files} file edits, {tok.name} tokens",
        file=err,
    )
    if args.json:
        Path(args.json).write_text(json.dumps([asdict(r) for r in rows], indent=2) + "\n")
    if args.plot:
        _plot(rows, args.plot)
    return 0


def main_churn(args: argparse.Namespace) -> int:
    return run(args, sys.stdout, sys.stderr)
