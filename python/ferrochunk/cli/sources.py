"""What the CLI reads: text files (streamed), JSONL and Parquet records, and stdin."""

from __future__ import annotations

import codecs
import fnmatch
import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._optional import require

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
            for child in sorted(path.rglob("*")):
                rel = child.relative_to(path)
                hidden = any(part.startswith(".") for part in rel.parts)
                if child.is_file() and not hidden and fnmatch.fnmatch(child.name, pattern):
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


def _id(value: Any) -> str | None:
    return None if value is None else value if isinstance(value, str) else json.dumps(value)


def read_records(source: Source, text_field: str, id_field: str | None) -> Iterator[Record]:
    """The records of a JSONL or Parquet file; the whole file is read and checked first."""
    assert source.path is not None
    if source.kind == "parquet":
        pq = require("pyarrow.parquet", "arrow")
        try:
            names = pq.read_schema(source.path).names
            wanted = [text_field] if id_field is None else [text_field, id_field]
            absent = [n for n in wanted if n not in names]
            if absent:
                option = "--text-field" if absent[0] == text_field else "--id-field"
                raise Unreadable(f"no column {absent[0]!r} (columns: {names})", option)
            rows = pq.read_table(source.path, columns=wanted).to_pylist()
        except (OSError, ValueError) as exc:
            raise Unreadable(str(exc)) from exc
    else:
        rows = []
        try:
            with open(source.path, encoding="utf-8") as f:
                for n, line in enumerate(f, 1):
                    if line.strip():
                        row = json.loads(line)
                        if not isinstance(row, dict):
                            raise Unreadable(f"line {n} is not a JSON object")
                        rows.append(row)
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise Unreadable(str(exc)) from exc
    out = []
    for n, row in enumerate(rows):
        text = row.get(text_field)
        if text is not None and not isinstance(text, str):
            raise Unreadable(f"record {n}: {text_field!r} is not a string")
        if text_field not in row:
            raise Unreadable(f"record {n} has no {text_field!r} field", "--text-field")
        ident = _id(row.get(id_field)) if id_field is not None else str(n)
        if text is not None:
            out.append(Record(ident, text))
    return iter(out)
