"""``ferrochunk chunk [PATH ...]``: chunk files or folders into JSON lines."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Iterator, Sequence
from importlib import resources
from pathlib import Path
from typing import IO, TextIO

from .config import TokenWindows
from .errors import FerrochunkError
from .pipeline import chunk_many
from .tokenizers import Tokenizer

# Documents are handed to the parallel core in batches of about this many bytes.
_BATCH_BYTES = 4 << 20


def _iter_files(paths: Sequence[Path]) -> Iterator[Path]:
    for path in paths:
        if path.is_dir():
            for child in sorted(path.rglob("*")):
                rel = child.relative_to(path)
                if child.is_file() and not any(p.startswith(".") for p in rel.parts):
                    yield child
        else:
            yield path


def _read(path: Path, err: TextIO) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        print(f"ferrochunk: skipping {path}: not UTF-8 text", file=err)
    except OSError as exc:
        print(f"ferrochunk: skipping {path}: {exc.strerror}", file=err)
    return None


class _Progress:
    """A one-line progress bar on stderr, shown only on a terminal."""

    def __init__(self, total_bytes: int, stream: TextIO) -> None:
        self.total = max(total_bytes, 1)
        self.stream = stream
        self.enabled = stream.isatty()

    def update(self, done_bytes: int, documents: int) -> None:
        if not self.enabled:
            return
        frac = min(done_bytes / self.total, 1.0)
        bar = "#" * int(frac * 30)
        self.stream.write(
            f"\r[{bar:<30}] {frac:6.1%}  {documents} documents  {done_bytes / 1e6:.1f} MB"
        )
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\n")


def _run_chunk(args: argparse.Namespace, out: IO[str], err: TextIO) -> int:
    config = TokenWindows(args.max_tokens, overlap_tokens=args.overlap_tokens)
    tokenizer = Tokenizer.from_name(args.tokenizer)
    if args.paths:
        sources = list(_iter_files([Path(p) for p in args.paths]))
        missing = [p for p in sources if not p.exists()]
        if missing:
            print(f"ferrochunk: no such file or folder: {missing[0]}", file=err)
            return 2
        labelled: Iterator[tuple[str, Path]] = ((str(p), p) for p in sources)
        total = sum(p.stat().st_size for p in sources)
    else:
        sample = resources.files("ferrochunk") / "data" / "sample.md"
        labelled = iter([("<bundled sample>", Path(str(sample)))])
        total = Path(str(sample)).stat().st_size

    progress = _Progress(total, err)
    documents = chunks = tokens = done = 0
    started = time.perf_counter()

    def flush(batch: list[tuple[str, str, int]]) -> None:
        nonlocal documents, chunks, tokens, done
        results = chunk_many([t for _, t, _ in batch], config, tokenizer=tokenizer)
        for (source, _, size), doc_chunks in zip(batch, results, strict=True):
            for c in doc_chunks:
                record = {
                    "source": source,
                    "index": c.index,
                    "text": c.text,
                    "char_start": c.char_start,
                    "char_end": c.char_end,
                    "byte_start": c.byte_start,
                    "byte_end": c.byte_end,
                    "token_start": c.token_start,
                    "token_end": c.token_end,
                    "token_count": c.token_count,
                }
                out.write(json.dumps(record, ensure_ascii=False) + "\n")
            documents += 1
            chunks += len(doc_chunks)
            tokens += doc_chunks[-1].token_end if doc_chunks else 0
            done += size
        progress.update(done, documents)

    batch: list[tuple[str, str, int]] = []
    batch_bytes = 0
    for label, path in labelled:
        text = _read(path, err)
        if text is None:
            continue
        size = len(text.encode("utf-8", "surrogatepass"))
        batch.append((label, text, size))
        batch_bytes += size
        if batch_bytes >= _BATCH_BYTES:
            flush(batch)
            batch, batch_bytes = [], 0
    if batch:
        flush(batch)
    progress.close()
    seconds = time.perf_counter() - started
    rate = done / 1e6 / seconds if seconds > 0 else 0.0
    print(
        f"ferrochunk: {documents} documents, {chunks} chunks, {tokens} tokens, "
        f"{done / 1e6:.2f} MB in {seconds:.2f} s ({rate:.1f} MB/s)",
        file=err,
    )
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ferrochunk", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    chunk = sub.add_parser("chunk", help="chunk files or folders into JSON lines")
    chunk.add_argument("paths", nargs="*", help="files or folders (default: the bundled sample)")
    chunk.add_argument("--max-tokens", type=int, default=512, help="tokens per chunk (512)")
    chunk.add_argument("--overlap-tokens", type=int, default=0, help="tokens shared (0)")
    chunk.add_argument("--tokenizer", choices=["cl100k", "o200k"], default="cl100k")
    chunk.add_argument("-o", "--output", help="write JSON lines here instead of stdout")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``ferrochunk`` command."""
    args = _parser().parse_args(argv)
    try:
        if args.output:
            with open(args.output, "w", encoding="utf-8", errors="surrogatepass") as out:
                return _run_chunk(args, out, sys.stderr)
        return _run_chunk(args, sys.stdout, sys.stderr)
    except FerrochunkError as exc:
        print(f"ferrochunk: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader (e.g. `head`) left; stop quietly, as Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:
        print(
            f"ferrochunk: cannot write {exc.filename or args.output}: {exc.strerror}",
            file=sys.stderr,
        )
        return 2


if __name__ == "__main__":
    sys.exit(main())
