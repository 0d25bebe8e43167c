"""Two models on the same documents: the ROUGE F1 of each and a 95% paired bootstrap interval of
their difference (the mean over documents of the per-document differences, resampled by
document), which tells a change from the luck of which documents were drawn far more sharply
than the two models' own intervals side by side.

    python scripts/compare_models.py --model runs/cnndm/model --against news \
        --data ../shared/data/cnndm/validation.jsonl --split 300: -k 3

Takes `python -m summarizer.evaluate`'s options (data, split, selection, backend, precision);
`--against` is the second model (default: `news`), read with the same backend and precision.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict

import numpy as np

from summarizer.cli import arguments
from summarizer.modeling.pipeline import Summarizer
from summarizer.text.sentences import reference_sentences
from summarizer.training.data import load_documents
from summarizer.training.evaluate import build_parser
from summarizer.training.rouge import METRICS, bootstrap_interval, rouge_per_document


def per_document_f1(model: str | None, args: argparse.Namespace, documents: list) -> dict[str, list[float]]:
    summarizer = Summarizer.from_pretrained(model, device=args.device, precision=args.precision, backend=args.backend)
    sentences = [document.sentences or summarizer.sentences(document.text) for document in documents]
    references = [reference_sentences(document.reference, summarizer.language) for document in documents]
    selection = arguments.selection_from(args)
    summaries = summarizer.summarize_batch(sentences, args.batch_size, **asdict(selection))
    return rouge_per_document([summary.sentences for summary in summaries], references, summarizer.language)


def main() -> int:
    parser = build_parser()
    parser.prog = "python scripts/compare_models.py"
    parser.add_argument("--against", default="news", help="the model to compare with (default: news)")
    args = parser.parse_args()
    documents = load_documents(args.data, args.split).documents[: args.limit]
    first = per_document_f1(args.model, args, documents)
    second = per_document_f1(args.against, args, documents)
    print(f"{args.data}{f' ({args.split})' if args.split else ''}: {len(documents)} documents")
    print(f"{'':12}{args.model or 'news':>24}{args.against:>24}{'difference [95% paired]':>36}")
    for metric in METRICS:
        difference = np.subtract(first[metric], second[metric])
        low, high = bootstrap_interval(difference)
        print(
            f"{metric:12}{np.mean(first[metric]):24.2f}{np.mean(second[metric]):24.2f}"
            f"{np.mean(difference):+18.2f} [{low:+.2f}, {high:+.2f}]"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
