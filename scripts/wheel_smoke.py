"""Smoke test of an installed wheel: run from a fresh virtualenv that has only the wheel.

Run: ``make wheel-smoke`` (builds the wheel, installs it into ``target/wheel-venv`` and
runs this there). Fails (exit 1) when the package is not the installed one, when the
installed package is over ``--max-mb`` megabytes (the files the wheel put under
``site-packages/ferrochunk``; the bytecode pip compiles at install, about 0.9 MB, which
varies with the Python version, is printed beside it), or when chunking the bundled sample
or counting goes wrong.
"""

from __future__ import annotations

import argparse
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
    cli = subprocess.run(
        [str(Path(sys.executable).parent / "ferrochunk"), "chunk", "--max-tokens", "128"],
        capture_output=True,
        text=True,
    )
    checks["the CLI chunks the sample"] = cli.returncode == 0 and cli.stdout.count("\n") > 1
    checks[f"the package is at most {args.max_mb:g} MB"] = size <= args.max_mb * 1e6
    for name, ok in checks.items():
        print(f"{'ok  ' if ok else 'FAIL'} {name}")
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
