"""Output written atomically: a temporary file beside the target, renamed at the end.

A failed run removes its temporary file, so an earlier output stays as it was.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from .._optional import require
from ..config import Config

FORMATS = ("jsonl", "parquet")


class Sink:
    """Writes record batches as JSON lines (to a file or stdout) or Parquet (to a file)."""

    def __init__(
        self, path: Path | None, fmt: str, config: Config, keep: Sequence[Any], stdout: IO[str]
    ) -> None:
        self.path = path
        self.format = fmt
        self.config = config
        self.keep = keep
        self.stdout = stdout
        self.tmp: Path | None = None
        self.text: IO[str] | None = None
        self.writer: Any = None
        self.pa: Any = None
        self.schema: Any = None

    def __enter__(self) -> Sink:
        if self.format == "parquet":
            self.pa = require("pyarrow", "arrow")
            pq = require("pyarrow.parquet", "arrow")
            from ..arrow import chunk_schema

            self.schema = chunk_schema(self.config, self.keep)
            self.tmp = self._temporary()
            self.writer = pq.ParquetWriter(self.tmp, self.schema)
        elif self.path is None:
            self.text = self.stdout
        else:
            self.tmp = self._temporary()
            self.text = open(self.tmp, "w", encoding="utf-8", errors="surrogatepass")
        return self

    def _temporary(self) -> Path:
        assert self.path is not None
        fd, name = tempfile.mkstemp(
            dir=self.path.parent, prefix=f".{self.path.name}.", suffix=".tmp"
        )
        os.close(fd)
        return Path(name)

    def write(self, rows: list[dict[str, Any]]) -> None:
        if not rows:
            return
        if self.writer is not None:
            self.writer.write_table(self.pa.Table.from_pylist(rows, schema=self.schema))
            return
        assert self.text is not None
        self.text.write("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        complete = kind is None
        try:
            if self.writer is not None:
                self.writer.close()
            elif self.text is not None and self.text is not self.stdout:
                self.text.close()
            elif self.text is not None:
                self.text.flush()
        except BaseException:
            complete = False  # e.g. the disk filled up while flushing
            raise
        finally:
            if self.tmp is not None:
                if complete and self.path is not None:
                    os.replace(self.tmp, self.path)
                else:
                    self.tmp.unlink(missing_ok=True)
