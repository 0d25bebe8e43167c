"""A summary-level ranker: of a document's best-scored sentences, the combination that makes the best
summary, by a linear score over features of the whole combination.

A model's `config.json` may hold one (`RankerConfig`, numbers only: its features by name, their
standardization and weights; nothing in it is executed). `summarizer.selection` asks it for
the best of the `k`-sentence combinations of the `candidates` best-scored sentences where a
summary has a fixed number of sentences. The features need only the model's sentence scores and
the sentences' words, no second encoder pass:

- `score_sum`, `logit_sum`, `score_min`: the sum, the summed logits and the minimum of the
  sentences' scores;
- `document_cosine`: the cosine between the combination's content-word counts and the
  document's (stop words left out, words spelled as `words`, as lexical centrality spells them);
- `pair_overlap`: the mean, over pairs of its sentences, of the content words they share over the
  smaller sentence's (0 for one sentence): redundancy;
- `first_sentence`: 1 if it holds the document's first sentence; `position`: the mean index of
  its sentences over the document's number of sentences; `log_words`: the log of its number of
  words (between spaces).

The ranker of `news` was fitted on DailyMail training articles its second stage never read
(docs/research.md, "A summary-level ranker over the top five sentences").
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from summarizer.errors import SettingError, check
from summarizer.text.centrality import DEFAULT_WORDS, check_words, linking_words

FEATURES = (
    "score_sum",
    "logit_sum",
    "score_min",
    "document_cosine",
    "pair_overlap",
    "first_sentence",
    "position",
    "log_words",
)
EPSILON = 1e-9  # keeps a logit finite for a score of 0 or 1
# At most this many candidates: a summary weighs up to C(10, 5) = 252 combinations, so that no
# config.json can make selection take longer than the model's scoring.
MAX_CANDIDATES = 10


@dataclass(frozen=True)
class RankerConfig:
    """features: names from FEATURES, each once; mean, std: their standardization; weights: the
    linear score of the standardized features (all four the same length). candidates: how many
    of the best-scored sentences the combinations are drawn from. lengths: the numbers of
    sentences (`-k`) of summaries it chooses (fewer than `candidates`); others are selected by
    score. words: how the content words are spelled (`summarizer.text.centrality`)."""

    features: tuple[str, ...]
    mean: tuple[float, ...]
    std: tuple[float, ...]
    weights: tuple[float, ...]
    candidates: int = 5
    lengths: tuple[int, ...] = (3,)
    words: str = DEFAULT_WORDS

    def __post_init__(self) -> None:
        for name in ("features", "mean", "std", "weights", "lengths"):
            value = getattr(self, name)
            check(isinstance(value, (list, tuple)), f"ranker.{name}", f"must be a list, got {value!r}")
            object.__setattr__(self, name, tuple(value))
        check(bool(self.features), "ranker.features", "must name at least one feature")
        for name in self.features:
            check(name in FEATURES, "ranker.features", f"must be among {', '.join(FEATURES)}, got {name!r}")
        check(len(set(self.features)) == len(self.features), "ranker.features", "must name each feature once")
        for name in ("mean", "std", "weights"):
            values = getattr(self, name)
            check(
                len(values) == len(self.features),
                f"ranker.{name}",
                f"must hold {len(self.features)} numbers, one for each feature, got {len(values)}",
            )
            numbers = tuple(_finite(value) for value in values)
            for value, number in zip(values, numbers):
                check(number is not None, f"ranker.{name}", f"must hold finite numbers, got {_short(value)}")
            object.__setattr__(self, name, numbers)
        check(all(value > 0 for value in self.std), "ranker.std", f"must be above 0, got {list(self.std)}")
        check(
            _whole(self.candidates) and 2 <= self.candidates <= MAX_CANDIDATES,
            "ranker.candidates",
            f"must be a whole number from 2 to {MAX_CANDIDATES}, got {_short(self.candidates)}",
        )
        check(bool(self.lengths), "ranker.lengths", "must name at least one number of sentences")
        for length in self.lengths:
            check(
                _whole(length) and 1 <= length < self.candidates,
                "ranker.lengths",
                f"must be whole numbers from 1 to candidates - 1 ({self.candidates - 1}), got {_short(length)}",
            )
        check(len(set(self.lengths)) == len(self.lengths), "ranker.lengths", "must name each number once")
        try:
            check_words(self.words)
        except SettingError as error:
            raise SettingError("ranker.words", str(error).removeprefix(f"{error.field} ")) from None

    @classmethod
    def from_settings(cls, settings: Any) -> RankerConfig | None:
        """A config.json's `ranker` (a dict, or None for none), checked."""
        if settings is None or isinstance(settings, RankerConfig):
            return settings
        check(isinstance(settings, dict), "ranker", f"must be an object or null, got {settings!r}")
        unknown = sorted(set(settings) - set(cls.__dataclass_fields__))
        check(not unknown, "ranker", f"has no setting {unknown[0]!r}" if unknown else "")
        missing = [name for name in ("features", "mean", "std", "weights") if name not in settings]
        check(not missing, "ranker", f"needs {', '.join(missing)}")
        return cls(**settings)

    def to_dict(self) -> dict[str, Any]:
        return {name: list(value) if isinstance(value, tuple) else value for name, value in asdict(self).items()}


def _finite(value: Any) -> float | None:
    """`value` as a float, or None unless it is a finite number (an integer too large for a
    float is none)."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _short(value: Any) -> str:
    """`value` for an error message, cut to a line."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def best_combination(
    ranker: RankerConfig,
    sentences: Sequence[str],
    candidates: Sequence[int],
    scores: Sequence[float],
    k: int,
    language: str,
    allowed: Callable[[tuple[int, ...]], bool] | None = None,
) -> tuple[int, ...] | None:
    """The `k` of `candidates` (indices into the document's `sentences`, each with its score in
    `scores`) whose combination the ranker scores highest, in document order (ties: the first
    combination in the order `itertools.combinations` gives them over the candidates in document
    order); None if `allowed` refuses every combination."""
    document, own = _words(sentences, candidates, language, ranker.words)
    score = dict(zip(candidates, scores))
    best, best_value = None, -math.inf
    for combination in itertools.combinations(sorted(candidates), k):
        if allowed is not None and not allowed(combination):
            continue
        values = _features(combination, [score[i] for i in combination], own, document, sentences)
        value = sum(
            weight * (values[name] - mean) / std
            for name, mean, std, weight in zip(ranker.features, ranker.mean, ranker.std, ranker.weights)
        )
        if value > best_value:
            best, best_value = combination, value
    return best


def combination_features(
    sentences: Sequence[str],
    combination: Sequence[int],
    scores: Sequence[float],
    language: str,
    words: str = DEFAULT_WORDS,
) -> dict[str, float]:
    """Every feature (FEATURES) of the sentences `combination` (indices into the document's
    `sentences`, in document order) scored `scores`, as the ranker reads them."""
    document, own = _words(sentences, combination, language, words)
    return _features(tuple(combination), list(scores), own, document, sentences)


def _words(
    sentences: Sequence[str], chosen: Sequence[int], language: str, words: str
) -> tuple[Counter[str], dict[int, list[str]]]:
    """The content words of the document (counted) and of each of the `chosen` sentences, each
    sentence's read once."""
    own = {i: linking_words(sentences[i], language, words) for i in chosen}
    document = Counter(
        word
        for i, sentence in enumerate(sentences)
        for word in (own[i] if i in own else linking_words(sentence, language, words))
    )
    return document, own


def _probability(score: float) -> float:
    """`score` within [0, 1]: a sentence's score is a probability."""
    return min(1.0, max(0.0, score))


def _features(
    combination: tuple[int, ...],
    scores: list[float],
    own: dict[int, list[str]],
    document: Counter[str],
    sentences: Sequence[str],
) -> dict[str, float]:
    sets = [set(own[i]) for i in combination]
    overlaps = [len(a & b) / max(1, min(len(a), len(b))) for a, b in itertools.combinations(sets, 2)]
    return {
        "score_sum": sum(scores),
        "logit_sum": sum(math.log(p / (1 - p + EPSILON) + EPSILON) for p in map(_probability, scores)),
        "score_min": min(scores),
        "document_cosine": _cosine(Counter(word for i in combination for word in own[i]), document),
        "pair_overlap": sum(overlaps) / len(overlaps) if overlaps else 0.0,
        "first_sentence": float(0 in combination),
        "position": sum(combination) / len(combination) / len(sentences),
        "log_words": math.log(max(1, sum(len(sentences[i].split()) for i in combination))),
    }


def _cosine(a: Counter[str], b: Counter[str]) -> float:
    norm = math.sqrt(sum(v * v for v in a.values()) * sum(v * v for v in b.values()))
    return sum(v * b[word] for word, v in a.items()) / norm if norm else 0.0
