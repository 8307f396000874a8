"""`ferrochunk chunk` on a Parquet file of documents: peak RSS flat from 200 MB to 2 GB,
and MB/s beside ``chunk_table`` on the same data in memory.

The file is the 1 MB mix as 64 KB documents, repeated to size, written with 64 MB row
groups. Each run is a fresh process (its VmHWM is its peak RSS), ``Recursive(512, 51)``
in cl100k on every core, writing Parquet. With ``--benchmark-disable`` (the default, as
smoke tests) the sizes shrink to 2 and 20 MB and every output is still checked.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pa = pytest.importorskip("pyarrow", reason="test extra: pyarrow")
pq = pytest.importorskip("pyarrow.parquet", reason="test extra: pyarrow")

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "target" / "bench-data"
MB = 1_000_000
ROW_GROUP = 64 * MB

# Fresh processes, so each peak is that run's alone.
_CLI = """
import json, subprocess, sys, time
start = time.perf_counter()
done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
seconds = time.perf_counter() - start
import resource
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
print(json.dumps({"code": done.returncode, "err": done.stderr, "seconds": seconds, "peak": peak}))
"""
_TABLE = """
import json, sys, time
import pyarrow.parquet as pq
import ferrochunk as fc
from ferrochunk.arrow import chunk_table
table = pq.read_table(sys.argv[1])
start = time.perf_counter()
out = chunk_table(table, fc.Recursive(512, overlap_tokens=51))
seconds = time.perf_counter() - start
status = open("/proc/self/status").read().split("VmHWM:")[1]
print(json.dumps({"rows": out.num_rows, "seconds": seconds,
                  "peak": int(status.split()[0]) * 1024}))
"""


def _documents(multilingual: str) -> list[str]:
    data = multilingual.encode("utf-8")
    out, at = [], 0
    while at < len(data):
        end = min(at + 64 * 1024, len(data))
        while end < len(data) and (data[end] & 0xC0) == 0x80:
            end += 1
        out.append(data[at:end].decode("utf-8"))
        at = end
    return out


def _parquet(multilingual: str, size: int) -> tuple[Path, int]:
    """A Parquet file of about ``size`` bytes of text, and its text bytes."""
    docs = _documents(multilingual)
    per_doc = len(multilingual.encode("utf-8")) / len(docs)
    path = DATA / f"docs-{size // MB}MB.parquet"
    copies = max(1, round(size / per_doc / len(docs)))
    text_bytes = copies * len(multilingual.encode("utf-8"))
    if path.exists():
        return path, text_bytes
    DATA.mkdir(parents=True, exist_ok=True)
    group = max(1, int(ROW_GROUP / per_doc))
    tmp = path.with_suffix(".tmp")
    schema = pa.schema([("id", pa.int64()), ("text", pa.large_string())])
    per_group = max(1, group // len(docs))  # copies of the mix in one row group
    # No dictionary: the mix repeats, and real documents do not.
    with pq.ParquetWriter(tmp, schema, use_dictionary=False) as w:
        for k in range(0, copies, per_group):
            n = min(per_group, copies - k)
            ids = range(k * len(docs), (k + n) * len(docs))
            table = pa.table({"id": list(ids), "text": docs * n}, schema=schema)
            w.write_table(table, row_group_size=group)
    tmp.rename(path)
    return path, text_bytes


@pytest.fixture(scope="module")
def smoke(request: pytest.FixtureRequest) -> bool:
    config = request.config
    return bool(config.getoption("benchmark_disable")) and not config.getoption("benchmark_enable")


def _cli(path: Path, out: Path) -> dict[str, object]:
    cmd = [sys.executable, "-m", "ferrochunk.cli", "chunk", str(path), "--id-field", "id"]
    cmd += ["--max-tokens", "512", "--overlap-tokens", "51", "-o", str(out)]
    done = subprocess.run([sys.executable, "-c", _CLI, *cmd], capture_output=True, text=True)
    return dict(json.loads(done.stdout))


@pytest.mark.parametrize("size", [200 * MB, 2000 * MB], ids=["200 MB", "2 GB"])
def test_cli_parquet_peak_memory(benchmark, multilingual, smoke, size, tmp_path):
    path, text_bytes = _parquet(multilingual, size // 100 if smoke else size)
    out = tmp_path / "chunks.parquet"
    benchmark.group = "CLI Parquet peak memory"
    benchmark.extra_info["bytes"] = text_bytes
    result = benchmark.pedantic(_cli, (path, out), rounds=1, iterations=1)
    assert result["code"] == 0, result["err"]
    benchmark.extra_info["peak_rss_mb"] = round(int(result["peak"]) / 2**20, 1)
    benchmark.extra_info["mb_s"] = round(text_bytes / MB / float(result["seconds"]), 1)
    rows = pq.ParquetFile(out).metadata.num_rows
    assert rows > text_bytes // 4000  # 512-token chunks: a few KB each
    ids = pq.read_table(out, columns=["id"]).column("id").unique()
    assert len(ids) == pq.ParquetFile(path).metadata.num_rows  # every document


@pytest.mark.parametrize("size", [200 * MB, 2000 * MB], ids=["200 MB", "2 GB"])
def test_chunk_table_on_the_same_data(benchmark, multilingual, smoke, size):
    path, text_bytes = _parquet(multilingual, size // 100 if smoke else size)
    benchmark.group = "CLI Parquet peak memory"
    benchmark.extra_info["bytes"] = text_bytes

    def run() -> dict[str, object]:
        done = subprocess.run(
            [sys.executable, "-c", _TABLE, str(path)], capture_output=True, text=True, check=True
        )
        return dict(json.loads(done.stdout))

    result = benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info["peak_rss_mb"] = round(int(result["peak"]) / 2**20, 1)
    benchmark.extra_info["mb_s"] = round(text_bytes / MB / float(result["seconds"]), 1)
    assert int(result["rows"]) > text_bytes // 4000
