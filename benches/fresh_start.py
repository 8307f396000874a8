"""What a fresh process pays for its first MB: start-up and first pass together.

``python benches/fresh_start.py [--runs 7]``. Each run is a fresh interpreter per library,
alternating which goes first. The text (1 MB of English no bench reads, the Jargon File) is
read before the clock starts; the clock then covers the import, loading o200k, and
counting the text once (tiktoken: ``len(encode_ordinary(text))``, what its users write).
tiktoken loads o200k as it does from its cache (``load_tiktoken_bpe`` over the plain rank
file, written to a temporary directory first from ``bpe-openai``'s copy), so nothing is
downloaded. Prints a Markdown table of medians; nothing is asserted.
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_tokenizer import read_files

TEXT = ["en/jargon-4.4.7.txt"]
MB = 1_000_000

_CHILD = """
import json, sys, time
text = open(sys.argv[1], encoding="utf-8").read()
t0 = time.perf_counter()
if sys.argv[2] == "ferrochunk":
    import ferrochunk as fc
    tok = fc.Tokenizer.o200k()
    t1 = time.perf_counter()
    n = tok.count(text)
else:
    import tiktoken, tiktoken.load, tiktoken_ext.openai_public as public
    public.load_tiktoken_bpe = lambda *a, **k: tiktoken.load.load_tiktoken_bpe(sys.argv[3])
    enc = tiktoken.Encoding(**public.o200k_base())
    t1 = time.perf_counter()
    n = len(enc.encode_ordinary(text))
t2 = time.perf_counter()
print(json.dumps({"load": t1 - t0, "first": t2 - t1, "tokens": n}))
"""


def _ranks(into: Path) -> Path:
    spec = importlib.util.find_spec("bpe_openai")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("needs bpe-openai (pip install 'ferrochunk[bench]')")
    data = Path(spec.submodule_search_locations[0]) / "data" / "o200k_base.tiktoken.gz"
    path = into / "o200k_base.tiktoken"
    path.write_bytes(gzip.decompress(data.read_bytes()))
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        text_path = Path(tmp) / "text.txt"
        text = read_files(TEXT, MB)
        text_path.write_text(text, encoding="utf-8")
        ranks = _ranks(Path(tmp))
        times: dict[str, list[dict[str, float]]] = {"ferrochunk": [], "tiktoken": []}
        for run in range(args.runs):
            order = ["ferrochunk", "tiktoken"][:: 1 if run % 2 == 0 else -1]
            for lib in order:
                out = subprocess.run(
                    [sys.executable, "-c", _CHILD, str(text_path), lib, str(ranks)],
                    capture_output=True,
                    text=True,
                    check=True,
                )
                times[lib].append(json.loads(out.stdout))
    tokens = {lib: {t["tokens"] for t in ts} for lib, ts in times.items()}
    if tokens["ferrochunk"] != tokens["tiktoken"] or len(tokens["ferrochunk"]) != 1:
        sys.exit(f"the token counts differ: {tokens}")
    size = len(text.encode("utf-8")) / MB
    print(f"{size:.2f} MB of {TEXT[0]}, {args.runs} fresh processes per library (medians)\n")
    print("| library | import + load (ms) | first pass (ms) | total (ms) |")
    print("|---|---:|---:|---:|")
    totals = {}
    for lib, ts in times.items():
        load = statistics.median(t["load"] for t in ts) * 1e3
        first = statistics.median(t["first"] for t in ts) * 1e3
        totals[lib] = statistics.median(t["load"] + t["first"] for t in ts) * 1e3
        print(f"| {lib} | {load:.1f} | {first:.1f} | {totals[lib]:.1f} |")
    first_ratio = statistics.median(t["first"] for t in times["tiktoken"]) / statistics.median(
        t["first"] for t in times["ferrochunk"]
    )
    print(
        f"\nfirst pass alone: {first_ratio:.2f}x tiktoken; "
        f"start-up and first pass: {totals['tiktoken'] / totals['ferrochunk']:.2f}x"
    )


if __name__ == "__main__":
    main()
