"""Smoke test of an installed wheel or sdist, run from a fresh virtualenv that has only it.

Run: ``make wheel-smoke`` or ``make sdist-smoke``; ``scripts/smoke_install.sh`` installs the
wheel or sdist into a fresh virtualenv and runs this there, as the release workflow does.
Fails (exit 1) when the package is not the installed one, when the installed package is
over ``--max-mb`` megabytes (the files the wheel put under ``site-packages/ferrochunk``; the
bytecode pip compiles at install, about 0.9 MB, which varies with the Python version, is
printed beside it), or when chunking the bundled sample, counting, or the CLI writing and
then overwriting a file with ``-o`` goes wrong. Run it in a scratch directory: it writes
``smoke-chunks.jsonl`` there.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--max-mb", type=float, default=20.0)
    args = parser.parse_args()

    import ferrochunk as fc

    package = Path(fc.__file__).resolve().parent
    site = Path(sysconfig.get_paths()["purelib"]).resolve()
    if package.parent != site:
        print(f"ferrochunk was imported from {package}, not from {site}", file=sys.stderr)
        return 1
    files = [p for p in package.rglob("*") if p.is_file()]
    compiled = sum(p.stat().st_size for p in files if "__pycache__" in p.parts)
    size = sum(p.stat().st_size for p in files) - compiled
    print(
        f"installed package: {size / 1e6:.2f} MB as shipped, {compiled / 1e6:.2f} MB of "
        f"bytecode compiled at install ({package})"
    )

    text = (package / "data" / "sample.md").read_text(encoding="utf-8")
    chunks = fc.chunk(text, fc.Recursive(256, overlap_tokens=32))
    tok = fc.Tokenizer.cl100k()
    checks = {
        "the sample chunks": len(chunks) > 1,
        "chunks are slices of the text": all(
            text[c.char_start : c.char_end] == c.text for c in chunks
        ),
        "every chunk is within the cap": all(0 < c.token_count <= 256 for c in chunks),
        "cl100k ids": tok.encode("hello world").tolist() == [15339, 1917],
        "o200k ids": fc.Tokenizer.o200k().encode("hello world").tolist() == [24912, 2375],
        "a long piece": fc.Tokenizer.o200k().count("a" * 100_000) == 12_500,
    }
    exe = shutil.which("ferrochunk", path=str(Path(sys.executable).parent)) or "ferrochunk"
    cli = subprocess.run([exe, "chunk", "--max-tokens", "128"], capture_output=True, text=True)
    checks["the CLI chunks the sample"] = cli.returncode == 0 and cli.stdout.count("\n") > 1
    # -o replaces the file atomically (fchmod, statvfs): written, then overwritten.
    out = Path("smoke-chunks.jsonl").resolve()
    runs = [
        subprocess.run(
            [exe, "chunk", "--max-tokens", str(cap), "-o", str(out)], capture_output=True
        )
        for cap in (128, 64)
    ]
    lines = out.read_text(encoding="utf-8").count("\n") if out.exists() else 0
    checks["the CLI writes and overwrites -o"] = all(r.returncode == 0 for r in runs) and lines > (
        cli.stdout.count("\n")
    )
    checks[f"the package is at most {args.max_mb:g} MB"] = size <= args.max_mb * 1e6
    for name, ok in checks.items():
        print(f"{'ok  ' if ok else 'FAIL'} {name}")
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
