"""Start-up: the first count in a fresh process, after `import ferrochunk`.

Run: ``.venv/bin/python benches/startup.py`` (prints a Markdown table: the median of 15
fresh processes per row). The first count loads the encoding's tables (read in place
from the binary) and inflates its split DFA.
"""

from __future__ import annotations

import statistics
import subprocess
import sys

CHILD = """
import time, ferrochunk as fc
tok = getattr(fc.Tokenizer, {encoding!r})
t0 = time.perf_counter()
tok().count({text!r})
print(time.perf_counter() - t0)
"""

ROWS = [("cl100k", "a"), ("o200k", "a"), ("cl100k", "你好，世界。"), ("o200k", "你好，世界。")]


def main() -> None:
    print("| encoding | first text | first count (ms) |")
    print("|---|---|---:|")
    for encoding, text in ROWS:
        code = CHILD.format(encoding=encoding, text=text)
        times = [
            float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                 check=True).stdout)
            for _ in range(15)
        ]  # fmt: skip
        print(f"| {encoding} | `{text}` | {statistics.median(times) * 1000:.2f} |")


if __name__ == "__main__":
    main()
