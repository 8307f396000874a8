"""Ray Data: ``chunk_table`` over a dataset's Arrow batches (``ferrochunk[ray]``).

Each worker is an actor of :class:`ChunkBatches`, so the config and the tokenizer are
built once per worker, and Arrow batches go straight to Rust.

On a small cluster an actor pool that claims every CPU starves the read and write tasks
and the job stalls ("cluster resources are not enough"). So by default the pool leaves
one CPU free: ``concurrency`` is the cluster's CPUs minus one (at least one actor), each
actor asks for ``num_cpus=1`` and chunks with one thread. On a 2-CPU machine that is one
chunking actor beside the readers. Raise ``concurrency`` on a larger cluster, or pass
``num_cpus`` below 1 to pack several actors on a CPU.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ._support.optional import require
from ._support.validate import describe, require_int
from .arrow import chunk_table
from .config import Config
from .errors import ConfigError, ConfigTypeError
from .pipeline import _require_config
from .tokenizers import Tokenizer

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["ChunkBatches", "chunk_dataset"]


class ChunkBatches:
    """The callable a Ray Data actor runs on each Arrow batch (built once per actor).

    >>> import pyarrow as pa
    >>> import ferrochunk as fc
    >>> step = ChunkBatches(fc.Recursive(4), "text", (), None, threads=1)
    >>> step(pa.table({"text": ["One. Two three four."]}))["text"].to_pylist()
    ['One. ', 'Two three four.']
    """

    def __init__(
        self,
        config: Config,
        text_column: str,
        keep_columns: Sequence[str],
        tokenizer: Tokenizer | str | None,
        threads: int,
    ) -> None:
        self.config = config
        self.text_column = text_column
        self.keep_columns = tuple(keep_columns)
        self.tokenizer = tokenizer
        self.threads = threads

    def __call__(self, batch: pa.Table) -> pa.Table:
        return chunk_table(
            batch,
            self.config,
            text_column=self.text_column,
            keep_columns=self.keep_columns,
            tokenizer=self.tokenizer,
            threads=self.threads,
        )


def _cluster_cpus(ray: Any) -> int:
    return max(int(ray.cluster_resources().get("CPU", 1)), 1)


def chunk_dataset(
    ds: Any,
    config: Config,
    *,
    text_column: str = "text",
    keep_columns: Sequence[str] = (),
    tokenizer: Tokenizer | str | None = None,
    batch_size: int | None = 256,
    concurrency: int | tuple[int, int] | None = None,
    num_cpus: float = 1.0,
) -> Any:
    """A Ray Dataset of chunk rows (the columns of :func:`ferrochunk.arrow.chunk_table`).

    ``batch_size`` documents go to one ``chunk_table`` call; ``concurrency`` is the actor
    count, or a ``(min, max)`` range to autoscale (default: the cluster's CPUs minus one, at
    least one), each actor asking for ``num_cpus`` and chunking with
    ``max(1, int(num_cpus))`` threads. Needs the ``[ray]`` extra. ``docs/scale-out.md``
    shows a whole job; this example starts a local Ray, so it is not
    run as a doctest (``tests/test_ray.py`` runs the same on a real Ray):

    >>> import ray, ferrochunk as fc  # doctest: +SKIP
    >>> from ferrochunk.ray import chunk_dataset  # doctest: +SKIP
    >>> ds = ray.data.from_items([{"id": 1, "text": "One. Two three four."}])  # doctest: +SKIP
    >>> chunk_dataset(ds, fc.Recursive(4), keep_columns=["id"]).take_all()  # doctest: +SKIP
    """
    ray = require("ray", "ray")
    require("ray.data", "ray")
    config = _require_config(config)
    if not isinstance(ds, ray.data.Dataset):
        raise ConfigTypeError(f"ds must be a ray.data.Dataset, got {describe(ds)}")
    if batch_size is not None:
        batch_size = require_int("batch_size", batch_size, minimum=1)
    if isinstance(num_cpus, bool) or not isinstance(num_cpus, int | float) or not num_cpus > 0:
        raise ConfigError(f"num_cpus must be a number > 0, got {describe(num_cpus)}")
    if concurrency is None:
        pool = ray.data.ActorPoolStrategy(size=max(_cluster_cpus(ray) - 1, 1))
    elif isinstance(concurrency, tuple) and len(concurrency) == 2:
        low = require_int("concurrency[0]", concurrency[0], minimum=1)
        high = require_int("concurrency[1]", concurrency[1], minimum=low)
        pool = ray.data.ActorPoolStrategy(min_size=low, max_size=high)
    else:
        pool = ray.data.ActorPoolStrategy(size=require_int("concurrency", concurrency, minimum=1))
    return ds.map_batches(
        ChunkBatches,
        fn_constructor_args=(
            config,
            text_column,
            tuple(keep_columns),
            tokenizer,
            max(1, int(num_cpus)),
        ),
        batch_format="pyarrow",
        batch_size=batch_size,
        compute=pool,
        num_cpus=num_cpus,
        zero_copy_batch=True,
    )
