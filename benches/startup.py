"""Start-up: the first count in a fresh process, after `import ferrochunk`, and the
resident memory it adds.

Run: ``.venv/bin/python benches/startup.py`` (prints a Markdown table: the median of 15
fresh processes per row). The first count maps the pages of the encoding's tables its
lookups touch (read in place from the binary) and makes the thread's memo; the split DFA is
inflated only when a piece first needs it (ASCII text never does; the punctuation of the
Chinese row does). Linux only (``/proc/self/status``).
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys

CHILD = """
import json, time, ferrochunk as fc

def rss_kb():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))

tok = getattr(fc.Tokenizer, {encoding!r})
before = rss_kb()
t0 = time.perf_counter()
tok().count({text!r})
seconds = time.perf_counter() - t0
print(json.dumps([seconds, rss_kb() - before]))
"""

ROWS = [("cl100k", "a"), ("o200k", "a"), ("cl100k", "你好，世界。"), ("o200k", "你好，世界。")]


def main() -> None:
    print("| encoding | first text | first count (ms) | resident memory added (MB) |")
    print("|---|---|---:|---:|")
    for encoding, text in ROWS:
        code = CHILD.format(encoding=encoding, text=text)
        runs = [
            json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True,
                                      text=True, check=True).stdout)
            for _ in range(15)
        ]  # fmt: skip
        ms = statistics.median(r[0] for r in runs) * 1000
        mb = statistics.median(r[1] for r in runs) / 1024
        print(f"| {encoding} | `{text}` | {ms:.2f} | {mb:.1f} |")


if __name__ == "__main__":
    main()
