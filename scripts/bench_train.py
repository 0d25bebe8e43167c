"""Training speed of a recipe (configs/cnndm.yaml) against full fine-tuning, in one run.

    python scripts/bench_train.py [--steps 8] [--batch-size 8] [--recipe CONFIG] [KEY=VALUE ...]

Synthetic documents of about 700 word pieces go through the real training path (the data
module, `SummarizationSystem.training_step`, backward, clipping, fused AdamW and the schedule,
driven by a Lightning `Trainer`) twice: with configs/default.yaml's full fine-tuning of MiniLM
on each document's first 512 tokens in fp32 (the speed before the recipe), then with the
recipe's settings (partly frozen encoder, one window per document, its precision). Then the
encoder alone runs forward, without gradients, on the very same batches. Steps are timed
after `--warmup` steps; documents per second and the recipe's ratio to the baseline are
printed. KEY=VALUE overrides apply to the recipe, e.g. `model.trainable_layers=null`.
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

from summarizer.modeling.modeling_bertsum import load_tokenizer
from summarizer.training.datamodule import DocumentBatch
from summarizer.training.settings import load_config
from summarizer.training.system import SummarizationSystem
from summarizer.training.train import auto_precision, build_datamodule, build_model, build_trainer

ROOT = Path(__file__).resolve().parents[1]


class StepTimer(Callback):
    """Wall time of the training steps after the first `warmup` ones, and the batches seen."""

    def __init__(self, warmup: int) -> None:
        self.warmup = warmup
        self.start = 0.0
        self.elapsed = 0.0
        self.batches: list[DocumentBatch] = []

    def on_train_batch_start(
        self, trainer: pl.Trainer, pl_module: pl.LightningModule, batch: DocumentBatch, batch_idx: int
    ) -> None:
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


def measure(
    config_file: Path, overrides: list[str], args: argparse.Namespace, tmp: Path
) -> tuple[float, float, list[int]]:
    """Training and forward-only documents/s of one recipe on fresh synthetic documents."""
    documents = tmp / f"bench-{config_file.stem}.jsonl"
    config = load_config(
        config_file,
        [
            f"data.train={documents}",
            "data.validation=null",
            "data.test=null",
            "data.limit_train=null",
            "data.shuffle=epoch",
            f"data.batch_size={args.batch_size}",
            f"trainer.max_steps={args.warmup + args.steps}",
            "trainer.max_epochs=1",
            "trainer.max_time=null",
            "trainer.accumulate_grad_batches=1",
            "trainer.enable_progress_bar=false",
            "trainer.enable_model_summary=false",
            "checkpoint.every_n_steps=null",
            "output.snapshots=[]",
            "output.compact=false",
            *overrides,
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
        config, [timer], logger=False, enable_checkpointing=False, limit_val_batches=0, default_root_dir=tmp
    )
    trainer.fit(SummarizationSystem(model, config.optim, config.selection, config.seed), datamodule=datamodule)

    timed = timer.batches[args.warmup :]
    docs = sum(len(b) for b in timed)
    encoder = model.encoder.cpu().eval()
    with torch.inference_mode():
        for batch in timer.batches[: args.warmup]:
            encoder(**batch.batch.encoder_inputs())
        start = time.perf_counter()
        for batch in timed:
            encoder(**batch.batch.encoder_inputs())
        forward = time.perf_counter() - start
    return docs / timer.elapsed, docs / forward, sorted({b.batch.input_ids.shape[1] for b in timed})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=8, help="timed optimizer steps (default 8)")
    parser.add_argument("--warmup", type=int, default=2, help="untimed steps first (default 2)")
    parser.add_argument("--batch-size", type=int, default=8, help="documents per step (default 8)")
    parser.add_argument("--threads", type=int, help="torch threads (default: torch's choice)")
    parser.add_argument(
        "--recipe", type=Path, default=ROOT / "configs" / "cnndm.yaml", help="config measured against the baseline"
    )
    parser.add_argument("overrides", nargs="*", metavar="KEY=VALUE", help="settings over the recipe's config")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["BERTSUM_CACHE"] = tmp
        # Full fine-tuning on the first 512 tokens of each document, in fp32: the speed before the recipe.
        base = measure(
            ROOT / "configs" / "default.yaml",
            ["model.features.truncate=true", "trainer.precision=32-true"],
            args,
            Path(tmp),
        )
        recipe = measure(args.recipe, list(args.overrides), args, Path(tmp))

    precision = load_config(args.recipe, list(args.overrides)).trainer.precision
    if precision == "auto":
        precision = f"auto: {auto_precision()}"
    print(
        f"CPU capability: {torch.backends.cpu.get_cpu_capability()}  threads: {torch.get_num_threads()}  "
        f"batch: {args.batch_size} documents"
    )
    print(f"{'':44} {'train docs/s':>12} {'forward docs/s':>15}  tokens per window")
    print(f"{'full fine-tuning, first 512 tokens, fp32':44} {base[0]:12.2f} {base[1]:15.2f}  {base[2]}")
    print(f"{args.recipe.name + ' (precision ' + precision + ')':44} {recipe[0]:12.2f} {recipe[1]:15.2f}  {recipe[2]}")
    print(f"recipe / full fine-tuning: {recipe[0] / base[0]:.2f}x training documents/s")


if __name__ == "__main__":
    main()
