"""bertsum: BERTSUM-style extractive summarization (import name `summarizer`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__distribution__ = "bertsum"
__all__ = ["BertSumConfig", "BertSumModel", "Summarizer", "Summary", "split_sentences"]

if TYPE_CHECKING:
    from summarizer.modeling.configuration_bertsum import BertSumConfig
    from summarizer.modeling.modeling_bertsum import BertSumModel
    from summarizer.modeling.pipeline import Summarizer, Summary
    from summarizer.text.sentences import split_sentences


def __getattr__(name: str) -> Any:
    # Imported on first use so that `import summarizer` stays light.
    if name in ("Summarizer", "Summary"):
        from summarizer.modeling import pipeline

        return getattr(pipeline, name)
    if name in ("BertSumConfig", "BertSumModel"):  # importing them registers them with the Auto classes
        from summarizer.modeling import modeling_bertsum

        return getattr(modeling_bertsum, name)
    if name == "split_sentences":
        from summarizer.text.sentences import split_sentences

        return split_sentences
    raise AttributeError(f"module 'summarizer' has no attribute {name!r}")
