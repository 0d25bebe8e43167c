"""Training speed against the encoder's forward speed, on the same 512-token documents.

    python scripts/bench_train.py [--steps 8] [--batch-size 4] [--threads N] [KEY=VALUE ...]

Synthetic documents of one full window each go through the real training path (the data
module, `SummarizationSystem.training_step`, backward, clipping, fused AdamW and the schedule,
driven by a Lightning `Trainer`); then the encoder alone runs forward, without gradients, on
the very same batches. Both are timed after `--warmup` steps and reported in documents per
second, with their ratio. KEY=VALUE overrides apply to configs/default.yaml as in training,
e.g. `model.attention_dropout=null optim.fused=false` measures without those two speedups.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import tempfile
import time
from pathlib import Path

import pytorch_lightning as pl
import torch
from pytorch_lightning.callbacks import Callback

from summarizer.config import load_config
from summarizer.datamodule import DocumentBatch
from summarizer.model import load_tokenizer
from summarizer.system import SummarizationSystem
from summarizer.train import build_datamodule, build_model, build_trainer

ROOT = Path(__file__).resolve().parents[1]


class StepTimer(Callback):
    """Wall time of the training steps after the first `warmup` ones, and the batches seen."""

    def __init__(self, warmup: int) -> None:
        self.warmup = warmup
        self.start = 0.0
        self.elapsed = 0.0
        self.batches: list[DocumentBatch] = []

    def on_train_batch_start(self, trainer: pl.Trainer, pl_module: pl.LightningModule, batch: DocumentBatch, batch_idx: int) -> None:
        self.batches.append(batch)
        if trainer.global_step == self.warmup:
            self.start = time.perf_counter()

    def on_train_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        self.elapsed = time.perf_counter() - self.start


def write_documents(path: Path, count: int, vocabulary: list[str], seed: int = 0) -> None:
    """JSONL documents of about 700 word pieces (one full 512-token window once truncated)."""
    rng = random.Random(seed)
    with path.open("w") as handle:
        for index in range(count):
            sentences = [" ".join(rng.choices(vocabulary, k=rng.randint(12, 24))).capitalize() + "." for _ in range(40)]
            summary = " ".join(sentences[:3])
            handle.write(json.dumps({"id": f"bench-{index}", "text": " ".join(sentences), "summary": summary}) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=8, help="timed optimizer steps (default 8)")
    parser.add_argument("--warmup", type=int, default=2, help="untimed steps first (default 2)")
    parser.add_argument("--batch-size", type=int, default=4, help="documents per step (default 4)")
    parser.add_argument("--threads", type=int, help="torch threads (default: torch's choice)")
    parser.add_argument("overrides", nargs="*", metavar="KEY=VALUE", help="settings over configs/default.yaml")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["BERTSUM_CACHE"] = tmp
        documents = Path(tmp) / "bench.jsonl"
        config = load_config(
            ROOT / "configs" / "default.yaml",
            [
                f"data.train={documents}",
                "data.validation=null",
                "data.test=null",
                f"data.batch_size={args.batch_size}",
                "model.features.truncate=true",
                f"trainer.max_steps={args.warmup + args.steps}",
                "trainer.max_epochs=1",
                "trainer.accumulate_grad_batches=1",
                "trainer.enable_progress_bar=false",
                "trainer.enable_model_summary=false",
                *args.overrides,
            ],
        )
        pl.seed_everything(config.seed, verbose=False)
        tokenizer = load_tokenizer(config.model.encoder_dir())
        vocabulary = [w for w in tokenizer.get_vocab() if w.isalpha() and len(w) > 2]
        write_documents(documents, (args.warmup + args.steps) * args.batch_size, sorted(vocabulary))
        model = build_model(config.model)
        datamodule = build_datamodule(config, tokenizer)
        timer = StepTimer(args.warmup)
        trainer = build_trainer(
            config, [timer], logger=False, enable_checkpointing=False, limit_val_batches=0,
            default_root_dir=tmp,
        )
        trainer.fit(SummarizationSystem(model, config.optim, config.selection, config.seed), datamodule=datamodule)

    timed = timer.batches[args.warmup :]
    windows = [b.batch.input_ids.shape for b in timed]
    docs = sum(len(b) for b in timed)
    encoder = model.encoder.cpu().eval()
    with torch.inference_mode():
        for batch in timer.batches[: args.warmup]:
            encoder(**batch.batch.encoder_inputs())
        start = time.perf_counter()
        for batch in timed:
            encoder(**batch.batch.encoder_inputs())
        forward = time.perf_counter() - start

    train_rate, forward_rate = docs / timer.elapsed, docs / forward
    print(f"encoder: {config.model.encoder_dir()}  threads: {torch.get_num_threads()}")
    print(f"batches: {len(timed)} of {args.batch_size} documents, tokens per window {sorted({w[1] for w in windows})}")
    print(f"training:     {train_rate:7.2f} documents/s ({timer.elapsed:.1f} s)")
    print(f"forward only: {forward_rate:7.2f} documents/s ({forward:.1f} s)")
    print(f"training is {forward_rate / train_rate:.2f}x slower per document than the forward pass")


if __name__ == "__main__":
    main()
