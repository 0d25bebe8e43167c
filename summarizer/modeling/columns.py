"""A table's documents summarized as the columns added beside it: `summary`, `indices`, `scores`
and `error`, row for row; shared by `summarize TABLE` (`summarizer.cli.corpus`) and Ray Data
(`summarizer.ray`). A row that cannot be summarized keeps its place, with its `error`."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict
from typing import Any

from summarizer.modeling.pipeline import Summarizer
from summarizer.modeling.selection import SelectionConfig

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
    summarizer: Summarizer, texts: Sequence[Any], batch_size: int, selection: SelectionConfig
) -> Columns:
    """Summaries, indices, scores and errors of `texts` (one row's value each), in their order."""
    errors = [row_error(text) for text in texts]
    good = [text if isinstance(text, str) else list(text) for text, error in zip(texts, errors) if error is None]
    done = iter(summarizer.summarize_batch(good, batch_size, **asdict(selection)))
    summaries = [next(done) if error is None else None for error in errors]
    return (
        [None if s is None else str(s) for s in summaries],
        [None if s is None else s.indices for s in summaries],
        [None if s is None else s.scores for s in summaries],
        errors,
    )


def row_error(text: Any) -> str | None:
    """Why `text` (one row's value) cannot be summarized, or None when it can."""
    if text is None:
        return "no text (null)"
    if isinstance(text, str):
        return None if text.strip() else "empty text"
    if hasattr(text, "tolist"):  # a list of sentences as a NumPy array
        text = text.tolist()
    if isinstance(text, list) and text and all(isinstance(s, str) for s in text):
        return None if any(s.strip() for s in text) else "empty text"
    return f"expected text or a list of sentences, got {type(text).__name__}"
