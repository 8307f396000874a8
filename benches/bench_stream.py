"""Streaming: bounded memory on a large generated file, throughput against chunk().

Sizes: a 2 GB file for peak memory, 100 MB for stream-against-memory throughput, 10 MB for
ParentChild against Recursive. With ``--benchmark-disable`` (the default, as smoke tests)
the sizes shrink to a few MB and every output is still checked.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

import ferrochunk as fc

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "target" / "bench-data"
MB = 1_000_000

CONFIGS = {
    "TokenWindows(512, 51)": fc.TokenWindows(512, overlap_tokens=51),
    "Recursive(512, 51)": fc.Recursive(512, overlap_tokens=51),
    "SentenceWindows(512)": fc.SentenceWindows(512),
    "DelimiterMerge(512)": fc.DelimiterMerge(512, delimiters=("\n\n", "\n", "。", ". ")),
    "ParentChild(1024/128)": fc.ParentChild(fc.Recursive(1024), child=fc.Recursive(128)),
}

# Run in a fresh process so its peak RSS is the pipeline's alone.
_PROBE = """
import json, sys, time
import ferrochunk as fc
from benches.bench_stream import CONFIGS
config = CONFIGS[sys.argv[2]]
start = time.perf_counter()
chunks = tokens = 0
end = 0
for c in fc.chunk_file(sys.argv[1], config):
    chunks += 1
    tokens += c.token_count
    end = max(end, c.byte_end)
seconds = time.perf_counter() - start
# VmHWM is this process image's own high-water mark (ru_maxrss can carry the parent's
# size across fork and exec).
status = open("/proc/self/status").read().split("VmHWM:")[1]
peak = int(status.split()[0]) * 1024
print(json.dumps({"chunks": chunks, "end": end, "seconds": seconds, "peak": peak}))
"""


def _probe(script: str, path: Path, name: str) -> dict[str, int]:
    """Runs a probe script on ``path`` with config ``name`` in a fresh process: its JSON."""
    out = subprocess.run(
        [sys.executable, "-c", script, str(path), name],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return dict(json.loads(out.stdout))


def distinct_text(n_bytes: int) -> str:
    """``n_bytes`` of text that does not repeat: the shared corpus's files one after the
    other, or the bundled sample's (repeated only if they run out) when it is absent."""
    shared = ROOT.parent / "shared" / "corpus"
    if shared.exists():
        files = sorted(f for f in shared.rglob("*") if f.is_file() and f.suffix != ".jsonl")
        text = "".join(f.read_text(encoding="utf-8", errors="replace") for f in files)
    else:
        files = sorted((ROOT / "tests" / "data" / "corpus").glob("*.gz"))
        text = "".join(gzip.decompress(f.read_bytes()).decode("utf-8", "replace") for f in files)
    while len(text.encode("utf-8")) < n_bytes:
        text += text
    return text.encode("utf-8")[:n_bytes].decode("utf-8", "ignore")


def _smoke(config: pytest.Config) -> bool:
    return bool(config.getoption("benchmark_disable")) and not config.getoption("benchmark_enable")


def _file(text: str, size: int, name: str = "multilingual") -> Path:
    """``text`` repeated to about ``size`` bytes (whole characters), written once as
    ``name``."""
    DATA.mkdir(parents=True, exist_ok=True)
    path = DATA / f"{name}-{size // MB}MB.txt"
    if not path.exists():
        block = text.encode("utf-8")
        tmp = path.with_suffix(".tmp")
        with open(tmp, "wb") as f:
            for _ in range(size // len(block)):
                f.write(block)
            f.write(block[: size % len(block)].decode("utf-8", "ignore").encode("utf-8"))
        tmp.replace(path)
    return path


@pytest.fixture(scope="session")
def sizes(request: pytest.FixtureRequest) -> dict[str, int]:
    if _smoke(request.config):
        return {"memory": 8 * MB, "throughput": 4 * MB, "parent_child": 1 * MB}
    return {"memory": 2000 * MB, "throughput": 100 * MB, "parent_child": 10 * MB}


@pytest.mark.parametrize("name", list(CONFIGS))
def test_chunk_file_peak_memory(benchmark, multilingual, sizes, name):
    path = _file(multilingual, sizes["memory"])
    size = path.stat().st_size
    benchmark.group = "chunk_file peak memory"
    benchmark.extra_info["bytes"] = size

    result = benchmark.pedantic(_probe, (_PROBE, path, name), rounds=1, iterations=1)
    benchmark.extra_info["peak_rss_mb"] = round(result["peak"] / 2**20, 1)
    assert result["end"] == size
    assert result["peak"] < 300 * 2**20, f"{name}: peak RSS {result['peak'] / 2**20:.0f} MB"


@pytest.fixture(scope="session")
def hundred_mb(multilingual: str, sizes: dict[str, int]) -> tuple[Path, str]:
    path = _file(multilingual, sizes["throughput"])
    return path, path.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", list(CONFIGS))
@pytest.mark.parametrize("how", ["chunk_file", "chunk", "chunk 1 MB", "chunk 1 MB, new str"])
def test_stream_against_memory(benchmark, multilingual, hundred_mb, name, how):
    """Each config four ways in one group, so the sizes compare within one run: the
    100 MB file streamed, the same 100 MB in memory, and its 1 MB block in memory, as
    the same ``str`` every round (CPython keeps its UTF-8 after the first, and the 100 MB
    ``str`` is met again too: the fixture keeps one) and as a new ``str`` every round
    (encoded each time, as any text is on its first call)."""
    path, text = hundred_mb
    if how.startswith("chunk 1 MB"):
        text = multilingual
    config = CONFIGS[name]
    size = len(text.encode("utf-8")) if how.startswith("chunk 1 MB") else path.stat().st_size
    benchmark.group = f"stream vs memory: {name}"
    benchmark.extra_info["bytes"] = size

    def run(text: str = text) -> tuple[int, int]:
        chunks = fc.chunk_file(path, config) if how == "chunk_file" else fc.chunk(text, config)
        n = end = 0
        for c in chunks:
            n += 1
            end = max(end, c.byte_end)
        return n, end

    def new_str() -> tuple[tuple[str], dict[str, object]]:
        return ((text + " ")[:-1],), {}

    setup = new_str if how.endswith("new str") else None
    rounds = 3 if size > 10 * MB else 30
    n, end = benchmark.pedantic(run, setup=setup, rounds=rounds, iterations=1)
    assert n > 0
    assert end == size


# chunk() of the 100 MB text in a fresh process: what it adds to resident memory at its
# peak and what the returned chunks hold, per input byte.
_IN_MEMORY_PROBE = """
import json, sys
import ferrochunk as fc
from benches.bench_stream import CONFIGS
def status(key):
    return int(open("/proc/self/status").read().split(key + ":")[1].split()[0]) * 1024
config = CONFIGS[sys.argv[2]]
text = open(sys.argv[1], encoding="utf-8").read()
fc.chunk("warm up", config)
with open("/proc/self/clear_refs", "w") as f:  # resets VmHWM: reading the file peaked too
    f.write("5")
base = status("VmRSS")
size = sys.getsizeof(text)
chunks = fc.chunk(text, config)
# The UTF-8 CPython now keeps on the str (sys.getsizeof counts it) is the text's, not
# the result's.
kept = sys.getsizeof(text) - size
print(json.dumps({"end": chunks[-1].byte_end, "peak": status("VmHWM") - base,
                  "held": status("VmRSS") - base - kept, "utf8": kept}))
"""


@pytest.mark.parametrize("name", list(CONFIGS))
def test_chunk_in_memory_peak(benchmark, hundred_mb, name):
    path, _ = hundred_mb
    size = path.stat().st_size
    benchmark.group = "chunk() in memory: resident memory added"
    benchmark.extra_info["bytes"] = size

    result = benchmark.pedantic(_probe, (_IN_MEMORY_PROBE, path, name), rounds=1, iterations=1)
    benchmark.extra_info["note"] = (
        f"peak +{result['peak'] / size:.2f} B per input byte, "
        f"result {result['held'] / size:.2f}, the text's UTF-8 {result['utf8'] / size:.2f}"
    )
    assert result["end"] == size


@pytest.mark.parametrize("name", ["Recursive(512)", "ParentChild(512/128)"])
def test_parent_child_against_recursive(benchmark, sizes, name):
    # Text that does not repeat: a 1 MB text repeated ten times would let the tokenizer's
    # memo answer nine tenths of the pieces, which no real 10 MB document does.
    text = distinct_text(sizes["parent_child"])
    config = (
        fc.Recursive(512)
        if name.startswith("Recursive")
        else fc.ParentChild(fc.Recursive(512), child=fc.Recursive(128))
    )
    benchmark.group = "parent-child vs recursive"
    benchmark.extra_info["bytes"] = len(text.encode())
    chunks = benchmark.pedantic(fc.chunk, (text, config), rounds=3, iterations=1)
    assert chunks[-1].char_end == len(text)
