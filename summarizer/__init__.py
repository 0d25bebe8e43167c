"""bertsum: BERTSUM-style extractive summarization (import name `summarizer`)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

# The libraries the package runs on report their use unless told not to, and must be told before
# they load: ONNX Runtime (on Linux, from 1.2x) keeps a device id and queued events under
# ~/.cache/Microsoft and sends them to Microsoft; Hugging Face's hub client and Ray's local cluster
# send usage reports. `import summarizer` tells them all, whatever the environment said, so that
# neither the command nor the library ever reaches the network on its own. (A program that imports
# onnxruntime before summarizer must set ORT_DISABLE_TELEMETRY=1 itself: ONNX Runtime reads it once.)
TELEMETRY_OFF = {
    "ORT_DISABLE_TELEMETRY": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "RAY_USAGE_STATS_ENABLED": "0",
    "DO_NOT_TRACK": "1",
}
os.environ.update(TELEMETRY_OFF)

__version__ = "0.1.0"
__distribution__ = "bertsum"
__all__ = ["BertSumConfig", "BertSumModel", "Summarizer", "Summary", "split_sentences"]

if TYPE_CHECKING:
    from summarizer.modeling.configuration_bertsum import BertSumConfig
    from summarizer.modeling.modeling_bertsum import BertSumModel
    from summarizer.pipeline import Summarizer, Summary
    from summarizer.text.sentences import split_sentences


def __getattr__(name: str) -> Any:
    # Imported on first use so that `import summarizer` stays light.
    if name in ("Summarizer", "Summary"):
        from summarizer import pipeline

        return getattr(pipeline, name)
    if name in ("BertSumConfig", "BertSumModel"):  # importing them registers them with the Auto classes
        from summarizer.modeling import modeling_bertsum

        return getattr(modeling_bertsum, name)
    if name == "split_sentences":
        from summarizer.text.sentences import split_sentences

        return split_sentences
    raise AttributeError(f"module 'summarizer' has no attribute {name!r}")
