"""Instructions a build spends on a first pass, counted by callgrind:
``python benches/instructions.py SO [SO ...] [--encodings o200k,cl100k] [--slices ...]``.

Time on this shared VM moves by 1-4 % between two identical builds (``ab.py``), so a
change that costs 2 % cannot be seen in seconds. Instructions hardly move: each count is
one run of a child under ``valgrind --tool=callgrind`` that encodes every 100 KB document
of the slice once (as ``first_pass.py`` feeds them), collecting only inside the
extension's ``encode`` (``--toggle-collect``), so the interpreter's start-up is not in it.
The builds must keep their symbols (``CARGO_PROFILE_RELEASE_STRIP=false``). The table
shows each build's count over the first build's. Instructions are not time (a cache miss
costs hundreds), so a gain is judged on time with ``ab.py`` and a cost here.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from ab import _load
from first_pass import LANGS as SLICES
from first_pass import fresh, slice_documents


def child(path: str, encoding: str, name: str, limit: int) -> None:
    native = _load(path)
    native.encode(encoding, "warm up the engine, not the text")
    for doc in slice_documents(name, limit)[1]:
        native.encode(encoding, fresh(doc))


def count(path: str, encoding: str, name: str, limit: int) -> int:
    """The instructions of the encode calls on slice ``name``, the warm-up call's included
    (it loads the tables, which is part of what a process pays)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        done = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
             "--toggle-collect=*__pyfunction_py_encode*",
             sys.executable, __file__, "--child", path, encoding, name, str(limit)],
            capture_output=True, text=True, check=True,
            env={**os.environ, "PYTHONHASHSEED": "0"},
        )  # fmt: skip
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None or int(found.group(1)) == 0:
        raise SystemExit(f"callgrind collected nothing (a stripped build?):\n{done.stderr[-2000:]}")
    return int(found.group(1))


def main() -> None:
    if sys.argv[1:2] == ["--child"]:
        path, encoding, name, limit = sys.argv[2:6]
        child(path, encoding, name, int(limit))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("builds", nargs="+", help="_native.abi3.so files; the first is the base")
    parser.add_argument("--encodings", default="o200k,cl100k")
    parser.add_argument("--slices", default=",".join(SLICES))
    parser.add_argument("--limit", type=int, default=1_000_000, help="bytes per slice")
    args = parser.parse_args()
    names = [Path(b).parent.parent.name or b for b in args.builds]
    print("| encoding | slice | " + " | ".join(names) + " |")
    print("|---|---|" + "---:|" * len(names))
    for encoding in args.encodings.split(","):
        for name in args.slices.split(","):
            if not slice_documents(name, args.limit)[1]:
                continue  # the shared corpus is not here
            counts = [count(b, encoding, name, args.limit) for b in args.builds]
            cells = [f"{counts[0] / 1e6:.1f} M"] + [f"{c / counts[0]:.4f}" for c in counts[1:]]
            print(f"| {encoding} | {name} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
