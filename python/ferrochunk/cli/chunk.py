"""``ferrochunk chunk``'s arguments, and the config and tokenizer they build (the run is
``chunk_run``, its reports ``reports``)."""

from __future__ import annotations

import argparse
import sys
from importlib import resources
from pathlib import Path
from typing import Any

from ..config import (
    CleanRules,
    Code,
    Config,
    DelimiterMerge,
    Html,
    Markdown,
    ParentChild,
    Recursive,
    SentenceWindows,
    TokenWindows,
)
from ..errors import FerrochunkError
from ..rules import CHUNKERS, config_from_mapping
from ..tokenizers import Tokenizer
from .sink import FORMATS

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

# Each chunker's own options (the dest names); anything else given is an error.
OPTIONS = {
    "windows": {"overlap_tokens"},
    "recursive": {"overlap_tokens", "fixed_separator", "separator"},
    "delimiter": {
        "delimiter",
        "hard_delimiter",
        "child_delimiter",
        "strategy",
        "overlap_percent",
        "joiner",
    },
    "sentence": {"safety_margin", "overlap_ratio"},
    "markdown": {"overlap_tokens", "no_context"},
    "code": {"overlap_tokens", "no_context", "language"},
    "html": {"overlap_tokens"},
    "parent-child": {
        "overlap_tokens",
        "parent",
        "child_max_tokens",
        "child_overlap_tokens",
        "separator",
    },
}
ALL_OPTIONS = set().union(*OPTIONS.values())


def unescape(value: str) -> str:
    r"""``\n``, ``\t``, ``\r`` and ``\\`` as typed on a command line."""
    out, i = [], 0
    while i < len(value):
        if value[i] == "\\" and i + 1 < len(value) and value[i + 1] in "ntr\\":
            out.append({"n": "\n", "t": "\t", "r": "\r", "\\": "\\"}[value[i + 1]])
            i += 2
        else:
            out.append(value[i])
            i += 1
    return "".join(out)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "paths",
        nargs="*",
        help="files, folders or - for stdin (default: the bundled "
        "sample); *.jsonl and *.parquet files are read as records",
    )
    add_chunker_arguments(p)
    add_input_arguments(p)
    add_output_arguments(p)
    run = p.add_argument_group("run")
    run.add_argument("--threads", type=int, help="threads for the core (default: every core)")
    engine = run.add_mutually_exclusive_group()
    engine.add_argument(
        "--ray",
        nargs="?",
        const="local",
        metavar="ADDRESS",
        help="run through Ray Data (a cluster address, or a local Ray)",
    )
    engine.add_argument(
        "--spark",
        nargs="?",
        const="local[*]",
        metavar="MASTER",
        help="run on Spark (a master URL such as spark://host:7077; default local[*]) and "
        "write a folder of part files to -o FOLDER",
    )
    engine.add_argument(
        "--dask",
        nargs="?",
        const="local",
        metavar="ADDRESS",
        help="run on Dask (a scheduler address; default a local cluster of --threads "
        "workers) and write a folder of part files to -o FOLDER",
    )
    run.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="show a progress bar (default: on a terminal)",
    )


def add_chunker_arguments(p: argparse.ArgumentParser) -> None:
    """The config and tokenizer options (``build_config``, ``tokenizer_of``)."""
    how = p.add_argument_group("chunker")
    how.add_argument(
        "--chunker",
        choices=CHUNKERS,
        default="recursive",
        help="the native config (default: recursive)",
    )
    how.add_argument(
        "--config",
        metavar="FILE",
        help="a TOML or JSON file with a native config "
        "(with 'chunker'), a Dify process_rule or a RAGFlow parser_config",
    )
    how.add_argument(
        "--max-tokens",
        type=int,
        default=512,
        help="token budget of a chunk (a parent for parent-child); default 512",
    )
    how.add_argument(
        "--overlap-tokens",
        type=int,
        help="windows, recursive, parent-child, markdown, code: tokens "
        "repeated from the previous chunk (default 0)",
    )
    how.add_argument(
        "--no-context",
        action="store_const",
        const=True,
        help="markdown, code: no heading or scope context; the cap counts the text alone",
    )
    how.add_argument(
        "--language",
        metavar="NAME|auto",
        help="code: the tree-sitter grammar (python, rust, tsx, ... or module:function); "
        "auto (the default) picks it by each file's extension and skips other files",
    )
    how.add_argument(
        "--separator",
        action="append",
        help=r"recursive: a separator, in order "
        r"(repeat; escapes like \n work); default: \n\n \n 。 '. ' ' ' ''",
    )
    how.add_argument("--fixed-separator", help="recursive: cut segments here first")
    how.add_argument(
        "--delimiter",
        action="append",
        help=r"delimiter: a soft delimiter (repeat); default: \n 。 ； ！ ？",
    )
    how.add_argument("--hard-delimiter", action="append", help="delimiter: a hard delimiter")
    how.add_argument("--child-delimiter", action="append", help="delimiter: a child delimiter")
    how.add_argument(
        "--strategy",
        choices=["over_cap", "under_cap"],
        help="delimiter: merge strategy (default over_cap)",
    )
    how.add_argument("--overlap-percent", type=float, help="delimiter: overlap percentage")
    how.add_argument(
        "--joiner",
        help="delimiter: text between the pieces of a chunk (default: a newline when a "
        "delimiter holds a line break, else a space)",
    )
    how.add_argument("--safety-margin", type=float, help="sentence: share of max-tokens used")
    how.add_argument("--overlap-ratio", type=float, help="sentence: overlap share of max-tokens")
    how.add_argument(
        "--parent",
        choices=["paragraph", "full-doc"],
        help="parent-child: parents (default paragraph)",
    )
    how.add_argument("--child-max-tokens", type=int, help="parent-child: child budget (128)")
    how.add_argument("--child-overlap-tokens", type=int, help="parent-child: child overlap (0)")
    how.add_argument(
        "--tokenizer",
        default="cl100k",
        metavar="NAME|FILE",
        help="cl100k (default), o200k, or a model's tokenizer.json (run natively; chunks "
        "leave room for the special tokens the model adds)",
    )


def add_input_arguments(p: argparse.ArgumentParser) -> None:
    src = p.add_argument_group("input")
    src.add_argument("--glob", default="*", help="file name pattern inside folders (default *)")
    src.add_argument(
        "--encoding",
        default="utf-8",
        help="encoding of text files (utf-8); with --chunker html, pages are sniffed "
        "unless another encoding is given",
    )
    src.add_argument("--text-field", default="text", help="records: the text field (text)")
    src.add_argument("--id-field", help="records: the id field (default: the record number)")


def add_output_arguments(p: argparse.ArgumentParser) -> None:
    out = p.add_argument_group("output")
    out.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write here instead of stdout; a .parquet name writes Parquet. A regular file "
        "(or one a symlink names) is replaced atomically, keeping its mode and owner; a "
        "mounted file, /dev/null, a terminal, a FIFO or /dev/stdout, /dev/fd/N is written "
        "directly. A run that reads nothing leaves it as it was",
    )
    out.add_argument("--format", choices=FORMATS, help="jsonl (default) or parquet")
    out.add_argument(
        "--force",
        action="store_true",
        help="write -o even where that could hurt: a device other than /dev/null or a "
        "terminal, a read-only file, or a file with other hard links (they keep the old data)",
    )


def _load_config_file(path: str) -> Any:
    raw = Path(path).read_bytes()
    if path.endswith(".toml"):
        return tomllib.loads(raw.decode("utf-8"))
    import json

    return json.loads(raw)


def build_config(args: argparse.Namespace) -> tuple[Config, CleanRules | None]:
    given = {name for name in ALL_OPTIONS if getattr(args, name) is not None}
    if args.config is not None:
        if given:
            raise FerrochunkError(
                f"--{sorted(given)[0].replace('_', '-')} cannot be combined with --config"
            )
        return config_from_mapping(_load_config_file(args.config))
    wrong = given - OPTIONS[args.chunker]
    if wrong:
        flag = "--" + sorted(wrong)[0].replace("_", "-")
        raise FerrochunkError(f"{flag} does not apply to --chunker {args.chunker}")
    seps = [unescape(s) for s in args.separator] if args.separator else None
    overlap = args.overlap_tokens or 0
    if args.chunker == "windows":
        return TokenWindows(args.max_tokens, overlap_tokens=overlap), None
    if args.chunker == "recursive":
        extra: dict[str, Any] = {"separators": seps} if seps is not None else {}
        fixed = None if args.fixed_separator is None else unescape(args.fixed_separator)
        return Recursive(
            args.max_tokens, overlap_tokens=overlap, fixed_separator=fixed, **extra
        ), None
    if args.chunker == "delimiter":
        kwargs: dict[str, Any] = {}
        for flag, field in (
            ("delimiter", "delimiters"),
            ("hard_delimiter", "hard_delimiters"),
            ("child_delimiter", "child_delimiters"),
        ):
            values = getattr(args, flag)
            if values is not None:
                kwargs[field] = tuple(unescape(v) for v in values)
        if args.strategy is not None:
            kwargs["strategy"] = args.strategy
        if args.overlap_percent is not None:
            kwargs["overlap"] = args.overlap_percent
        if args.joiner is not None:
            kwargs["joiner"] = unescape(args.joiner)
        return DelimiterMerge(args.max_tokens, **kwargs), None
    if args.chunker == "markdown":
        return Markdown(args.max_tokens, overlap_tokens=overlap, context=not args.no_context), None
    if args.chunker == "html":
        return Html(args.max_tokens, overlap_tokens=overlap), None
    if args.chunker == "code":
        return Code(
            args.max_tokens,
            language=args.language,
            overlap_tokens=overlap,
            context=not args.no_context,
        ), None
    if args.chunker == "sentence":
        kwargs = {
            k: getattr(args, k)
            for k in ("safety_margin", "overlap_ratio")
            if getattr(args, k) is not None
        }
        return SentenceWindows(args.max_tokens, **kwargs), None
    extra = {"separators": seps} if seps is not None else {}
    child = Recursive(
        args.child_max_tokens or 128, overlap_tokens=args.child_overlap_tokens or 0, **extra
    )
    parent: Recursive | str = (
        "full-doc"
        if args.parent == "full-doc"
        else Recursive(args.max_tokens, overlap_tokens=overlap, **extra)
    )
    return ParentChild(parent, child=child), None


def _sample() -> Path:
    return Path(str(resources.files("ferrochunk") / "data" / "sample.md"))


def tokenizer_of(value: str) -> Tokenizer:
    """``--tokenizer``: an embedded encoding's name, or a path to a ``tokenizer.json``."""
    if value in ("cl100k", "o200k", "cl100k_base", "o200k_base"):
        return Tokenizer.from_name(value)
    if not Path(value).is_file():
        raise FerrochunkError(
            f"--tokenizer must be cl100k, o200k or a tokenizer.json file, got {value!r}"
        )
    return Tokenizer.from_file(value)
