"""`python -m summarizer.train --config configs/NAME.yaml [--resume] [section.key=value ...]`.

Fine-tunes an encoder as an extractive summarizer, keeps the checkpoint with the best
validation ROUGE, scores it on the test documents beside Lead, TextRank and the oracle, and exports it
with `BertSumModel.save_pretrained`. Checkpoints and CSV / TensorBoard logs go to
`runs/NAME/`; `--resume` continues a stopped run from `runs/NAME/checkpoints/last.ckpt`.
The run directory is touched only once the encoder, the trainer settings and the data have
loaded, so a run that fails to start leaves an earlier run's checkpoints alone.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
import uuid
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pytorch_lightning as pl
import torch
from pytorch_lightning.callbacks import (
    Callback,
    EarlyStopping,
    EMAWeightAveraging,
    LearningRateMonitor,
    ModelCheckpoint,
    Timer,
    TQDMProgressBar,
)
from pytorch_lightning.loggers import CSVLogger, TensorBoardLogger
from pytorch_lightning.utilities.exceptions import MisconfigurationException
from pytorch_lightning.utilities.rank_zero import rank_zero_only
from torch import nn
from transformers import AutoConfig, AutoModel, PreTrainedTokenizerBase

from summarizer.console import Parser, add_debug_flag, run_guarded
from summarizer.errors import InputError, first_line
from summarizer.files import new_file_mode
from summarizer.modeling.configuration_bertsum import refuse_code
from summarizer.modeling.features import DocumentFeatures
from summarizer.modeling.modeling_bertsum import BertSumModel, Pooling, freeze_encoder, load_tokenizer
from summarizer.pipeline import Summarizer
from summarizer.resources import model_dir
from summarizer.runtime.onnx_export import export_graph
from summarizer.runtime.precision import native_bf16_cpu
from summarizer.training.data import Example, write_jsonl
from summarizer.training.datamodule import SummarizationDataModule
from summarizer.training.evaluate import Evaluation, evaluate_prepared
from summarizer.training.settings import ConfigError, ModelConfig, TrainConfig, load_config, model_config
from summarizer.training.system import SummarizationSystem

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
    test: Evaluation | None = None
    cut_short: str | None = None  # why training ended before its last epoch, when a time limit ended it


def build_run_model(config: TrainConfig) -> BertSumModel:
    """`build_model` for a run: the selection it is validated with (`selection.trigram_blocking`,
    when set) is the model's default, which its exports keep."""
    model = build_model(config.model)
    if config.selection.trigram_blocking is not None:
        model.config.trigram_blocking = config.selection.trigram_blocking
    return model


def build_model(config: ModelConfig) -> BertSumModel:
    """A new summarizer around the configured pretrained encoder."""
    encoder_dir = encoder_directory(config)
    try:
        encoder_config = AutoConfig.from_pretrained(str(encoder_dir), trust_remote_code=False)
        if config.attention_dropout is not None:
            for name in ATTENTION_DROPOUT_SETTINGS:
                if hasattr(encoder_config, name):
                    setattr(encoder_config, name, config.attention_dropout)
        encoder = AutoModel.from_pretrained(str(encoder_dir), config=encoder_config, trust_remote_code=False)
    except (OSError, ValueError) as error:
        raise InputError(f"model.encoder: {encoder_dir}: not a Hugging Face model: {first_line(error)}") from None
    pooler = getattr(encoder, "pooler", None)
    if isinstance(pooler, nn.Module):  # unused by the scores: frozen, so DDP expects no gradient
        pooler.requires_grad_(False)
    try:
        if config.trainable_layers is not None:
            freeze_encoder(encoder, config.trainable_layers)
        model = BertSumModel(config.bertsum_config(encoder.config), encoder)
    except ValueError as error:
        raise ConfigError(f"model: {error}") from None
    if config.init_from is not None:
        try:
            model.warm_start(model_dir(config.init_from), config.base_encoder)
        except InputError as error:
            raise InputError(f"model.init_from: {error}") from None
    return model


def encoder_directory(config: ModelConfig) -> Path:
    """The configured encoder's directory, refused unless it holds a model that runs no code of its own."""
    encoder_dir = config.encoder_dir()
    if not encoder_dir.is_dir():
        raise InputError(f"model.encoder: {encoder_dir}: no such directory")
    if not (encoder_dir / "config.json").is_file():
        raise InputError(f"model.encoder: {encoder_dir}: not a Hugging Face model (no config.json)")
    try:
        refuse_code(encoder_dir)
    except InputError as error:
        raise InputError(f"model.encoder: {error}") from None
    return encoder_dir


def build_tokenizer(config: ModelConfig) -> PreTrainedTokenizerBase:
    """The tokenizer saved with the configured encoder."""
    encoder_dir = encoder_directory(config)
    try:
        return load_tokenizer(encoder_dir)
    except InputError as error:
        raise InputError(f"model.encoder: {error}") from None
    except (OSError, ValueError) as error:
        raise InputError(f"model.encoder: {encoder_dir}: cannot load its tokenizer: {first_line(error)}") from None


def build_datamodule(config: TrainConfig, tokenizer: PreTrainedTokenizerBase) -> SummarizationDataModule:
    return SummarizationDataModule(
        config.data,
        config.model.features,
        tokenizer,
        language=config.model.language,
        token_slots=Pooling.kinds[config.model.pooling].needs_token_slots,
        seed=config.seed,
    )


def auto_precision(accelerator: str = "auto") -> str:
    """bf16-mixed where bf16 matrix products run natively (a bf16 GPU, a CPU with AVX512-BF16
    or AMX), else 32-true: a CPU without native bf16 instructions runs bf16 products far slower."""
    if accelerator in ("auto", "gpu", "cuda") and torch.cuda.is_available():
        return "bf16-mixed" if torch.cuda.is_bf16_supported() else "32-true"
    return "bf16-mixed" if native_bf16_cpu() else "32-true"


def build_trainer(config: TrainConfig, callbacks: Sequence[Callback], **settings: Any) -> pl.Trainer:
    """A Lightning trainer with `config.trainer`'s settings; `settings` add to them."""
    if config.trainer.enable_progress_bar:
        callbacks = [*callbacks, TQDMProgressBar()]
    trainer_settings = {**config.trainer.arguments(), **settings}
    if trainer_settings["precision"] == "auto":
        trainer_settings["precision"] = auto_precision(config.trainer.accelerator)
    try:
        return pl.Trainer(**trainer_settings, callbacks=list(callbacks), use_distributed_sampler=False)
    except (MisconfigurationException, ValueError, TypeError) as error:
        raise ConfigError(f"trainer: {error}") from None


def train(config: TrainConfig, resume: bool = False, callbacks: Sequence[Callback] = ()) -> TrainResult:
    """Run the training described by `config` (see the module docstring).

    `resume` continues from the run's last checkpoint when there is one. `callbacks` are
    added to the trainer's own.
    """
    pl.seed_everything(config.seed, workers=True, verbose=False)
    tokenizer = build_tokenizer(config.model)
    datamodule = build_datamodule(config, tokenizer)
    datamodule.load()  # bad data is reported before any progress bar or banner
    model = build_run_model(config)
    resume_from = resume_checkpoint(config) if resume else None
    validate = datamodule.has("validation")
    best_kept, trainer_callbacks = build_callbacks(config, tokenizer, validate)
    trainer = build_trainer(
        config,
        [*trainer_callbacks, *callbacks],
        logger=[CSVLogger(config.run_dir, name="csv"), TensorBoardLogger(config.run_dir, name="tensorboard")],
        default_root_dir=config.run_dir,
        **({} if validate else {"limit_val_batches": 0}),
    )
    datamodule.setup("fit")  # every split read and preprocessed before the run directory changes
    # The first process; launched ones (DDP) leave files alone. (`rank` is set at runtime, untyped.)
    if rank_zero_only.rank == 0:  # type: ignore[attr-defined]
        prepare_run_dir(config, fresh=resume_from is None)
    system = SummarizationSystem(
        model, config.optim, config.selection, seed=config.seed, model_settings=model_settings(config.model)
    )
    trainer.fit(system, datamodule=datamodule, ckpt_path=resume_from)

    callbacks = getattr(trainer, "callbacks", [])  # Lightning's own among them (a Timer for max_time)
    timer = next((callback for callback in callbacks if isinstance(callback, Timer)), None)
    stopped = None
    if (
        timer is not None
        and (timer.time_remaining() or 0.0) <= 0.0
        and trainer.current_epoch < (trainer.max_epochs or 0)
    ):
        epochs = trainer.global_step * config.trainer.accumulate_grad_batches / max(trainer.num_training_batches, 1)
        stopped = (
            f"Training stopped at its time limit (trainer.max_time {config.trainer.others.get('max_time')}) "
            f"after {epochs:.1f} of {trainer.max_epochs} epochs"
        )
    kept = best_kept.best_model_path or best_kept.last_model_path
    if not kept:
        raise InputError(f"{stopped or 'Training ended'} before its first checkpoint: nothing to export")
    best = Path(kept)
    score = best_kept.best_model_score
    result = TrainResult(config.run_dir, config.export_dir, best, float(score) if score is not None else None)
    result.cut_short = stopped and f"{stopped}: the model is that of a shorter run"
    if trainer.is_global_zero:  # the process that wrote the checkpoints; other nodes may not see them
        system.load_state_dict(torch.load(best, map_location="cpu", weights_only=True)["state_dict"])
        model = system.model.cpu().eval()
        write_held_out(config, datamodule)
        try:
            export_model(model, tokenizer, config.export_dir, *export_settings(config))
        except OSError as error:
            raise InputError(
                f"output: cannot export the model to {config.export_dir} ({error}); the best checkpoint is {best}"
            ) from None
        result.test = score_test_documents(config, datamodule, model, tokenizer)
    return result


def resume_checkpoint(config: TrainConfig) -> Path | None:
    """The checkpoint `--resume` continues from, checked (None, said on stderr, when there is none)."""
    checkpoint = config.run_dir / "checkpoints" / LAST_CHECKPOINT
    if not checkpoint.exists():
        print(f"No checkpoint at {checkpoint}; starting from the beginning.", file=sys.stderr)
        return None
    check_same_model(config, checkpoint)
    return checkpoint


def build_callbacks(
    config: TrainConfig, tokenizer: PreTrainedTokenizerBase, validate: bool
) -> tuple[ModelCheckpoint, list[Callback]]:
    """The callback that keeps the best checkpoint (the last one without validation), and all
    the run's callbacks: it, the learning-rate log, weight averaging, periodic checkpoints,
    snapshots, early stop."""
    checkpoints = config.run_dir / "checkpoints"
    monitor = config.checkpoint.monitor
    best_kept = ModelCheckpoint(
        dirpath=checkpoints,
        filename="epoch{epoch:02d}-" + (f"{monitor}{{{monitor}:.2f}}" if validate else "last"),
        monitor=monitor if validate else None,
        mode=config.checkpoint.mode,
        save_top_k=config.checkpoint.save_top_k if validate else 1,
        save_last=config.checkpoint.every_n_steps is None,  # else the periodic checkpoint writes last.ckpt
        auto_insert_metric_name=False,
    )
    callbacks: list[Callback] = [best_kept, LearningRateMonitor(logging_interval="step")]
    averaging = None if config.optim.ema_decay is None else AveragedWeights(config.optim.ema_decay)
    if averaging is not None:  # before Snapshots: a step's average is updated before it is exported
        callbacks.append(averaging)
    if config.checkpoint.every_n_steps is not None:
        callbacks.append(
            ModelCheckpoint(
                dirpath=checkpoints, every_n_train_steps=config.checkpoint.every_n_steps, save_top_k=0, save_last=True
            )
        )
    if config.output.snapshots:
        callbacks.append(Snapshots(config, tokenizer, averaging))
    if validate and config.checkpoint.patience is not None:
        callbacks.append(
            EarlyStopping(
                monitor=monitor,
                mode=config.checkpoint.mode,
                patience=config.checkpoint.patience,
                min_delta=config.checkpoint.min_delta,
            )
        )
    return best_kept, callbacks


def write_held_out(config: TrainConfig, datamodule: SummarizationDataModule) -> None:
    """Save the documents held out of the training file (`*_fraction`) for `evaluate`."""
    for split in ("validation", "test"):
        if getattr(config.data, f"{split}_fraction") > 0:
            write_jsonl(config.run_dir / f"{split}.jsonl", split_documents(datamodule, split))


def score_test_documents(
    config: TrainConfig, datamodule: SummarizationDataModule, model: BertSumModel, tokenizer: PreTrainedTokenizerBase
) -> Evaluation | None:
    """ROUGE of the exported model on the test documents beside Lead, TextRank and the oracle,
    from the features the data module built for them (None without test documents)."""
    if not datamodule.has("test"):
        return None
    if config.selection.max_words is not None:
        print(
            "Test documents not scored: the comparison with Lead and the oracle needs "
            "selection.k or selection.ratio, not selection.max_words.",
            file=sys.stderr,
        )
        return None
    summarizer = Summarizer(model, tokenizer)
    rows = datamodule.datasets["test"]  # features built as the model reads documents
    languages = [str(row.get("language") or "") for row in rows]  # each document's, as its features were built
    prepared = [
        summarizer.prepare_features(row["sentences"], DocumentFeatures.from_columns(row), language or None)
        for row, language in zip(rows, languages)
    ]
    return evaluate_prepared(summarizer, prepared, rows["reference"], config.selection, languages=languages)


def check_same_model(config: TrainConfig, checkpoint: Path) -> None:
    """Refuse to resume from a file that is not a training checkpoint, or from one whose model was
    built with other model settings (its hyperparameters hold them). Settings added since the run
    started count at their defaults; a checkpoint saved before settings were recorded is taken."""
    try:
        # Mapped, not read: only the hyperparameters are needed; Lightning loads the weights itself.
        saved = torch.load(checkpoint, map_location="cpu", weights_only=True, mmap=True)
    except Exception as error:  # damaged, truncated or not a torch file: many types
        raise InputError(
            f"{checkpoint}: not a readable training checkpoint ({type(error).__name__}: {first_line(error)}); "
            "delete it or run without --resume"
        ) from None
    if not isinstance(saved, dict) or "state_dict" not in saved:
        raise InputError(f"{checkpoint}: not a checkpoint of this training (no state_dict); run without --resume")
    averaged = "current_model_state" in saved  # what Lightning's weight averaging adds
    if averaged != (config.optim.ema_decay is not None):
        raise ConfigError(
            f"{checkpoint}: --resume needs optim.ema_decay as the run started: "
            + (
                "set, as the checkpoint holds a weight average"
                if averaged
                else "null, as the checkpoint holds no average"
            )
        )
    try:
        recorded = model_config(saved["hyper_parameters"]["model"])
    except Exception:  # saved without them: Lightning's own loading decides
        return
    differences = _differences(model_settings(recorded), model_settings(config.model), "model")
    if differences:
        raise ConfigError(
            f"{checkpoint}: --resume needs the model settings the run started with, but " + "; ".join(differences)
        )


def model_settings(model: ModelConfig) -> dict[str, Any]:
    """`model` as resuming compares it: its features by the settings that decide them."""
    return {**asdict(model), "features": model.features.deciding_settings()}


def _differences(saved: Any, current: Any, path: str) -> list[str]:
    """Each setting under `path` that differs, as "path was X, now Y"."""
    if isinstance(saved, dict) and isinstance(current, dict):
        keys = sorted(saved.keys() | current.keys())
        return [d for key in keys for d in _differences(saved.get(key), current.get(key), f"{path}.{key}")]
    return [] if saved == current else [f"{path} was {saved!r}, now {current!r}"]


def prepare_run_dir(config: TrainConfig, fresh: bool) -> None:
    """Create the run directory, save the settings in it, and (when `fresh`) drop old checkpoints.

    Also checks that the export directory's parent can be written, before any training.
    """
    try:
        config.run_dir.mkdir(parents=True, exist_ok=True)
        (config.run_dir / "config.yaml").write_text(config.to_yaml())
        if fresh:
            shutil.rmtree(config.run_dir / "checkpoints", ignore_errors=True)
    except OSError as error:
        raise InputError(
            f"output.runs_dir: cannot write the run directory {config.run_dir}: {error.strerror or error}"
        ) from None
    parent = config.export_dir.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise InputError(f"output: cannot create {parent} for the exported model: {error.strerror or error}") from None
    if not os.access(parent, os.W_OK):
        raise InputError(
            f"output: cannot write the exported model beside {config.export_dir}: {parent} is not writable"
        )


class AveragedWeights(EMAWeightAveraging):
    """Lightning's exponential moving average of the weights (`optim.ema_decay`). Validation,
    checkpoints and the end of training already hold the average in place of the last weights;
    `average` gives it to the snapshots too."""

    def __init__(self, decay: float) -> None:
        # Parameters only: a buffer such as BERT's int64 position ids would be averaged in floats and truncated.
        super().__init__(decay=decay, use_buffers=False)

    def average(self, pl_module: pl.LightningModule) -> nn.Module:
        """The averaged copy of `pl_module` (itself before training starts)."""
        return pl_module if self._average_model is None else self._average_model.module


class Snapshots(Callback):
    """Exports the model to `runs_dir/NAME/model-N` once N training documents (`output.snapshots`)
    were read: the weights' average (`AveragedWeights`) when the run keeps one."""

    def __init__(
        self, config: TrainConfig, tokenizer: PreTrainedTokenizerBase, averaging: AveragedWeights | None = None
    ) -> None:
        self.config = config
        self.tokenizer = tokenizer
        self.averaging = averaging
        self.documents_per_step = config.data.batch_size * config.trainer.accumulate_grad_batches

    def on_train_batch_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule, *args: Any) -> None:
        documents = trainer.global_step * self.documents_per_step * trainer.world_size
        if documents in self.config.output.snapshots and trainer.is_global_zero:
            system = pl_module if self.averaging is None else self.averaging.average(pl_module)
            assert isinstance(system, SummarizationSystem)  # the system `train` runs, or its average
            model = system.model
            target = self.config.run_dir / f"model-{documents}"
            if not target.exists():  # a resumed run may pass the same step again
                export_model(model, self.tokenizer, target, *export_settings(self.config))


def export_model(
    model: BertSumModel,
    tokenizer: PreTrainedTokenizerBase,
    directory: Path,
    base_encoder: str | None = None,
    compact_dtype: torch.dtype = torch.float16,
    graph: bool = True,
) -> None:
    """`model.save_pretrained` (or `save_compact` over the packaged `base_encoder` in
    `compact_dtype`, when a base is given) to `directory` with its ONNX graphs (`onnx_export`;
    not with `graph=False`), swapped into place once complete.

    The files go to a new directory beside `directory` first; then the old export is renamed
    away, the new one renamed in, and the old one deleted. A reader never finds a half-written
    model, and no file of an earlier export remains. Every file gets the mode a new file gets
    under the umask (safetensors writes its own 0600).
    """
    staging = directory.with_name(f".{directory.name}.{uuid.uuid4().hex[:12]}")
    try:
        if base_encoder is not None:
            model.save_compact(staging, base_encoder, compact_dtype)
        else:
            model.save_pretrained(str(staging))
            tokenizer.save_pretrained(str(staging))
        if graph:
            export_graph(model, tokenizer, staging)
        for path in (p for p in staging.iterdir() if p.is_file()):
            os.chmod(path, new_file_mode())
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    previous = staging.with_name(f"{staging.name}.old")
    if directory.exists():
        directory.rename(previous)
    try:
        staging.rename(directory)
    except OSError:
        if previous.exists():
            previous.rename(directory)
        shutil.rmtree(staging, ignore_errors=True)
        raise
    shutil.rmtree(previous, ignore_errors=True)


def export_settings(config: TrainConfig) -> tuple[str | None, torch.dtype, bool]:
    """`export_model`'s settings from `config.output`: the packaged encoder a compact export builds
    on (None: a whole export), its dtype, and whether the ONNX graphs are exported."""
    base_encoder = config.model.base_encoder if config.output.compact else None
    return base_encoder, getattr(torch, config.output.compact_weights), config.output.graph


def split_documents(datamodule: SummarizationDataModule, split: str) -> list[Example]:
    """A split's documents, with the sentences and references the model was given."""
    return [
        Example(id=row["id"], sentences=row["sentences"], reference="\n".join(row["reference"]))
        for row in datamodule.datasets[split].select_columns(["id", "sentences", "reference"])
    ]


def report(result: TrainResult, config: TrainConfig) -> str:
    """The run's outcome: test ROUGE of the model and the baselines; where things went."""
    lines = [result.cut_short] if result.cut_short else []
    lines.append(f"Run directory: {result.run_dir} (checkpoints, csv and tensorboard logs)")
    if result.best_score is not None:
        lines.append(f"Best checkpoint: {result.best_checkpoint} ({config.checkpoint.monitor} {result.best_score:.2f})")
    else:
        lines.append(f"Final checkpoint: {result.best_checkpoint}")
    if result.test is not None:
        lines.append(
            f"Test ROUGE F1 with 95% bootstrap intervals on {result.test.documents} documents "
            f"({config.selection.describe()} for the model):"
        )
        lines.append(result.test.table())
        lines.append(
            "(lead: the first sentences; textrank: the most central ones; oracle: a greedy ROUGE search;"
            " all of the same length as the model's)"
        )
    lines.append(f"Model exported to {result.export_dir}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = Parser(
        prog="python -m summarizer.train",
        description="Fine-tune an extractive summarizer; settings come from --config and KEY=VALUE overrides.",
    )
    parser.add_argument("--config", type=Path, help="YAML settings (configs/default.yaml is the main job)")
    parser.add_argument("--resume", action="store_true", help="continue from runs/NAME/checkpoints/last.ckpt")
    parser.add_argument(
        "overrides",
        nargs="*",
        metavar="KEY=VALUE",
        help="override a setting, e.g. trainer.max_epochs=2 model.head=transformer",
    )
    add_debug_flag(parser)
    args = parser.parse_intermixed_args(argv)
    status = run_guarded(
        parser, lambda: _run(args), lambda message: print(f"{parser.prog}: {message}", file=sys.stderr), args.debug
    )
    if status and torch.distributed.is_available() and torch.distributed.is_initialized():
        # A distributed run that failed ends here, with its status: exiting as usual, the process
        # group's threads could abort the process instead ("terminate called without an active
        # exception", SIGABRT), as a rank whose peer is gone tears its group down.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    return status


def _run(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    config = load_config(args.config, args.overrides)
    result = train(config, resume=args.resume)
    if rank_zero_only.rank == 0:  # type: ignore[attr-defined]  # set by Lightning at runtime, untyped
        print(report(result, config))
        minutes, seconds = divmod(round(time.perf_counter() - started), 60)
        print(f"Finished in {minutes} min {seconds:02d} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
