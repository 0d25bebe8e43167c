"""Lexical centrality of sentences (TextRank): how much of the document each sentence shares.

Two sentences are similar by the cosine of their content-word counts (stop words of the
`stopwords` package left out); PageRank over that similarity graph gives each sentence its
centrality. The model reads two numbers per sentence: `log(n * pagerank)` (0 for a sentence
of average centrality) and its centrality rank scaled to [0, 1] (0: the most central).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import numpy as np
import stopwords

from summarizer.oracle import rouge_words

FEATURES_PER_SENTENCE = 2
DAMPING = 0.85
_MAX_ITERATIONS = 200
_WORDS_PER_BLOCK = 1024
# Punkt language names that the stopwords package spells otherwise.
_STOPWORD_LANGUAGES = {"slovene": "slovenian", "english_web": "english"}


@functools.lru_cache(maxsize=None)
def stop_words(language: str) -> frozenset[str]:
    """The `stopwords` package's list for a Punkt language name (empty where it has none)."""
    name = _STOPWORD_LANGUAGES.get(language, language)
    if name not in stopwords.AVAILABLE_LANGUAGES:
        return frozenset()
    return frozenset(w for word in stopwords.get_stopwords(name) for w in rouge_words(word))


def pagerank(similarity: np.ndarray, damping: float = DAMPING, tolerance: float = 1e-10) -> np.ndarray:
    """PageRank of a weighted graph ([n, n], non-negative); a node without edges links to all."""
    n = similarity.shape[0]
    out_weight = similarity.sum(axis=1, keepdims=True)
    transition = np.divide(similarity, out_weight, out=np.full_like(similarity, 1.0 / n), where=out_weight > 0).T
    rank = np.full(n, 1.0 / n)
    for _ in range(_MAX_ITERATIONS):
        updated = (1 - damping) / n + damping * (transition @ rank)
        if np.abs(updated - rank).sum() < tolerance:
            return updated
        rank = updated
    return rank


def sentence_similarity(sentences: Sequence[str], language: str = "english") -> np.ndarray:
    """[n, n] cosine similarity of the sentences' content-word counts, 0 on the diagonal."""
    ignored = stop_words(language)
    vocabulary: dict[str, int] = {}
    rows, columns = [], []
    for row, sentence in enumerate(sentences):
        for word in rouge_words(sentence):
            if word not in ignored:
                rows.append(row)
                columns.append(vocabulary.setdefault(word, len(vocabulary)))
    n = len(sentences)
    row_ids, column_ids = np.asarray(rows, dtype=np.int64), np.asarray(columns, dtype=np.int64)
    products = np.zeros((n, n))
    # Word counts a block of words at a time, so that long documents stay in bounded memory.
    for first in range(0, len(vocabulary), _WORDS_PER_BLOCK):
        inside = (column_ids >= first) & (column_ids < first + _WORDS_PER_BLOCK)
        width = min(_WORDS_PER_BLOCK, len(vocabulary) - first)
        flat = row_ids[inside] * width + (column_ids[inside] - first)
        counts = np.bincount(flat, minlength=n * width).reshape(n, width).astype(np.float64)
        products += counts @ counts.T
    norms = np.sqrt(products.diagonal()).clip(min=1e-12)
    similarity = products / norms[:, None] / norms[None, :]
    np.fill_diagonal(similarity, 0.0)
    return similarity


def sentence_centrality(sentences: Sequence[str], language: str = "english") -> list[list[float]]:
    """`[log(n * pagerank), rank / (n - 1)]` for each sentence (rank 0: the most central)."""
    n = len(sentences)
    if n == 0:
        return []
    scores = pagerank(sentence_similarity(sentences, language))
    order = np.argsort(-scores, kind="stable")
    ranks = np.empty(n, dtype=np.float64)
    ranks[order] = np.arange(n) / max(n - 1, 1)
    return [[math.log(n * float(score)), float(rank)] for score, rank in zip(scores, ranks)]


def most_central(sentences: Sequence[str], count: int, language: str = "english") -> list[int]:
    """Indices (ascending) of the `count` most central sentences: the TextRank baseline."""
    ranks = [rank for _, rank in sentence_centrality(sentences, language)]
    return sorted(sorted(range(len(sentences)), key=ranks.__getitem__)[:count])
