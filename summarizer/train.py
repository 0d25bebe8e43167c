"""`python -m summarizer.train --config configs/NAME.yaml [--resume] [section.key=value ...]`.

Fine-tunes an encoder as an extractive summarizer, keeps the checkpoint with the best
validation ROUGE, scores it on the test documents beside Lead and the oracle, and exports it
with `ExtractiveSummarizer.save_pretrained`. Checkpoints and CSV / TensorBoard logs go to
`runs/NAME/`; `--resume` continues a stopped run from `runs/NAME/checkpoints/last.ckpt`.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pytorch_lightning as pl
import torch
from lightning_fabric.utilities.exceptions import MisconfigurationException
from lightning_fabric.utilities.rank_zero import rank_zero_only
from pytorch_lightning.callbacks import Callback, EarlyStopping, LearningRateMonitor, ModelCheckpoint, TQDMProgressBar
from pytorch_lightning.loggers import CSVLogger, TensorBoardLogger
from torch import nn
from transformers import AutoConfig, AutoModel, PreTrainedTokenizerBase

from summarizer.config import ConfigError, ModelConfig, TrainConfig, load_config
from summarizer.datamodule import SummarizationDataModule
from summarizer.errors import InputError
from summarizer.model import ExtractiveSummarizer, load_tokenizer
from summarizer.rouge import METRICS
from summarizer.selection import SelectionConfig
from summarizer.system import BASELINES, SummarizationSystem

LAST_CHECKPOINT = "last.ckpt"
# Names encoder configurations give their dropout on attention weights.
ATTENTION_DROPOUT_SETTINGS = ("attention_probs_dropout_prob", "attention_dropout")


@dataclass
class TrainResult:
    """Where a run left its outputs, and its scores."""

    run_dir: Path
    export_dir: Path
    best_checkpoint: Path
    best_score: float | None
    test: dict[str, float] = field(default_factory=dict)
    test_documents: int = 0


def build_model(config: ModelConfig) -> ExtractiveSummarizer:
    """A new summarizer around the configured pretrained encoder."""
    encoder_dir = config.encoder_dir()
    if not encoder_dir.is_dir():
        raise InputError(f"model.encoder: {encoder_dir}: no such directory")
    encoder_config = AutoConfig.from_pretrained(str(encoder_dir))
    if config.attention_dropout is not None:
        for name in ATTENTION_DROPOUT_SETTINGS:
            if hasattr(encoder_config, name):
                setattr(encoder_config, name, config.attention_dropout)
    encoder = AutoModel.from_pretrained(str(encoder_dir), config=encoder_config)
    pooler = getattr(encoder, "pooler", None)
    if isinstance(pooler, nn.Module):  # unused by the scores: frozen, so DDP expects no gradient
        pooler.requires_grad_(False)
    try:
        return ExtractiveSummarizer(encoder, config.summarizer_config())
    except ValueError as error:
        raise ConfigError(f"model: {error}") from None


def build_datamodule(config: TrainConfig, tokenizer: PreTrainedTokenizerBase) -> SummarizationDataModule:
    return SummarizationDataModule(
        config.data,
        config.model.features,
        tokenizer,
        language=config.model.language,
        token_slots=config.model.pooling == "mean",
        seed=config.seed,
    )


def build_trainer(config: TrainConfig, callbacks: Sequence[Callback], **settings: Any) -> pl.Trainer:
    """A Lightning trainer with `config.trainer`'s settings; `settings` add to them."""
    if config.trainer.enable_progress_bar:
        callbacks = [*callbacks, TQDMProgressBar()]
    try:
        return pl.Trainer(**asdict(config.trainer), callbacks=list(callbacks), use_distributed_sampler=False, **settings)
    except (MisconfigurationException, ValueError, TypeError) as error:
        raise ConfigError(f"trainer: {error}") from None


def train(config: TrainConfig, resume: bool = False, callbacks: Sequence[Callback] = ()) -> TrainResult:
    """Run the training described by `config` (see the module docstring).

    `resume` continues from the run's last checkpoint when there is one. `callbacks` are
    added to the trainer's own.
    """
    pl.seed_everything(config.seed, workers=True, verbose=False)
    model = build_model(config.model)
    tokenizer = load_tokenizer(config.model.encoder_dir())
    datamodule = build_datamodule(config, tokenizer)
    validate = datamodule.has("validation")
    checkpoints = config.run_dir / "checkpoints"
    resume_from = checkpoints / LAST_CHECKPOINT if resume else None
    if resume_from is not None and not resume_from.exists():
        print(f"No checkpoint at {resume_from}; starting from the beginning.", file=sys.stderr)
        resume_from = None
    if rank_zero_only.rank == 0:  # the first process; launched ones (DDP) leave files alone
        if resume_from is None:
            shutil.rmtree(checkpoints, ignore_errors=True)
        config.run_dir.mkdir(parents=True, exist_ok=True)
        (config.run_dir / "config.yaml").write_text(config.to_yaml())

    monitor = config.checkpoint.monitor
    checkpoint = ModelCheckpoint(
        dirpath=checkpoints,
        filename="epoch{epoch:02d}-" + (f"{monitor}{{{monitor}:.2f}}" if validate else "last"),
        monitor=monitor if validate else None,
        mode=config.checkpoint.mode,
        save_top_k=config.checkpoint.save_top_k if validate else 1,
        save_last=True,
        auto_insert_metric_name=False,
    )
    trainer_callbacks: list[Callback] = [checkpoint, LearningRateMonitor(logging_interval="step"), *callbacks]
    if validate and config.checkpoint.patience is not None:
        trainer_callbacks.append(
            EarlyStopping(
                monitor=monitor,
                mode=config.checkpoint.mode,
                patience=config.checkpoint.patience,
                min_delta=config.checkpoint.min_delta,
            )
        )
    trainer = build_trainer(
        config,
        trainer_callbacks,
        logger=[CSVLogger(config.run_dir, name="csv"), TensorBoardLogger(config.run_dir, name="tensorboard")],
        default_root_dir=config.run_dir,
        limit_val_batches=None if validate else 0,
    )

    system = SummarizationSystem(model, config.optim, config.selection, seed=config.seed)
    trainer.fit(system, datamodule=datamodule, ckpt_path=resume_from)

    best = Path(checkpoint.best_model_path or checkpoint.last_model_path)
    system.load_state_dict(torch.load(best, map_location="cpu", weights_only=True)["state_dict"])
    result = TrainResult(
        run_dir=config.run_dir,
        export_dir=config.export_dir,
        best_checkpoint=best,
        best_score=float(checkpoint.best_model_score) if checkpoint.best_model_score is not None else None,
    )
    if datamodule.has("test"):
        result.test = {k: float(v) for k, v in trainer.test(system, datamodule=datamodule, verbose=False)[0].items()}
        result.test_documents = len(datamodule.datasets["test"])
    if trainer.is_global_zero:
        system.model.cpu().save_pretrained(config.export_dir, tokenizer)
    return result


def report(result: TrainResult, config: TrainConfig) -> str:
    """The run's outcome: test ROUGE of the model, Lead and the oracle; where things went."""
    lines = [f"Run directory: {result.run_dir} (checkpoints, csv and tensorboard logs)"]
    if result.best_score is not None:
        lines.append(f"Best checkpoint: {result.best_checkpoint} ({config.checkpoint.monitor} {result.best_score:.2f})")
    else:
        lines.append(f"Final checkpoint: {result.best_checkpoint}")
    if result.test:
        lines.append(f"Test ROUGE F1 on {result.test_documents} documents ({describe(config.selection)}):")
        lines.append(f"{'':<10}{'ROUGE-1':>9}{'ROUGE-2':>9}{'ROUGE-Lsum':>12}")
        rows = {"model": "test_", **{baseline_name(b, config.selection): f"test_{b}_" for b in BASELINES}}
        for label, prefix in rows.items():
            values = [result.test[f"{prefix}{m}"] for m in METRICS]
            lines.append(f"{label:<10}{values[0]:>9.2f}{values[1]:>9.2f}{values[2]:>12.2f}")
        lines.append(f"(oracle: the training labels, a greedy ROUGE search of at most {config.data.oracle_size} sentences)")
    lines.append(f"Model exported to {result.export_dir}")
    return "\n".join(lines)


def describe(selection: SelectionConfig) -> str:
    if selection.max_words is not None:
        size = f"up to {selection.max_words} words"
    elif selection.ratio is not None:
        size = f"{selection.ratio:.0%} of the sentences"
    else:
        size = f"{selection.k} sentences"
    return f"{size}, trigram blocking {'on' if selection.trigram_blocking else 'off'} for the model"


def baseline_name(baseline: str, selection: SelectionConfig) -> str:
    if baseline == "oracle":
        return "oracle"
    if selection.max_words is not None:
        return "Lead"
    return f"Lead-{selection.ratio:.0%}" if selection.ratio is not None else f"Lead-{selection.k}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m summarizer.train",
        description="Fine-tune an extractive summarizer; settings come from --config and KEY=VALUE overrides.",
    )
    parser.add_argument("--config", type=Path, help="YAML settings (configs/default.yaml is the main job)")
    parser.add_argument("--resume", action="store_true", help="continue from runs/NAME/checkpoints/last.ckpt")
    parser.add_argument(
        "overrides", nargs="*", metavar="KEY=VALUE", help="override a setting, e.g. trainer.max_epochs=2 model.head=transformer"
    )
    args = parser.parse_intermixed_args(argv)
    started = time.perf_counter()
    try:
        config = load_config(args.config, args.overrides)
        result = train(config, resume=args.resume)
    except (ConfigError, InputError) as error:
        print(f"{parser.prog}: error: {error}", file=sys.stderr)
        return 2
    if rank_zero_only.rank == 0:
        print(report(result, config))
        minutes, seconds = divmod(round(time.perf_counter() - started), 60)
        print(f"Finished in {minutes} min {seconds:02d} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
