"""The sync ledger at scale: a first sync of N documents (about 13 chunks each), in
batches, then a re-sync unchanged and one with 1 % of the documents edited, each in a fresh
process whose peak resident memory is read back. #54 asks for a ledger of 1 million
documents and 10 million chunks to sync in under 500 MB.

Run: ``.venv/bin/python scripts/ledger_scale.py [--docs N] [--dir D]`` (default 1 000 000
documents in a temporary folder; the ledger takes about 220 bytes a chunk, so 2.2 GB there).
Documents are 2 400-character slices of the bundled corpus sample, each opened by its own
number, made as the sync reads them (the input is never held whole), cut by
``Recursive(64)``. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import ferrochunk as fc

CONFIG = fc.Recursive(64)
SIZE = 2_400
DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "corpus"


def _base() -> str:
    return "".join(
        gzip.decompress(p.read_bytes()).decode("utf-8") for p in sorted(DATA.glob("en__*.gz"))
    )


def documents(start: int, stop: int, edited: int = 0) -> Iterator[tuple[str, str]]:
    """Documents ``start`` to ``stop``; with ``edited=k``, every k-th has one word changed."""
    base = _base()
    span = len(base) - SIZE
    for i in range(start, stop):
        at = (i * 7_919) % span
        text = f"Document {i}.\n\n" + base[at : at + SIZE]
        if edited and i % edited == 0:
            text = text.replace(" the ", " a ", 1)
        yield f"doc-{i:07d}", text


def _peak_mb() -> int:
    """This process's peak resident memory. Not ``ru_maxrss``: a child started by fork
    inherits its parent's."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) // 1024
    raise RuntimeError("no VmHWM in /proc/self/status (this script needs Linux)")


def _child(path: str, docs: int, edited: int, first: bool) -> None:
    started = time.perf_counter()
    out: dict[str, object] = {}
    with fc.Ledger(path) as ledger:
        if first:  # the first sync, in batches: one batch's changes at a time
            chunks = 0
            for batch in ledger.sync_batches(documents(0, docs), CONFIG):
                with batch as changes:
                    chunks += len(changes.added)
            out["summary"] = f"{docs:_} new documents, {chunks:_} chunks to embed".replace("_", " ")
        else:
            with ledger.sync(documents(0, docs, edited), CONFIG) as changes:
                out["summary"] = changes.summary()
    out.update(seconds=time.perf_counter() - started, peak_mb=_peak_mb())
    print(json.dumps(out))


def _run(path: Path, docs: int, edited: int = 0, first: bool = False) -> dict[str, object]:
    command = [sys.executable, __file__, "--child", str(path), "--docs", str(docs)]
    command += ["--edited", str(edited)] + (["--first"] if first else [])
    out = subprocess.run(command, check=True, capture_output=True, text=True)
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def _idle() -> int:
    """Peak memory of a process that imports ferrochunk and opens an empty ledger."""
    code = (
        "import tempfile, ferrochunk as fc; d = tempfile.mkdtemp();"
        "fc.Ledger(d + '/x.db').close();"
        f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r});"
        "from ledger_scale import _peak_mb; print(_peak_mb())"
    )
    return int(
        subprocess.run(
            [sys.executable, "-c", code], check=True, capture_output=True, text=True
        ).stdout
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", type=int, default=1_000_000)
    parser.add_argument("--dir", type=Path, default=None)
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--edited", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--first", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        _child(args.child, args.docs, args.edited, args.first)
        return 0
    folder = Path(args.dir or tempfile.mkdtemp(prefix="ledger-scale-"))
    path = folder / "index.db"
    rows = [("first sync, `sync_batches` of 1 000 documents", _run(path, args.docs, first=True))]
    with fc.Ledger(path) as ledger:
        chunks = len(ledger.record_ids())
    size = path.stat().st_size / 1e6
    rows.append(("re-sync, unchanged", _run(path, args.docs)))
    rows.append(("re-sync, 1 % of documents edited", _run(path, args.docs, 100)))
    print(
        f"{args.docs:,} documents, {chunks:,} chunks of {CONFIG!r}; ledger {size:,.0f} MB; "
        f"a process that only imports ferrochunk: {_idle()} MB peak\n"
    )
    print("| sync | time | peak memory | changes |\n|---|---|---|---|")
    for name, row in rows:
        print(f"| {name} | {row['seconds']:.1f} s | {row['peak_mb']} MB | {row['summary']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
