"""Two builds of the extension side by side, in one process: ``python benches/ab.py OLD NEW``.

OLD and NEW are paths to ``_native.abi3.so`` files (``make bench-ab OLD=<commit>`` builds
the commit's and compares it with the working tree's). On this shared VM the speed of a
fresh process moves by 10-30 %, so two builds timed one after the other, each in processes
of its own, differ by more than most changes do. Here one interpreter loads both files
(as two libraries, each with its own tables, memo and caches) and feeds every 100 KB
document of a slice to both, alternating which goes first, each document once per build
and each as a ``str`` of its own (as in ``first_pass.py``): a first pass for both, on one
thread, and a slow spell lands on both sides. In an A/A run of five, two copies of one
build came out within 1.3 % of each other on slices of 1 MB or more (within 4.1 % on the
small unbenched ones).

Each run is two fresh processes, one with each build first on the first document, that
read every slice in turn (their times add up); the table shows NEW's speed
over OLD's (above 1: NEW is faster), the median over ``--runs`` runs, and the runs. Each
run also checks that both builds return the same ids for every document (a build that
changes the tokens fails the run). A call's time includes freeing its result, as in
``first_pass.py``, where the result is dropped: a list of fresh ints costs as much again
to free. ``--op`` picks the call timed: ``encode`` (an array, the
default), ``encode_list`` or ``count``. ``--block N`` feeds each build N documents in a row
before the other's turn: calls back to back on one build, whose tables the last call left
in the CPU's caches (with 1, the default, every call follows the other build's). Nothing
is timed against a target.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

import numpy as np
from first_pass import LANGS as SLICES
from first_pass import fresh, slice_documents

ROOT = Path(__file__).resolve().parent.parent
# The extension's calls that ``--op`` can time: ids as an array, as a list, or a count.
OPS = ("encode", "encode_list", "count")


def _load(path: str) -> ModuleType:
    """The extension at ``path``, under the name it was built with."""
    spec = importlib.util.spec_from_file_location("ferrochunk._native", path)
    if spec is None or spec.loader is None:
        raise ValueError(f"not an extension module: {path!r}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def child(
    old_path: str,
    new_path: str,
    encoding: str,
    op: str,
    slices: list[str],
    limit: int,
    flip: int,
    block: int,
) -> None:
    # Copies, so that two paths to one file (an A/A check) are still two libraries: the
    # loader maps a file it has already loaded only once, and the two would share tables,
    # memo and caches.
    with tempfile.TemporaryDirectory() as tmp:
        builds = []
        for label, path in (("old", old_path), ("new", new_path)):
            (Path(tmp) / label).mkdir()
            builds.append(_load(shutil.copy(path, str(Path(tmp) / label / Path(path).name))))
        calls = [getattr(build, op) for build in builds]
        for call in calls:
            call(encoding, "warm up the engine, not the text")
        times = {}
        for name in slices:
            _, docs = slice_documents(name, limit)
            if not docs:
                continue  # the shared corpus is not here
            spent = [0.0, 0.0]
            for b in range(0, len(docs), block):
                results: list[list[np.ndarray]] = [[], []]
                for side in (0, 1) if (b // block + flip) % 2 == 0 else (1, 0):
                    for doc in docs[b : b + block]:
                        text_once = fresh(doc)
                        start = time.perf_counter()
                        result = calls[side](encoding, text_once)
                        called = time.perf_counter()
                        results[side].append(np.asarray(result))  # a copy of a list, untimed
                        freeing = time.perf_counter()
                        del result  # a caller that drops the result pays for freeing it
                        spent[side] += called - start + time.perf_counter() - freeing
                for i, (old, new) in enumerate(zip(*results, strict=True)):
                    if not np.array_equal(old, new):
                        doc_at = b + i
                        raise SystemExit(
                            f"{name}: the builds' {encoding} {op} differ on document {doc_at}"
                        )
            times[name] = spent
    if not times:
        raise SystemExit(f"none of the slices {','.join(slices)} has text here")
    print(json.dumps(times))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("old", help="the baseline's _native.abi3.so")
    parser.add_argument("new", help="the candidate's _native.abi3.so")
    parser.add_argument("--encodings", default="o200k,cl100k")
    parser.add_argument("--op", default="encode", choices=OPS, help="the call to time")
    parser.add_argument("--slices", default=",".join(SLICES))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--limit", type=int, default=3_000_000, help="bytes per slice")
    parser.add_argument("--block", type=int, default=1, help="documents per build in a row")
    args = parser.parse_args()
    unknown = sorted(set(args.slices.split(",")) - set(SLICES))
    if unknown:
        parser.error(f"unknown slices {unknown}; choose from {','.join(SLICES)}")
    if args.block < 1:
        parser.error(f"--block must be at least 1, not {args.block}")
    if args.runs < 1:
        parser.error(f"--runs must be at least 1, not {args.runs}")
    for path in (args.old, args.new):
        if not Path(path).is_file():
            parser.error(f"no such extension file: {path!r}")
    print("| encoding | slice | NEW speed / OLD speed (median) | runs |")
    print("|---|---|---:|---|")
    for encoding in args.encodings.split(","):
        runs = []
        for _ in range(args.runs):
            # Two processes, one with each build first: a slice of one or two documents
            # otherwise always times the same build first, which moves it by up to 10 %.
            spent: dict[str, list[float]] = {}
            for flip in (0, 1):
                cmd = [sys.executable, __file__, "--child", args.old, args.new, encoding,
                       args.op, args.slices, str(args.limit), str(flip),
                       str(args.block)]  # fmt: skip
                out = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
                if out.returncode != 0:
                    raise SystemExit(out.stderr.strip() or f"run failed: exit {out.returncode}")
                for name, (old, new) in json.loads(out.stdout).items():
                    total = spent.setdefault(name, [0.0, 0.0])
                    total[0] += old
                    total[1] += new
            runs.append({name: old / new for name, (old, new) in spent.items()})
        for name in runs[0]:
            values = [run[name] for run in runs]
            each = ", ".join(f"{v:.3f}" for v in values)
            print(f"| {encoding} | {name} | {statistics.median(values):.3f} | {each} |", flush=True)


if __name__ == "__main__":
    if len(sys.argv) == 10 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6].split(","),
              int(sys.argv[7]), int(sys.argv[8]), int(sys.argv[9]))  # fmt: skip
    else:
        main()
