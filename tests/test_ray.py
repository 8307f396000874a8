"""chunk_dataset on a real local Ray: JSONL and Parquet in, Parquet out, equal to chunk_table."""

from __future__ import annotations

import json

import pytest

import ferrochunk as fc

pa = pytest.importorskip("pyarrow", reason="test extra: pyarrow")
ray = pytest.importorskip("ray", reason="test extra: ray[data]")
import pyarrow.parquet as pq  # noqa: E402

from ferrochunk.arrow import chunk_table  # noqa: E402
from ferrochunk.errors import ConfigError, ConfigTypeError  # noqa: E402
from ferrochunk.ray import chunk_dataset  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

ROWS = [
    {"id": i, "text": f"Document {i}. " + "Some words, then more. " * (i % 7) + "你好。" * (i % 3)}
    for i in range(60)
]
CONFIG = fc.DelimiterMerge(12, delimiters=(". ", "。"), child_delimiters=(",",))


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


def _sorted(rows):
    return sorted(rows, key=lambda r: (r["id"], r["chunk_index"]))


def _expected():
    return _sorted(chunk_table(pa.Table.from_pylist(ROWS), CONFIG, keep_columns=["id"]).to_pylist())


def _run(ds, tmp_path):
    out = tmp_path / "out"
    chunk_dataset(ds, CONFIG, keep_columns=["id"], batch_size=16).write_parquet(str(out))
    return _sorted(pq.read_table(out).to_pylist())


def test_jsonl_in_parquet_out(local_ray, tmp_path):
    src = tmp_path / "docs.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    assert _run(ray.data.read_json(str(src)), tmp_path) == _expected()


def test_parquet_in_parquet_out(local_ray, tmp_path):
    src = tmp_path / "docs.parquet"
    pq.write_table(pa.Table.from_pylist(ROWS), src)
    assert _run(ray.data.read_parquet(str(src)), tmp_path) == _expected()


def test_markdown_headings_cross_ray_as_the_table_does(local_ray, tmp_path):
    rows = [{"id": i, "text": f"# Doc {i}\n\nBody text here.\n\n## Part\n\n" + "More. " * 30}
            for i in range(6)]  # fmt: skip
    config = fc.Markdown(24, overlap_tokens=2)
    want = _sorted(chunk_table(pa.Table.from_pylist(rows), config, keep_columns=["id"]).to_pylist())
    got = chunk_dataset(ray.data.from_items(rows), config, keep_columns=["id"]).take_all()
    assert _sorted(got) == want
    assert want[-1]["headings"] == [{"level": 1, "title": "Doc 5"}, {"level": 2, "title": "Part"}]


def test_bad_arguments(local_ray):
    ds = ray.data.from_items(ROWS[:2])
    with pytest.raises(ConfigTypeError, match=r"ray\.data\.Dataset"):
        chunk_dataset(ROWS, CONFIG)
    with pytest.raises(ConfigError, match="num_cpus"):
        chunk_dataset(ds, CONFIG, num_cpus=0)
    with pytest.raises(ConfigError, match="concurrency"):
        chunk_dataset(ds, CONFIG, concurrency=0)


def test_cli_runs_the_same_job_through_ray(local_ray, tmp_path, capsys):
    from ferrochunk.cli import main

    src = tmp_path / "docs.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    local, through_ray = tmp_path / "local.jsonl", tmp_path / "ray.jsonl"
    args = [
        "chunk",
        str(src),
        "--id-field",
        "id",
        "--chunker",
        "delimiter",
        "--max-tokens",
        "12",
        "--delimiter",
        ". ",
        "--delimiter",
        "。",
        "--child-delimiter",
        ",",
    ]
    assert main([*args, "-o", str(local)]) == 0
    assert main([*args, "--ray", "-o", str(through_ray)]) == 0

    def rows(path):
        return sorted(
            (json.loads(line) for line in path.read_text().splitlines()),
            key=lambda r: (int(r["id"]), r["chunk_index"]),
        )

    assert rows(through_ray) == rows(local)
    assert "60 documents" in capsys.readouterr().err


def test_a_tokenizer_json_crosses_ray_as_its_json(local_ray):
    """Workers rebuild the native engine from the pickled JSON: the rows of chunk_table."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from hf_models import json_of

    tok = fc.Tokenizer.from_json(json_of("bert"))
    config = fc.Recursive(16)
    want = _sorted(
        chunk_table(
            pa.Table.from_pylist(ROWS), config, keep_columns=["id"], tokenizer=tok
        ).to_pylist()
    )
    got = chunk_dataset(
        ray.data.from_items(ROWS), config, keep_columns=["id"], tokenizer=tok
    ).take_all()
    assert _sorted(got) == want
    assert want != _sorted(
        chunk_table(pa.Table.from_pylist(ROWS), config, keep_columns=["id"]).to_pylist()
    )
