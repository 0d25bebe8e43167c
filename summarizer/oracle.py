"""Greedy ROUGE oracle labels (BERTSUM): pick sentences maximizing ROUGE-1 F1 + ROUGE-2 F1."""

from __future__ import annotations

import re
from itertools import chain, count
from collections.abc import Sequence

import numpy as np

_NON_ALNUM = re.compile(r"[^a-z0-9]+")


def rouge_words(text: str) -> list[str]:
    """Lower-cased alphanumeric words, as rouge-score tokenizes without stemming."""
    return _NON_ALNUM.sub(" ", text.lower()).split()


def greedy_oracle(
    sentences: Sequence[str], reference: str | Sequence[str], max_sentences: int = 3
) -> list[int]:
    """Indices (ascending) of the sentences a greedy ROUGE search picks against `reference`.

    `reference` is a string or a list of sentences. See `greedy_oracle_words`.
    """
    if isinstance(reference, str):
        reference = [reference]
    reference_words = [w for sentence in reference for w in rouge_words(sentence)]
    return greedy_oracle_words([rouge_words(s) for s in sentences], reference_words, max_sentences)


def greedy_oracle_words(
    sentence_words: Sequence[Sequence[str]], reference_words: Sequence[str], max_sentences: int = 3
) -> list[int]:
    """Greedy oracle over words already split by `rouge_words`.

    Each step adds the sentence that most raises ROUGE-1 F1 + ROUGE-2 F1 of the selection,
    counted on n-gram sets as in BERTSUM (bigrams do not cross sentence boundaries of the
    document); it stops after `max_sentences` or when no sentence raises the score. Ties go
    to the earlier sentence. Each step is one pass over a sentence-by-n-gram matrix with
    running counts of the selection's n-grams, never a union recomputed per candidate.
    """
    n_sentences = len(sentence_words)
    if n_sentences == 0 or not reference_words or max_sentences < 1:
        return []
    words = list(chain.from_iterable(sentence_words))
    vocabulary = dict(zip(dict.fromkeys(chain(words, reference_words)), count()))
    word_ids = np.fromiter(map(vocabulary.__getitem__, words), dtype=np.int64, count=len(words))
    reference_ids = np.fromiter(
        map(vocabulary.__getitem__, reference_words), dtype=np.int64, count=len(reference_words)
    )
    n_words = len(vocabulary)
    lengths = np.fromiter(map(len, sentence_words), dtype=np.int64, count=n_sentences)
    sentence_of_word = np.repeat(np.arange(n_sentences), lengths)
    same_sentence = sentence_of_word[:-1] == sentence_of_word[1:]
    # Unigram columns are word ids; bigram columns are the distinct bigram codes.
    bigram_codes = (word_ids[:-1] * n_words + word_ids[1:])[same_sentence]
    reference_bigrams = reference_ids[:-1] * n_words + reference_ids[1:]
    bigrams, column_of = np.unique(np.concatenate([bigram_codes, reference_bigrams]), return_inverse=True)
    tables = []
    for n_columns, rows, columns, reference_columns in (
        (n_words, sentence_of_word, word_ids, reference_ids),
        (
            len(bigrams),
            sentence_of_word[:-1][same_sentence],
            column_of[: len(bigram_codes)],
            column_of[len(bigram_codes) :],
        ),
    ):
        incidence = np.zeros((n_sentences, n_columns), dtype=np.float32)
        incidence[rows, columns] = 1.0
        in_reference = np.zeros(n_columns, dtype=np.float32)
        in_reference[reference_columns] = 1.0
        tables.append(_NgramTable(incidence, in_reference))

    selected: list[int] = []
    best_score = 0.0
    for _ in range(min(max_sentences, n_sentences)):
        scores = tables[0].f1_with_each() + tables[1].f1_with_each()
        scores[selected] = -np.inf
        candidate = int(np.argmax(scores))
        if not scores[candidate] > best_score:
            break
        best_score = float(scores[candidate])
        selected.append(candidate)
        for table in tables:
            table.add(candidate)
    return sorted(selected)


class _NgramTable:
    """Running n-gram counts of a selection against every candidate sentence.

    With S the selection's n-gram set, R the reference's and c a candidate's:
    |S ∪ c| = |S| + |c| - |S ∩ c| and |(S ∪ c) ∩ R| = |S ∩ R| + |c ∩ R| - |S ∩ c ∩ R|;
    the per-candidate intersections with S are kept up to date as sentences are added.
    """

    def __init__(self, incidence: np.ndarray, in_reference: np.ndarray) -> None:
        self.incidence = incidence
        self.in_reference = in_reference
        self.reference_count = float(in_reference.sum())
        self.covered = np.zeros(incidence.shape[1], dtype=np.float32)
        self.sizes = incidence.sum(axis=1, dtype=np.float64)
        self.hits = (incidence @ in_reference).astype(np.float64)
        self.selected_size = 0.0
        self.selected_hits = 0.0
        self.shared = np.zeros(incidence.shape[0])
        self.shared_hits = np.zeros(incidence.shape[0])

    def f1_with_each(self) -> np.ndarray:
        """ROUGE-N F1 (BERTSUM's formula) of the selection plus each sentence."""
        evaluated = self.selected_size + self.sizes - self.shared
        overlap = self.selected_hits + self.hits - self.shared_hits
        precision = overlap / np.maximum(evaluated, 1.0)  # no n-grams: no overlap either
        recall = overlap / self.reference_count if self.reference_count else np.zeros_like(overlap)
        return 2.0 * ((precision * recall) / (precision + recall + 1e-8))

    def add(self, sentence: int) -> None:
        new = self.incidence[sentence] * (1.0 - self.covered)
        new_hits = new * self.in_reference
        self.covered += new
        self.selected_size += float(new.sum())
        self.selected_hits += float(new_hits.sum())
        self.shared += self.incidence @ new
        self.shared_hits += self.incidence @ new_hits


def oracle_labels(
    sentences: Sequence[str], reference: str | Sequence[str], max_sentences: int = 3
) -> list[int]:
    """0/1 label per sentence: 1 for the sentences `greedy_oracle` picks."""
    labels = [0] * len(sentences)
    for index in greedy_oracle(sentences, reference, max_sentences):
        labels[index] = 1
    return labels
