"""A table's documents summarized as the columns added beside it: `summary`, `indices`, `scores`
and `error`, row for row; shared by `summarize TABLE` (`summarizer.cli.corpus`) and Ray Data
(`summarizer.ray`). A row that cannot be summarized keeps its place, with its `error`."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict
from typing import Any

from summarizer.pipeline import Summarizer
from summarizer.selection import SelectionConfig

OUTPUT_COLUMNS = ("summary", "indices", "scores", "error")
Columns = tuple[list[str | None], list[list[int] | None], list[list[float] | None], list[str | None]]


def output_columns(prefix: str, existing: Iterable[str]) -> list[str]:
    """The names of the added columns; a ValueError if the input already has one of them."""
    names = [prefix + name for name in OUTPUT_COLUMNS]
    taken = [name for name in names if name in set(existing)]
    if taken:
        raise ValueError(
            f"the input already has a column {taken[0]!r}; give the added columns a prefix (--prefix, prefix=)"
        )
    return names


def summary_columns(
    summarizer: Summarizer,
    texts: Sequence[Any],
    batch_size: int,
    selection: SelectionConfig,
    language: str | None = None,
) -> Columns:
    """Summaries, indices, scores and errors of `texts` (one row's value each), in their order:
    `summarize_batch(errors="keep")`, so a row that cannot be summarized (in a language the model
    does not read, too) has its error. `language`: as `summarize_batch` takes it."""
    lists = [text.tolist() if hasattr(text, "tolist") else text for text in texts]  # NumPy arrays of sentences
    summaries = list(
        summarizer.summarize_batch(lists, batch_size, **asdict(selection), errors="keep", language=language)
    )
    good = [s.error is None for s in summaries]
    return (
        [str(s) if ok else None for s, ok in zip(summaries, good)],
        [s.indices if ok else None for s, ok in zip(summaries, good)],
        [s.scores if ok else None for s, ok in zip(summaries, good)],
        [s.error for s in summaries],
    )
