"""chunk_dataframe on a real local Spark (local[2]): JSONL and Parquet in, Parquet out, equal
to chunk_table; the driver-side checks; a task's error on the driver."""

from __future__ import annotations

import json
import os
import sys

import pytest

import ferrochunk as fc

pa = pytest.importorskip("pyarrow", reason="test extra: pyarrow")
pytest.importorskip("pyspark", reason="test extra: pyspark")
import pyarrow.parquet as pq  # noqa: E402
from frames import (  # noqa: E402
    BAD_ARGUMENTS,
    CONFIGS,
    DIFF_CONFIG,
    ROWS,
    by_chunk,
    expected,
    local_diff,
    versions,
)
from pyspark.errors import PythonException  # noqa: E402
from pyspark.sql import SparkSession  # noqa: E402

from ferrochunk import errors  # noqa: E402
from ferrochunk.arrow import chunk_table  # noqa: E402
from ferrochunk.spark import chunk_dataframe, chunk_spark_schema  # noqa: E402

# pyspark warns that it does not yet support pandas 3; nothing here goes through pandas.
pytestmark = [
    pytest.mark.filterwarnings("ignore::FutureWarning"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
]


@pytest.fixture(scope="module")
def spark():
    os.environ["PYSPARK_PYTHON"] = sys.executable  # the workers import this ferrochunk
    session = (
        SparkSession.builder.master("local[2]")
        .appName("ferrochunk-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def _parquet_rows(df, path):
    df.write.parquet(str(path))
    return by_chunk(pq.read_table(path).to_pylist())


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_jsonl_in_parquet_out(spark, tmp_path, name):
    src = tmp_path / "docs.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    docs = spark.read.schema("id long, text string").json(str(src)).repartition(3)
    out = chunk_dataframe(docs, CONFIGS[name], keep_columns=["id"])
    assert _parquet_rows(out, tmp_path / "out") == expected(CONFIGS[name])


def test_parquet_in_parquet_out_in_small_batches(spark, tmp_path):
    src = tmp_path / "docs.parquet"
    pq.write_table(pa.Table.from_pylist(ROWS), src)
    docs = spark.read.parquet(str(src))
    config = CONFIGS["delimiter"]
    out = chunk_dataframe(docs, config, keep_columns=["id"], rows_per_batch=7)
    assert _parquet_rows(out, tmp_path / "out") == expected(config)


def test_schema_is_the_configs(spark):
    docs = spark.createDataFrame([(1, "a b c")], "id long, text string")
    for config in CONFIGS.values():
        out = chunk_dataframe(docs, config, keep_columns=["id"])
        assert out.schema == chunk_spark_schema(config, [docs.schema["id"]])
        names = chunk_table(pa.table({"id": [1], "text": ["x"]}), config, keep_columns=["id"])
        assert out.columns == names.column_names


def test_null_texts_and_empty_frames(spark):
    docs = spark.createDataFrame([(1, None), (2, "")], "id long, text string")
    config = CONFIGS["markdown"]
    assert chunk_dataframe(docs, config, keep_columns=["id"]).count() == 0
    empty = spark.createDataFrame([], "id long, text string")
    out = chunk_dataframe(empty, config, keep_columns=["id"])
    assert out.collect() == []
    assert out.schema == chunk_spark_schema(config, [empty.schema["id"]])


def test_large_var_types(spark, tmp_path):
    """A session that hands Python large_string columns gets them back as it expects."""
    spark.conf.set("spark.sql.execution.arrow.useLargeVarTypes", "true")
    try:
        docs = spark.createDataFrame([(r["id"], r["text"]) for r in ROWS], "id long, text string")
        out = chunk_dataframe(docs, CONFIGS["parent-child"], keep_columns=["id"])
        assert _parquet_rows(out, tmp_path / "out") == expected(CONFIGS["parent-child"])
    finally:
        spark.conf.unset("spark.sql.execution.arrow.useLargeVarTypes")


def test_tokenizer_json_runs_on_the_workers(spark, tmp_path):
    from hf_models import json_of

    tok = fc.Tokenizer.from_json(json_of("bert"))
    config = fc.Recursive(16, overlap_tokens=4)
    docs = spark.createDataFrame([(r["id"], r["text"]) for r in ROWS], "id long, text string")
    out = chunk_dataframe(docs, config, keep_columns=["id"], tokenizer=tok)
    want = expected(config, tokenizer=tok)
    assert _parquet_rows(out, tmp_path / "out") == want


def _jobs(spark):
    return len(spark.sparkContext.statusTracker().getJobIdsForGroup("ferrochunk-bad-input"))


@pytest.mark.parametrize(("kwargs", "error", "words"), BAD_ARGUMENTS)
def test_bad_input_fails_on_the_driver(spark, kwargs, error, words):
    docs = spark.createDataFrame([(1, "a b", 2)], "id long, text string, token_count long")
    args = {"config": CONFIGS["windows"], **kwargs}
    spark.sparkContext.setJobGroup("ferrochunk-bad-input", "bad input")
    try:
        with pytest.raises(getattr(errors, error), match=words):
            chunk_dataframe(docs, **args)
        assert _jobs(spark) == 0, "the check ran a Spark job"
    finally:
        spark.sparkContext.setJobGroup("", "")


def test_a_frame_that_is_not_sparks_is_refused():
    with pytest.raises(errors.InputTypeError, match=r"pyspark\.sql\.DataFrame"):
        chunk_dataframe([(1, "a")], CONFIGS["windows"])


class _BreaksOnWorkers(fc.Recursive):
    """Valid on the driver; unpickled on a worker it is Recursive(0), which raises
    ConfigError there: a stand-in for any ferrochunk error inside a task."""

    def __reduce__(self):
        return (fc.Recursive, (0,))


def test_a_tasks_error_names_the_ferrochunk_type(spark):
    docs = spark.createDataFrame([(1, "a b c")], "id long, text string")
    out = chunk_dataframe(docs, _BreaksOnWorkers(8), keep_columns=["id"])
    with pytest.raises(PythonException) as caught:
        out.collect()
    assert "ferrochunk.errors.ConfigError" in str(caught.value)
    assert "Recursive.max_tokens must be an integer >= 1, got 0" in str(caught.value)


def test_batches_are_sliced_by_text_bytes_before_the_cast(monkeypatch):
    # Casting a task's whole chunk table to Spark's 32-bit string type overflowed past
    # 2 GiB of chunk text; each slice is cast on its own, under MAX_TEXT_BYTES of text.
    from ferrochunk import spark as fc_spark
    from ferrochunk._worker import ChunkStep

    monkeypatch.setattr(fc_spark, "MAX_TEXT_BYTES", 2000)
    config = fc.Recursive(64)
    step = ChunkStep(config, fc.Tokenizer.cl100k(), "text", (), threads=1)
    docs = pa.table({"text": pa.array(["word " * 3000, "one " * 900], pa.large_string())})
    whole = step(docs)
    schema = fc.arrow.chunk_schema(config).remove_metadata()
    schema = pa.schema([f.with_type(pa.string()) if f.name == "text" else f for f in schema])
    out = list(fc_spark._Batches(step, schema, rows_per_batch=1000)(iter([docs])))
    assert len(out) > 5
    assert all(b.schema.field("text").type == pa.string() for b in out)
    assert all(b.num_rows == 1 or sum(map(len, b["text"].to_pylist())) <= 2000 for b in out)
    assert [t for b in out for t in b["text"].to_pylist()] == whole["text"].to_pylist()


def test_a_diff_of_two_chunk_frames_is_an_anti_join_each_way(spark):
    old, new = versions()
    frames = [
        chunk_dataframe(
            spark.createDataFrame(list(docs.items()), "doc_id string, text string").repartition(2),
            DIFF_CONFIG,
            keep_columns=["doc_id"],
            id_column="doc_id",
        )
        for docs in (old, new)
    ]
    a, b = frames
    added = {r.record_id for r in b.join(a.select("record_id"), "record_id", "left_anti").collect()}
    removed = {
        r.record_id for r in a.join(b.select("record_id"), "record_id", "left_anti").collect()
    }
    assert (added, removed) == local_diff(old, new)
    assert added
    assert removed
