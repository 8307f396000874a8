"""MB/s against input size for the native configs: a PNG for BENCHMARKS.md.

Reads the full run's JSON (`make bench`: `chunk_file` of 100 MB and 2 GB, `chunk()` of
100 MB) and the peer table's (`make bench-peers`: each config on the 1 MB mix, warm), so the
points of one line come from two runs. ``python benches/plot_sizes.py BENCH PEERS OUT.png``
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

# Peer-table label of each config the streaming benchmarks run at the same sizes.
PEER_LABELS = {
    "TokenWindows(512, 51)": "ferrochunk TokenWindows",
    "Recursive(512, 51)": "ferrochunk Recursive",
    "SentenceWindows(512)": "ferrochunk SentenceWindows",
    "DelimiterMerge(512)": "ferrochunk DelimiterMerge",
}


def main(bench_path: str, peers_path: str, out: str) -> None:
    bench = json.loads(Path(bench_path).read_text(encoding="utf-8"))
    peers = json.loads(Path(peers_path).read_text(encoding="utf-8"))
    one_mb = {r["label"]: r["mb_per_s"] for r in peers["results"] if r.get("mb_per_s")}
    lines: dict[str, dict[str, dict[float, float]]] = {}
    for b in bench["benchmarks"]:
        m = re.match(r"test_(stream_against_memory|chunk_file_peak_memory)\[(.+)\]$", b["name"])
        if not m:
            continue
        kind, param = m.groups()
        streamed = kind == "stream_against_memory"
        way, config = param.split("-", 1) if streamed else ("chunk_file", param)
        size = b["extra_info"]["bytes"] / 1e6
        lines.setdefault(config, {}).setdefault(way, {})[size] = size / b["stats"]["median"]
    fig, ax = plt.subplots(figsize=(11, 5))
    for i, (config, ways) in enumerate(sorted(lines.items())):
        color = f"C{i}"
        start = one_mb.get(PEER_LABELS.get(config, ""))
        for way, style in (("chunk_file", "-o"), ("chunk", "--s")):
            points = dict(ways.get(way, {}))
            if start is not None:
                points[1.0] = start
            if len(points) > 1:
                xs = sorted(points)
                label = f"{config}, {way}" + ("" if way == "chunk" else " (1 MB: chunk)")
                ax.plot(xs, [points[x] for x in xs], style, color=color, label=label)
    ax.set_xscale("log")
    ax.set_xlabel("input size, MB (log scale)")
    ax.set_ylabel("MB/s, one thread")
    ax.set_title("Native configs: MB/s against input size (1 MB point: peer table, warm)")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))
    fig.tight_layout()
    fig.savefig(out, dpi=120)


if __name__ == "__main__":
    main(*sys.argv[1:4])
