"""Two models on the same documents: the ROUGE F1 of each and a 95% paired bootstrap interval of
their difference (the mean over documents of the per-document differences, resampled by
document), which tells a change from the luck of which documents were drawn far more sharply
than the two models' own intervals side by side.

    python scripts/compare_models.py --model runs/cnndm/model --against news \
        --data ../shared/data/cnndm/validation.jsonl --split 300: -k 3

Takes `python -m summarizer.evaluate`'s options (data and its fields, split, limit, selection,
backend, precision, --json); `--against` is the second model (default: `news`), read with the
same backend and precision unless `--against-precision` names another, which compares a model
at two precisions:

    python scripts/compare_models.py --model news --precision int8 --against news \
        --against-precision fp32 --data aclsum --split test -k 3

Bad arguments, models or data: one line and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from summarizer import console, options
from summarizer.pipeline import Summarizer
from summarizer.runtime.precision import PRECISIONS
from summarizer.training.data import Example
from summarizer.training.evaluate import build_parser, check_data_options, read_documents, summarize_documents
from summarizer.training.rouge import METRICS, bootstrap_interval, rouge_per_document


def per_document_f1(
    summarizer: Summarizer, args: argparse.Namespace, documents: list[Example]
) -> dict[str, list[float]]:
    selection = options.selection_from(args)
    _, references, summaries = summarize_documents(summarizer, documents, selection, args.batch_size)
    return rouge_per_document([summary.sentences for summary in summaries], references, summarizer.language)


def run(args: argparse.Namespace) -> int:
    check_data_options(args)
    documents = read_documents(args, report)
    sides = [(args.model or "news", args.precision), (args.against, args.against_precision or args.precision)]
    # Both loaded before either summarizes, so that a model or precision that cannot be had
    # stops the run at once.
    summarizers = [
        Summarizer.from_pretrained(model, device=args.device, precision=precision, backend=args.backend)
        for model, precision in sides
    ]
    scores = [per_document_f1(summarizer, args, documents) for summarizer in summarizers]
    names = [model if sides[0][1] == sides[1][1] else f"{model} ({precision})" for model, precision in sides]
    if names[0] == names[1]:  # a model against itself: its two runs apart
        names = [f"{names[0]} (1)", f"{names[1]} (2)"]
    rows = {}
    for metric in METRICS:
        difference = np.subtract(scores[0][metric], scores[1][metric])
        low, high = bootstrap_interval(difference)
        means = [float(np.mean(each[metric])) for each in scores]
        rows[metric] = {names[0]: means[0], names[1]: means[1], "difference": float(np.mean(difference))}
        rows[metric] |= {"low": low, "high": high}
    if args.json:
        print(
            json.dumps(
                {
                    "data": args.data,
                    "split": args.split,
                    "documents": len(documents),
                    "precisions": dict(zip(names, (precision for _, precision in sides), strict=True)),
                    "rouge": rows,
                },
                indent=2,
            )
        )
        return 0
    print(f"{args.data}{f' ({args.split})' if args.split else ''}: {len(documents)} documents")
    width = max(len(name) for name in names) + 2
    print(f"{'':12}{names[0]:>{width}}{names[1]:>{width}}{'difference [95% paired]':>36}")
    for metric, row in rows.items():
        print(
            f"{metric:12}{row[names[0]]:{width}.2f}{row[names[1]]:{width}.2f}"
            f"{row['difference']:+18.2f} [{row['low']:+.2f}, {row['high']:+.2f}]"
        )
    return 0


def report(message: str) -> None:
    print(f"compare_models: {message}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser(yardstick=False)
    parser.prog = "python scripts/compare_models.py"
    parser.add_argument("--against", default="news", help="the model to compare with (default: news)")
    parser.add_argument(
        "--against-precision",
        choices=PRECISIONS,
        help="the second model's precision (default: --precision's)",
    )
    return console.run_command(parser, argv, run, report)


if __name__ == "__main__":
    sys.exit(main())
