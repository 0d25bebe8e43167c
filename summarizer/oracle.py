"""Greedy ROUGE oracle labels (BERTSUM): pick sentences maximizing ROUGE-1 F1 + ROUGE-2 F1."""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import chain, count

import numpy as np

_WORD = re.compile(r"[^\W_]+")


def rouge_words(text: str) -> list[str]:
    """Case-folded runs of letters and digits, in any script.

    On ASCII text these are exactly the words rouge-score's tokenizer keeps (no stemming).
    """
    return _WORD.findall(text.casefold())


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
    to the earlier sentence. Instead of a union of n-gram sets per candidate, each step
    counts, per sentence, its n-grams that the selection already covers (one `bincount`).
    """
    n_sentences = len(sentence_words)
    if n_sentences == 0 or not reference_words or max_sentences < 1:
        return []
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
    n_slots = 4 * n_sentences
    counts = np.bincount(slots, minlength=n_slots).reshape(n_sentences, 4).astype(np.float64)
    covered_counts = np.zeros_like(counts)  # per sentence: its n-grams the selection has
    covered = np.zeros(len(in_reference), dtype=bool)
    totals = np.zeros(4)  # the selection's n-grams, in the same four slots

    selected: list[int] = []
    best_score = 0.0
    for _ in range(min(max_sentences, n_sentences)):
        union = totals + counts - covered_counts  # the selection plus each sentence
        overlap = union[:, 2:]
        precision = overlap / np.maximum(union[:, :2] + overlap, 1.0)  # no n-grams: no overlap
        recall = overlap / reference_counts
        f1 = 2.0 * ((precision * recall) / (precision + recall + 1e-8))
        scores = f1[:, 0] + f1[:, 1]
        # A selected sentence adds nothing, so it scores exactly best_score and is never
        # picked again: a pick must beat best_score.
        candidate = int(np.argmax(scores))
        if not scores[candidate] > best_score:
            break
        best_score = float(scores[candidate])
        selected.append(candidate)
        totals = union[candidate]
        covered[pair_column[pair_sentence == candidate]] = True
        covered_counts = np.bincount(slots[covered[pair_column]], minlength=n_slots).reshape(n_sentences, 4)
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


def oracle_labels(
    sentences: Sequence[str], reference: str | Sequence[str], max_sentences: int = 3
) -> list[int]:
    """0/1 label per sentence: 1 for the sentences `greedy_oracle` picks."""
    labels = [0] * len(sentences)
    for index in greedy_oracle(sentences, reference, max_sentences):
        labels[index] = 1
    return labels
