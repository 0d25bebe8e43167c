"""Training and evaluation need `pip install 'bertsum[train]'`; importing this module checks.

`pip install bertsum` gives inference only (`summarize`, `Summarizer`): nothing on that path
imports Lightning, datasets, tensorboard or rouge-score. `python -m summarizer.train` or
`summarizer.training.evaluate` without them stops with one line saying what to install: the
package `summarizer.training` imports this module before any of its own.
"""

from __future__ import annotations

import importlib.util

TRAINING_MODULES = (
    "torch",
    "transformers",
    "pytorch_lightning",
    "torchmetrics",
    "datasets",
    "pyarrow",
    "rouge_score",
    "tensorboard",
    "yaml",
    "aclsum",
)

missing = [name for name in TRAINING_MODULES if importlib.util.find_spec(name) is None]
if missing:
    raise SystemExit(f"{missing[0]} is not installed: training and evaluation need pip install 'bertsum[train]'")
