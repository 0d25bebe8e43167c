"""Greedy ROUGE oracle labels (BERTSUM): pick sentences maximizing ROUGE-1 F1 + ROUGE-2 F1."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain, count

import numpy as np

from summarizer.text.words import rouge_words


def greedy_oracle(sentences: Sequence[str], reference: str | Sequence[str], max_sentences: int = 3) -> list[int]:
    """Indices (ascending) of the sentences a greedy ROUGE search picks against `reference`.

    `reference` is a string or a list of sentences. See `greedy_oracle_words`.
    """
    return greedy_oracle_words([rouge_words(s) for s in sentences], _reference_words(reference), max_sentences)


def _reference_words(reference: str | Sequence[str]) -> list[str]:
    """The words of a reference given as a string or a list of sentences."""
    sentences = [reference] if isinstance(reference, str) else reference
    return [w for sentence in sentences for w in rouge_words(sentence)]


def greedy_oracle_words(
    sentence_words: Sequence[Sequence[str]], reference_words: Sequence[str], max_sentences: int = 3
) -> list[int]:
    """Greedy oracle over words already split by `rouge_words`.

    Each step adds the sentence that most raises ROUGE-1 F1 + ROUGE-2 F1 of the selection,
    counted on n-gram sets as in BERTSUM (bigrams do not cross sentence boundaries of the
    document); it stops after `max_sentences` or when no sentence raises the score. Ties go
    to the earlier sentence. Instead of a union of n-gram sets per candidate, each step
    counts, per sentence, its n-grams that the selection already covers (one `bincount`).
    """
    if max_sentences < 1:
        return []
    table = _NgramTable.build(sentence_words, reference_words)
    return [] if table is None else table.greedy_selection(max_sentences)


@dataclass(frozen=True)
class _NgramTable:
    """The distinct n-grams of each sentence, sorted by kind: unigram or bigram, outside or
    inside the reference."""

    counts: np.ndarray  # [sentences, 4]: how many of each kind
    reference_counts: np.ndarray  # [2]: the reference's distinct unigrams and bigrams
    slots: np.ndarray  # per (sentence, n-gram) pair: sentence * 4 + kind
    pair_sentence: np.ndarray
    pair_column: np.ndarray  # the pair's n-gram, numbered over all distinct n-grams
    n_columns: int

    @classmethod
    def build(cls, sentence_words: Sequence[Sequence[str]], reference_words: Sequence[str]) -> _NgramTable | None:
        """The table of a document, or None when the document or the reference has no words."""
        n_sentences = len(sentence_words)
        if n_sentences == 0 or not reference_words:
            return None
        lengths = np.fromiter(map(len, sentence_words), dtype=np.int64, count=n_sentences)
        word_ids, reference_ids = word_ids_of(sentence_words, reference_words)
        n_ids = len(word_ids) + len(reference_ids)
        sentence_of_word = np.repeat(np.arange(n_sentences), lengths)
        inside = sentence_of_word[:-1] == sentence_of_word[1:]
        # Every n-gram occurrence as key * owners + owner, where unigram keys are word ids,
        # bigram keys are >= n_ids, and the owner is a sentence or the reference (n_sentences).
        owners = n_sentences + 1
        codes = np.sort(
            np.concatenate(
                [
                    word_ids * owners + sentence_of_word,
                    (_bigram_keys(word_ids, n_ids) * owners + sentence_of_word[:-1])[inside],
                    reference_ids * owners + n_sentences,
                    _bigram_keys(reference_ids, n_ids) * owners + n_sentences,
                ]
            )
        )
        codes = codes[np.concatenate(([True], codes[1:] != codes[:-1]))]  # each n-gram once per owner
        keys, owner = np.divmod(codes, owners)
        column = np.cumsum(np.concatenate(([False], keys[1:] != keys[:-1])))  # distinct n-grams
        is_bigram = (keys >= n_ids).astype(np.int64)
        of_reference = owner == n_sentences
        in_reference = np.zeros(int(column[-1]) + 1, dtype=bool)
        in_reference[column[of_reference]] = True
        reference_counts = np.maximum(np.bincount(is_bigram[of_reference], minlength=2), 1).astype(np.float64)
        # (sentence, n-gram) pairs, each counted in one of four slots per sentence: unigram or
        # bigram, outside or inside the reference.
        of_document = ~of_reference
        pair_sentence, pair_column = owner[of_document], column[of_document]
        slots = pair_sentence * 4 + is_bigram[of_document] + 2 * in_reference[pair_column]
        counts = np.bincount(slots, minlength=4 * n_sentences).reshape(n_sentences, 4).astype(np.float64)
        return cls(counts, reference_counts, slots, pair_sentence, pair_column, len(in_reference))

    def scores(self, union: np.ndarray) -> np.ndarray:
        """ROUGE-1 F1 + ROUGE-2 F1 of each row of n-gram counts (laid out as `counts`)."""
        overlap = union[:, 2:]
        precision = overlap / np.maximum(union[:, :2] + overlap, 1.0)  # no n-grams: no overlap
        recall = overlap / self.reference_counts
        f1 = 2.0 * ((precision * recall) / (precision + recall + 1e-8))
        return f1[:, 0] + f1[:, 1]

    def greedy_selection(self, max_sentences: int) -> list[int]:
        """Indices (ascending) of the greedy oracle's picks; see `greedy_oracle_words`."""
        n_sentences, n_slots = len(self.counts), self.counts.size
        covered_counts = np.zeros_like(self.counts)  # per sentence: its n-grams the selection has
        covered = np.zeros(self.n_columns, dtype=bool)
        totals = np.zeros(4)  # the selection's n-grams, in the same four slots
        selected: list[int] = []
        best_score = 0.0
        for _ in range(min(max_sentences, n_sentences)):
            union = totals + self.counts - covered_counts  # the selection plus each sentence
            scores = self.scores(union)
            # A selected sentence adds nothing, so it scores exactly best_score and is never
            # picked again: a pick must beat best_score.
            candidate = int(np.argmax(scores))
            if not scores[candidate] > best_score:
                break
            best_score = float(scores[candidate])
            selected.append(candidate)
            totals = union[candidate]
            covered[self.pair_column[self.pair_sentence == candidate]] = True
            covered_counts = np.bincount(self.slots[covered[self.pair_column]], minlength=n_slots).reshape(
                n_sentences, 4
            )
        return sorted(selected)


def word_ids_of(
    sentence_words: Sequence[Sequence[str]], reference_words: Sequence[str]
) -> tuple[np.ndarray, np.ndarray]:
    """An id per word of the document (in order) and of the reference: equal words, equal ids.

    A word's id is the position of its first occurrence in the document, then the reference.
    """
    n_words = sum(map(len, sentence_words))
    first_seen: dict[str, int] = {}
    words = chain.from_iterable(sentence_words)
    word_ids = np.fromiter(map(first_seen.setdefault, words, count()), dtype=np.int64, count=n_words)
    reference_ids = np.fromiter(
        map(first_seen.setdefault, reference_words, count(n_words)),
        dtype=np.int64,
        count=len(reference_words),
    )
    return word_ids, reference_ids


def _bigram_keys(ids: np.ndarray, n_ids: int) -> np.ndarray:
    """Key of each pair of neighbouring ids, from n_ids up (above every unigram key)."""
    return (ids[:-1] + 1) * n_ids + ids[1:]


def oracle_targets(sentences: Sequence[str], reference: str | Sequence[str], max_sentences: int = 3) -> list[float]:
    """Training target per sentence: 1 for the sentences `greedy_oracle` picks, 0 for the others."""
    table = _NgramTable.build([rouge_words(s) for s in sentences], _reference_words(reference))
    targets = [0.0] * len(sentences)
    if table is None or max_sentences < 1:
        return targets
    for index in table.greedy_selection(max_sentences):
        targets[index] = 1.0
    return targets
