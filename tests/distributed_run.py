"""`python -m summarizer.train` as the distributed tests run it, in every process of the run.

Each process also appends the ids of the documents of every training batch it runs to
`$RECORD_DIR/rank-N.jsonl` (N its global rank), one line per batch: `[epoch, batch, ids]`.
With `CRASH_AT=EPOCH:BATCH` every process fails when that batch starts, as a killed run would.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from pytorch_lightning.callbacks import Callback

from summarizer.training import train as train_module


class Record(Callback):
    def __init__(self, directory: Path, crash_at: tuple[int, int] | None) -> None:
        self.directory = directory
        self.crash_at = crash_at

    def on_train_batch_start(self, trainer: Any, pl_module: Any, batch: Any, batch_idx: int) -> None:
        if (trainer.current_epoch, batch_idx) == self.crash_at:
            raise RuntimeError("simulated crash")
        with (self.directory / f"rank-{trainer.global_rank}.jsonl").open("a") as out:
            out.write(json.dumps([trainer.current_epoch, batch_idx, batch.ids]) + "\n")


def main() -> int:
    crash = os.environ.get("CRASH_AT")
    record = Record(Path(os.environ["RECORD_DIR"]), tuple(map(int, crash.split(":"))) if crash else None)
    train = train_module.train
    train_module.train = lambda config, resume=False: train(config, resume, callbacks=[record])
    return train_module.main(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
