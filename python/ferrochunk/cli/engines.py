"""`ferrochunk chunk --spark / --dask`: the same job on a data-frame engine.

The driver checks every input first, as a local run does, so the same files are skipped and
listed. The engine's workers then read the files (with the same readers), chunk them through
:func:`ferrochunk.spark.chunk_dataframe` or :func:`ferrochunk.dask.chunk_dataframe` and write
a folder of part files. That folder is the output (:class:`PartFolder`), so the rows are
what a local run writes, in part files rather than one file.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import stat
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._support.optional import require
from ..config import Config
from ..errors import FerrochunkError
from ..records import json_line
from ..tokenizers import Tokenizer
from .sink import OutputError, is_mount_point
from .sources import (
    WHOLE,
    Part,
    Source,
    Unreadable,
    check_records,
    check_text,
    label,
    read_records,
    record_parts,
)

_RAISED = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception): ")
MARK = "_FERROCHUNK"  # written into every part folder: it lists the files the run wrote
_MARK_HEADER = "# ferrochunk chunk wrote these files; a re-run may replace a folder of just these"
_ENGINE_FILES = ("_SUCCESS", "_common_metadata", "_metadata")
_BATCH_CHARS = 64 << 20


@dataclass
class EngineRun:
    """One engine run of `ferrochunk chunk`: its options, and what it read and wrote."""

    args: Any
    config: Config
    tokenizer: Tokenizer
    documents: int = 0
    chunks: int = 0
    tokens: int = 0
    done: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)


def _files(folder: str) -> list[str]:
    """Every file, link and empty folder under ``folder``, as relative paths in order (a
    link to a folder is not followed)."""
    found = []
    for root, dirs, files in os.walk(folder):
        rel = os.path.relpath(root, folder)
        inside = [d for d in dirs if os.path.islink(os.path.join(root, d))]
        dirs[:] = [d for d in dirs if d not in inside]
        names = files + inside + ([""] if not (files or dirs or inside) and rel != "." else [])
        found += [os.path.normpath(os.path.join(rel, n)) for n in names]
    return sorted(found)


def _listed(folder: str) -> set[str] | None:
    """The files an engine run wrote, as the folder's ``_FERROCHUNK`` lists them, or None
    when it has no such list."""
    try:
        with open(os.path.join(folder, MARK), encoding="utf-8") as f:
            lines = f.read().splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    if not lines or lines[0] != _MARK_HEADER:
        return None
    return set(lines[1:])


class PartFolder:
    """``-o FOLDER`` for an engine: written beside the target, then moved into place.

    - The target is refused unless it is absent, an empty folder, or a folder an earlier
      engine run wrote and nobody added to: its ``_FERROCHUNK`` lists every file that run
      wrote, and the folder holds nothing else. That is checked before anything is read
      and again just before the replacement, so a typo such as ``-o ~``, or a file added
      to the folder before or during the job, is never deleted: the run stops, naming it.
    - The engine writes into a new hidden folder beside the target. When the job succeeds
      its files are listed in ``_FERROCHUNK`` and synced, the new folder gets the old
      one's mode and group, the old folder (if any) is renamed aside, the new one renamed
      into its place, and the old one deleted: two renames, so a crash between them leaves
      the old output whole under ``.NAME.*.old`` (a failed second rename renames it back).
      A failed job deletes its folder and leaves the target as it was.
    - A symlink to a folder is followed: the folder it names is replaced, the link stays.
    - A mount point (a volume, a bind mount) cannot be renamed: the engine writes into a
      hidden folder inside it, and when the job succeeds the listed old files are deleted
      and the new ones moved into place, which is not atomic.
    """

    def __init__(self, output: Path) -> None:
        self.name = label(output)
        self.path = os.path.realpath(output)
        # A mount point cannot be renamed: the engine writes into a hidden folder inside
        # it, whose files are then moved into place (not atomically).
        self.mounted = os.path.isdir(self.path) and is_mount_point(self.path)
        parent = self.path if self.mounted else os.path.dirname(self.path)
        base = "ferrochunk" if self.mounted else os.path.basename(self.path)
        self.tmp = os.path.join(parent, f".{base}.{secrets.token_hex(4)}.tmp")
        if os.path.lexists(self.path):
            self._check_replaceable()
        elif not os.path.isdir(parent):
            raise OutputError(f"cannot write {self.name}: no such folder {label(parent)}")
        if not os.access(parent, os.W_OK | os.X_OK):
            raise OutputError(f"cannot write {self.name}: cannot create files in {label(parent)}")

    def _check_replaceable(self) -> None:
        if not os.path.isdir(self.path):
            raise OutputError(
                f"cannot write {self.name}: --spark/--dask write a folder of part files, "
                "and this is a file"
            )
        mine = os.path.basename(self.tmp)
        found = [f for f in _files(self.path) if f.split(os.sep)[0] != mine]
        if not found:
            return
        listed = _listed(self.path)
        if listed is None:
            raise OutputError(
                f"cannot write {self.name}: the folder holds files and no {MARK} list of "
                f"the files an engine run wrote (such as {found[0]!r}); name a new folder"
            )
        other = next((f for f in found if f != MARK and f not in listed), None)
        if other is not None:
            raise OutputError(
                f"cannot write {self.name}: the folder holds {other!r}, which the last "
                "engine run did not write; move it out or name a new folder"
            )

    def holds(self, path: Path) -> bool:
        """Whether ``path`` is inside the target folder (an input there would be replaced)."""
        inside = os.path.realpath(path)
        return inside == self.path or inside.startswith(self.path + os.sep)

    def commit(self) -> None:
        written = _files(self.tmp)
        if self.mounted:
            self._commit_in_place(written)
            return
        Path(self.tmp, MARK).write_text("".join(f"{n}\n" for n in [_MARK_HEADER, *written]))
        _sync(self.tmp)
        old = None
        if os.path.lexists(self.path):
            self._check_replaceable()
            _keep_mode_and_group(self.tmp, os.stat(self.path))
            old = f"{self.tmp[: -len('.tmp')]}.old"
            os.rename(self.path, old)
        try:
            os.rename(self.tmp, self.path)
        except OSError:
            if old is not None:
                os.rename(old, self.path)
            raise
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)

    def _commit_in_place(self, written: list[str]) -> None:
        """Replaces the listed files of a mount point with the new ones. The list goes
        first and comes back last, so a crash between leaves files that no list names,
        which the next run refuses to delete."""
        _sync(self.tmp)
        self._check_replaceable()
        for name in sorted(_listed(self.path) or (), reverse=True):  # files before folders
            where = os.path.join(self.path, name)
            if os.path.isdir(where) and not os.path.islink(where):
                with contextlib.suppress(OSError):
                    os.rmdir(where)
            else:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(where)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(os.path.join(self.path, MARK))
        for name in written:
            source, target = os.path.join(self.tmp, name), os.path.join(self.path, name)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            if os.path.isdir(source) and not os.path.islink(source):
                os.makedirs(target, exist_ok=True)
            else:
                os.replace(source, target)
        Path(self.path, MARK).write_text("".join(f"{n}\n" for n in [_MARK_HEADER, *written]))
        shutil.rmtree(self.tmp, ignore_errors=True)

    def discard(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)

    def parts(self) -> list[str]:
        """The data files in the finished folder, in name order."""
        return sorted(
            os.path.join(self.path, f)
            for f in os.listdir(self.path)
            if not f.startswith((".", "_")) and f not in _ENGINE_FILES and not f.endswith(".crc")
        )


def _keep_mode_and_group(folder: str, old: os.stat_result) -> None:
    """Gives the new folder the replaced one's mode, and its group where the runner may."""
    if os.stat(folder).st_gid != old.st_gid:
        with contextlib.suppress(PermissionError):
            os.chown(folder, -1, old.st_gid)
    os.chmod(folder, stat.S_IMODE(old.st_mode))


def _sync(folder: str) -> None:
    """The folder's files on disk, and the folder itself, before it is renamed into place."""
    for root, _, files in os.walk(folder):
        for name in files:
            fd = os.open(os.path.join(root, name), os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def read_source(
    path: str, kind: str, name: str, args: dict[str, Any], part: Part = WHOLE
) -> Iterator[tuple[Any, ...]]:
    """The ``(source, id, text)`` documents of one input (or one part of a records file),
    as a local run reads them, one at a time: a records file is read by lines or Parquet
    batches, never whole."""
    source = Source(Path(path), kind, name)
    if kind == "text":
        with open(path, encoding=args["encoding"], newline="") as f:
            yield (name, None, f.read())
        return
    for r in read_records(source, args["text_field"], args["id_field"], part):
        yield (name, r.id, r.text)


def _readable(job: EngineRun, sources: Sequence[Source]) -> list[tuple[Source, Part]]:
    """The inputs that read, each records file in parts a worker reads alone (the driver
    reads them through in bounded memory, and never holds one)."""
    ok = []
    for s in sources:
        if s.kind == "stdin":
            raise FerrochunkError("stdin cannot be read with --spark or --dask; name files instead")
        try:
            if s.kind == "text":
                check_text(s, job.args.encoding)
                found, parts = 1, [WHOLE]
            else:
                fields = (job.args.text_field, job.args.id_field)
                found = check_records(s, *fields)
                parts = record_parts(s, *fields)
        except Unreadable as exc:
            job.skipped.append((s.name, exc.hint))
        else:
            ok += [(s, part) for part in parts]
            job.documents += found  # as a local run counts: each text read, empty or not
    return ok


def _reader_args(job: EngineRun) -> dict[str, Any]:
    a = job.args
    return {"encoding": a.encoding, "text_field": a.text_field, "id_field": a.id_field}


class _ReadBatches:
    """Spark's ``mapInArrow`` step that turns ``(path, kind, source, start, stop, first)``
    rows (an input, or a part of one) into documents."""

    def __init__(self, args: dict[str, Any], schema: Any) -> None:
        self.args = args
        self.schema = schema

    def __call__(self, batches: Any) -> Any:
        pa = require("pyarrow", "arrow")
        for batch in batches:
            files = zip(*(batch.column(i).to_pylist() for i in range(6)), strict=True)
            for path, kind, name, start, stop, first in files:
                # A batch per file, and per _BATCH_CHARS of a records file's texts: memory
                # stays near one file's, and 32-bit string offsets never overflow.
                rows: list[tuple[Any, ...]] = []
                size = 0
                for row in read_source(path, kind, name, self.args, Part(start, stop, first)):
                    if rows and size + len(row[2]) > _BATCH_CHARS:
                        yield self._batch(pa, rows)
                        rows, size = [], 0
                    rows.append(row)
                    size += len(row[2])
                if rows:
                    yield self._batch(pa, rows)

    def _batch(self, pa: Any, rows: list[tuple[Any, ...]]) -> Any:
        columns = list(zip(*rows, strict=True))
        return pa.RecordBatch.from_arrays(
            [pa.array(c, self.schema.field(i).type) for i, c in enumerate(columns)],
            schema=self.schema,
        )


def _spark(job: EngineRun, pieces: list[tuple[Source, Part]], fmt: str, folder: str) -> None:
    sql = require("pyspark.sql", "spark")
    from ..spark import _arrow_schema, chunk_dataframe, map_in_arrow

    master = job.args.spark
    builder = sql.SparkSession.builder.master(master).appName("ferrochunk chunk")
    builder = builder.config("spark.ui.showConsoleProgress", "false")
    if master.startswith("local"):
        # Local workers run this interpreter, which has this ferrochunk (pyspark reads the
        # worker's interpreter from the environment).
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("OFF")  # a failure is reported once, below
    inputs = spark.createDataFrame(
        [(str(s.path), s.kind, s.name, p.start, p.stop, p.first) for s, p in pieces],
        "path string, kind string, source string, start long, stop long, first long",
    ).repartition(min(len(pieces), spark.sparkContext.defaultParallelism))
    schema = sql.types.StructType(
        [sql.types.StructField(n, sql.types.StringType(), True) for n in ("source", "id", "text")]
    )
    read = _ReadBatches(_reader_args(job), _arrow_schema(inputs, schema))
    docs = map_in_arrow(inputs, read, schema)
    out = chunk_dataframe(
        docs, job.config, keep_columns=["source", "id"], tokenizer=job.tokenizer, threads=1
    )
    # A file: URI, so that a cluster whose default file system is HDFS writes here too.
    uri = Path(folder).as_uri()
    if fmt == "parquet":
        out.write.parquet(uri)
    else:
        out.write.json(uri, ignoreNullFields=False)


def _dask_partition(piece: tuple[Source, Part], args: dict[str, Any]) -> Any:
    pd = require("pandas", "dask")
    source, part = piece
    rows = list(read_source(str(source.path), source.kind, source.name, args, part))
    frame = pd.DataFrame(rows, columns=["source", "id", "text"], dtype=object)
    return frame.astype(pd.StringDtype())


def _write_jsonl(frame: Any, path: str) -> None:
    pa = require("pyarrow", "arrow")
    rows = pa.Table.from_pandas(frame, preserve_index=False).to_pylist()
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(map(json_line, rows))


def _dask(job: EngineRun, pieces: list[tuple[Source, Part]], fmt: str, folder: str) -> None:
    dd = require("dask.dataframe", "dask")
    dask = require("dask", "dask")
    distributed = require("distributed", "dask")
    pd = require("pandas", "dask")
    from ..dask import chunk_dataframe

    address = job.args.dask
    with contextlib.ExitStack() as stack:
        if address == "local":
            workers = job.args.threads or os.cpu_count() or 1
            cluster = stack.enter_context(
                distributed.LocalCluster(
                    n_workers=workers, threads_per_worker=1, dashboard_address=None
                )
            )
            stack.enter_context(distributed.Client(cluster))
        else:
            stack.enter_context(distributed.Client(address))
        meta = pd.DataFrame(
            {n: pd.Series([], dtype=pd.StringDtype()) for n in ("source", "id", "text")}
        )
        docs = dd.from_map(_dask_partition, pieces, args=(_reader_args(job),), meta=meta)
        out = chunk_dataframe(
            docs, job.config, keep_columns=["source", "id"], tokenizer=job.tokenizer, threads=1
        )
        if fmt == "parquet":
            out.to_parquet(folder, write_index=False)
        else:
            os.mkdir(folder)
            parts = out.to_delayed()
            writes = [
                dask.delayed(_write_jsonl)(part, os.path.join(folder, f"part.{i:05d}.jsonl"))
                for i, part in enumerate(parts)
            ]
            dask.compute(*writes)


def _tally(job: EngineRun, parts: list[str], fmt: str) -> None:
    """Chunks and source tokens (each document's last ``token_end``), from the part files
    written."""
    ends: dict[tuple[Any, Any], int] = {}

    def add(source: Any, ident: Any, end: int) -> None:
        job.chunks += 1
        ends[source, ident] = max(ends.get((source, ident), 0), end)

    if fmt == "parquet":
        pq = require("pyarrow.parquet", "arrow")
        for part in parts:
            t = pq.read_table(part, columns=["source", "id", "token_end"])
            for row in zip(*(t.column(i).to_pylist() for i in range(3)), strict=True):
                add(*row)
    else:
        for part in parts:
            with open(part, encoding="utf-8") as f:
                for line in f:
                    r = json.loads(line)
                    add(r["source"], r["id"], r["token_end"])
    job.tokens = sum(ends.values())


def _reason(exc: BaseException) -> str:
    """One line: a ferrochunk error a worker raised (Spark sends its traceback as text),
    else the exception's first line."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    ours = [line for line in lines if line.startswith("ferrochunk.errors.")]
    if ours:
        return ours[-1].removeprefix("ferrochunk.errors.")
    raised = [line for line in lines if _RAISED.match(line)]
    if raised:  # the last exception of a worker's traceback
        return raised[-1]
    return f"{type(exc).__name__}: {lines[0] if lines else ''}"


def run_engine(job: EngineRun, sources: Sequence[Source], fmt: str, output: Path | None) -> bool:
    """Runs the job on ``--spark`` or ``--dask``; whether anything was written."""
    engine = "--spark" if job.args.spark is not None else "--dask"
    if output is None:
        raise FerrochunkError(f"{engine} writes a folder of part files: name it with -o FOLDER")
    folder = PartFolder(output)
    for s in sources:
        if s.path is not None and folder.holds(s.path):
            raise FerrochunkError(f"the output {folder.name} holds an input, {s.name}")
    readable = _readable(job, sources)
    job.done = sum(s.size() for s in sources)
    if not readable:
        return False  # nothing read: the output stays as it was
    try:
        try:
            if engine == "--spark":
                _spark(job, readable, fmt, folder.tmp)
            else:
                _dask(job, readable, fmt, folder.tmp)
        except Exception as exc:
            raise FerrochunkError(
                f"the {engine[2:]} job failed ({_reason(exc)}); {folder.name} is as it was"
            ) from exc
        try:
            folder.commit()
        except OSError as exc:
            raise OutputError(f"cannot write {folder.name}: {exc.strerror or exc}") from exc
    finally:
        folder.discard()  # a no-op once the folder has moved into place
    _tally(job, folder.parts(), fmt)
    return True
