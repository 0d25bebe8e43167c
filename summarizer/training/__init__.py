"""Training and evaluation (`bertsum[train]`): settings -> data -> features and oracle labels ->
Lightning data module and system -> exported model -> ROUGE.

`settings` (one dataclass per section of a run's YAML, read by `binding`), `data` (documents and
references from files and Hub datasets), `preprocess` (cached `datasets` features with `oracle`
labels), `datamodule`, `system`, `train` (`python -m summarizer.train`), `evaluate`
(`python -m summarizer.evaluate`) and `rouge`.
"""

import summarizer.training.extras  # noqa: F401  (first: one line, not a traceback, without bertsum[train])
