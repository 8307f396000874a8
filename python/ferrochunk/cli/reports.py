"""What the commands report: ``chunk``'s progress bar and summary line, and the report
files of ``bench`` and ``eval`` (JSON, Markdown, plots), each written beside its target
and renamed into place, so a failed run leaves an earlier file as it was."""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TextIO

import numpy as np


def write_report(path: str, text: str) -> None:
    target = Path(path)
    temp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, target)


def save_figure(fig: Any, path: str) -> None:
    """Saves and closes a matplotlib figure."""
    import matplotlib.pyplot as plt

    target = Path(path)
    temp = target.with_name(f".{os.getpid()}.{target.name}")  # keeps the format suffix
    fig.savefig(temp, dpi=120)
    plt.close(fig)
    os.replace(temp, target)


class Progress:
    """A one-line progress bar on stderr, by bytes, with a rate and an ETA (terminals only)."""

    def __init__(self, total_bytes: int, stream: TextIO, *, enabled: bool | None = None) -> None:
        self.total = max(total_bytes, 1)
        self.stream = stream
        self.enabled = stream.isatty() if enabled is None else enabled
        self.started = time.perf_counter()
        self.shown = 0.0

    def update(self, done_bytes: int, documents: int, chunks: int) -> None:
        now = time.perf_counter()
        if not self.enabled or (now - self.shown < 0.1 and done_bytes < self.total):
            return
        self.shown = now
        elapsed = max(now - self.started, 1e-9)
        rate = done_bytes / elapsed
        frac = min(done_bytes / self.total, 1.0)
        left = (self.total - done_bytes) / rate if rate > 0 else 0.0
        bar = "#" * int(frac * 30)
        self.stream.write(
            f"\r[{bar:<30}] {frac:6.1%} {done_bytes / 1e6:8.1f} MB {rate / 1e6:6.1f} MB/s "
            f"ETA {left:5.0f} s  {documents} docs {chunks} chunks"
        )
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()


def table_source_tokens(table: Any) -> int:
    """:func:`source_tokens` of every document in a chunk table (a document's chunks are
    consecutive, from chunk_index 0)."""
    if table.num_rows == 0:
        return 0
    index = table.column("chunk_index").to_numpy()
    ends = table.column("token_end").to_numpy()
    return int(np.maximum.reduceat(ends, np.flatnonzero(index == 0)).sum())


def source_tokens(chunks: Iterable[Any]) -> int:
    """A document's tokens, from its chunks: where the last one ends in the document's
    tokens (each counted once, however much the chunks overlap)."""
    return max((c.token_end for c in chunks), default=0)


# Below this, a run's time is mostly start-up: a rate would mislead.
_TIMED_FROM = 1_000_000


def summary_line(
    documents: int, chunks: int, tokens: int, done: int, seconds: float, outcome: str
) -> str:
    """The run's last line on stderr."""
    if done >= _TIMED_FROM and seconds > 0:
        rate = f"{done / 1e6 / seconds:.1f} MB/s"
    else:
        rate = "too small to time"
    return (
        f"ferrochunk: {count(documents, 'document')}, "
        f"{count(chunks, 'chunk')}, {count(tokens, 'source token')} "
        f"({done / 1e6:.2f} MB in {seconds:.2f} s, {rate}) {outcome}"
    )


def count(n: int, noun: str) -> str:
    return f"{n:,} {noun}" + ("" if n == 1 else "s")
