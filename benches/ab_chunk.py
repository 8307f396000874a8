"""Two versions of the whole package in one process: ``python benches/ab_chunk.py OLD_DIR``.

OLD_DIR holds an unpacked wheel of another commit (``make bench-ab-chunk OLD=<commit>``
builds it under ``target/ab/old``). Its ``ferrochunk`` is copied under the name
``ferrochunk_old`` (every import inside the package is relative), so one interpreter runs
``chunk`` of both, alternating which goes first, over 1 MB of text no bench was tuned on
(the shared corpus's held-out files, else the bundled sample): a slow spell of this shared
VM lands on both sides, where two processes differ by 10-30 %. One thread each. Prints
NEW's time over OLD's per config (below 1: NEW is faster), the median of ``--rounds``.
Both must cut the same texts. Nothing is timed against a target.
"""

from __future__ import annotations

import argparse
import importlib
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from conftest import _HELD_OUT, _MIX, SHARED, _cut, _read

import ferrochunk as new


def _configs(fc: Any) -> dict[str, Any]:
    return {
        "Recursive(512)": fc.Recursive(512),
        "Markdown(512)": fc.Markdown(512),
        "TokenWindows(512, 51)": fc.TokenWindows(512, overlap_tokens=51),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", type=Path, help="an unpacked wheel of the other commit")
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    if SHARED.exists():
        text = "".join(_cut((SHARED / n).read_text(encoding="utf-8"), k) for n, k in _HELD_OUT)
    else:
        text = "".join(_cut(_read(s, b), n) for s, b, n in _MIX)
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copytree(args.old / "ferrochunk", Path(tmp) / "ferrochunk_old")
        sys.path.insert(0, tmp)
        old = importlib.import_module("ferrochunk_old")
        for name, b in _configs(new).items():
            a = _configs(old)[name]
            same = [c.text for c in old.chunk(text, a)] == [c.text for c in new.chunk(text, b)]
            assert same, f"{name}: the two versions cut different chunks"
            times: dict[str, list[float]] = {"old": [], "new": []}
            for i in range(args.rounds):
                sides = [("old", old, a), ("new", new, b)]
                for side, fc, config in sides if i % 2 else sides[::-1]:
                    start = time.perf_counter()
                    chunks = fc.chunk(text, config)
                    del chunks  # freeing the result is part of the call's cost
                    times[side].append(time.perf_counter() - start)
            t_old, t_new = (statistics.median(times[k]) for k in ("old", "new"))
            print(
                f"{name}: old {t_old * 1e3:.2f} ms, new {t_new * 1e3:.2f} ms, "
                f"new/old {t_new / t_old:.3f}"
            )


if __name__ == "__main__":
    main()
