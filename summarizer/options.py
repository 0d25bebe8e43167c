"""The options several commands share: which model runs and how (`summarize`, `summarize serve`,
`python -m summarizer.evaluate`), and how summaries are selected."""

from __future__ import annotations

import argparse

from summarizer.console import fraction, positive_int
from summarizer.runtime.backends import BACKENDS
from summarizer.runtime.precision import PRECISIONS
from summarizer.selection import ORDERS, SelectionConfig
from summarizer.text.sentences import LANGUAGE_CODES, punkt_language


def add_model_arguments(parser: argparse.ArgumentParser, precision: str = "auto") -> None:
    """--model, --batch-size, --device, --precision (default `precision`) and --backend: which
    model runs, and how."""
    parser.add_argument(
        "--model",
        help="a built-in model (news, the default, news-accurate or multilingual) or an exported model directory "
        "(default: $BERTSUM_MODEL_DIR, else news)",
    )
    parser.add_argument("--batch-size", type=positive_int, default=16, help="documents per model batch")
    parser.add_argument("--device", default="cpu", help="torch device, e.g. cpu or cuda (default cpu)")
    parser.add_argument(
        "--precision",
        choices=PRECISIONS,
        default=precision,
        help=f"auto (int8 where this CPU computes it fast, else fp32), fp32, bf16 or int8 (default {precision}; "
        "docs/benchmarks.md)",
    )
    parser.add_argument(
        "--backend",
        choices=BACKENDS,
        default="auto",
        help="onnx (ONNX Runtime: CPU, fp32 or int8), torch, or auto (default): onnx where the model has its graph",
    )


def language_code(value: str) -> str:
    """An argparse type: an ISO 639-1 code (or Punkt name) that `punkt_language` knows."""
    try:
        punkt_language(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"unknown language {value!r}; one of {', '.join(LANGUAGE_CODES)} (ISO 639-1 codes)"
        ) from None
    return value


def add_language_argument(parser: argparse.ArgumentParser, rows: bool = False) -> None:
    """--language: the documents' language (`rows`: of the rows whose `language` field names none)."""
    which, default = ("rows without a language field", "the model's") if rows else ("documents", "detected")
    parser.add_argument(
        "--language",
        type=language_code,
        metavar="CODE",
        help=f"read the {which} in this language, one of {', '.join(LANGUAGE_CODES)} (default: {default})",
    )


def add_selection_arguments(parser: argparse.ArgumentParser, summaries: bool) -> None:
    """-k or --ratio, and --trigram-blocking or --no-trigram-blocking; for `summaries` also --max-words and --order
    (evaluation compares systems at a sentence count, in document order)."""
    length = parser.add_mutually_exclusive_group()
    length.add_argument("-k", type=positive_int, default=3, help="sentences per summary (default 3)")
    length.add_argument("--ratio", type=fraction, help="fraction of each document's sentences, e.g. 0.3")
    if summaries:
        length.add_argument("--max-words", type=positive_int, help="at most this many words")
    blocking = parser.add_mutually_exclusive_group()
    blocking.add_argument(
        "--trigram-blocking",
        action="store_true",
        default=None,
        help="pass over a sentence that repeats a word trigram of one already chosen until every other is taken "
        "(default: as the model says; off for the built-in models)",
    )
    blocking.add_argument(
        "--no-trigram-blocking",
        action="store_false",
        dest="trigram_blocking",
        default=None,
        help="allow sentences that repeat a word trigram",
    )
    if summaries:
        parser.add_argument("--order", choices=ORDERS, default="document", help="sentence order in the summary")


def selection_from(args: argparse.Namespace) -> SelectionConfig:
    """The selection the arguments of `add_selection_arguments` ask for."""
    return SelectionConfig(
        k=args.k,
        ratio=args.ratio,
        max_words=getattr(args, "max_words", None),
        trigram_blocking=args.trigram_blocking,
        order=getattr(args, "order", "document"),
    )
