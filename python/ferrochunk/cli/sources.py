"""What the CLI reads: text files (streamed), JSONL and Parquet records, and stdin; and,
for the commands that hold every document at once, :func:`read_texts`."""

from __future__ import annotations

import codecs
import fnmatch
import json
import os
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._support.optional import require

RECORD_SUFFIXES = {".jsonl": "jsonl", ".ndjson": "jsonl", ".parquet": "parquet"}


def label(path: Path | str) -> str:
    """A printable, JSON-safe name, even for file names that are not UTF-8."""
    raw = os.fsencode(path)
    return raw.decode("utf-8", "backslashreplace")


@dataclass(frozen=True)
class Source:
    """One input: a text file, a records file (``jsonl``/``parquet``) or stdin (``-``)."""

    path: Path | None
    kind: str  # "text", "jsonl", "parquet" or "stdin"
    display: str | None = None

    @property
    def name(self) -> str:
        if self.display is not None:
            return self.display
        return "<stdin>" if self.path is None else label(self.path)

    def size(self) -> int:
        try:
            return 0 if self.path is None else self.path.stat().st_size
        except OSError:
            return 0


class Unreadable(Exception):
    """An input that cannot be read; it is skipped and listed, and the exit status is 1.

    ``option`` names the command-line option that may fix it (``--encoding``,
    ``--text-field``, ``--id-field``), for the message to suggest.
    """

    def __init__(self, reason: str, option: str | None = None) -> None:
        super().__init__(reason)
        self.option = option

    @property
    def hint(self) -> str:
        """The reason, with the option that may fix it."""
        if self.option == "--encoding":
            return f"{self}; if it is text in another encoding, pass --encoding"
        if self.option is not None:
            return f"{self}; name the field with {self.option}"
        return str(self)


def _kind(path: Path) -> str:
    return RECORD_SUFFIXES.get(path.suffix.lower(), "text")


def discover(paths: Sequence[str], pattern: str) -> tuple[list[Source], list[tuple[str, str]]]:
    """Files named or found under folders (hidden ones skipped), and the unreadable names."""
    found: list[Source] = []
    missing: list[tuple[str, str]] = []
    for given in paths:
        if given == "-":
            found.append(Source(None, "stdin"))
            continue
        path = Path(given)
        if path.is_dir():
            # os.walk, not rglob: rglob passes over a folder it cannot read without a word,
            # and a sync with --delete-missing would then delete what it holds.
            def unreadable(error: OSError) -> None:
                missing.append((label(error.filename), error.strerror or str(error)))

            files: list[Path] = []
            for folder, dirs, names in os.walk(path, onerror=unreadable):
                dirs[:] = [d for d in dirs if not d.startswith(".")]
                files.extend(Path(folder) / n for n in names if not n.startswith("."))
            for child in sorted(files):
                if child.is_file() and fnmatch.fnmatch(child.name, pattern):
                    found.append(Source(child, _kind(child)))
        elif path.is_file():
            found.append(Source(path, _kind(path)))
        elif path.exists():
            missing.append((label(path), "not a regular file or folder"))
        else:
            missing.append((label(path), "no such file or folder"))
    return found, missing


def check_text(source: Source, encoding: str, block: int = 1 << 20) -> None:
    """Reads a text file through once so that a file that does not decode is skipped
    before any of it is written."""
    assert source.path is not None
    decoder = codecs.getincrementaldecoder(encoding)("strict")
    at = 0
    try:
        with open(source.path, "rb") as f:
            while data := f.read(block):
                decoder.decode(data)
                at += len(data)
            decoder.decode(b"", final=True)
    except UnicodeDecodeError as exc:
        raise Unreadable(f"not {encoding} text (byte {at + exc.start})", "--encoding") from exc
    except OSError as exc:
        raise Unreadable(exc.strerror or str(exc)) from exc


@dataclass(frozen=True)
class Record:
    id: str | None
    text: str


def record_id(value: Any) -> str | None:
    """A record's id as the CLI writes it: a string as it is, anything else as JSON."""
    return None if value is None else value if isinstance(value, str) else json.dumps(value)


@dataclass(frozen=True)
class Part:
    """A slice of a records file that a worker reads alone: JSON lines from byte ``start``
    to ``stop``, or Parquet row groups ``start`` to ``stop``; ``first`` is the number of its
    first record (ids default to the record number). ``stop`` None: to the end."""

    start: int = 0
    stop: int | None = None
    first: int = 0


WHOLE = Part()  # the whole file
# A Parquet batch holds about this much text, so memory is bounded by the batch (and the
# row group pyarrow decodes it from), not the file.
BATCH_BYTES = 8 << 20


def parquet_columns(source: Source, text_field: str, id_field: str | None) -> list[str]:
    """The columns to read, once the file's schema has them and the text is a string."""
    assert source.path is not None
    pq = require("pyarrow.parquet", "arrow")
    try:
        schema = pq.read_schema(source.path)
    except (OSError, ValueError) as exc:
        raise Unreadable(str(exc)) from exc
    wanted = [text_field] if id_field is None else [text_field, id_field]
    absent = [n for n in wanted if n not in schema.names]
    if absent:
        option = "--text-field" if absent[0] == text_field else "--id-field"
        raise Unreadable(f"no column {absent[0]!r} (columns: {schema.names})", option)
    kind = str(schema.field(text_field).type)
    if kind not in ("string", "large_string", "string_view", "null"):
        raise Unreadable(f"column {text_field!r} is {kind}, not a string")
    return wanted


def parquet_batches(source: Source, columns: list[str], part: Part = WHOLE) -> Iterator[Any]:
    """The record batches of ``columns`` in the part's row groups (every one by default),
    each about :data:`BATCH_BYTES` of text."""
    assert source.path is not None
    pq = require("pyarrow.parquet", "arrow")
    try:
        # Without pre-buffering: with it, pyarrow keeps every column chunk it has read,
        # and memory grows with the file.
        f = pq.ParquetFile(source.path, pre_buffer=False)
        meta = f.metadata
        text = _leaf(meta, columns[0])
        size = sum(
            meta.row_group(g).column(text).total_uncompressed_size
            if text is not None
            else meta.row_group(g).total_byte_size
            for g in range(meta.num_row_groups)
        )
        rows = max(1, BATCH_BYTES * max(meta.num_rows, 1) // max(size, 1))
        # Never more than a row group: a dictionary-encoded column's stored size says
        # little about its decoded one.
        groups = [meta.row_group(g).num_rows for g in range(meta.num_row_groups)]
        rows = min(rows, max(groups, default=1))
        stop = meta.num_row_groups if part.stop is None else part.stop
        chosen = list(range(part.start, stop))
        yield from f.iter_batches(batch_size=max(rows, 1), row_groups=chosen, columns=columns)
    except (OSError, ValueError) as exc:
        raise Unreadable(str(exc)) from exc


def _leaf(meta: Any, name: str) -> int | None:
    """The index of a top-level column among a Parquet file's leaf columns (nested columns
    before it shift the indices)."""
    leaves = [meta.schema.column(i).path for i in range(meta.num_columns)]
    return leaves.index(name) if name in leaves else None


def _parquet_documents(source: Source, text_field: str) -> int | None:
    """The non-null texts of a Parquet file, from its footer's statistics (None where a
    row group has none)."""
    pq = require("pyarrow.parquet", "arrow")
    try:
        f = pq.ParquetFile(source.path, pre_buffer=False)
        meta = f.metadata
        at = _leaf(meta, text_field)
        if at is None:
            return None
        total = 0
        for g in range(meta.num_row_groups):
            group = meta.row_group(g)
            stats = group.column(at).statistics
            if stats is None or not stats.has_null_count:
                return None
            total += group.num_rows - stats.null_count
    except (OSError, ValueError) as exc:
        raise Unreadable(str(exc)) from exc
    return total


def read_records(
    source: Source, text_field: str, id_field: str | None, part: Part = WHOLE
) -> Iterator[Record]:
    """The records of a JSONL or Parquet file (or of one part of it), one at a time:
    memory holds a line, or a Parquet batch. A record that is not well formed raises
    :class:`Unreadable` when it is reached; :func:`check_records` reads the file through
    first."""
    assert source.path is not None
    rows = _rows(source, text_field, id_field, part)
    for n, row in enumerate(rows, part.first):
        text = row.get(text_field)
        if text is not None and not isinstance(text, str):
            raise Unreadable(f"record {n}: {text_field!r} is not a string")
        if text_field not in row:
            raise Unreadable(f"record {n} has no {text_field!r} field", "--text-field")
        ident = record_id(row.get(id_field)) if id_field is not None else str(n)
        if text is not None:
            yield Record(ident, text)


def _rows(
    source: Source, text_field: str, id_field: str | None, part: Part
) -> Iterator[dict[str, Any]]:
    assert source.path is not None
    if source.kind == "parquet":
        columns = parquet_columns(source, text_field, id_field)
        for batch in parquet_batches(source, columns, part):
            yield from batch.to_pylist()
        return
    for at, line in _lines(source, part):
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise Unreadable(f"the line at byte {at} is not JSON: {exc}") from exc
        if not isinstance(row, dict):
            raise Unreadable(f"the line at byte {at} is not a JSON object")
        yield row


def _lines(source: Source, part: Part) -> Iterator[tuple[int, str]]:
    """The non-blank lines of a JSON-lines file that start in the part's bytes, with the
    byte each starts at."""
    assert source.path is not None
    try:
        with open(source.path, "rb") as f:
            f.seek(part.start)
            at = part.start
            for raw in f:
                if part.stop is not None and at >= part.stop:
                    return
                start, at = at, at + len(raw)
                if raw.strip():
                    yield start, raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise Unreadable(str(exc)) from exc


def check_records(source: Source, text_field: str, id_field: str | None) -> int:
    """Reads a records file through once, in bounded memory, so that a file with a bad
    record is skipped before any of it is written: the number of documents (records with
    a text). A Parquet file's columns and types are checked from its schema, and its
    documents counted from its footer's statistics (or its batches, without them)."""
    if source.kind == "parquet":
        columns = parquet_columns(source, text_field, id_field)
        counted = _parquet_documents(source, columns[0])
        if counted is not None:
            return counted
        return sum(b.num_rows - b.column(0).null_count for b in parquet_batches(source, columns))
    return sum(1 for _ in read_records(source, text_field, id_field))


# A records file is split into parts of about this size for the engines' workers.
PART_BYTES = 64 << 20


def record_parts(source: Source, text_field: str, id_field: str | None) -> list[Part]:
    """A records file as parts of about :data:`PART_BYTES` each, for workers to read
    alone: JSON lines split at line starts, Parquet at row groups. The JSON lines are read
    through (to number the records); a Parquet file's footer is enough."""
    assert source.path is not None
    if source.kind == "parquet":
        pq = require("pyarrow.parquet", "arrow")
        try:
            meta = pq.ParquetFile(source.path, pre_buffer=False).metadata
        except (OSError, ValueError) as exc:
            raise Unreadable(str(exc)) from exc
        parts: list[Part] = []
        start = first = size = row = 0
        for g in range(meta.num_row_groups):
            group = meta.row_group(g)
            if size and size + group.total_byte_size > PART_BYTES:
                parts.append(Part(start, g, first))
                start, first, size = g, row, 0
            size += group.total_byte_size
            row += group.num_rows
        return [*parts, Part(start, None, first)]
    parts = []
    start = first = 0
    for record, (at, _) in enumerate(_lines(source, WHOLE)):
        if at - start >= PART_BYTES:
            parts.append(Part(start, at, first))
            start, first = at, record
    return [*parts, Part(start, None, first)]


def read_texts(
    paths: Sequence[str], *, text_field: str = "text", id_field: str | None = None
) -> dict[str, str]:
    """Every document of ``paths`` by id, for the commands that hold them all (``bench``,
    ``eval``). One id rule: a file's path relative to the folder given (a file given alone:
    its name), ``FILE#ID`` for a record (``id_field``'s value, else the record's number),
    ``-`` for stdin. Text is read as UTF-8 in text mode (``"\\r\\n"`` reads as ``"\\n"``,
    as Chroma's evaluation reads its corpora). Anything unreadable raises
    :class:`Unreadable` naming it, and so do two documents with one id: a run on part of
    what was asked for would mislead."""
    docs: dict[str, str] = {}
    for given in paths:
        sources, missing = discover([given], "*")
        if missing:
            name, why = missing[0]
            raise Unreadable(f"{name}: {why}")
        root = Path(given)
        for source in sources:
            for ident, text in _texts(source, root, text_field, id_field):
                if ident in docs:
                    raise Unreadable(f"two documents are named {ident!r}; pass their folder")
                docs[ident] = text
    return docs


def _texts(
    source: Source, root: Path, text_field: str, id_field: str | None
) -> Iterator[tuple[str, str]]:
    if source.path is None:
        yield "-", sys.stdin.read()
        return
    ident = source.path.relative_to(root).as_posix() if root.is_dir() else label(root.name)
    if source.kind in ("jsonl", "parquet"):
        try:
            for r in read_records(source, text_field, id_field):
                yield f"{ident}#{r.id}", r.text
        except Unreadable as exc:
            why = exc.hint if exc.option in ("--text-field", "--id-field") else str(exc)
            raise Unreadable(f"{source.name}: {why}") from exc
        return
    try:
        check_text(source, "utf-8")
    except Unreadable as exc:
        raise Unreadable(f"{source.name}: {exc}") from exc
    yield ident, source.path.read_text(encoding="utf-8")
