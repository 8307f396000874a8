"""A one-line progress bar on stderr, by bytes, with a rate and an ETA (terminals only)."""

from __future__ import annotations

import time
from typing import TextIO


class Progress:
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
