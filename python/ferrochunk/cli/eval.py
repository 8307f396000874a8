"""``ferrochunk eval``: which chunker lets a retriever find the answers in your documents
(see ``ferrochunk/eval``)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..errors import ConfigError
from ..eval import BM25, CHROMA_ALL, Embeddings, EvalResult, evaluate, read_questions
from ..eval.retrieve import Retriever, load_callable
from .chunk import tokenizer_of
from .extras import need_plot
from .reports import save_figure, write_report
from .sources import Unreadable, read_texts

LEGEND = (
    "recall, precision, IoU: Chroma's chunking_evaluation scores over characters at the "
    "largest k (precision sums every retrieved chunk's length), 95 % bootstrap interval in "
    "brackets. R@k: questions whose every reference lies whole in some retrieved chunk. "
    "MRR: 1/rank of the first chunk holding a whole reference. Ω: Chroma's precision Ω, "
    "the IoU of every chunk touching a reference. * best IoU; = within noise of it (the "
    "paired 95 % interval of the IoU difference holds 0). docs/eval.md defines each."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", help="files or folders of documents (as bench reads them)")
    p.add_argument(
        "--questions",
        required=True,
        metavar="FILE",
        help="JSON lines ({question, references: [{doc, char_start, char_end} | {doc, text}]}) "
        "or Chroma's questions_df.csv (*.csv)",
    )
    p.add_argument(
        "--chunker",
        action="append",
        metavar="SPEC",
        help="a chunker spec such as recursive:max_tokens=256,overlap_tokens=25 (repeat it); "
        "default: a grid of Recursive, TokenWindows, SentenceWindows and, for Markdown, "
        "Markdown",
    )
    p.add_argument(
        "-k",
        default="1,3,5,10",
        metavar="K,...",
        help="chunks retrieved per question (default 1,3,5,10; -1 is Chroma's retrieve=-1)",
    )
    how = p.add_mutually_exclusive_group()
    how.add_argument("--retriever", choices=["bm25"], default="bm25", help="default: bm25")
    how.add_argument(
        "--embed", metavar="MODULE:CALLABLE", help="a function from texts to a 2-D array of "
        "embeddings; retrieval is then cosine top-k"
    )  # fmt: skip
    p.add_argument(
        "--embed-query", metavar="MODULE:CALLABLE", help="with --embed: a separate function "
        "for the questions (for models that want a query prefix)"
    )  # fmt: skip
    p.add_argument("--k1", type=float, default=1.5, help="BM25's k1 (default 1.5)")
    p.add_argument("--b", type=float, default=0.75, help="BM25's b (default 0.75)")
    p.add_argument(
        "--index",
        choices=["embedded", "text"],
        default="embedded",
        help="what is indexed: context + text where a chunker gives context (default), or text",
    )
    p.add_argument(
        "--tokenizer", default="cl100k", metavar="NAME|FILE", help="what the chunkers' sizes "
        "count in: cl100k (default), o200k, or a model's tokenizer.json"
    )  # fmt: skip
    p.add_argument(
        "--token-metrics", action="store_true", help="also score recall, precision and IoU "
        "over unions of spans in the tokenizer's tokens"
    )  # fmt: skip
    p.add_argument("--text-field", default="text", help="records: the text field (default text)")
    p.add_argument("--json", metavar="FILE", help="also write every score and each question's "
                   "retrieved spans as JSON")  # fmt: skip
    p.add_argument("--plot", metavar="FILE", help="also plot recall and IoU against chunk size")


def read_documents(paths: list[str], text_field: str) -> dict[str, str]:
    """Documents by id (:func:`~ferrochunk.cli.sources.read_texts`'s rule)."""
    docs = read_texts(paths, text_field=text_field)
    if not docs:
        raise Unreadable(f"no documents in {', '.join(paths)}")
    return docs


def _ks(text: str) -> list[int]:
    try:
        return [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise ConfigError(f"-k must be integers separated by commas, got {text!r}") from None


def _retriever(args: argparse.Namespace) -> Retriever:
    if args.embed is not None:
        query = load_callable(args.embed_query, "--embed-query") if args.embed_query else None
        return Embeddings(load_callable(args.embed, "--embed"), query)
    if args.embed_query is not None:
        raise ConfigError("--embed-query needs --embed")
    return BM25(args.k1, args.b)


def _ci(s: Any) -> str:
    return f"{s.mean:.3f} [{s.low:.3f}, {s.high:.3f}]"


def table(result: EvalResult) -> str:
    """The result as text: one row per chunker, scores at the largest k."""
    k = max(result.k)
    k_name = "k=-1 (Chroma)" if k == CHROMA_ALL else f"k={k}"
    head = ["chunker", "chunks", "tokens/chunk", "recall", "precision", "IoU", "R@k", "MRR", "Ω"]
    rows = []
    for c in result.chunkers:
        a = c.score(k)
        mark = "*" if c.best else "=" if c.within_noise else " "
        rows.append([
            f"{mark} {c.label}", f"{c.chunks:,}", f"{c.mean_tokens:.0f}", _ci(a.recall),
            f"{a.precision.mean:.3f}", _ci(a.iou), f"{a.recall_at_k.mean:.3f}",
            f"{a.mrr.mean:.3f}", f"{c.precision_omega.mean:.3f}",
        ])  # fmt: skip
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(head, widths, strict=True))]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    title = (
        f"{len(result.questions)} questions over {result.documents} document(s), "
        f"{result.characters:,} characters; {result.retriever}; sizes in "
        f"{result.tokenizer} tokens; {k_name}"
    )
    return title + "\n" + "\n".join(lines) + "\n"


def plot(result: EvalResult, path: str) -> None:
    """Recall and IoU at the largest k against chunk size, one line per config family."""
    from .._support.optional import require

    require("matplotlib", "bench")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    k = max(result.k)
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    families: dict[str, list[tuple[int, float, float]]] = {}
    for c in result.chunkers:
        size: int = getattr(c.config, "max_tokens", 0) or getattr(c.config, "token_size", 0)
        a = c.score(k)
        families.setdefault(type(c.config).__name__, []).append((size, a.recall.mean, a.iou.mean))
    for name, points in families.items():
        points.sort()
        xs = [p[0] for p in points]
        axes[0].plot(xs, [p[1] for p in points], marker="o", label=name)
        axes[1].plot(xs, [p[2] for p in points], marker="o", label=name)
    for ax, what in zip(axes, ("recall", "IoU"), strict=True):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("chunk size (tokens)")
        ax.set_ylabel(f"{what} at k={k}")
        ax.legend(fontsize=8)
    fig.suptitle(f"{len(result.questions)} questions; {result.retriever}", fontsize=10)
    fig.tight_layout()
    save_figure(fig, path)


def main_eval(args: argparse.Namespace) -> int:
    ks = _ks(args.k)
    retriever = _retriever(args)
    tokenizer = tokenizer_of(args.tokenizer)
    need_plot(args.plot)  # before the documents are read and chunked
    try:
        documents = read_documents(args.paths, args.text_field)
    except Unreadable as exc:
        print(f"ferrochunk eval: cannot read {exc}", file=sys.stderr)
        return 2
    questions = read_questions(args.questions, documents)
    print(
        f"ferrochunk eval: {len(questions)} questions, {len(documents)} document(s)",
        file=sys.stderr,
    )
    result = evaluate(
        documents, questions, args.chunker, retriever=retriever, k=ks, index=args.index,
        token_metrics=args.token_metrics, tokenizer=tokenizer,
    )  # fmt: skip
    print(table(result), end="")
    print(LEGEND)
    if args.json:
        write_report(args.json, json.dumps(result.to_dict(), ensure_ascii=False) + "\n")
    if args.plot:
        plot(result, args.plot)
    return 0
