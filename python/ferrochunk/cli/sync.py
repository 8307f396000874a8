"""``ferrochunk sync``: the changes that bring a vector store to a folder, kept in a ledger.

It writes one line per change (``op`` = ``delete``, ``add`` or ``move``) and commits the
ledger only after the output is complete and in place, so a failed run changes nothing and
the next run yields the same changes.
"""

from __future__ import annotations

import argparse
import codecs
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, TextIO

from ..errors import FerrochunkError
from ..ledger import Changes, Ledger
from ..records import OFFSET_FIELDS, record
from .chunk import (
    add_chunker_arguments,
    add_input_arguments,
    add_output_arguments,
    build_config,
    tokenizer_of,
)
from .sink import Sink, target
from .sources import Source, Unreadable, discover, label, read_records


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "paths",
        nargs="+",
        help="files, folders or - for stdin; a file's document id is its path relative to "
        "the folder given (a file given alone: its name), a record's FILE#ID",
    )
    state = p.add_argument_group("state")
    state.add_argument(
        "--state", required=True, metavar="LEDGER", help="the ledger file (SQLite; created)"
    )
    state.add_argument(
        "--delete-missing",
        action="store_true",
        help="the paths are the whole corpus: delete the documents the ledger holds that they lack",
    )
    state.add_argument(
        "--dry-run", action="store_true", help="write the changes but leave the ledger as it was"
    )
    add_chunker_arguments(p)
    add_input_arguments(p)
    add_output_arguments(p)


class _DryRun(Exception):
    """Leaves the sync's block so that the ledger rolls back."""


def _documents(
    args: argparse.Namespace, stdin: IO[bytes], skipped: list[tuple[str, str]]
) -> Iterator[tuple[str, str]]:
    """Every document of the paths, read one at a time; the unreadable ones are listed in
    ``skipped`` (and refused with ``--delete-missing``, which would delete them)."""
    for given in args.paths:
        sources, missing = discover([given], args.glob)
        skipped.extend(missing)
        root = Path(given)
        for source in sources:
            try:
                yield from _texts(source, root, args, stdin)
            except Unreadable as exc:
                skipped.append((source.name, exc.hint))
    if skipped and args.delete_missing:
        names = ", ".join(name for name, _ in skipped[:3])
        raise FerrochunkError(
            f"{len(skipped)} input(s) could not be read ({names}); --delete-missing would "
            "delete them from the store, so nothing was changed"
        )


def _texts(
    source: Source, root: Path, args: argparse.Namespace, stdin: IO[bytes]
) -> Iterator[tuple[str, str]]:
    if source.path is None:
        yield "-", _decode(stdin.read(), args.encoding)
        return
    # label(): a file name that is not UTF-8 gets a stable, valid id (its bytes escaped).
    ident = label(source.path.relative_to(root).as_posix()) if root.is_dir() else label(root.name)
    if source.kind in ("jsonl", "parquet"):
        for r in read_records(source, args.text_field, args.id_field):
            yield f"{ident}#{r.id}", r.text
        return
    try:
        data = source.path.read_bytes()
    except OSError as exc:
        raise Unreadable(exc.strerror or str(exc)) from exc
    yield ident, _decode(data, args.encoding)


def _decode(data: bytes, encoding: str) -> str:
    # Exactly the bytes (no newline translation): the offsets a store keeps index them.
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise Unreadable(f"not {encoding} text (byte {exc.start})", "--encoding") from exc


def rows(changes: Changes, config: Any) -> list[dict[str, Any]]:
    """The change lines: deletions first, then additions, then moves."""
    out: list[dict[str, Any]] = [
        {"op": "delete", "record_id": rid, "doc_id": doc}
        for rid, doc in zip(changes.removed, changes.removed_doc_ids, strict=True)
    ]
    for c in changes.added:
        out.append({"op": "add", "record_id": c.record_id, "doc_id": c.doc_id, **record(c, config)})
    for c in changes.moved:
        where = {name: getattr(c, name) for name in OFFSET_FIELDS}
        out.append(
            {
                "op": "move",
                "record_id": c.record_id,
                "doc_id": c.doc_id,
                "chunk_id": c.chunk_id,
                "chunk_index": c.index,
                **where,
            }
        )
    return out


def _keep_fields() -> list[Any]:
    from .._support.optional import require

    pa = require("pyarrow", "arrow")
    return [pa.field(name, pa.large_string()) for name in ("op", "record_id", "doc_id")]


def run(args: argparse.Namespace, out: TextIO, err: TextIO, stdin: IO[bytes]) -> int:
    config, clean = build_config(args)
    if clean is not None:
        raise FerrochunkError("sync does not apply cleaning rules; clean the text first")
    tok = tokenizer_of(args.tokenizer)
    try:
        codecs.lookup(args.encoding)
    except LookupError:
        raise FerrochunkError(f"--encoding: unknown encoding {args.encoding!r}") from None
    output = Path(args.output) if args.output else None
    fmt = args.format or ("parquet" if output and output.suffix == ".parquet" else "jsonl")
    if fmt == "parquet" and output is None:
        raise FerrochunkError("--format parquet needs -o FILE")
    where = target(output, args.force)
    if where.holds(Path(args.state)):
        raise FerrochunkError(f"the output {where.name} is the ledger")
    keep = _keep_fields() if fmt == "parquet" else ()
    skipped: list[tuple[str, str]] = []
    started = time.perf_counter()
    with Ledger(args.state) as ledger:
        docs = _documents(args, stdin, skipped)
        sync = ledger.sync(docs, config, tokenizer=tok, delete_missing=args.delete_missing)
        try:
            with sync as changes:
                with Sink(where, fmt, config, keep, out) as sink:
                    sink.write(rows(changes, config))
                if args.dry_run:
                    raise _DryRun
        except _DryRun:
            pass
    for name, why in skipped:
        print(f"ferrochunk: skipped {name}: {why}", file=err)
    took = time.perf_counter() - started
    note = " (dry run: the ledger is unchanged)" if args.dry_run else ""
    print(f"{changes.summary()} in {took:.1f} s{note}", file=err)
    return 1 if skipped else 0


def main_sync(args: argparse.Namespace) -> int:
    return run(args, sys.stdout, sys.stderr, sys.stdin.buffer)
