"""How ``ferrochunk bench`` times a row: one loop (the median of up to ``repeat`` runs,
fewer once ``budget`` seconds have gone, after the build's own warm-up) for every
contender, text or code; then a first pass in fresh processes, and the peak memory."""

from __future__ import annotations

import functools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

import numpy as np

from .contenders import CODE_CONTENDERS, Contender, Result, contenders, spec_row
from .quality import _measure, code_quality

T = TypeVar("T")


def _status(field: str) -> int | None:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


# Fresh processes a first pass runs in: one short run is at the mercy of a noisy machine.
FIRST_PASS_RUNS = 3


def _first_pass(
    key: str, max_tokens: int, overlap: int, documents: str, tokenizer: str | None = None
) -> dict[str, Any]:
    """A pass of ``key`` over the documents in a fresh interpreter, ``FIRST_PASS_RUNS``
    times: the median time (no cache of any library has seen the text: a pipeline's first
    pass over new documents) and the median MB of resident memory a pass adds at its peak
    (in this process, memory freed by earlier rows would hide it; ``None`` where the kernel
    keeps no high-water mark). Empty when a run fails."""
    command = [sys.executable, "-m", "ferrochunk.bench", key, str(max_tokens), str(overlap)]
    tail = [] if tokenizer is None else [tokenizer]
    runs = []
    for _ in range(FIRST_PASS_RUNS):
        try:
            done = subprocess.run(
                [*command, documents, *tail],
                capture_output=True,
                text=True,
                timeout=3600,
                check=True,
            )
            value = json.loads(done.stdout)
        except (OSError, subprocess.SubprocessError, ValueError):
            return {}
        if not isinstance(value, dict) or "seconds" not in value:
            return {}
        runs.append(value)
    found: dict[str, Any] = {"seconds": statistics.median(r["seconds"] for r in runs)}
    peaks = [r["peak_mb"] for r in runs if "peak_mb" in r]
    if len(peaks) == len(runs):
        found["peak_mb"] = statistics.median(peaks)
    return found


def _child(
    key: str, max_tokens: int, overlap: int, documents: str, tokenizer: str | None = None
) -> dict[str, Any]:
    """The child's side of :func:`_first_pass`."""
    with open(documents, encoding="utf-8") as f:
        texts = json.load(f)
    if ":" in key:  # a chunker spec's row
        contender = spec_row(key, max_tokens, overlap)
    else:
        (contender,) = contenders(max_tokens, overlap, [key], tokenizer)
    fn = contender.build()
    fn("A short warm-up, so that tables built on first use are not counted.")
    before = _status("VmRSS:")
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # resets VmHWM to the current RSS
    except OSError:
        before = None
    start = time.perf_counter()
    outputs = [fn(t) for t in texts]
    seconds = time.perf_counter() - start
    peak = _status("VmHWM:")
    del outputs
    found: dict[str, Any] = {"seconds": seconds}
    if before is not None and peak is not None:
        found["peak_mb"] = max(peak - before, 0) / 1e6
    return found


def run(
    texts: Sequence[str],
    rows: Sequence[Contender],
    *,
    repeat: int = 5,
    budget: float = 10.0,
    on_result: Callable[[Result], None] | None = None,
) -> list[Result]:
    """Measures each contender on ``texts``: the median MB/s of up to ``repeat`` runs
    (fewer once a contender has used ``budget`` seconds), then its output and memory.

    A contender that is not installed is skipped; one that raises gets the error in its
    row, and the run goes on.
    """
    total = sum(len(t.encode("utf-8", "surrogatepass")) for t in texts)
    times = passes(total)
    results = []
    with tempfile.TemporaryDirectory(prefix="ferrochunk-bench-") as scratch:
        documents = os.path.join(scratch, "documents.json")
        with open(documents, "w", encoding="utf-8") as f:
            json.dump(list(texts), f)
        for contender in rows:
            result = _row(contender, texts, total, repeat, budget, documents, times)
            results.append(result)
            if on_result is not None:
                on_result(result)
    return results


# A timed run reads at least this much: below it, a run's time is mostly what each call
# costs before it reads a byte, and a timer's resolution.
MEASURABLE = 1_000_000


def passes(total: int) -> int:
    """How many times a timed run reads documents of ``total`` bytes: enough for a
    megabyte (once for a megabyte or more)."""
    return max(1, -(-MEASURABLE // max(total, 1)))


def _row(
    contender: Contender,
    texts: Sequence[str],
    total: int,
    repeat: int,
    budget: float,
    documents: str,
    times: int = 1,
) -> Result:
    try:
        fn = contender.build()
    except (ImportError, RuntimeError) as exc:
        extra = f"pip install 'ferrochunk[{contender.extra}]'" if contender.extra else ""
        reason = f"{type(exc).__name__}: {exc}".splitlines()[0]
        return Result(contender.key, contender.label, contender.kind, skipped=extra or reason)
    result = _timed(contender, texts, fn, total, repeat, budget, times)
    if result.error is None:
        first = _first_pass(
            contender.key, contender.max_tokens, contender.overlap, documents, contender.tokenizer
        )
        seconds = first.get("seconds")
        result = replace(
            result,
            first_mb_per_s=total / 1e6 / seconds if seconds else None,
            peak_mb=first.get("peak_mb"),
        )
    return result


def timed(call: Callable[[], T], repeat: int, budget: float) -> tuple[list[float], T]:
    """The one timing loop: the seconds of up to ``repeat`` calls (at least one, fewer once
    ``budget`` seconds have gone), and the last call's result."""
    times: list[float] = []
    spent = 0.0
    while True:
        start = time.perf_counter()
        result = call()
        elapsed = time.perf_counter() - start
        times.append(elapsed)
        spent += elapsed
        if len(times) >= max(repeat, 1) or spent >= budget:
            return times, result


def _timed(
    contender: Contender,
    texts: Sequence[str],
    fn: Callable[[str], Any],
    total: int,
    repeat: int,
    budget: float,
    passes: int = 1,
) -> Result:
    def one_run() -> None:
        for _ in range(passes):
            for text in texts:
                fn(text)

    try:
        times, _ = timed(one_run, repeat, budget)
        checked = _measure(contender, texts, fn)
    except Exception as exc:  # a peer's failure is its row's result, not the run's
        message = f"{type(exc).__name__}: {exc}".splitlines()[0][:200]
        return Result(contender.key, contender.label, contender.kind, error=message)
    median = statistics.median(times)
    speed = passes * total / 1e6 / median if median > 0 else float("inf")
    return Result(
        **{
            **checked.as_dict(),
            "mb_per_s": speed,
            "runs": len(times),
        }
    )


def environment() -> dict[str, Any]:
    """Where the figures were measured."""
    import os
    import platform

    from .. import __version__

    return {
        "ferrochunk": __version__,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "numpy": np.__version__,
        "argv": sys.argv[1:],
    }


@dataclass(frozen=True)
class CodeRow:
    """One contender on one language's files."""

    label: str
    language: str
    counts: str
    bytes: int
    seconds: float | None
    chunks: int | None
    quality: dict[str, int]
    skipped: str | None = None

    @property
    def mb_per_s(self) -> float | None:
        return None if not self.seconds else self.bytes / 1e6 / self.seconds


def measure_code(
    files: list[str], language: str, cap: int = 512, repeat: int = 5, budget: float = 10.0
) -> list[CodeRow]:
    """Every contender on ``files`` (all of ``language``): the median time of up to
    ``repeat`` runs (fewer once ``budget`` seconds have gone), chunks and quality."""
    size = sum(len(f.encode("utf-8")) for f in files)
    rows = []
    for label, (build, counts) in CODE_CONTENDERS.items():
        try:
            run = build(language, cap)
        except ImportError as exc:
            rows.append(CodeRow(label, language, counts, size, None, None, {}, f"{exc}"))
            continue
        times, results = timed(functools.partial(run, files), repeat, budget)
        seconds = statistics.median(times)
        if label.startswith("tree-sitter"):
            rows.append(CodeRow(label, language, counts, size, seconds, None, {}))
            continue
        chunks = sum(len(p) for p in results)
        rows.append(
            CodeRow(
                label,
                language,
                counts,
                size,
                seconds,
                chunks,
                code_quality(files, language, results, cap),
            )
        )
    return rows
