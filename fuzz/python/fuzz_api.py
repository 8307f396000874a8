"""atheris on the Python API: random configs, texts and tokenizer callables.

Run: ``.venv/bin/python fuzz/python/fuzz_api.py CORPUS fuzz/seeds/python_api -max_total_time=600``
A config the fuzzer makes may be rejected (a ``FerrochunkError``); anything else that
escapes, an audit that is not clean, or native and reference disagreeing is a finding.
"""

from __future__ import annotations

import sys
from typing import Any

import atheris

with atheris.instrument_imports(include=["ferrochunk"]):
    import ferrochunk as fc
    from ferrochunk.bench.quality import audit
    from ferrochunk.errors import FerrochunkError

SEPARATORS = ["\n\n", "\n", "。", ". ", " ", ",", "", "##", "é"]


def _pick(fdp: Any, options: list[Any]) -> Any:
    return options[fdp.ConsumeIntInRange(0, len(options) - 1)]


def _config(fdp: Any) -> Any:
    kind = fdp.ConsumeIntInRange(0, 4)
    size = fdp.ConsumeIntInRange(-1, 40)
    overlap = fdp.ConsumeIntInRange(-1, 40)
    seps = tuple(_pick(fdp, SEPARATORS) for _ in range(fdp.ConsumeIntInRange(0, 4)))
    if kind == 0:
        return fc.TokenWindows(size, overlap_tokens=overlap)
    if kind == 1:
        return fc.Recursive(size, overlap_tokens=overlap, separators=seps)
    if kind == 2:
        return fc.SentenceWindows(size, overlap_ratio=fdp.ConsumeProbability())
    if kind == 3:
        return fc.DelimiterMerge(
            size,
            delimiters=tuple(s for s in seps if s),
            strategy=_pick(fdp, list(fc.MergeStrategy)),
            overlap=fdp.ConsumeIntInRange(0, 100),
            child_delimiters=(",",),
            joiner=_pick(fdp, ["", "\n", " "]),
        )
    return fc.ParentChild(
        _pick(fdp, ["full-doc", fc.Recursive(max(size, 1) * 3)]), child=fc.Recursive(size)
    )


def _tokenizer(fdp: Any, text: str) -> Any:
    choice = fdp.ConsumeIntInRange(0, 3)
    if choice == 0:
        return None
    if choice == 1:
        return "o200k"
    # A Python tokenizer with fuzzed (possibly malformed) offsets.
    count = fdp.ConsumeIntInRange(0, 12)
    starts = sorted(fdp.ConsumeIntInRange(0, len(text) + 1) for _ in range(count))
    if choice == 3 and starts:
        starts.reverse()
    return fc.Tokenizer.from_callable(lambda t: (list(range(len(starts))), starts))


def TestOneInput(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    try:
        config = _config(fdp)
    except FerrochunkError:
        return
    text = fdp.ConsumeUnicode(fdp.ConsumeIntInRange(0, 400))
    tokenizer = _tokenizer(fdp, text)
    try:
        native = fc.chunk(text, config, tokenizer=tokenizer)
    except FerrochunkError as native_error:
        try:
            fc.chunk(text, config, tokenizer=tokenizer, backend="reference")
        except FerrochunkError as reference_error:
            if type(reference_error) is not type(native_error):
                raise AssertionError((native_error, reference_error)) from None
            return
        raise AssertionError(f"only native raised {native_error!r}") from None
    reference = fc.chunk(text, config, tokenizer=tokenizer, backend="reference")
    assert native == reference, "native and reference disagree"
    found = audit(text, native, config)
    assert found.clean, found
    pieces = [text[: len(text) // 3], text[len(text) // 3 :]]
    assert list(fc.chunk_stream(pieces, config, tokenizer=tokenizer)) == native


if __name__ == "__main__":
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()
