"""Small Hugging Face tokenizers trained here, in the standard pipelines of open embedding
models: nothing is downloaded. Tests and benches load them from ``tokenizer.json``.

- ``bert``: BERT uncased (BertNormalizer, BertPreTokenizer, WordPiece, [CLS] $A [SEP]);
- ``bert_cased``: the same, cased and accent-keeping, with BertProcessing;
- ``bpe``: RoBERTa-style byte-level BPE (ByteLevel, RobertaProcessing, trimmed offsets);
- ``unigram``: NFKC + Metaspace + Unigram, as T5-style SentencePiece conversions;
- ``spm``: a SentencePiece Unigram model converted by ``tokenizers`` (``Precompiled``
  normalizer, as XLM-R-based models such as bge-m3 and multilingual-e5 have);
- ``mixed``: WordPiece behind NFD + StripAccents + Lowercase and a Sequence of
  Whitespace, Digits and Punctuation, to cover those components;
- ``t5``: NFKC + ``Replace("  ", " ")`` + Metaspace + Unigram, whose literal ``Replace`` joins
  across word boundaries inside runs of spaces (not in ``NAMES``; its own tests use it);
- ``llama3``: byte-level BPE behind Llama 3's split regex (as Qwen2's too), whose one
  lookaround is the ``\\s+(?!\\S)`` idiom, and a ByteLevel without its own regex.
"""

from __future__ import annotations

import gc
import gzip
import io
import sys
import tempfile
import warnings
from functools import cache
from pathlib import Path

CORPUS = Path(__file__).resolve().parent / "data" / "corpus"

# Llama 3's pre-tokenizer pattern, as its tokenizer.json has it.
LLAMA3 = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)


@cache
def corpus() -> tuple[str, ...]:
    """The bundled corpus files (English, Chinese, Japanese, Korean, code, Markdown)."""
    return tuple(
        gzip.decompress(p.read_bytes()).decode("utf-8") for p in sorted(CORPUS.glob("*.gz"))
    )


def _lines() -> list[str]:
    return [line for text in corpus() for line in text.splitlines() if line.strip()]


def _specials(tok, names):  # type: ignore[no-untyped-def]
    return [(n, tok.token_to_id(n)) for n in names]


def _build(name: str):  # type: ignore[no-untyped-def]
    from tokenizers import (
        Regex,
        Tokenizer,
        models,
        normalizers,
        pre_tokenizers,
        processors,
        trainers,
    )

    if name in ("bert", "bert_cased"):
        lower = name == "bert"
        tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
        tok.normalizer = normalizers.BertNormalizer(lowercase=lower, strip_accents=lower)
        tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        special = ["[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]"]
        tok.train_from_iterator(
            _lines(),
            trainers.WordPieceTrainer(vocab_size=3000, special_tokens=special, show_progress=False),
        )
        if lower:
            tok.post_processor = processors.TemplateProcessing(
                single="[CLS] $A [SEP]",
                pair="[CLS] $A [SEP] $B:1 [SEP]:1",
                special_tokens=_specials(tok, ["[CLS]", "[SEP]"]),
            )
        else:
            cls, sep = _specials(tok, ["[CLS]", "[SEP]"])
            tok.post_processor = processors.BertProcessing(sep, cls)
        return tok
    if name == "bpe":
        tok = Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        trainer = trainers.BpeTrainer(
            vocab_size=3000,
            special_tokens=["<s>", "</s>", "<mask>"],
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
            show_progress=False,
        )
        tok.train_from_iterator(_lines(), trainer)
        tok.post_processor = processors.RobertaProcessing(*_specials(tok, ["</s>", "<s>"]))
        return tok
    if name == "unigram":
        tok = Tokenizer(models.Unigram())
        tok.normalizer = normalizers.NFKC()
        tok.pre_tokenizer = pre_tokenizers.Metaspace()
        trainer = trainers.UnigramTrainer(
            vocab_size=6000,
            unk_token="<unk>",
            special_tokens=["<unk>", "<s>", "</s>"],
            show_progress=False,
        )
        tok.train_from_iterator(_lines(), trainer)
        tok.post_processor = processors.TemplateProcessing(
            single="$A </s>", special_tokens=_specials(tok, ["</s>"])
        )
        return tok
    if name == "t5":
        tok = Tokenizer(models.Unigram())
        tok.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Replace("  ", " ")])
        tok.pre_tokenizer = pre_tokenizers.Metaspace()
        trainer = trainers.UnigramTrainer(
            vocab_size=3000, unk_token="<unk>", special_tokens=["<unk>"], show_progress=False
        )
        tok.train_from_iterator(_lines(), trainer)
        return tok
    if name == "mixed":
        tok = Tokenizer(models.WordPiece(unk_token="[UNK]", max_input_chars_per_word=30))
        tok.normalizer = normalizers.Sequence(
            [normalizers.NFD(), normalizers.StripAccents(), normalizers.Lowercase()]
        )
        tok.pre_tokenizer = pre_tokenizers.Sequence(
            [
                pre_tokenizers.Whitespace(),
                pre_tokenizers.Digits(individual_digits=True),
                pre_tokenizers.Punctuation(),
            ]
        )
        trainer = trainers.WordPieceTrainer(
            vocab_size=2000, special_tokens=["[UNK]"], show_progress=False
        )
        tok.train_from_iterator(_lines(), trainer)
        return tok
    if name == "llama3":
        tok = Tokenizer(models.BPE(ignore_merges=True))
        tok.pre_tokenizer = pre_tokenizers.Sequence(
            [
                pre_tokenizers.Split(Regex(LLAMA3), behavior="isolated"),
                pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
            ]
        )
        trainer = trainers.BpeTrainer(
            vocab_size=3000,
            special_tokens=["<|begin_of_text|>", "<|end_of_text|>"],
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
            show_progress=False,
        )
        tok.train_from_iterator(_lines(), trainer)
        bos = _specials(tok, ["<|begin_of_text|>"])
        tok.post_processor = processors.TemplateProcessing(
            single="<|begin_of_text|> $A", special_tokens=bos
        )
        return tok
    if name == "spm":
        return _sentencepiece()
    raise KeyError(name)


def _sentencepiece():  # type: ignore[no-untyped-def]
    """A SentencePiece Unigram model, converted by tokenizers' own ``from_spm``."""
    import sentencepiece as spm
    from sentencepiece import sentencepiece_model_pb2

    # from_spm imports a top-level module of this name; sentencepiece ships it inside.
    sys.modules.setdefault("sentencepiece_model_pb2", sentencepiece_model_pb2)
    from tokenizers.implementations import SentencePieceUnigramTokenizer

    model = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(_lines()[:20000]),
        model_writer=model,
        vocab_size=2000,
        character_coverage=0.9995,
        minloglevel=2,
    )
    with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
        # from_spm leaves its model file open; close it here, not in a later test.
        warnings.simplefilter("ignore", ResourceWarning)
        path = Path(tmp) / "m.model"
        path.write_bytes(model.getvalue())
        tok = SentencePieceUnigramTokenizer.from_spm(str(path))
        gc.collect()
        return tok


@cache
def live(name: str):  # type: ignore[no-untyped-def]
    """Model ``name`` as trained, in memory (never reloaded from JSON): its Unigram
    scores are the exact floats, which a reload through serde_json may move by an ulp.
    Shared: do not modify it."""
    return _build(name)


@cache
def json_of(name: str) -> str:
    """The ``tokenizer.json`` text of model ``name``."""
    return live(name).to_str()  # type: ignore[no-any-return]


def hf(name: str):  # type: ignore[no-untyped-def]
    """A fresh ``tokenizers.Tokenizer`` loaded from model ``name``'s JSON."""
    from tokenizers import Tokenizer

    return Tokenizer.from_str(json_of(name))


NAMES = ("bert", "bert_cased", "bpe", "unigram", "spm", "mixed", "llama3")
