"""Prints a pytest-benchmark JSON file as Markdown tables of MB/s.

MB/s is input bytes divided by the median time of one call; the median resists the
noise of a shared 2-core VM better than the mean. The min is shown beside it. A bench
whose rounds read different documents asks for the mean (``extra_info["stat"]``): its
MB/s is then all bytes over all the time.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict


def main(path: str) -> None:
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    groups: dict[str, list[tuple[str, float, float, float]]] = defaultdict(list)
    for bench in data["benchmarks"]:
        stats = bench["stats"]
        mb = bench["extra_info"].get("bytes", 0) / 1e6
        stat = bench["extra_info"].get("stat", "median")
        # A bench may carry a note (what it measured besides time), shown with its name.
        note = bench["extra_info"].get("note")
        name = f"{bench['name']} ({note})" if note else bench["name"]
        row = (name, stats["median"], stats["min"], mb / stats[stat])
        groups[bench["group"] or "-"].append(row)
    info = data["machine_info"]
    print(f"python {info['python_version']}, {info['cpu'].get('brand_raw', '?')}")
    for group, rows in groups.items():
        best = max(r[3] for r in rows)
        print(f"\n### {group}\n")
        print("| benchmark | median (ms) | min (ms) | MB/s | vs fastest |")
        print("|---|---:|---:|---:|---:|")
        for name, median, low, rate in sorted(rows, key=lambda r: -r[3]):
            ratio = rate / best
            cells = [f"{median * 1e3:.1f}", f"{low * 1e3:.1f}", f"{rate:.1f}", f"{ratio:.2f}x"]
            print(f"| {name} | {' | '.join(cells)} |")


if __name__ == "__main__":
    main(sys.argv[1])
