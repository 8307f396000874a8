"""MB/s against input size for the native configs: a PNG for BENCHMARKS.md.

Reads the full run's JSON (`make bench`): each config's 1 MB block in memory, `chunk()` and
`chunk_file` of 100 MB (the block repeated) from one group of `bench_stream.py`, and
`chunk_file` of 2 GB, so the points of one line come from one run.
``python benches/plot_sizes.py BENCH OUT.png``
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt


def main(bench_path: str, out: str) -> None:
    bench = json.loads(Path(bench_path).read_text(encoding="utf-8"))
    lines: dict[str, dict[str, dict[float, float]]] = {}
    one_mb: dict[str, tuple[float, float]] = {}
    for b in bench["benchmarks"]:
        m = re.match(r"test_(stream_against_memory|chunk_file_peak_memory)\[(.+)\]$", b["name"])
        if not m:
            continue
        kind, param = m.groups()
        streamed = kind == "stream_against_memory"
        way, config = param.split("-", 1) if streamed else ("chunk_file", param)
        size = b["extra_info"]["bytes"] / 1e6
        if way == "chunk 1 MB":
            one_mb[config] = (size, size / b["stats"]["median"])
            continue
        lines.setdefault(config, {}).setdefault(way, {})[size] = size / b["stats"]["median"]
    fig, ax = plt.subplots(figsize=(11, 5))
    for i, (config, ways) in enumerate(sorted(lines.items())):
        color = f"C{i}"
        for way, style in (("chunk_file", "-o"), ("chunk", "--s")):
            points = dict(ways.get(way, {}))
            if config in one_mb:
                points[one_mb[config][0]] = one_mb[config][1]
            if len(points) > 1:
                xs = sorted(points)
                ax.plot(xs, [points[x] for x in xs], style, color=color, label=f"{config}, {way}")
    ax.set_xscale("log")
    ax.set_xlabel("input size, MB (log scale)")
    ax.set_ylabel("MB/s, one thread")
    ax.set_title("Native configs: MB/s against input size (1 MB point: chunk() of the block)")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))
    fig.tight_layout()
    fig.savefig(out, dpi=120)


if __name__ == "__main__":
    main(*sys.argv[1:3])
