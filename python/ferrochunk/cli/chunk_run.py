"""One ``ferrochunk chunk`` run: inputs read, chunked, written, counted and skipped."""

from __future__ import annotations

import argparse
import codecs
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Any, TextIO

from .._grammars import EXTENSIONS
from .._grammars import capsule as grammar_capsule
from .._html_encoding import decode
from .._support.optional import require
from ..config import (
    CleanRules,
    Config,
    Html,
)
from ..errors import FerrochunkError
from ..pipeline import _chunk_blocks, chunk, chunk_file, chunk_many, html_chunks
from ..records import record
from .chunk import _sample, build_config, tokenizer_of
from .extras import need as _need
from .reports import Progress, count, source_tokens, summary_line, table_source_tokens
from .sink import Sink, target
from .sources import (
    Source,
    Unreadable,
    check_records,
    check_text,
    discover,
    label,
    parquet_batches,
    parquet_columns,
    read_records,
    record_id,
)

# Documents up to this size are batched for the parallel core; larger ones stream.
STREAM_FROM = 4 << 20
BATCH_BYTES = 8 << 20


class Run:
    """One `ferrochunk chunk` run: counts, progress and the skipped inputs."""

    def __init__(
        self,
        args: argparse.Namespace,
        config: Config,
        clean: CleanRules | None,
        sink: Sink,
        err: TextIO,
        total: int,
    ) -> None:
        self.args = args
        self.config = config
        self.clean = clean
        self.sink = sink
        self.err = err
        self.tokenizer = tokenizer_of(args.tokenizer)
        self.progress = Progress(total, err, enabled=args.progress)
        self.documents = self.chunks = self.tokens = self.done = 0
        self.skipped: list[tuple[str, str]] = []
        self.not_code = 0  # files `--language auto` passed over (no grammar by extension)
        self.batch: list[tuple[str, str | None, str, int]] = []
        self.batch_bytes = 0

    def emit(self, source: str, ident: str | None, chunks: Sequence[Any], size: int) -> None:
        self.sink.write([{"source": source, "id": ident, **record(c, self.config)} for c in chunks])
        self.documents += 1
        self.chunks += len(chunks)
        self.tokens += source_tokens(chunks)
        self.done += size
        self.progress.update(self.done, self.documents, self.chunks)

    def add(self, source: str, ident: str | None, text: str, size: int) -> None:
        self.batch.append((source, ident, text, size))
        self.batch_bytes += size
        if self.batch_bytes >= BATCH_BYTES:
            self.flush()

    def flush(self) -> None:
        if not self.batch:
            return
        texts = [t for _, _, t, _ in self.batch]
        if self.clean is not None:
            results = [
                chunk(t, self.config, tokenizer=self.tokenizer, clean=self.clean) for t in texts
            ]
        else:
            results = chunk_many(
                texts, self.config, tokenizer=self.tokenizer, threads=self.args.threads
            )
        for (source, ident, _, size), chunks in zip(self.batch, results, strict=True):
            self.emit(source, ident, chunks, size)
        self.batch, self.batch_bytes = [], 0

    def stream(self, source: str, chunks: Iterator[Any]) -> None:
        """Writes a streamed document's chunks in groups, with progress inside it."""
        group: list[Any] = []
        end = 0
        for c in chunks:
            group.append(c)
            # Counted as they come, so the progress bar moves inside one large document.
            self.chunks += 1
            end = max(end, c.token_end)
            if len(group) == 1000:
                self.sink.write(
                    [{"source": source, "id": None, **record(k, self.config)} for k in group]
                )
                group = []
                self.progress.update(self.done, self.documents, self.chunks)
        self.sink.write([{"source": source, "id": None, **record(k, self.config)} for k in group])
        self.tokens += end
        self.documents += 1
        self.progress.update(self.done, self.documents, self.chunks)

    def text_file(self, source: Source) -> None:
        if isinstance(self.config, Html):
            self.html_file(source)
            return
        check_text(source, self.args.encoding)
        assert source.path is not None
        size = source.size()
        if size < STREAM_FROM or self.clean is not None:
            with open(source.path, encoding=self.args.encoding, newline="") as f:
                self.add(source.name, None, f.read(), size)
            return
        self.flush()
        start = self.done

        def moved(read: int) -> None:
            self.done = start + read
            self.progress.update(self.done, self.documents, self.chunks)

        self.stream(
            source.name,
            chunk_file(
                source.path,
                self.config,
                encoding=self.args.encoding,
                tokenizer=self.tokenizer,
                progress=moved,
            ),
        )

    def html_file(self, source: Source) -> None:
        """A page read whole and decoded as sniffed (``--encoding`` other than UTF-8
        overrides it)."""
        assert source.path is not None
        assert isinstance(self.config, Html)
        data = source.path.read_bytes()
        given = None if self.args.encoding.lower() in ("utf-8", "utf8") else self.args.encoding
        text, name = decode(data, given)
        self.flush()
        chunks = html_chunks(text, self.config, self.tokenizer, "native", name)
        self.emit(source.name, None, chunks, len(data))

    def stdin(self, stream: IO[bytes]) -> None:
        self.flush()

        def blocks() -> Iterator[bytes]:
            while data := stream.read(1 << 20):
                self.done += len(data)
                self.progress.update(self.done, self.documents, self.chunks)
                yield data

        codec = codecs.lookup(self.args.encoding)
        self.stream(
            "<stdin>", _chunk_blocks(blocks(), self.config, self.tokenizer, codec, "strict")
        )

    def records(self, source: Source) -> None:
        """A records file: checked through first (a bad one is skipped, nothing of it
        written), then read again by batches. Parquet with a native tokenizer goes
        through ``chunk_table`` as Arrow; the rest through ``chunk_many``."""
        fields = (self.args.text_field, self.args.id_field)
        check_records(source, *fields)
        self.sink.open()  # read, even if it holds no records
        try:
            if source.kind == "parquet" and self.arrow:
                self.flush()
                self.arrow_records(source)
                return
            for rec in read_records(source, *fields):
                self.add(source.name, rec.id, rec.text, len(rec.text.encode("utf-8", "replace")))
        except Unreadable as exc:  # part of it may be written already
            raise FerrochunkError(f"{source.name} changed while it was read: {exc}") from exc

    @property
    def arrow(self) -> bool:
        """Whether records can be chunked as Arrow (``chunk_table``)."""
        return self.tokenizer._native_source is not None and self.clean is None

    def arrow_records(self, source: Source) -> None:
        pa = require("pyarrow", "arrow")
        pc = require("pyarrow.compute", "arrow")
        from ..arrow import chunk_table

        text_field, id_field = self.args.text_field, self.args.id_field
        columns = parquet_columns(source, text_field, id_field)
        name = pa.scalar(source.name, pa.large_string())
        base = 0
        for batch in parquet_batches(source, columns):
            n = batch.num_rows
            if id_field is None:  # the record number, as read_records gives it
                ids = pa.array([str(i) for i in range(base, base + n)], pa.large_string())
            else:
                ids = _id_array(pa, batch.column(1))
            base += n
            texts = batch.column(0)
            docs = pa.table(
                {"source": pa.repeat(name, n), "id": ids, "text": texts},
            )
            out = chunk_table(
                docs,
                self.config,
                tokenizer=self.tokenizer,
                keep_columns=["source", "id"],
                threads=self.args.threads,
            )
            self.sink.write_table(out)
            self.documents += n - texts.null_count
            self.chunks += out.num_rows
            self.tokens += table_source_tokens(out)
            self.done += pc.sum(pc.binary_length(texts)).as_py() or 0
            self.progress.update(self.done, self.documents, self.chunks)

    def summary(self, seconds: float) -> str:
        where = self.sink.target
        if self.sink.opened:
            outcome = f"written to {where.name}"
        elif where.kind == "stdout":
            outcome = "nothing read, nothing written"
        else:
            outcome = f"nothing read, {where.name} left as it was"
        if self.sink.replaced:
            outcome += f" ({count(self.sink.replaced, 'lone surrogate')} written as U+FFFD)"
        if self.not_code:
            outcome += f"; {count(self.not_code, 'file')} not code passed over"
        return summary_line(self.documents, self.chunks, self.tokens, self.done, seconds, outcome)


def _id_array(pa: Any, column: Any) -> Any:
    """A records file's id column as the CLI writes ids: strings as they are, anything
    else as JSON."""
    if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
        return column.cast(pa.large_string())
    return pa.array([record_id(v) for v in column.to_pylist()], pa.large_string())


def _extras(args: argparse.Namespace, fmt: str, sources: Sequence[Source]) -> None:
    if fmt == "parquet":
        why = "--format parquet" if args.format else f"-o {label(args.output)}"
        _need("pyarrow", "arrow", why)
        _need("pyarrow.parquet", "arrow", why)
    if args.ray is not None:
        for module in ("ray", "ray.data", "pyarrow"):
            _need(module, "ray", "--ray")
    if args.spark is not None:
        for module in ("pyspark", "pyspark.sql", "pandas", "pyarrow"):
            _need(module, "spark", "--spark")
    if args.dask is not None:
        for module in ("dask.dataframe", "distributed", "pyarrow"):
            _need(module, "dask", "--dask")
    for s in sources:
        if s.kind == "parquet":
            _need("pyarrow.parquet", "arrow", f"reading {s.name}")


def by_language(
    sources: Sequence[Source],
) -> tuple[dict[str, list[Source]], int, list[tuple[str, str]]]:
    """``--language auto``: text files grouped by the grammar their extension names, how
    many files no grammar names, and those whose grammar is not installed (with why)."""
    groups: dict[str, list[Source]] = {}
    not_code = 0
    skipped: list[tuple[str, str]] = []
    for s in sources:
        if s.kind != "text" or s.path is None:
            raise FerrochunkError(
                f"--language auto picks a grammar by file extension; {s.name} needs --language NAME"
            )
        lang = EXTENSIONS.get(s.path.suffix.lower())
        if lang is None:
            not_code += 1
            continue
        try:
            grammar_capsule(lang)
        except ImportError as exc:
            skipped.append((s.name, str(exc)))
            continue
        groups.setdefault(lang, []).append(s)
    return groups, not_code, skipped


def _check_run(args: argparse.Namespace) -> tuple[Path | None, str, str | None]:
    """Everything checked before any input is read: the tokenizer, the encoding, the
    threads, and the output (its path and format); and the engine asked for, if any."""
    tokenizer_of(args.tokenizer)  # a bad tokenizer fails before the output is touched
    try:
        codecs.lookup(args.encoding)
    except LookupError:
        raise FerrochunkError(f"--encoding: unknown encoding {args.encoding!r}") from None
    if args.threads is not None and args.threads < 1:
        raise FerrochunkError(f"--threads must be >= 1, got {args.threads}")
    output = Path(args.output) if args.output else None
    fmt = args.format or ("parquet" if output and output.suffix == ".parquet" else "jsonl")
    if fmt == "parquet" and output is None:
        raise FerrochunkError("--format parquet needs -o FILE")
    engine = next(
        (f"--{e}" for e in ("ray", "spark", "dask") if getattr(args, e) is not None), None
    )
    return output, fmt, engine


def _writes_to(args: argparse.Namespace, output: Path | None, sources: Sequence[Source]) -> Any:
    """The output target, refused when it is also an input."""
    where = target(output, args.force)
    for s in sources:
        if s.path is not None and where.holds(s.path):
            raise FerrochunkError(f"the output {where.name} is also an input")
    return where


def run(args: argparse.Namespace, out: TextIO, err: TextIO, stdin: IO[bytes]) -> int:
    auto = args.chunker == "code" and args.config is None and args.language in (None, "auto")
    if auto:
        return _run_code(args, out, err)
    config, clean = build_config(args)
    output, fmt, engine = _check_run(args)
    if engine is not None and clean is not None:
        raise FerrochunkError(f"{engine} does not apply cleaning rules; clean the text first")
    if args.paths:
        sources, skipped = discover(args.paths, args.glob)
    else:
        sources, skipped = [Source(_sample(), "text", "<bundled sample>")], []
    if engine in ("--spark", "--dask"):
        return _run_engine(args, config, sources, skipped, fmt, output, err)
    where = _writes_to(args, output, sources)
    if not sources and not skipped:
        raise FerrochunkError("no input files found")
    _extras(args, fmt, sources)
    keep = _keep_fields() if fmt == "parquet" else ()
    started = time.perf_counter()
    total = sum(s.size() for s in sources)
    with Sink(where, fmt, config, keep, out) as sink:
        job = Run(args, config, clean, sink, err, total)
        job.skipped.extend(skipped)
        if args.ray is not None and sources:
            from .ray_job import run_ray

            run_ray(job, sources)
        else:
            for source in sources:
                try:
                    if source.kind == "stdin":
                        job.stdin(stdin)
                    elif source.kind == "text":
                        job.text_file(source)
                    else:
                        job.records(source)
                except Unreadable as exc:
                    job.skipped.append((source.name, exc.hint))
            job.flush()
        job.progress.close()
    return _report(job, err, started)


def _run_code(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``--chunker code --language auto``: each group of files with its own grammar."""
    output, fmt, engine = _check_run(args)
    if engine is not None:
        raise FerrochunkError(f"{engine} with --chunker code needs --language NAME")
    if not args.paths:
        raise FerrochunkError("--chunker code needs files or folders of source code")
    sources, skipped = discover(args.paths, args.glob)
    groups, not_code, missing = by_language(sources)
    if not groups:
        for name, why in skipped + missing:
            print(f"ferrochunk: skipped {name}: {why}", file=err)
        raise FerrochunkError(
            f"no code file to chunk among {count(len(sources), 'input file')} "
            f"({not_code} not code by extension, {len(missing)} without their grammar)"
        )
    configs = {lang: build_config(argparse.Namespace(**{**vars(args), "language": lang}))[0]
               for lang in groups}  # fmt: skip
    where = _writes_to(args, output, sources)
    _extras(args, fmt, [])
    keep = _keep_fields() if fmt == "parquet" else ()
    started = time.perf_counter()
    total = sum(s.size() for group in groups.values() for s in group)
    # The schema is the same for every grammar: any group's config names it.
    first = next(iter(configs.values()))
    with Sink(where, fmt, first, keep, out) as sink:
        job = Run(args, first, None, sink, err, total)
        job.skipped.extend(skipped + missing)
        job.not_code = not_code
        for lang, group in groups.items():
            job.flush()
            job.config = configs[lang]
            for source in group:
                try:
                    job.text_file(source)
                except Unreadable as exc:
                    job.skipped.append((source.name, exc.hint))
        job.flush()
        job.progress.close()
    return _report(job, err, started)


def _run_engine(
    args: argparse.Namespace,
    config: Config,
    sources: list[Source],
    skipped: list[tuple[str, str]],
    fmt: str,
    output: Path | None,
    err: TextIO,
) -> int:
    from .engines import EngineRun, run_engine

    if not sources and not skipped:
        raise FerrochunkError("no input files found")
    _extras(args, fmt, sources)
    started = time.perf_counter()
    job = EngineRun(args, config, tokenizer_of(args.tokenizer), skipped=list(skipped))
    wrote = run_engine(job, sources, fmt, output)
    for name, why in job.skipped:
        print(f"ferrochunk: skipped {name}: {why}", file=err)
    assert output is not None
    outcome = (
        f"written to {label(output)}/" if wrote else f"nothing read, {label(output)} left as it was"
    )
    seconds = time.perf_counter() - started
    print(summary_line(job.documents, job.chunks, job.tokens, job.done, seconds, outcome), file=err)
    return 1 if job.skipped else 0


def _keep_fields() -> list[Any]:
    pa = require("pyarrow", "arrow")
    return [pa.field("source", pa.large_string()), pa.field("id", pa.large_string())]


def main_chunk(args: argparse.Namespace) -> int:
    return run(args, sys.stdout, sys.stderr, sys.stdin.buffer)


def _report(job: Run, err: TextIO, started: float) -> int:
    """The skipped inputs with their reasons, then the summary line; the exit status."""
    for name, why in job.skipped:
        print(f"ferrochunk: skipped {name}: {why}", file=err)
    print(job.summary(time.perf_counter() - started), file=err)
    return 1 if job.skipped else 0
