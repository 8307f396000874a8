"""Prints a pytest-benchmark JSON file as a Markdown table of MB/s (input bytes / mean time)."""

from __future__ import annotations

import json
import sys
from collections import defaultdict


def main(path: str) -> None:
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    groups: dict[str, list[tuple[str, float, float]]] = defaultdict(list)
    for bench in data["benchmarks"]:
        mean = bench["stats"]["mean"]
        mb = bench["extra_info"].get("bytes", 0) / 1e6
        groups[bench["group"] or "-"].append((bench["name"], mean, mb / mean))
    info = data["machine_info"]
    print(f"python {info['python_version']}, {info['cpu'].get('brand_raw', '?')}")
    for group, rows in groups.items():
        best = max(r[2] for r in rows)
        print(
            f"\n### {group}\n\n| benchmark | mean (ms) | MB/s | vs fastest |\n|---|---:|---:|---:|"
        )
        for name, mean, rate in sorted(rows, key=lambda r: -r[2]):
            print(f"| {name} | {mean * 1e3:.1f} | {rate:.1f} | {rate / best:.2f}x |")


if __name__ == "__main__":
    main(sys.argv[1])
