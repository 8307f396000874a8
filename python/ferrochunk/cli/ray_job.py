"""`ferrochunk chunk --ray`: the same job through Ray Data (`ferrochunk[ray]`)."""

from __future__ import annotations

from typing import Any, Protocol

from .._support.optional import require
from ..errors import FerrochunkError
from ..ray import chunk_dataset
from .reports import Progress
from .sink import Sink
from .sources import Source


class Job(Protocol):
    """What the Ray job needs of a `ferrochunk chunk` run (``cli.chunk.Run``)."""

    args: Any
    config: Any
    sink: Sink
    tokenizer: Any
    progress: Progress
    documents: int
    chunks: int
    tokens: int
    done: int


def _documents(ray: Any, pa: Any, sources: list[Source], args: Any) -> Any:
    """One dataset of ``source, id, text`` rows from every input."""
    texts = [str(s.path) for s in sources if s.kind == "text"]
    jsonl = [str(s.path) for s in sources if s.kind == "jsonl"]
    parquet = [str(s.path) for s in sources if s.kind == "parquet"]
    encoding, text_field, id_field = args.encoding, args.text_field, args.id_field

    def from_bytes(batch: Any) -> Any:
        return pa.table(
            {
                "source": batch.column("path"),
                "id": pa.nulls(batch.num_rows, pa.large_string()),
                "text": pa.array(
                    [b.decode(encoding) for b in batch.column("bytes").to_pylist()],
                    pa.large_string(),
                ),
            }
        )

    def from_records(batch: Any) -> Any:
        ids = (
            pa.nulls(batch.num_rows, pa.large_string())
            if id_field is None
            else batch.column(id_field).cast(pa.large_string())
        )
        return pa.table(
            {
                "source": batch.column("path"),
                "id": ids,
                "text": batch.column(text_field).cast(pa.large_string()),
            }
        )

    parts = []
    if texts:
        parts.append(
            ray.data.read_binary_files(texts, include_paths=True).map_batches(
                from_bytes, batch_format="pyarrow"
            )
        )
    if jsonl:
        parts.append(
            ray.data.read_json(jsonl, include_paths=True).map_batches(
                from_records, batch_format="pyarrow"
            )
        )
    if parquet:
        parts.append(
            ray.data.read_parquet(parquet, include_paths=True).map_batches(
                from_records, batch_format="pyarrow"
            )
        )
    first, *rest = parts
    return first.union(*rest) if rest else first


def run_ray(job: Job, sources: list[Source]) -> None:
    if any(s.kind == "stdin" for s in sources):
        raise FerrochunkError("stdin cannot be read with --ray; name files instead")
    ray = require("ray", "ray")
    pa = require("pyarrow", "arrow")
    require("ray.data", "ray")
    if not ray.is_initialized():
        address = None if job.args.ray == "local" else job.args.ray
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    documents = _documents(ray, pa, sources, job.args)
    out = chunk_dataset(
        documents, job.config, keep_columns=["source", "id"], tokenizer=job.tokenizer
    )
    ends: dict[tuple[str, Any], int] = {}  # each document's last token_end
    job.sink.open()  # Ray read every input (it raises otherwise), even if none had text
    for batch in out.iter_batches(batch_format="pyarrow"):
        rows = batch.to_pylist()
        job.sink.write(rows)
        job.chunks += len(rows)
        for r in rows:
            key = (r["source"], r["id"])
            ends[key] = max(ends.get(key, 0), r["token_end"])
        job.progress.update(job.done, len(ends), job.chunks)
    job.documents = len(ends)
    job.tokens = sum(ends.values())
    job.done = sum(s.size() for s in sources)
