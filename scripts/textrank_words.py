"""ROUGE of the TextRank baseline with each choice of what a word is (`centrality_words`), on one dataset.

"letters": runs of letters are words; "tokens": the letters of each whitespace-separated token
are one word (`summarizer.text.centrality`).

    python scripts/textrank_words.py --data ../shared/data/bbc-news/validation.jsonl --ratio 0.4
    python scripts/textrank_words.py --data aclsum --split test -k 3
"""

from __future__ import annotations

import argparse

from summarizer.selection import SelectionConfig
from summarizer.text.centrality import WORD_PATTERNS, most_central
from summarizer.text.sentences import reference_sentences, split_sentences
from summarizer.training.data import load_documents
from summarizer.training.rouge import METRICS, rouge


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", required=True, help="aclsum, or a file or directory summarizer.evaluate reads")
    parser.add_argument("--split", help="split of a dataset dictionary (aclsum: train, validation or test)")
    length = parser.add_mutually_exclusive_group()
    length.add_argument("-k", type=int, default=3, help="sentences per summary (default 3)")
    length.add_argument("--ratio", type=float, help="fraction of each document's sentences")
    parser.add_argument("--language", default="english", help="Punkt language of the documents (default english)")
    args = parser.parse_args(argv)
    selection = SelectionConfig(k=args.k, ratio=args.ratio)
    documents = load_documents(args.data, args.split).documents
    sentences = [document.sentences or split_sentences(document.text, args.language) for document in documents]
    references = [reference_sentences(document.reference, args.language) for document in documents]
    print(f"{args.data}: {len(documents)} documents; TextRank ROUGE F1 with 95% bootstrap intervals")
    for words in WORD_PATTERNS:
        chosen = [
            most_central(document, selection.sentence_budget(len(document)), args.language, words)
            for document in sentences
        ]
        summaries = [[document[i] for i in indices] for document, indices in zip(sentences, chosen)]
        result = rouge(summaries, references, language=args.language)
        scores = "  ".join(
            f"{m} {result.mean[m]:.2f} [{result.interval[m][0]:.2f}, {result.interval[m][1]:.2f}]" for m in METRICS
        )
        print(f"{words}: {scores}")


if __name__ == "__main__":
    main()
