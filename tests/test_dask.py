"""chunk_dataframe on Dask (the default scheduler and a real distributed LocalCluster): JSONL
and Parquet in, Parquet out, equal to chunk_table; the client-side checks; a task's error."""

from __future__ import annotations

import json

import pytest

pa = pytest.importorskip("pyarrow", reason="test extra: pyarrow")
dd = pytest.importorskip("dask.dataframe", reason="test extra: dask[dataframe]")
distributed = pytest.importorskip("distributed", reason="test extra: distributed")
import dask  # noqa: E402
import pandas as pd  # noqa: E402
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

from ferrochunk import errors  # noqa: E402
from ferrochunk.arrow import chunk_table  # noqa: E402
from ferrochunk.dask import chunk_dataframe  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def cluster():
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as local,
        distributed.Client(local) as client,
    ):
        yield client


def _parquet_rows(ddf, path, **compute):
    ddf.to_parquet(str(path), write_index=False, compute_kwargs=compute)
    return by_chunk(pq.read_table(path).to_pylist())


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_jsonl_in_parquet_out(tmp_path, name):
    src = tmp_path / "docs.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    docs = dd.read_json(str(src), lines=True, blocksize=600)
    assert docs.npartitions > 1
    out = chunk_dataframe(docs, CONFIGS[name], keep_columns=["id"])
    assert _parquet_rows(out, tmp_path / "out") == expected(CONFIGS[name])


@pytest.mark.parametrize("name", ["delimiter", "parent-child"])
def test_parquet_in_parquet_out_on_a_local_cluster(cluster, tmp_path, name):
    src = tmp_path / "docs"
    src.mkdir()
    for part in range(3):
        pq.write_table(pa.Table.from_pylist(ROWS[part::3]), src / f"part-{part}.parquet")
    docs = dd.read_parquet(str(src))
    out = chunk_dataframe(docs, CONFIGS[name], keep_columns=["id"])
    assert _parquet_rows(out, tmp_path / "out") == expected(CONFIGS[name])


def test_meta_is_what_partitions_return():
    docs = dd.from_pandas(pd.DataFrame(ROWS), npartitions=4)
    for config in CONFIGS.values():
        out = chunk_dataframe(docs, config, keep_columns=["id"])
        assert not out.known_divisions  # each partition's index runs from 0
        got = out.compute()
        assert dict(got.dtypes) == dict(out.dtypes)
        assert all(isinstance(t, pd.ArrowDtype) for t in got.dtypes)
        want = chunk_table(pa.Table.from_pylist(ROWS), config, keep_columns=["id"])
        assert list(got.columns) == want.column_names
        assert pa.Table.from_pandas(got, preserve_index=False).schema == want.schema


def test_null_texts_and_empty_frames():
    nulls = dd.from_pandas(
        pd.DataFrame({"id": [1, 2], "text": pd.Series([None, None], dtype="string")}), npartitions=1
    )
    assert len(chunk_dataframe(nulls, CONFIGS["markdown"], keep_columns=["id"]).compute()) == 0
    empty = dd.from_pandas(
        pd.DataFrame({"id": pd.Series([], dtype="int64"), "text": pd.Series([], dtype=str)}),
        npartitions=1,
    )
    out = chunk_dataframe(empty, CONFIGS["markdown"], keep_columns=["id"]).compute()
    assert len(out) == 0
    assert "headings" in out.columns


@pytest.mark.parametrize(("kwargs", "error", "words"), BAD_ARGUMENTS)
def test_bad_input_fails_on_the_client(kwargs, error, words):
    frame = pd.DataFrame({"id": [1], "text": ["a b"], "token_count": [2]})
    args = {"config": CONFIGS["windows"], **kwargs}
    with pytest.raises(getattr(errors, error), match=words):
        chunk_dataframe(dd.from_pandas(frame, npartitions=1), **args)


def test_a_frame_that_is_not_dasks_is_refused():
    with pytest.raises(errors.InputTypeError, match=r"dask\.dataframe\.DataFrame"):
        chunk_dataframe(pd.DataFrame({"text": ["a"]}), CONFIGS["windows"])


def test_a_tasks_error_is_the_ferrochunk_type(cluster):
    """An object column may hold anything; the partition that holds a number fails, and the
    client gets the InputTypeError itself from the worker process."""
    frame = pd.DataFrame({"id": [1, 2], "text": pd.Series(["fine", 7], dtype=object)})
    with dask.config.set({"dataframe.convert-string": False}):  # keep the object column
        docs = dd.from_pandas(frame, npartitions=1)
    out = chunk_dataframe(docs, CONFIGS["windows"])
    with pytest.raises(errors.InputTypeError, match="text_column 'text' holding str or None"):
        out.compute()


def test_a_diff_of_two_chunk_frames_is_an_anti_join_each_way():
    old, new = versions()
    a, b = (
        chunk_dataframe(
            dd.from_pandas(
                pd.DataFrame({"doc_id": list(docs), "text": list(docs.values())}), npartitions=2
            ),
            DIFF_CONFIG,
            keep_columns=["doc_id"],
            id_column="doc_id",
        )
        for docs in (old, new)
    )

    def only_in(x, y):  # type: ignore[no-untyped-def]
        joined = x[["record_id"]].merge(
            y[["record_id"]], on="record_id", how="left", indicator=True
        )
        return set(joined[joined["_merge"] == "left_only"]["record_id"].compute())

    assert (only_in(b, a), only_in(a, b)) == local_diff(old, new)
