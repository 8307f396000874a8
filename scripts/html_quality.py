"""``Html`` against an independent oracle: the words of each page's visible text as html5lib's
full tree builder (through BeautifulSoup) sees it, white space at the elements a browser's
default style breaks, beside the words of its chunks.

Run: ``make html-quality`` (``python scripts/html_quality.py [PAGES]``). Pages: the Rust
toolchain's HTML documentation (mdBook and rustdoc), else ``tests/data/html``. Prints word
recall and precision (multisets of ``\\w+`` words, the rendering's markers left out) and
the chunks over the cap. The oracle drops what ``docs/html.md`` drops.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benches"))

import bench_html
from bs4 import BeautifulSoup

import ferrochunk as fc

DROPPED = ("head", "script", "style", "template", "noscript", "svg", "iframe", "object")
DROPPED += ("embed", "noembed", "noframes", "nav", "title")
WORD = re.compile(r"\w+")
# Where a browser's default style breaks a line or a cell: the oracle joins inline text as
# it is and puts white space only there (CSS is applied by neither side).
_BREAKS = (
    "address article aside blockquote body caption center dd details dialog dir div dl dt",
    "fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 header hgroup hr html legend",
    "li listing main menu ol option p pre section summary table tbody td tfoot th thead tr",
    "ul xmp br",
)
BREAKS = " ".join(_BREAKS).split()


def oracle_words(page: str) -> Counter[str]:
    soup = BeautifulSoup(page, "html5lib")
    for tag in soup.find_all(DROPPED):
        tag.decompose()
    for tag in soup.find_all(attrs={"hidden": True}):
        tag.decompose()
    for tag in soup.find_all(BREAKS):
        tag.insert_before("\n")
        tag.append("\n")
    return Counter(WORD.findall(soup.get_text("")))


def chunk_words(page: str, config: fc.Html) -> tuple[Counter[str], int]:
    tok = fc.Tokenizer.from_name("cl100k")
    words: Counter[str] = Counter()
    over = 0
    for c in fc.chunk(page, config):
        words.update(WORD.findall(c.text))
        over += tok.count(c.metadata["context"] + c.text) > config.max_tokens
    return words, over


def main() -> None:
    limit = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    config = fc.Html(512)
    found = Counter[str]()
    expected = Counter[str]()
    over = pages = 0
    for path in bench_html._pages()[:limit]:
        page = path.read_text(encoding="utf-8", errors="replace")
        got, n_over = chunk_words(page, config)
        found += got
        expected += oracle_words(page)
        over += n_over
        pages += 1
    common = sum((found & expected).values())
    print(
        f"pages {pages}: word recall {common / max(1, sum(expected.values())):.4f}, "
        f"precision {common / max(1, sum(found.values())):.4f}, chunks over the cap {over}"
    )


if __name__ == "__main__":
    main()
