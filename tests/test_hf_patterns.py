"""``Split`` and ``Replace`` regexes against ``tokenizers`` itself (Oniguruma).

Oniguruma's ``\\w`` is Alphabetic|M|Nd|Pc (a bare one also takes ``¹²³¼½¾``), its
``$`` is a line anchor (its ``^`` too, but not at the end after a final newline, so a
``^`` is refused), and its
``find_iter`` skips an empty match that ends where the last match ended. The native
engine must cut and replace exactly as ``tokenizers`` does, on patterns that can match
empty and on Persian (ZWNJ), Hindi (spacing and nonspacing marks), ZWJ emoji and
superscripts; a pattern it cannot run so is refused, never run with other semantics.
"""

from __future__ import annotations

import json
from itertools import accumulate

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import ferrochunk as fc
from ferrochunk.errors import UnsupportedTokenizerError

pytest.importorskip("tokenizers")

# Letters, a superscript (No), a letter number (Nl), a circled letter (So, Alphabetic),
# Persian with ZWNJ (Cf), Hindi with Mc and Mn marks, a ZWJ emoji, a connector.
ALPHABET = ["x", "a", "1", " ", "\n", "²", "½", "⁴", "Ⅻ", "Ⓐ", "ی", "\u200c", "ह", "ि", "्", "👩",
            "\u200d", "❤", "\ufe0f", "_", "-", "é", "."]  # fmt: skip
TEXT = st.lists(st.sampled_from(ALPHABET), max_size=16).map("".join)
ATOMS = [r"\w+", r"\W", r"\w*", r"x*", r"^", r"$", r"\A", r"\z", r"^\w", r"\w$", r"[\w-]+",
         r"[^\w\s]+", r"\d+", r"\s*", r"a|", r"(?i:X)", r".", r"\p{L}+", r"[^\W\d]", r"(x|)",
         r"\W*", r"\s+(?!\S)", r"\s+", r"[\W_]+"]  # fmt: skip
PATTERN = st.lists(st.sampled_from(ATOMS), min_size=1, max_size=3).flatmap(
    lambda atoms: st.sampled_from(["|".join(atoms), "".join(atoms)])
)
BEHAVIORS = ["Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous"]


def _split(pattern: str, behavior: str, invert: bool) -> str:
    """Each pre-token becomes one unknown word: the tokens' offsets are the split."""
    return json.dumps(
        {
            "version": "1.0",
            "pre_tokenizer": {
                "type": "Split",
                "pattern": {"Regex": pattern},
                "behavior": behavior,
                "invert": invert,
            },
            "model": {"type": "WordLevel", "vocab": {"[UNK]": 0}, "unk_token": "[UNK]"},
        }
    )


def _replace(pattern: str) -> str:
    """One token per character of the normalized text, so ids spell it."""
    vocab = {c: i for i, c in enumerate(sorted(set("".join(ALPHABET)) | {"@"}))}
    return json.dumps(
        {
            "version": "1.0",
            "normalizer": {"type": "Replace", "pattern": {"Regex": pattern}, "content": "@"},
            "model": {"type": "BPE", "vocab": vocab, "merges": []},
        }
    )


def _same(doc: str, text: str) -> None:
    from tokenizers import Tokenizer

    ref = Tokenizer.from_str(doc).encode(text, add_special_tokens=False)
    want = (ref.ids, [len(text[: o[0]].encode()) for o in ref.offsets])
    try:
        tok = fc.Tokenizer.from_json(doc)
    except UnsupportedTokenizerError:
        return  # refused: from_huggingface falls back to tokenizers itself
    ids, starts = tok.encode_with_offsets(text)
    assert (ids.tolist(), starts.tolist()) == want


@settings(max_examples=600, deadline=None)
@given(pattern=PATTERN, behavior=st.sampled_from(BEHAVIORS), invert=st.booleans(), text=TEXT)
@example(pattern="x*", behavior="MergedWithNext", invert=False, text="xaxa")
@example(pattern=r"\w+", behavior="Isolated", invert=False, text="x² ی\u200cی 👩\u200d❤")
@example(pattern=r"\A\w|\w$", behavior="Isolated", invert=False, text="ab\nxy")
@example(pattern=r"$", behavior="MergedWithNext", invert=False, text="a\n")
def test_split_cuts_as_tokenizers_does(
    pattern: str, behavior: str, invert: bool, text: str
) -> None:
    _same(_split(pattern, behavior, invert), text)


@settings(max_examples=400, deadline=None)
@given(pattern=PATTERN, text=TEXT)
@example(pattern="x*", text="xaxa")
@example(pattern=r"\W+", text="हिन्दी x² ی\u200cی")
def test_replace_rewrites_as_tokenizers_does(pattern: str, text: str) -> None:
    _same(_replace(pattern), text)


@pytest.mark.parametrize("pattern", [r"\w+", r"[^\W\d]+", r"\Ax", r"x$", r"\W", "x*"])
def test_the_review_cases_run_natively_and_agree(pattern: str) -> None:
    doc = _split(pattern, "Isolated", False)
    assert fc.Tokenizer.from_json(doc).engine == "native"
    for text in ["x²", "ی\u200cی", "👩\u200d❤\ufe0f", "हिन्दी", "xaxa", "a\nx\nx"]:
        _same(doc, text)


# Every code point but the surrogates, in one text, and where each starts in UTF-8.
CODE_POINTS = [*range(0xD800), *range(0xE000, 0x110000)]
EVERY_CHAR = "".join(map(chr, CODE_POINTS))
BYTE_AT = list(accumulate((len(chr(c).encode()) for c in CODE_POINTS), initial=0))


@pytest.mark.slow
@pytest.mark.parametrize("pattern", [r"\w", r"[\w]", r"\W", r"[^\w]", r"[\W\d]", r"(?i)[^\W_]"])
def test_word_classes_agree_on_every_code_point(pattern: str) -> None:
    from tokenizers import Tokenizer

    doc = _split(pattern, "Removed", False)
    ref = Tokenizer.from_str(doc).encode(EVERY_CHAR, add_special_tokens=False).offsets
    tok = fc.Tokenizer.from_json(doc)
    assert tok.engine == "native"
    _, starts = tok.encode_with_offsets(EVERY_CHAR)
    want = [BYTE_AT[o[0]] for o in ref]
    assert starts.tolist() == want


@pytest.mark.parametrize("pattern", ["^", r"\bx", r"x\B", "[[:alpha:]]+", "(?m)."])
def test_patterns_read_differently_fall_back_with_a_warning(pattern: str) -> None:
    from tokenizers import Tokenizer

    doc = _split(pattern, "Isolated", False)
    with pytest.raises(UnsupportedTokenizerError, match=r"pre_tokenizer\.pattern"):
        fc.Tokenizer.from_json(doc)
    with pytest.warns(UserWarning, match=r"pre_tokenizer\.pattern"):
        tok = fc.Tokenizer.from_huggingface(Tokenizer.from_str(doc))
    assert tok.engine == "python"
