"""ROUGE-1/2/Lsum F1 with rouge-score (stemming; one sentence per line) and bootstrap intervals."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from rouge_score import rouge_scorer, tokenizers

from summarizer.text.words import rouge_words

METRICS = ("rouge1", "rouge2", "rougeLsum")
ENGLISH_LANGUAGES = ("english", "english_web")  # Punkt's two English models


@dataclass
class RougeResult:
    """Mean F1 (0-100) per metric, a 95% bootstrap interval for each, and per-document F1."""

    mean: dict[str, float]
    interval: dict[str, tuple[float, float]]
    per_document: dict[str, list[float]]


class WordTokenizer(tokenizers.Tokenizer):
    """rouge-score tokenizer for languages other than English: Unicode words, no stemming."""

    def tokenize(self, text: str) -> list[str]:
        return rouge_words(text)


def make_scorer(language: str = "english") -> rouge_scorer.RougeScorer:
    """rouge-score's own tokenizer with Porter stemming for English; Unicode words otherwise."""
    if language in ENGLISH_LANGUAGES:
        return rouge_scorer.RougeScorer(list(METRICS), use_stemmer=True)
    return rouge_scorer.RougeScorer(list(METRICS), tokenizer=WordTokenizer())


def rouge_per_document(
    predictions: Sequence[Sequence[str]],
    references: Sequence[Sequence[str]],
    language: str | Sequence[str] = "english",
) -> dict[str, list[float]]:
    """F1 (0-100) of each predicted sentence list against its reference sentence list, scored in
    `language` (a Punkt name), or in each document's (a sequence of them)."""
    if len(predictions) != len(references):
        raise ValueError(f"{len(predictions)} predictions but {len(references)} references")
    languages = [language] * len(predictions) if isinstance(language, str) else list(language)
    if len(languages) != len(predictions):
        raise ValueError(f"{len(predictions)} predictions but {len(languages)} languages")
    scorers = {name: make_scorer(name) for name in set(languages)}
    scores: dict[str, list[float]] = {m: [] for m in METRICS}
    for prediction, reference, name in zip(predictions, references, languages):
        result = scorers[name].score("\n".join(reference), "\n".join(prediction))
        for m in METRICS:
            scores[m].append(100.0 * result[m].fmeasure)
    return scores


def bootstrap_interval(values: Sequence[float], samples: int = 1000, seed: int = 0) -> tuple[float, float]:
    """95% percentile bootstrap interval of the mean."""
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        return (float("nan"), float("nan"))
    rng = np.random.default_rng(seed)
    means = data[rng.integers(0, data.size, size=(samples, data.size))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return (float(low), float(high))


def rouge(
    predictions: Sequence[Sequence[str]],
    references: Sequence[Sequence[str]],
    bootstrap_samples: int = 1000,
    language: str | Sequence[str] = "english",
) -> RougeResult:
    """Corpus ROUGE: means of per-document F1 (each scored in its language: `rouge_per_document`),
    with bootstrap intervals."""
    return rouge_result(rouge_per_document(predictions, references, language), bootstrap_samples)


def rouge_result(per_document: dict[str, list[float]], bootstrap_samples: int = 1000) -> RougeResult:
    """Means of per-document F1, with bootstrap intervals."""
    return RougeResult(
        mean={m: float(np.mean(v)) if v else 0.0 for m, v in per_document.items()},
        interval={m: bootstrap_interval(v, bootstrap_samples) for m, v in per_document.items()},
        per_document=per_document,
    )
