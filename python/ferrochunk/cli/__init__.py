"""The ferrochunk command: chunk documents, or benchmark chunkers on them.

ferrochunk chunk [PATH ...]   chunk files, folders, stdin (-), JSONL or Parquet records
ferrochunk --version
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from .. import __version__
from ..errors import FerrochunkError
from .chunk import add_arguments, main_chunk


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="ferrochunk",
        description="Exact, fast, token-aware chunking for RAG ingestion.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"ferrochunk {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    chunk = sub.add_parser(
        "chunk",
        help="chunk documents into JSON lines or Parquet",
        description=(
            "Chunk files, folders, stdin (-), or JSONL/Parquet records, and write one record "
            "per chunk (JSON lines by default). Without paths it chunks a bundled sample. "
            "Large files stream in bounded memory; the output is written atomically. "
            "Exit status: 0 when every input was read, 1 when some were skipped (they are "
            "listed), 2 for a usage or configuration error."
        ),
    )
    add_arguments(chunk)
    chunk.set_defaults(run=main_chunk)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``ferrochunk`` command."""
    args = parser().parse_args(argv)
    try:
        return int(args.run(args))
    except (FerrochunkError, LookupError) as exc:
        message = exc.args[0] if isinstance(exc, LookupError) and exc.args else exc
        print(f"ferrochunk: {message}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader (e.g. `head`) left; stop quietly, as Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as exc:
        where = exc.filename or "the output"
        print(f"ferrochunk: cannot write {where}: {exc.strerror or exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
