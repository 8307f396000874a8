"""The tokenizers on text they have never seen, side by side: ``python benches/first_pass.py``.

pytest-benchmark times one library after the other, so a slow spell of this shared VM
lands on one side only, and the second library of a pair reads documents the process
has warmed. Here each (language, operation) runs in a fresh interpreter that feeds the
same 100,000-character documents (100-300 KB of UTF-8; up to 3 MB of the language, from
``bench_tokenizer.py``'s slices) to ferrochunk and to its peer in turn, alternating which
goes first, each document once per library (each as a ``str`` of its own, so neither finds
the other's UTF-8 conversion): a first pass for both, on one thread. The two small slices,
one or two documents each, run in six such processes, half of them with the peer first.
Prints one run's Markdown table of MB/s and ratios; nothing is asserted.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
LANGS = ["en", "zh", "ja", "ko", "code", "zh-unbenched", "ja-unbenched", "ko-unbenched"]
# CJK text from files no bench reads (``bench_tokenizer.SLICES`` has the others), so no
# tuning was done on it; these rows need the shared corpus.
UNBENCHED = {
    "zh-unbenched": ["zh/debian-reference-zh-cn.txt", "zh/manpages-zh-man1.txt",
                     "zh/debian-faq-zh-cn.txt", "zh/debian-maint-guide-zh-cn.txt"],
    "ja-unbenched": ["mixed/debian-faq-ja.txt"],
    "ko-unbenched": ["mixed/linux-6.1-translations-ko_KR-ja_JP.rst",
                     "mixed/ragflow-readme-zh-ja-ko.md"],
}  # fmt: skip
# Fresh interpreters per (slice, operation). One or two documents take a few milliseconds,
# where this VM's speed and which library goes first move a single process by 10-30 %: the
# small slices run in six processes, half with each library first, and their times add up.
CHILDREN = {"ja-unbenched": 6, "ko-unbenched": 6}
# (operation, ferrochunk's call, the peer's call, the peer). ferrochunk's `encode` returns a
# numpy array, quicktok's `encode_ordinary` and tiktoken's a list: the `-> list` rows call
# our `encode_list`, the `-> array` row takes tiktoken's `encode_to_numpy`, so each pair
# builds the same kind of output (quicktok has no array form). tiktoken has no count, so its
# users count with `len(encode_ordinary(text))`, and the count row times that.
OPS = [
    ("cl100k count -> int", "cl100k.count", "quicktok.count", "quicktok"),
    ("cl100k encode -> list", "cl100k.encode_list", "quicktok.encode_ordinary", "quicktok"),
    ("cl100k encode, array vs list", "cl100k.encode", "quicktok.encode_ordinary", "quicktok"),
    ("o200k encode -> list", "o200k.encode_list", "tiktoken_o200k.encode_ordinary", "tiktoken"),
    ("o200k encode -> array", "o200k.encode", "tiktoken_o200k.encode_to_numpy", "tiktoken"),
    ("o200k encode -> list", "o200k.encode_list", "quicktok_o200k.encode_ordinary", "quicktok"),
    ("o200k count -> int", "o200k.count", "tiktoken_o200k.len_encode_ordinary", "tiktoken"),
]


def _callables(ours: str, theirs: str) -> tuple[Any, Any]:
    import quicktok

    import ferrochunk as fc
    from ferrochunk.reference._tiktoken import o200k

    objects = {
        "cl100k": fc.Tokenizer.cl100k(),
        "o200k": fc.Tokenizer.o200k(),
        "quicktok": quicktok.get_encoding("cl100k_base"),
        "quicktok_o200k": quicktok.get_encoding("o200k_base"),
        "tiktoken_o200k": o200k(),
    }

    def get(path: str) -> Any:
        name, method = path.split(".")
        if method == "encode_to_numpy":
            # Special-token text as ordinary text, as `encode_ordinary` reads it.
            to_numpy = objects[name].encode_to_numpy
            return lambda text: to_numpy(text, disallowed_special=())
        if method == "len_encode_ordinary":
            encode = objects[name].encode_ordinary
            return lambda text: len(encode(text))
        return getattr(objects[name], method)

    return get(ours), get(theirs)


# Loads each engine whole before the clock starts, and no slice's text: an ASCII phrase,
# and 300 CJK full stops before a space, pieces ferrochunk's split DFA decides (it reads a
# process's first 256 such pieces with its sparse DFA and then inflates the dense one;
# start-up itself is `startup.py`'s).
WARM_UP = "warm up the engine, not the text" + "a。 " * 300


def fresh(doc: str) -> str:
    """A copy of ``doc`` that no call has read yet. CPython keeps a ``str``'s UTF-8 form once
    an extension asks for it, so with one object the second library of a pair would skip
    the conversion that the first paid for."""
    return doc[:1] + doc[1:]


def slice_documents(lang: str, limit: int = 3_000_000) -> tuple[str, list[str]]:
    """Up to ``limit`` bytes of a slice, and the same text cut into 100,000-character
    documents (empty when the slice needs the shared corpus and it is not here)."""
    sys.path.insert(0, str(ROOT / "benches"))
    from bench_tokenizer import _text, read_files

    text = read_files(UNBENCHED[lang], limit) if lang in UNBENCHED else _text(lang, limit)
    return text, [text[i : i + 100_000] for i in range(0, len(text), 100_000)]


def child(lang: str, op: int, flip: int) -> None:
    text, docs = slice_documents(lang)
    if not text:
        print(json.dumps(None))  # the shared corpus is not here
        return
    ours, theirs = _callables(*OPS[op][1:3])
    ours(WARM_UP)
    theirs(WARM_UP)
    spent = [0.0, 0.0]
    for i, doc in enumerate(docs):
        order = [(0, ours), (1, theirs)] if (i + flip) % 2 == 0 else [(1, theirs), (0, ours)]
        for side, fn in order:
            text_once = fresh(doc)
            start = time.perf_counter()
            fn(text_once)
            spent[side] += time.perf_counter() - start
    size = len(text.encode("utf-8"))
    print(json.dumps({"bytes": size, "seconds": spent}))


def main() -> None:
    print("| slice | operation | ferrochunk MB/s | peer | peer MB/s | ratio |")
    print("|---|---|---:|---|---:|---:|")
    for lang in LANGS:
        for op, (name, _, _, peer) in enumerate(OPS):
            spent, size = [0.0, 0.0], 0
            for flip in range(CHILDREN.get(lang, 1)):
                out = subprocess.run(
                    [sys.executable, __file__, "--child", lang, str(op), str(flip % 2)],
                    capture_output=True,
                    text=True,
                    check=True,
                    cwd=ROOT,
                )
                r = json.loads(out.stdout)
                if r is None:
                    break
                size += r["bytes"]
                spent = [total + t for total, t in zip(spent, r["seconds"], strict=True)]
            if not size:
                continue
            ours, theirs = size / spent[0] / 1e6, size / spent[1] / 1e6
            cells = [lang, name, f"{ours:.1f}", peer, f"{theirs:.1f}"]
            print(f"| {' | '.join(cells)} | {ours / theirs:.2f}× |", flush=True)


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        child(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        main()
