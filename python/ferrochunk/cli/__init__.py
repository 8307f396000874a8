"""The ferrochunk command: chunk documents, or benchmark chunkers on them.

ferrochunk chunk [PATH ...]   chunk files, folders, stdin (-), JSONL or Parquet records
ferrochunk bench [PATH ...]   every chunker side by side on your documents
ferrochunk eval PATH ... --questions FILE   which chunker retrieves best on your documents
ferrochunk sync PATH ... --state LEDGER     what a vector store must delete, embed and move
ferrochunk churn REPO --chunker SPEC ...   what each chunker re-embeds over a git history
ferrochunk --version
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from .. import __version__
from ..errors import FerrochunkError
from . import bench as bench_cli
from . import churn as churn_cli
from . import eval as eval_cli
from . import sync as sync_cli
from .chunk import add_arguments
from .chunk_run import main_chunk
from .extras import missing_package
from .sources import label


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="ferrochunk",
        description="Exact, fast, token-aware chunking for RAG ingestion.",
        epilog=(
            "examples:\n"
            "  ferrochunk chunk docs/ -o chunks.jsonl      chunk a folder (Recursive, 512 tokens)\n"
            "  ferrochunk chunk big.txt --chunker windows --max-tokens 256 --overlap-tokens 32\n"
            "  ferrochunk chunk                            chunk the bundled sample to stdout\n"
            "  ferrochunk bench docs/ --plot bench.png     every chunker side by side on docs/\n"
            "  ferrochunk eval docs/ --questions q.jsonl   which chunker retrieves best\n"
            "  ferrochunk sync docs/ --state index.db -o changes.jsonl   what to re-embed\n"
            "  ferrochunk churn . --paths '*.md' --chunker markdown:max_tokens=512\n"
            "  ferrochunk COMMAND --help                   the options of a command"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"ferrochunk {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    # Each command: its name, help line, description, arguments and entry point.
    commands = [
        (
            "chunk",
            "chunk documents into JSON lines or Parquet",
            (
                "Chunk files, folders, stdin (-), or JSONL/Parquet records, and write one record "
                "per chunk (JSON lines by default). Without paths it chunks a bundled sample. "
                "Large files stream in bounded memory. A regular-file output is replaced "
                "atomically (through a symlink too); devices, FIFOs and /dev/stdout are written "
                "directly; a run that reads nothing leaves the output as it was. Exit status: 0 "
                "when every input was read, 1 when some were skipped (they are listed), 2 for a "
                "usage or configuration error, a missing extra or a failed write."
            ),
            add_arguments,
            main_chunk,
        ),
        (
            "bench",
            "measure every chunker side by side on your documents",
            (
                "Run ferrochunk's configs, its compat surfaces beside their pure-Python "
                "references, and every installed peer (LangChain, chonkie, semchunk, "
                "semantic-text-splitter; tiktoken as the floor) on the same documents, one "
                "thread each, and print MB/s with what each did to the text. Without paths it "
                "uses a bundled sample. Exit status: 0 when ferrochunk's own rows ran, 1 when "
                "one failed, 2 for a usage error or an unreadable input."
            ),
            bench_cli.add_arguments,
            bench_cli.main_bench,
        ),
        (
            "eval",
            "which chunker lets a retriever find the answers in your documents",
            (
                "Chunk the documents with each chunker, retrieve chunks for each question (BM25 "
                "by default, offline), and score them against the answer spans: Chroma's recall, "
                "precision and IoU, recall@k, MRR, with 95 % bootstrap intervals. Exit status: "
                "0 on success, 2 for a usage error, a bad questions file or an unreadable input."
            ),
            eval_cli.add_arguments,
            eval_cli.main_eval,
        ),
        (
            "sync",
            "the changes that bring a vector store to your documents, kept in a ledger",
            (
                "Chunk the documents that changed since the last sync (the ledger, an SQLite "
                "file, remembers), and write one line per change: delete a record id, add (embed) "
                "a chunk, or move a kept chunk (new offsets, no embedding). The ledger is "
                "committed only after the output is complete and in place; a failed run changes "
                "nothing. Exit status: 0 on success, 1 when some inputs were skipped (they are "
                "listed), 2 for a usage error, a bad ledger or a failed write."
            ),
            sync_cli.add_arguments,
            sync_cli.main_sync,
        ),
        (
            "churn",
            "replay a git history: what each chunker would re-embed per revision",
            (
                "For each commit that modifies the files given, chunk each such file before and "
                "after it and count, per chunker, the chunks whose embedded text is new "
                "(re-embedded), those of them that overlap no changed line (excess: a boundary "
                "moved), their tokens, and the mean chunk size. Exit status: 0 on success, 2 "
                "for a usage error or a path that is not a git repository."
            ),
            churn_cli.add_arguments,
            churn_cli.main_churn,
        ),
    ]
    for name, summary, description, add, entry in commands:
        command = sub.add_parser(name, help=summary, description=description)
        add(command)
        command.set_defaults(run=entry)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``ferrochunk`` command."""
    args = parser().parse_args(argv)
    try:
        return int(args.run(args))
    except FerrochunkError as exc:
        # Usage and configuration errors: raised by explicit checks of what was given.
        # Anything else (a KeyError, an IndexError) is a bug and keeps its traceback.
        print(f"ferrochunk: {exc}", file=sys.stderr)
        return 2
    except ImportError as exc:
        # A missing extra (pyarrow, matplotlib, a tree-sitter grammar), wherever it is
        # imported: one line that names the package and how to install it.
        missing = missing_package(exc)
        if missing is None:
            raise
        print(f"ferrochunk: {missing}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader (e.g. `head`) left; stop quietly, as Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as exc:
        # Output errors arrive above as OutputError; this one may be a read (--config).
        where = f"{label(exc.filename)}: " if exc.filename else ""
        print(f"ferrochunk: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
