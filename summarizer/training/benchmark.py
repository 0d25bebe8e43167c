"""The CNN/DailyMail yardstick: CNN and DailyMail articles scored apart, each beside Lead-3, and
the margin over Lead-3 on the mix of the published test split.

The field reports CNN/DailyMail on the whole test split, about 10% CNN's articles and 90% Daily
Mail's, while the two sources differ: CNN's first sentences are far harder to beat. So each source
is read from its own file and reported with its own interval, and the mix's margin is the
weighted mean of the two sources' margins. Each file has a development portion, the only one any
choice of model or setting is made on, and a test portion, read once per shipped model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

# (name, file in the data directory, size of its development portion)
SOURCES: tuple[tuple[str, str, int], ...] = (
    ("CNN", "validation.jsonl", 500),
    ("DailyMail", "validation-dm.jsonl", 2000),
)
MIX = {"CNN": 0.1, "DailyMail": 0.9}  # the sources' shares of the published test split
PORTIONS = ("dev", "test")
DEFAULT_DIR = Path("../shared/data/cnndm")


@dataclass(frozen=True)
class SourcePortion:
    """One source's portion: which file and which of its documents (a `load_documents` split)."""

    source: str
    path: Path
    split: str


def portions(portion: str, directory: Path = DEFAULT_DIR) -> list[SourcePortion]:
    """Each source's development (`dev`) or test (`test`) portion under `directory`."""
    if portion not in PORTIONS:
        raise ValueError(f"portion must be one of {', '.join(PORTIONS)}, got {portion!r}")
    return [
        SourcePortion(name, directory / file, f":{size}" if portion == "dev" else f"{size}:")
        for name, file, size in SOURCES
    ]


@dataclass(frozen=True)
class Margin:
    """A mean difference of per-document F1 (model minus Lead) with its 95% paired bootstrap interval."""

    mean: float
    low: float
    high: float

    def __str__(self) -> str:
        return f"{self.mean:+.2f} [{self.low:+.2f}, {self.high:+.2f}]"


def _resampled_means(differences: Sequence[float], samples: int, rng: np.random.Generator) -> np.ndarray:
    data = np.asarray(differences, dtype=float)
    return data[rng.integers(0, data.size, size=(samples, data.size))].mean(axis=1)


def margins(
    model: Mapping[str, Sequence[float]],
    lead: Mapping[str, Sequence[float]],
    mix: Mapping[str, float] = MIX,
    samples: int = 1000,
    seed: int = 0,
) -> dict[str, Margin]:
    """Each source's margin of `model` over `lead` (per-document F1 of the same documents, by
    source) and, when every source of `mix` is given, the mix's (its weights times the sources'
    margins, each source resampled on its own), under the key "mix"."""
    rng = np.random.default_rng(seed)
    out: dict[str, Margin] = {}
    resampled: dict[str, np.ndarray] = {}
    for source, scores in model.items():
        if len(scores) != len(lead[source]) or not scores:
            raise ValueError(f"{source}: {len(scores)} model scores against {len(lead[source])} Lead scores")
        differences = np.asarray(scores, dtype=float) - np.asarray(lead[source], dtype=float)
        resampled[source] = _resampled_means(differences, samples, rng)
        low, high = np.percentile(resampled[source], [2.5, 97.5])
        out[source] = Margin(float(differences.mean()), float(low), float(high))
    if set(mix) <= set(model):
        combined = sum(weight * resampled[source] for source, weight in mix.items())
        low, high = np.percentile(combined, [2.5, 97.5])
        mean = sum(weight * out[source].mean for source, weight in mix.items())
        out["mix"] = Margin(float(mean), float(low), float(high))
    return out
