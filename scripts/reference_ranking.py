"""Whether extractive references choose and order their sentences by TextRank centrality.

For each article, the reference sentences found verbatim in it are the ones the reference chose,
in the reference's own order. Per ranking (document position, then centrality with each choice of words) this
prints the share of them among the article's top-ranked sentences (as many as the reference
has), and the mean Spearman correlation between their order in the reference and their rank
(articles where at least 3 were found).

    python scripts/reference_ranking.py --data ../shared/data/bbc-news/validation.jsonl
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from summarizer.text.centrality import WORD_PATTERNS, sentence_centrality
from summarizer.text.sentences import reference_sentences, split_sentences
from summarizer.training.data import load_documents

# Ranks of an article's sentences (0: first), from its sentences.
Ranking = Callable[[Sequence[str]], Sequence[float]]


class Article(NamedTuple):
    """An article's sentences and what its reference chose of them."""

    sentences: list[str]
    chosen: list[int]  # the reference's sentences found in the article, in the reference's order
    reference_size: int  # distinct reference sentences, found or not


def average_ranks(values: np.ndarray) -> np.ndarray:
    """0-based ranks of `values`, tied values sharing the mean of their ranks."""
    _, tie_group = np.unique(values, return_inverse=True)
    ranks = np.empty(len(values))
    ranks[np.argsort(values, kind="stable")] = np.arange(len(values))
    return (np.bincount(tie_group, ranks) / np.bincount(tie_group))[tie_group]


def agreement(articles: Sequence[Article], ranking: Ranking) -> tuple[float, float]:
    """(share of chosen sentences ranked in the top, mean Spearman of reference order and rank).

    The top holds `reference_size` sentences, ties broken towards the article's start; articles
    with fewer than 3 chosen sentences, or all of them tied, have no correlation.
    """
    found = top = 0
    correlations = []
    for article in articles:
        ranks = np.asarray(ranking(article.sentences), dtype=float)
        top_ranked = set(np.argsort(ranks, kind="stable")[: article.reference_size].tolist())
        found += len(article.chosen)
        top += len(top_ranked & set(article.chosen))
        ranks_of_chosen = ranks[article.chosen]
        if len(article.chosen) >= 3 and np.ptp(ranks_of_chosen) > 0:
            order = np.arange(len(article.chosen))
            correlations.append(np.corrcoef(order, average_ranks(ranks_of_chosen))[0, 1])
    return top / max(found, 1), float(np.mean(correlations)) if correlations else float("nan")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", required=True, help="a file or directory summarizer.evaluate reads")
    parser.add_argument("--language", default="english", help="Punkt language of the documents (default english)")
    args = parser.parse_args(argv)
    articles = []
    for document in load_documents(args.data).documents:
        sentences = document.sentences or split_sentences(document.text, args.language)
        position = {sentence.strip(): i for i, sentence in reversed(list(enumerate(sentences)))}
        reference = dict.fromkeys(line.strip() for line in reference_sentences(document.reference, args.language))
        chosen = [position[line] for line in reference if line in position]
        articles.append(Article(sentences, chosen, len(reference)))
    found = sum(len(article.chosen) for article in articles)
    total = sum(article.reference_size for article in articles)
    print(f"{args.data}: {len(articles)} articles; {found} of {total} reference sentences found verbatim")
    rankings: dict[str, Ranking] = {"document position": lambda sentences: range(len(sentences))}
    for words in WORD_PATTERNS:
        rankings[f"centrality, words as {words}"] = lambda sentences, words=words: [
            rank for _, rank in sentence_centrality(sentences, args.language, words)
        ]
    for name, ranking in rankings.items():
        share, correlation = agreement(articles, ranking)
        print(f"{name}: {share:.1%} of them in its top; reference order vs rank: Spearman {correlation:.2f}")


if __name__ == "__main__":
    main()
