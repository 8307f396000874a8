"""`ferrochunk.eval.evaluate` and `ferrochunk eval`: Chroma's run() behaviours, BM25 against
bm25s, the question formats, planted answers, bootstrap, the CLI and bad input."""

from __future__ import annotations

import csv
import json
import random
import re
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ferrochunk as fc
from ferrochunk.cli import main
from ferrochunk.errors import ConfigError, ConfigTypeError
from ferrochunk.eval import (
    BM25,
    CHROMA_ALL,
    Question,
    QuestionsError,
    Reference,
    analyze,
    default_configs,
    evaluate,
    read_questions,
)
from ferrochunk.eval.retrieve import Indexed, _Vocabulary

WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "theta", "iota", "kappa", "lambda"]
TEXT = " ".join(WORDS[i % 10] + str(i) for i in range(400))


class Fixed:
    """Ranks chunks in a fixed order for every question (chunk order by default)."""

    name = "fixed"

    def __init__(self, order=None):
        self.order = order

    def rank(self, documents, chunks, questions, k):
        order = self.order(chunks) if self.order else list(range(len(chunks)))
        return [order[:k] for _ in questions]


def q(refs, text="q"):
    return Question("q", text, tuple(Reference(d, s, e) for d, s, e in refs))


def _spans(docs, config):
    r = evaluate(docs, [q([("a", 0, 1)])], [config], retriever=Fixed(), k=1)
    return [s.spans[0] for s in r.chunkers[0].spans]


def test_chroma_retrieve_minus_one_takes_as_many_chunks_as_touch_each_reference():
    docs = {"a": TEXT}
    spans = _spans(docs, fc.TokenWindows(8))
    (s0, e0), (s1, e1), (_s2, _e2), (s3, e3) = spans[:4]
    # q1 crosses from chunk 0 into chunk 1 (2 chunks touch it); q2 lies inside chunk 3.
    q1 = q([("a", s0 + 2, s1 + 3)])
    q2 = q([("a", s3 + 1, e3 - 1)])
    r = evaluate(docs, [q1, q2], [fc.TokenWindows(8)], retriever=Fixed(), k=[CHROMA_ALL, 1])
    a = r.chunkers[0].score(CHROMA_ALL)
    # maximum_n = 2; q1 gets chunks 0 and 1 (all of it), q2 gets chunk 0 alone (none of it).
    n1 = s1 + 3 - (s0 + 2)
    assert a.recall.mean == pytest.approx((1.0 + 0.0) / 2)
    assert a.precision.mean == pytest.approx((n1 / (e0 - s0 + e1 - s1) + 0.0) / 2)
    # Precision Ω: every touching chunk, as if all were retrieved.
    omega = (n1 / (e1 - s0) + (e3 - 1 - s3 - 1) / (e3 - s3)) / 2
    assert r.chunkers[0].precision_omega.mean == pytest.approx(omega)
    # A fixed k = 1 gives both questions chunk 0.
    assert r.chunkers[0].score(1).recall.mean == pytest.approx((n1 - (s1 + 3 - e0)) / n1 / 2)


def test_chroma_retrieve_minus_one_stops_at_twenty_chunks():
    docs = {"a": TEXT}
    spans = _spans(docs, fc.TokenWindows(4))
    assert len(spans) > 25
    ref = ("a", spans[0][0], spans[24][1])  # 25 chunks touch it
    r = evaluate(docs, [q([ref])], [fc.TokenWindows(4)], retriever=Fixed(), k=CHROMA_ALL)
    got = r.chunkers[0].score(CHROMA_ALL)
    assert got.recall.mean == pytest.approx((spans[19][1] - spans[0][0]) / (ref[2] - ref[1]))
    assert got.precision.mean == pytest.approx(1.0)
    assert r.to_dict()["chunkers"][0]["retrieved"][0] == [["a", [list(s)]] for s in spans[:20]]


def test_retrieval_runs_over_every_document_and_their_chunks_count_in_precision():
    docs = {"a": TEXT, "b": TEXT}
    spans = _spans({"a": TEXT}, fc.TokenWindows(8))
    # Rank every chunk of "b" first: a question about "a" retrieves "b" at k = 1.
    b_first = Fixed(lambda chunks: sorted(range(len(chunks)), key=lambda i: chunks[i].doc != "b"))
    ref = ("a", spans[0][0], spans[0][1])
    r = evaluate(docs, [q([ref])], [fc.TokenWindows(8)], retriever=b_first, k=[1, 200])
    one, many = r.chunkers[0].score(1), r.chunkers[0].score(200)
    assert (one.recall.mean, one.precision.mean) == (0.0, 0.0)
    assert many.recall.mean == 1.0
    # The denominator sums every retrieved chunk's length, the other document's included.
    n = min(200, 2 * len(spans))
    total = sum(e - s for s, e in spans) * 2 if n == 2 * len(spans) else None
    if total is not None:
        assert many.precision.mean == pytest.approx((ref[2] - ref[1]) / total)
    assert many.recall_at_k.mean == 1.0
    assert one.recall_at_k.mean == 0.0


def test_a_k_past_the_chunks_is_clamped():
    r = evaluate({"a": "one two three"}, [q([("a", 0, 3)])], ["windows:max_tokens=512"], k=10)
    assert r.chunkers[0].chunks == 1
    assert len(r.chunkers[0].retrieved[0]) == 1
    assert r.chunkers[0].score(10).recall.mean == 1.0


def test_identical_chunkers_are_within_noise_and_the_first_is_best():
    docs = {"a": TEXT}
    spans = _spans(docs, fc.TokenWindows(8))
    qs = [q([("a", s + 1, e - 1)], text=TEXT[s:e]) for s, e in spans[:12]]
    worse = "windows:max_tokens=1024"
    r = evaluate(docs, qs, ["windows:max_tokens=8", "windows:max_tokens=8", worse])
    first, second, third = r.chunkers
    assert first.best
    assert not second.best
    assert r.best is first
    assert second.within_noise
    assert second.difference == fc.eval.Score(0.0, 0.0, 0.0)
    # One 1024-token window holds everything: recall 1, but IoU far below small windows'.
    assert third.score().iou.mean < first.score().iou.mean
    assert not third.within_noise
    assert third.difference.high < 0
    again = evaluate(docs, qs, ["windows:max_tokens=8", worse])
    assert again.chunkers[1].difference == third.difference  # seed 0: the same resamples


def _planted(n: int = 40, seed: int = 1) -> tuple[dict[str, str], list[Question]]:
    """Paragraphs of filler, each with one answer sentence whose middle holds a '|'."""
    rng = random.Random(seed)
    filler = "The weather report said nothing new about the river or the town today."
    parts, qs, at = [], [], 0
    for i in range(n):
        a, b = f"zq{i}x{rng.randrange(10**6)}", f"vk{i}y{rng.randrange(10**6)}"
        answer = f"The keeper of vault {a} | guards the lantern {b}."
        para = f"{filler} {filler} {answer} {filler}\n\n"
        start = at + para.index(answer)
        qs.append(
            Question(
                f"p{i}", f"vault {a} lantern {b}", (Reference("d.txt", start, start + len(answer)),)
            )
        )
        parts.append(para)
        at += len(para)
    return {"d.txt": "".join(parts)}, qs


def test_a_chunker_that_halves_every_answer_recalls_less_than_one_that_keeps_them():
    docs, qs = _planted()
    whole = fc.Recursive(64, separators=("\n\n", " "))
    halves = fc.Recursive(64, separators=("|", " "))
    r = evaluate(docs, qs, [whole, halves], k=[1, 3])
    keep, cut = r.chunkers
    assert keep.score(1).recall_at_k.mean == 1.0  # BM25 finds each answer's paragraph
    assert cut.score(1).recall_at_k.mean == 0.0  # no chunk holds an answer whole
    assert cut.score(3).recall_at_k.mean == 0.0
    assert keep.score(1).iou.mean > cut.score(1).iou.mean
    # Best is judged at the largest k; at k = 1 the whole answers win beyond noise.
    keep1, cut1 = evaluate(docs, qs, [whole, halves], k=1).chunkers
    assert keep1.best
    assert not cut1.within_noise
    assert cut1.difference.high < 0


# -- BM25 ---------------------------------------------------------------------------


def test_analyze_folds_case_and_cuts_cjk_into_bigrams():
    assert analyze("Straße A b") == ["strasse", "a", "b"]
    assert analyze("東京都に行く") == ["東京", "京都", "都に", "に行", "行く"]
    assert analyze("GPU東京x") == ["gpu", "東京", "x"]
    assert analyze("한국어 문장") == ["한국", "국어", "문장"]
    assert analyze("a 中 b") == ["a", "中", "b"]


texts = st.text(
    alphabet=st.sampled_from(list("abcAB ß.,\n\u0345İ東京都한국-_9")), min_size=0, max_size=60
)


@settings(max_examples=200)
@given(texts, st.data())
def test_a_chunk_reuses_its_documents_analysis_exactly(text, data):
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    v = _Vocabulary()
    parts = v.chunk(text, start, end, v.document("d", text))
    names = {i: t for t, i in v.ids.items()}
    got = [names[int(i)] for p in parts for i in p]
    assert got == analyze(text[start:end])


def test_bm25_scores_are_bm25s_lucene_scores():
    bm25s = pytest.importorskip("bm25s", reason="test extra: bm25s (the oracle)")
    rng = random.Random(3)
    vocab = [f"w{i}" for i in range(40)] + ["東京", "Straße"]
    chunks = [" ".join(rng.choices(vocab, k=rng.randrange(1, 30))) for _ in range(60)]
    oracle = bm25s.BM25(k1=1.2, b=0.6, method="lucene")
    oracle.index([analyze(t) for t in chunks], show_progress=False)
    ours = BM25(1.2, 0.6).scores({}, [Indexed(t) for t in chunks])
    for query in ["w1 w2", "w3 w3 w7", "東京 straße w39", "w0"]:
        terms = [t for t in analyze(query) if t in oracle.vocab_dict]
        expected = oracle.get_scores(terms)
        assert np.allclose(ours(query), expected, rtol=1e-5, atol=1e-6)


def test_bm25_ties_go_by_chunk_order_and_an_unknown_question_ranks_chunk_order():
    chunks = [Indexed(t) for t in ["red fox", "blue fox", "red fox", "green"]]
    ranked = BM25().rank({}, chunks, ["fox red", "nothing here"], 4)
    assert ranked[0][:2] == [0, 2]
    assert ranked[1] == [0, 1, 2, 3]


# -- questions files ------------------------------------------------------------------


DOCS = {"a.md": "The cat sat on the mat. The dog ran.", "b.txt": "Other text here."}


def test_json_lines_take_offsets_and_excerpts(tmp_path):
    path = tmp_path / "q.jsonl"
    rows = [
        {
            "question": "where did the cat sit",
            "references": [{"doc": "a.md", "text": "on the mat"}],
        },
        {"question": "what", "references": [{"doc": "b.txt", "char_start": 0, "char_end": 5}]},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n\n")
    qs = read_questions(path, DOCS)
    assert [x.references for x in qs] == [(Reference("a.md", 12, 22),), (Reference("b.txt", 0, 5),)]
    assert qs[0].text == "where did the cat sit"
    assert qs[0].id == "line 1"


@pytest.mark.parametrize(
    ("ref", "message"),
    [
        ({"doc": "a.md", "text": "The"}, "more than once"),
        ({"doc": "a.md", "text": "zebra"}, "is not in 'a.md'"),
        ({"doc": "c.md", "text": "x"}, "no document 'c.md'"),
        ({"doc": "a.md", "char_start": 5, "char_end": 500}, "got 5 and 500"),
        ({"doc": "a.md", "char_start": "1", "char_end": 2}, "must be integers"),
        ({"doc": "a.md", "text": ""}, "non-empty string"),
    ],
)
def test_a_bad_reference_names_the_question_and_the_document(tmp_path, ref, message):
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps({"question": "x", "references": [ref]}) + "\n")
    with pytest.raises(QuestionsError, match=f"line 1: .*{re.escape(message)}"):
        read_questions(path, DOCS)


def _chroma_csv(path, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["", "question", "references", "corpus_id"])
        for i, (question, refs, corpus) in enumerate(rows):
            w.writerow([i, question, json.dumps(refs), corpus])


def test_chromas_csv_reads_its_corpus_as_corpus_id_md_and_checks_each_content(tmp_path):
    text = DOCS["a.md"]
    refs = [{"content": "The dog ran.", "start_index": 24, "end_index": 36}]
    _chroma_csv(tmp_path / "questions_df.csv", [("who ran", refs, "a")])
    (qs,) = read_questions(tmp_path / "questions_df.csv", DOCS)
    assert qs.references == (Reference("a.md", 24, 36),)
    assert text[24:36] == "The dog ran."
    refs[0]["content"] = "The dog sat."
    _chroma_csv(tmp_path / "bad.csv", [("who ran", refs, "a")])
    with pytest.raises(QuestionsError, match=r"row 0: the content 'The dog sat\.' is not the text"):
        read_questions(tmp_path / "bad.csv", DOCS)
    (tmp_path / "cols.csv").write_text("question,refs\nx,y\n")
    with pytest.raises(QuestionsError, match="missing corpus_id, references"):
        read_questions(tmp_path / "cols.csv", DOCS)


def test_the_cli_runs_chromas_layout_and_writes_json_and_a_plot(tmp_path, capsys):
    docs, qs = _planted(12)
    corpora = tmp_path / "corpora"
    corpora.mkdir()
    text = docs["d.txt"]
    (corpora / "vaults.md").write_text(text, encoding="utf-8")
    rows = [
        (x.text, [{"content": text[r.start : r.end], "start_index": r.start, "end_index": r.end}
                  for r in x.references], "vaults")
        for x in qs
    ]  # fmt: skip
    _chroma_csv(tmp_path / "questions_df.csv", rows)
    out, plot = tmp_path / "eval.json", tmp_path / "eval.png"
    code = main(
        ["eval", str(corpora), "--questions", str(tmp_path / "questions_df.csv"),
         "--chunker", "recursive:max_tokens=64", "--chunker", "windows:max_tokens=256",
         "-k", "1,-1,3", "--json", str(out), "--plot", str(plot)]
    )  # fmt: skip
    printed = capsys.readouterr().out
    assert code == 0
    assert "12 questions over 1 document(s)" in printed
    assert "k=3" in printed
    assert "* recursive:max_tokens=64" in printed
    data = json.loads(out.read_text())
    assert data["k"] == [1, 3, -1]
    row = data["chunkers"][0]
    assert [a["k"] for a in row["at"]] == [1, 3, -1]
    assert len(row["retrieved"]) == 12
    assert len(row["retrieved"][0]) == 3
    doc, spans = row["retrieved"][0][0]
    assert doc == "vaults.md"
    assert all(0 <= s < e <= len(text) for s, e in spans)
    assert plot.read_bytes()[:4] == b"\x89PNG"


def test_the_cli_default_grid_adds_markdown_for_markdown_input(tmp_path, capsys):
    (tmp_path / "a.md").write_text("# Title\n\n" + TEXT)
    (tmp_path / "q.jsonl").write_text(
        json.dumps({"question": "alpha0", "references": [{"doc": "a.md", "text": "alpha0 "}]})
        + "\n"
    )
    assert main(["eval", str(tmp_path / "a.md"), "--questions", str(tmp_path / "q.jsonl")]) == 0
    printed = capsys.readouterr().out
    for label in (
        "recursive:max_tokens=128",
        "recursive:max_tokens=1024",
        "windows:max_tokens=512",
        "markdown:max_tokens=512",
        "sentence:max_tokens=256",
    ):
        assert label in printed  # fmt: skip
    assert [type(c).__name__ for c in default_configs({"x.txt": ""})].count("Markdown") == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-k", "0"], "k must be integers >= 1"),
        (["-k", "x"], "-k must be integers"),
        (["--chunker", "recursive:max_tokens=-1"], "Recursive.max_tokens"),
        (["--chunker", "nope:max_tokens=1"], "config.chunker must be one of"),
        (["--embed", "nomodule:fn"], "cannot import 'nomodule'"),
        (["--embed", "json:nothing"], "'json' has no 'nothing'"),
        (["--embed-query", "json:dumps"], "--embed-query needs --embed"),
    ],
)
def test_cli_usage_errors_exit_2_and_name_the_value(tmp_path, capsys, args, message):
    (tmp_path / "a.txt").write_text("one two three")
    (tmp_path / "q.jsonl").write_text(
        json.dumps({"question": "x", "references": [{"doc": "a.txt", "text": "two"}]}) + "\n"
    )
    assert (
        main(["eval", str(tmp_path / "a.txt"), "--questions", str(tmp_path / "q.jsonl"), *args])
        == 2
    )
    assert message in capsys.readouterr().err


def test_cli_a_bad_questions_file_exits_2_and_leaves_the_json(tmp_path, capsys):
    (tmp_path / "a.txt").write_text("one two three")
    (tmp_path / "q.jsonl").write_text(
        '{"question": "x", "references": [{"doc": "zz", "text": "a"}]}\n'
    )
    (tmp_path / "out.json").write_text("old")
    code = main(["eval", str(tmp_path / "a.txt"), "--questions", str(tmp_path / "q.jsonl"),
                 "--json", str(tmp_path / "out.json")])  # fmt: skip
    assert code == 2
    assert "line 1: no document 'zz'" in capsys.readouterr().err
    assert (tmp_path / "out.json").read_text() == "old"


def test_embeddings_are_cached_by_text_and_rank_by_cosine():
    calls: list[list[str]] = []

    def embed(texts):
        calls.append(list(texts))
        return np.array([[t.count("x"), t.count("y") + 0.5] for t in texts], dtype=float)

    docs = {"a": "xxxx yyyy xxxx yyyy " * 30}
    retriever = fc.eval.Embeddings(embed)
    qs = [q([("a", 0, 4)], text="xx")]
    evaluate(docs, qs, ["windows:max_tokens=8", "windows:max_tokens=8"], retriever=retriever, k=2)
    embedded = [t for call in calls for t in call]
    assert len(embedded) == len(set(embedded))  # the second chunker cost no call
    ranked = retriever.rank(
        {}, [fc.eval.retrieve.Indexed(t) for t in ["y", "xxx yy", "x"]], ["x"], 3
    )
    assert ranked == [[2, 1, 0]]


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"k": 0}, ConfigError, "k must be integers"),
        ({"k": [True]}, ConfigError, "k must be integers"),
        ({"index": "both"}, ConfigError, "index must be 'embedded' or 'text'"),
        ({"resamples": 0}, ConfigError, "resamples must be an integer >= 1"),
        ({"configs": []}, ConfigTypeError, "configs must be a non-empty list"),
        ({"configs": ["recursive:max_tokens=nan"]}, ConfigError, "max_tokens"),
        ({"questions": []}, ConfigTypeError, "questions must be a non-empty list"),
        ({"documents": ["a"]}, ConfigTypeError, "documents must map ids to texts"),
    ],
)
def test_evaluate_rejects_bad_arguments_by_name(kwargs, error, message):
    args = {"documents": {"a": "one two"}, "questions": [q([("a", 0, 3)])]}
    args.update(kwargs)
    documents, questions = args.pop("documents"), args.pop("questions")
    with pytest.raises(error, match=re.escape(message)):
        evaluate(documents, questions, **args)


def test_token_metrics_measure_unions_in_tokens():
    docs = {"a": TEXT}
    spans = _spans(docs, fc.TokenWindows(8))
    (s0, _e0), (_s1, e1) = spans[:2]
    r = evaluate(docs, [q([("a", s0, e1)])], [fc.TokenWindows(8)], retriever=Fixed(), k=[1, 2],
                 token_metrics=True)  # fmt: skip
    one, two = r.chunkers[0].score(1).tokens, r.chunkers[0].score(2).tokens
    assert (one.recall, one.precision, one.iou) == (0.5, 1.0, 0.5)  # 8 of 16 tokens
    assert (two.recall, two.precision, two.iou) == (1.0, 1.0, 1.0)


@pytest.mark.parametrize(
    ("embed", "message"),
    [
        (lambda texts: np.ones(len(texts)), "must return a 2-D array with one row per text"),
        (lambda texts: np.ones((len(texts) + 1, 2)), "texts gave shape"),
        (lambda texts: np.full((len(texts), 2), np.nan), "NaN or infinity"),
        (lambda texts: 1 / 0, "raised ZeroDivisionError: division by zero"),
    ],
)
def test_a_broken_embedding_function_is_a_config_error(embed, message):
    docs = {"a": "one two three four"}
    with pytest.raises(ConfigError, match=re.escape(message)):
        evaluate(docs, [q([("a", 0, 3)])], ["windows:max_tokens=8"],
                 retriever=fc.eval.Embeddings(embed))  # fmt: skip


def test_the_cli_names_the_questions_file_line_and_field(tmp_path, capsys):
    (tmp_path / "a.txt").write_text("one two three")
    questions = tmp_path / "q.jsonl"
    questions.write_text('{"question": "x", "references": [{"doc": "a.txt", "text": "two"}]}\n'
                         '{"references": [{"doc": "a.txt", "text": "two"}]}\n')  # fmt: skip
    assert main(["eval", str(tmp_path / "a.txt"), "--questions", str(questions)]) == 2
    err = capsys.readouterr().err
    assert f"{questions}: line 2: 'question' must be a non-empty string, got None" in err
    assert "Traceback" not in err


def test_delimiter_merge_is_scored_by_its_spans_and_parent_child_by_its_parents():
    text = "Alpha one. Beta two! Gamma three? Delta four. " * 20
    docs = {"a": text}
    ref = ("a", 11, 19)  # "Beta two"
    delim = fc.DelimiterMerge(6, delimiters=(".", "!", "?"))
    parents = fc.ParentChild(fc.Recursive(64), child=fc.Recursive(8))
    r = evaluate(docs, [q([ref])], [delim, parents], retriever=Fixed(), k=1)
    d, p = r.chunkers
    expected = [fc.eval.ChunkSpan("a", tuple(c.metadata["spans"])) for c in fc.chunk(text, delim)]
    assert list(d.spans) == expected
    assert any(len(s.spans) > 1 for s in d.spans)  # the delimiters lie between spans
    assert d.label.startswith("delimiter:token_size=6")
    tops = fc.chunk(text, parents)
    assert [s.spans for s in p.spans] == [((c.char_start, c.char_end),) for c in tops]
    assert p.chunks == len(tops)
    assert p.label.startswith("ParentChild(")  # no spec: its repr


MODEL = Path(__file__).parent / "data" / "models" / "all-MiniLM-L6-v2.tokenizer.json"


def test_the_tokenizer_reaches_the_chunking_and_is_named():
    docs = {"a": TEXT}
    questions = [q([("a", 0, 40)])]
    tok = fc.Tokenizer.from_file(MODEL)
    config = fc.Recursive(64)
    got = evaluate(docs, questions, [config], retriever=Fixed(), k=1, tokenizer=tok)
    cl100k = evaluate(docs, questions, [config], retriever=Fixed(), k=1)
    chunks = fc.chunk(TEXT, config, tokenizer=tok)
    assert got.chunkers[0].chunks == len(chunks) != cl100k.chunkers[0].chunks
    assert got.chunkers[0].mean_tokens == sum(c.token_count for c in chunks) / len(chunks)
    assert got.tokenizer == tok.name
    assert cl100k.tokenizer == "cl100k_base"
    assert got.to_dict()["tokenizer"] == tok.name


def test_the_cli_takes_a_tokenizer_json_and_names_it(tmp_path, capsys):
    (tmp_path / "a.txt").write_text(TEXT, encoding="utf-8")
    questions = tmp_path / "q.jsonl"
    questions.write_text(json.dumps({"question": "alpha0", "references": [
        {"doc": "a.txt", "char_start": 0, "char_end": 12}]}) + "\n")  # fmt: skip
    code = main(["eval", str(tmp_path / "a.txt"), "--questions", str(questions), "--chunker",
                 "recursive:max_tokens=64", "--tokenizer", str(MODEL), "-k", "1"])  # fmt: skip
    printed = capsys.readouterr().out
    assert code == 0
    name = fc.Tokenizer.from_file(MODEL).name
    assert f"sizes in {name} tokens" in printed
    chunks = len(fc.chunk(TEXT, fc.Recursive(64), tokenizer=fc.Tokenizer.from_file(MODEL)))
    assert re.search(rf"recursive:max_tokens=64\s+{chunks}\s", printed)


def test_a_reused_bm25_scores_new_text_under_an_old_id():
    bm25 = BM25()
    questions = [q([("a", 0, 5)], text="zebra")]
    old = {"a": "alpha beta gamma " * 30}
    evaluate(old, questions, ["windows:max_tokens=16"], retriever=bm25, k=1)
    new = {"a": "alpha beta gamma " * 10 + "zebra " + "alpha beta gamma " * 20}
    ranked = bm25.rank(new, [Indexed(new["a"][i : i + 40], "a", i, i + 40, "") for i in
                             range(0, len(new["a"]) - 40, 40)], ["zebra"], 1)  # fmt: skip
    fresh = BM25().rank(new, [Indexed(new["a"][i : i + 40], "a", i, i + 40, "") for i in
                              range(0, len(new["a"]) - 40, 40)], ["zebra"], 1)  # fmt: skip
    assert ranked == fresh
    scores = bm25.scores(new, [Indexed(new["a"][160:200], "a", 160, 200, "")])
    assert scores("zebra")[0] > 0


@pytest.mark.parametrize(
    ("refs", "message"),
    [
        ([("a", 5, 5)], "0 <= start < end"),
        ([("a", 7, 3)], "0 <= start < end"),
        ([("a", 0, 10**6)], "0 <= start < end"),
        ([("a", -1, 3)], "0 <= start < end"),
        ([("nowhere", 0, 3)], "no document 'nowhere'"),
        ([], "non-empty"),
    ],
)
def test_evaluate_checks_questions_as_the_file_readers_do(refs, message):
    question = Question("q7", "what", tuple(Reference(d, s, e) for d, s, e in refs))
    with pytest.raises(QuestionsError, match=rf"question 'q7'.*{re.escape(message)}"):
        evaluate({"a": TEXT}, [question], ["windows:max_tokens=64"], retriever=Fixed(), k=1)
    with pytest.raises(QuestionsError, match="non-empty string"):
        evaluate({"a": TEXT}, [Question("q8", " ", (Reference("a", 0, 3),))], retriever=Fixed())


def test_overlapping_json_lines_references_warn(tmp_path):
    path = tmp_path / "q.jsonl"
    refs = [{"doc": "a", "char_start": 0, "char_end": 20}, {"doc": "a", "char_start": 10,
             "char_end": 30}]  # fmt: skip
    path.write_text(json.dumps({"question": "x", "references": refs}) + "\n")
    with pytest.warns(UserWarning, match="line 1: references 0:20 and 10:30 of 'a' overlap"):
        read_questions(path, {"a": TEXT})
    path.write_text(json.dumps({"question": "x", "references": refs[:1]}) + "\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        read_questions(path, {"a": TEXT})
