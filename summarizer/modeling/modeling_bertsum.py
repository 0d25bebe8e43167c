"""The BERTSUM network as a transformers model: an encoder, sentence vectors, a scoring head.

Read top to bottom: the scoring heads (each registered under its `kind`, its settings a
dataclass in `settings.HEAD_SETTINGS`; a model's config stores `{"type": kind, **settings}`),
the poolings that turn token vectors into sentence vectors (`"cls"`, `"mean"`), the centrality
projection, the
low-rank adapters of the encoder's layers (`lora_rank`), then `BertSumModel`: a
`PreTrainedModel` over a `BertSumConfig`, registered with `AutoModel`.
`save_pretrained` / `from_pretrained` write and read `config.json` and `model.safetensors`; a
compact directory (`save_compact`) holds the config, naming a packaged base encoder, and only
the parameters training changed, in float16 or int8. `warm_start` loads an exported model's
weights into a new one, so that training can continue it. No pickle and no Lightning are needed
to load either.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import torch
from safetensors import safe_open
from safetensors.torch import load_file, save_file
from torch import nn
from transformers import AutoModel, AutoTokenizer, PreTrainedConfig, PreTrainedModel, PreTrainedTokenizerBase
from transformers.utils import logging as hf_logging

from summarizer.errors import InputError, SettingError, first_line
from summarizer.modeling.batch import Batch, collate
from summarizer.modeling.configuration_bertsum import BertSumConfig, read_config, refuse_code
from summarizer.modeling.features import FeatureConfig
from summarizer.modeling.settings import (
    CONFIG_FILE,
    HEAD_SETTINGS,
    INT8_SCALE_SUFFIX,
    POOLINGS,
    WEIGHTS_FILE,
    LinearHeadSettings,
    TransformerHeadSettings,
    check_pooling,
    head_settings,
)
from summarizer.resources import base_encoder_dir
from summarizer.text.centrality import FEATURES_PER_SENTENCE

# A tokenizer directory holds tokenizer_config.json and one of these.
VOCABULARY_FILES = (
    "tokenizer.json",
    "vocab.txt",
    "vocab.json",
    "spiece.model",
    "sentencepiece.bpe.model",
    "tokenizer.model",
)
# Encoders whose position ids start after the padding index.
_POSITION_OFFSET_FAMILIES = {"roberta": 2, "xlm-roberta": 2, "camembert": 2, "longformer": 2, "mpnet": 2}
# Settings a warm start must share with the model it starts from (besides the encoder's shapes).
_WARM_START_SETTINGS = ("head", "pooling", "language", "features")


# Heads: sentence vectors of a batch of documents in, one logit per sentence out.


class SentenceHead(nn.Module):
    """Base of the heads; `SentenceHead.kinds` maps each kind to its class. A head's `Settings`
    (a frozen dataclass) are `settings.HEAD_SETTINGS[kind]`; a head defined elsewhere declares
    its own `Settings`, which join them."""

    kinds: ClassVar[dict[str, type[SentenceHead]]] = {}
    kind: ClassVar[str]
    Settings: ClassVar[type[Any]]

    def __init_subclass__(cls, kind: str, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.kind = kind
        SentenceHead.kinds[kind] = cls
        if "Settings" in cls.__dict__:
            HEAD_SETTINGS[kind] = cls.Settings
        else:
            cls.Settings = HEAD_SETTINGS[kind]

    def forward(self, sentences: torch.Tensor, mask: torch.Tensor, first: torch.Tensor | None = None) -> torch.Tensor:
        """Logits [documents, slots] of `sentences` [documents, slots, dim] where `mask` holds;
        `first[b]`: the place in its document of row b's first sentence (0 when None)."""
        raise NotImplementedError


def build_head(dim: int, settings: dict[str, Any] | str | None) -> SentenceHead:
    """The head `settings` describe (as `head_settings` takes them), for vectors of width `dim`."""
    settings = head_settings(settings)
    cls = SentenceHead.kinds[settings.pop("type")]
    return cls(dim, cls.Settings(**settings))


class LinearHead(SentenceHead, kind="linear"):
    """A linear score of each sentence vector on its own."""

    def __init__(self, dim: int, settings: LinearHeadSettings) -> None:
        super().__init__()
        self.dropout = nn.Dropout(settings.dropout)
        self.score = nn.Linear(dim, 1)

    def forward(self, sentences: torch.Tensor, mask: torch.Tensor, first: torch.Tensor | None = None) -> torch.Tensor:
        return self.score(self.dropout(sentences)).squeeze(-1)


class SentencePositions(nn.Module):
    """Sinusoidal encodings of sentence index (unbounded document length). No state: nothing to
    save or load."""

    def __init__(self, dim: int) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, indices: torch.Tensor) -> torch.Tensor:
        """Encodings [*indices.shape, dim] of the sentence indices `indices`."""
        steps = torch.arange(0, self.dim, 2, device=indices.device).float()
        frequencies = torch.exp(steps * (-math.log(10000.0) / self.dim))
        angles = indices.float()[..., None] * frequencies
        encoding = angles.new_zeros(*indices.shape, self.dim)
        encoding[..., 0::2] = torch.sin(angles)
        encoding[..., 1::2] = torch.cos(angles[..., : self.dim // 2])
        return encoding


class InterSentenceHead(SentenceHead, kind="transformer"):
    """BERTSUM's inter-sentence transformer: sentence positions, pre-norm layers, linear score."""

    def __init__(self, dim: int, settings: TransformerHeadSettings) -> None:
        super().__init__()
        if dim % settings.heads:
            raise SettingError("head", f"heads ({settings.heads}) must divide the encoder width ({dim})")
        self.positions = SentencePositions(dim)
        layer = nn.TransformerEncoderLayer(
            dim,
            settings.heads,
            settings.feedforward,
            settings.dropout,
            activation="gelu",
            batch_first=True,
            norm_first=True,
        )
        self.layers = nn.TransformerEncoder(layer, settings.layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(dim)
        self.score = nn.Linear(dim, 1)

    def forward(self, sentences: torch.Tensor, mask: torch.Tensor, first: torch.Tensor | None = None) -> torch.Tensor:
        indices = torch.arange(sentences.shape[1], device=sentences.device)[None]
        if first is not None:
            indices = first[:, None] + indices
        x = sentences * mask[..., None] + self.positions(indices).to(sentences.dtype)
        padding = ~mask
        # A row without sentences would attend to nothing (NaN); its outputs are ignored anyway.
        padding[:, 0] &= mask.any(dim=1)
        x = self.layers(x, src_key_padding_mask=padding)
        return self.score(self.norm(x)).squeeze(-1)


# Poolings: sentence vectors from the encoder's token vectors (`Batch.passes` feeds them a few
# windows at a time: `gather` adds each pass to a [documents * slots, dim] grid, `finish`
# completes it), and the centrality projection.


class Pooling(nn.Module):
    """Base of the poolings; `Pooling.kinds` maps each kind to its class."""

    kinds: ClassVar[dict[str, type[Pooling]]] = {}
    kind: ClassVar[str]
    # Whether batches must be collated with `token_slots=True` (each token's sentence slot).
    needs_token_slots: ClassVar[bool] = False

    def __init_subclass__(cls, kind: str, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.kind = kind
        Pooling.kinds[kind] = cls
        if kind not in POOLINGS:  # a pooling defined elsewhere
            POOLINGS.append(kind)

    def gather(self, grid: torch.Tensor, hidden: torch.Tensor, batch: Batch, rows: torch.Tensor) -> None:
        """Add to `grid` what the windows `rows` of `batch` (encoded as `hidden`, cut to its
        width) give their sentences."""
        raise NotImplementedError

    def finish(self, grid: torch.Tensor, batch: Batch) -> torch.Tensor:
        """The sentence vectors, once every window is gathered."""
        return grid


def build_pooling(kind: str) -> Pooling:
    check_pooling(kind)
    return Pooling.kinds[kind]()


class ClsPooling(Pooling, kind="cls"):
    """Each sentence's `[CLS]` vector."""

    def gather(self, grid: torch.Tensor, hidden: torch.Tensor, batch: Batch, rows: torch.Tensor) -> None:
        place = torch.full((batch.input_ids.shape[0],), -1, dtype=torch.long, device=rows.device)
        place[rows] = torch.arange(rows.shape[0], device=rows.device)  # each window's row in `hidden`
        row = place[batch.cls_window]
        # Without selecting by a mask (shapes stay fixed, so the network exports to ONNX):
        # sentences of windows outside this pass keep what the grid holds.
        found = hidden[row.clamp(min=0), batch.cls_position.clamp(max=hidden.shape[1] - 1)]
        grid[batch.sentence_slot] = torch.where((row >= 0)[:, None], found, grid[batch.sentence_slot])


class MeanPooling(Pooling, kind="mean"):
    """The mean of each sentence's token vectors (its `[CLS]` and `[SEP]` included).

    Exported to ONNX, the sums are a matrix product with a one-hot [slots, tokens] matrix instead
    of `index_add_`: ONNX Runtime's scatter-add (ScatterND, reduction "add") races between its
    threads over repeated indices (microsoft/onnxruntime#18048), so the same call gave different
    scores. The one-hot of a call (`onnx_model.MAX_WINDOWS_PER_CALL` windows) held at most 1.2 MB
    over 1,000 CNN/DailyMail articles; a long section's call (up to 512 sentences) a sixth or less of
    one layer's attention probabilities.
    """

    needs_token_slots = True

    def gather(self, grid: torch.Tensor, hidden: torch.Tensor, batch: Batch, rows: torch.Tensor) -> None:
        if batch.token_slot is None:
            raise ValueError("mean pooling needs a batch collated with token_slots=True")
        slots = batch.token_slot[rows, : hidden.shape[1]]  # the tokens cut off are padding
        if torch.onnx.is_in_onnx_export():
            grid += _one_hot(slots, grid.shape[0], hidden.dtype) @ hidden.flatten(0, 1)
            return
        # Tokens of no sentence (slot -1) add zeros to slot 0: shapes stay fixed (no selection by a mask).
        own = (slots >= 0).to(hidden.dtype)[..., None]
        grid.index_add_(0, slots.clamp(min=0).flatten(), (hidden * own).flatten(0, 1))

    def finish(self, grid: torch.Tensor, batch: Batch) -> torch.Tensor:
        assert batch.token_slot is not None  # `gather` checked it
        if torch.onnx.is_in_onnx_export():
            counts = _one_hot(batch.token_slot, grid.shape[0], grid.dtype).sum(dim=1)
            return grid / counts.clamp(min=1)[:, None]
        token_slot = batch.token_slot.flatten()
        own = (token_slot >= 0).to(grid.dtype)
        counts = grid.new_zeros(grid.shape[0]).index_add_(0, token_slot.clamp(min=0), own)
        return grid / counts.clamp(min=1)[:, None]


def _one_hot(slots: torch.Tensor, count: int, dtype: torch.dtype) -> torch.Tensor:
    """[count, tokens]: 1 where token j (of `slots` flattened) belongs to slot i; a token of slot
    -1 (no sentence) has no 1."""
    return (torch.arange(count, device=slots.device)[:, None] == slots.flatten()[None, :]).to(dtype)


class CentralityProjection(nn.Linear):
    """Adds a learned projection of each sentence's centrality features to its vector."""

    def __init__(self, dim: int) -> None:
        super().__init__(FEATURES_PER_SENTENCE, dim)

    def forward(self, vectors: torch.Tensor, batch: Batch) -> torch.Tensor:  # type: ignore[override]
        if batch.sentence_features is None:
            raise ValueError("this model reads sentence centrality: collate features built with centrality on")
        added = super().forward(batch.sentence_features.to(vectors.dtype))
        return vectors + added * batch.sentence_mask[..., None]


# Low-rank adapters.


class LoRALinear(nn.Linear):
    """A linear layer of the encoder plus a trained low-rank change of its weights (LoRA, Hu et
    al. 2021): `x W^T + b + (x A^T) B^T`, A [rank, in] and B [out, rank]. B starts at zero, so
    a new adapter changes nothing. The layer keeps its own `weight` and `bias` under their
    names (a compact model reads them from its packaged encoder); only `lora_a` and `lora_b` are
    the model's. The change stays a product of its own in every pass (merged into `weight`, the
    stored weight would no longer be the packaged one): 1.6% more multiply-adds than the encoder's
    linear layers at rank 8 and width 768. Torch's int8 (`precision.with_precision`) leaves
    these layers in fp32; the int8 ONNX graph quantizes them as it does the others."""

    def __init__(self, linear: nn.Linear, rank: int) -> None:
        nn.Module.__init__(self)
        self.in_features, self.out_features = linear.in_features, linear.out_features
        self.weight, self.bias = linear.weight, linear.bias
        self.lora_a = nn.Parameter(linear.weight.new_empty(rank, self.in_features, dtype=torch.float32))
        nn.init.kaiming_uniform_(self.lora_a, a=math.sqrt(5))  # as nn.Linear initializes its weight
        self.lora_b = nn.Parameter(linear.weight.new_zeros(self.out_features, rank, dtype=torch.float32))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return super().forward(x) + nn.functional.linear(nn.functional.linear(x, self.lora_a), self.lora_b)


def add_lora(encoder: nn.Module, rank: int) -> None:
    """Give every linear layer of every transformer layer of `encoder` an adapter of `rank`."""
    for layer in encoder_layers(encoder):
        for name, module in list(layer.named_modules()):
            if type(module) is nn.Linear:
                parent, _, attribute = name.rpartition(".")
                setattr(layer.get_submodule(parent), attribute, LoRALinear(module, rank))


def is_lora(name: str) -> bool:
    """Whether the parameter `name` is an adapter's."""
    return name.endswith((".lora_a", ".lora_b"))


# The model.


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
    """Leave only the top `trainable_layers` layers trainable: embeddings and lower layers freeze
    (their adapters, if any, stay trainable).

    Frozen layers keep no activations for the backward pass, which then stops at the first
    trainable layer (at the first adapter, with adapters): training costs the forward pass plus
    the backward pass of the top layers.
    """
    layers = encoder_layers(encoder)
    if not 0 <= trainable_layers <= len(layers):
        raise ValueError(
            f"trainable_layers must be between 0 and {len(layers)} (the encoder's layers), got {trainable_layers}"
        )
    encoder.requires_grad_(False)
    for layer in layers[len(layers) - trainable_layers :]:
        layer.requires_grad_(True)
    for name, parameter in encoder.named_parameters():
        if is_lora(name):
            parameter.requires_grad_(True)


def encoder_position_limit(config: Any) -> int:
    """How many tokens one encoder sequence may hold."""
    return config.max_position_embeddings - _POSITION_OFFSET_FAMILIES.get(config.model_type, 0)


class BertSumModel(PreTrainedModel):
    """Scores every scored sentence of every document in a `Batch` (logits, higher = keep)."""

    config_class = BertSumConfig
    base_model_prefix = "bertsum"
    # The encoder's attention runs as PyTorch's fused kernel (the head needs none of transformers').
    _supports_sdpa = True

    def __init__(self, config: BertSumConfig, encoder: PreTrainedModel | None = None) -> None:
        super().__init__(config)
        # BertSumConfig.__post_init__ made these a config, a FeatureConfig and head settings.
        assert isinstance(config.encoder, PreTrainedConfig) and isinstance(config.features, FeatureConfig)
        assert config.head is not None
        limit = encoder_position_limit(config.encoder)
        if config.features.max_window_tokens > limit:
            raise ValueError(
                f"max_window_tokens ({config.features.max_window_tokens}) exceeds what the encoder "
                f"can read ({limit} positions)"
            )
        self.encoder = encoder if encoder is not None else AutoModel.from_config(config.encoder)
        if config.lora_rank:
            add_lora(self.encoder, config.lora_rank)
        dim = config.encoder.hidden_size
        self.pooling = build_pooling(config.pooling)
        self.head = build_head(dim, config.head)
        # Centrality features enter as a learned vector added to each sentence's encoder vector.
        self.centrality = CentralityProjection(dim) if config.features.centrality else None
        self.post_init()

    def _init_weights(self, module: nn.Module) -> None:
        """The encoder comes pretrained and the head keeps PyTorch's initialization."""

    @classmethod
    def from_encoder(
        cls, encoder_dir: str | Path, config: BertSumConfig | None = None, **settings: Any
    ) -> BertSumModel:
        """A new model around pretrained encoder weights (the head starts untrained); `settings`
        are `BertSumConfig` fields besides the encoder, when no `config` is given."""
        refuse_code(Path(encoder_dir))
        encoder = AutoModel.from_pretrained(str(encoder_dir), local_files_only=True, trust_remote_code=False)
        if config is None:
            config = BertSumConfig(encoder=encoder.config, **settings)
        return cls(config, encoder)

    def sentence_vectors(self, batch: Batch, max_windows_per_pass: int | None = None) -> torch.Tensor:
        """[documents, max_sentences, hidden] vectors, zeros at padding.

        The encoder reads at most `max_windows_per_pass` windows per call (None: all at once, as
        training does), so that inference on long documents runs in bounded memory; each call
        is cut to its longest window (`Batch.passes`).
        """
        if max_windows_per_pass is not None and max_windows_per_pass < 1:
            raise ValueError(f"max_windows_per_pass must be at least 1 or None, got {max_windows_per_pass}")
        documents, slots = batch.sentence_mask.shape
        grid = None
        for rows, width in batch.passes(max_windows_per_pass):
            hidden = self.encoder(**batch.encoder_inputs(rows, width)).last_hidden_state
            if grid is None:
                grid = hidden.new_zeros(documents * slots, hidden.shape[-1])
            self.pooling.gather(grid, hidden, batch, rows)
        assert grid is not None  # `Batch.passes` gives at least one pass
        return self.pooling.finish(grid, batch).view(documents, slots, -1)

    def forward(self, batch: Batch, max_windows_per_pass: int | None = None) -> torch.Tensor:
        """Logits [documents, max_sentences]; entries outside `batch.sentence_mask` mean nothing."""
        vectors = self.sentence_vectors(batch, max_windows_per_pass)
        if self.centrality is not None:
            vectors = self.centrality(vectors, batch)
        return self.head(vectors, batch.sentence_mask, batch.first_sentence)

    def score_rows(
        self, rows: Sequence[Mapping[str, Any]], pad_token_id: int, max_windows_per_pass: int | None = None
    ) -> list[list[float]]:
        """The probability of each scored sentence of each row (a document's or section's
        features, `DocumentFeatures.to_columns`), scored as one batch on the model's device."""
        batch = collate(rows, pad_token_id, token_slots=self.pooling.needs_token_slots).to(self.device)
        with torch.inference_mode():
            probabilities = torch.sigmoid(self(batch, max_windows_per_pass).float()).cpu()
        return [probabilities[i, : len(row["sentence_indices"])].tolist() for i, row in enumerate(rows)]

    def scratch_parameters(self) -> list[nn.Parameter]:
        """Everything trained from scratch: the head and the centrality projection, if any."""
        modules = [self.head] if self.centrality is None else [self.head, self.centrality]
        return [p for module in modules for p in module.parameters()]

    def save_compact(self, directory: str | Path, base_encoder: str, dtype: torch.dtype = torch.float16) -> None:
        """Write the config and the trained parameters (those that require grad) as `dtype`:
        float16, or int8 (matrices as int8 with a float32 scale per row, symmetric; the rest in
        float16), half the size again.

        The packaged encoder `base_encoder` must hold every other parameter as it is in this
        model: a compact model is a trained head and top layers over frozen packaged weights.
        """
        if dtype not in (torch.float16, torch.bfloat16, torch.float32, torch.int8):
            raise ValueError(f"a compact model is saved as float16, bfloat16, float32 or int8, not {dtype}")
        trained = {name for name, p in self.named_parameters() if p.requires_grad}
        state = {}
        for name, value in self.state_dict().items():
            if name not in trained:
                continue
            value = value.detach().cpu().float()
            if dtype == torch.int8 and value.ndim == 2:
                scale = value.abs().amax(dim=1, keepdim=True).clamp(min=torch.finfo(torch.float32).tiny) / 127
                state[name] = (value / scale).round().clamp(-127, 127).to(torch.int8)
                state[name + INT8_SCALE_SUFFIX] = scale.contiguous()
            else:
                state[name] = value.to(torch.float16 if dtype == torch.int8 else dtype).contiguous()
        config = BertSumConfig.from_dict({**self.config.to_dict(), "base_encoder": base_encoder})
        config.architectures = [type(self).__name__]
        config.save_pretrained(str(directory))
        save_file(state, str(Path(directory) / WEIGHTS_FILE), metadata={"format": "pt"})

    def warm_start(self, directory: str | Path, base_encoder: str | None) -> None:
        """Load the weights of the model exported to `directory` (whole, or compact over the
        packaged `base_encoder` this model was built from) into this model, whose settings must
        be that model's; an `InputError` names the first that differs. Parameters a compact
        directory leaves out keep this model's (the base encoder's) values."""
        directory = Path(directory)
        saved = read_config(directory)  # which refuses code first
        weights = directory / WEIGHTS_FILE
        if not weights.is_file():
            raise InputError(f"{directory}: not a bertsum model directory (no {WEIGHTS_FILE})")
        if saved.base_encoder is not None and saved.base_encoder != base_encoder:
            raise InputError(
                f"{directory}: built on {saved.base_encoder}, not on the configured encoder "
                f"({base_encoder or 'a directory'})"
            )
        ours, theirs = self.config.to_dict(), saved.to_dict()
        differing = [name for name in _WARM_START_SETTINGS if ours[name] != theirs[name]]
        if theirs["lora_rank"] and ours["lora_rank"] != theirs["lora_rank"]:  # a model without goes on with new ones
            differing.insert(0, "lora_rank")
        if ours["encoder"]["model_type"] != theirs["encoder"]["model_type"]:
            differing.insert(0, "encoder")
        if differing:
            name = differing[0]
            raise InputError(
                f"{directory}: its {name} settings differ from the configured ones ({theirs[name]!r}, not "
                f"{ours[name]!r})"
            )
        # Adapters the saved model lacks start as new ones: a run may add them to a model trained without.
        _check_weights({k: v.shape for k, v in self.state_dict().items()}, weights, saved.base_encoder, new_lora=True)
        state = _read_weights(weights)
        with torch.no_grad():
            for name, tensor in self.state_dict().items():
                if name in state:
                    tensor.copy_(state[name])

    @classmethod
    def from_pretrained(cls, directory: str | Path, **kwargs: Any) -> BertSumModel:  # type: ignore[override]
        """The model in `directory` (written by `save_pretrained` or `save_compact`, or by an
        earlier release), in eval mode; transformers' keyword arguments (`device_map`, `dtype`)
        apply (`device_map` needs accelerate: else move the model with `.to(device)`). An
        `InputError` names what does not fit; nothing in the directory is executed."""
        directory = Path(directory)
        config = kwargs.pop("config", None)
        if config is None:
            config = read_config(directory)  # which refuses code first
        else:  # as AutoModel gives one
            refuse_code(directory)
        weights = directory / WEIGHTS_FILE
        if not weights.is_file():
            raise InputError(f"{directory}: not a bertsum model directory (no {WEIGHTS_FILE})")
        try:
            with torch.device("meta"):
                expected = {k: v.shape for k, v in cls(config).state_dict().items()}
        except (ValueError, AttributeError, TypeError) as error:  # settings no model can be built from
            raise InputError(f"{directory / CONFIG_FILE}: {first_line(error)}") from None
        _check_weights(expected, weights, config.base_encoder)
        kwargs.update(local_files_only=True, trust_remote_code=False)
        if config.base_encoder is not None:  # moved and cast here, after loading: refused before it
            device, dtype = kwargs.pop("device_map", None), kwargs.pop("dtype", None)
            if isinstance(dtype, str):  # "bfloat16" as transformers takes it; "auto": as saved (float32)
                dtype = None if dtype == "auto" else getattr(torch, dtype)
            if device == "auto" or (device is not None and not isinstance(device, (str, int, torch.device))):
                raise InputError(
                    f'{directory}: a compact model loads on one device: give device_map a device such as "cuda"'
                )
        shown = hf_logging.is_progress_bar_enabled()
        hf_logging.disable_progress_bar()  # loading is quick; a bar would clutter summarize's stderr
        try:
            if config.base_encoder is None:
                return super().from_pretrained(str(directory), config=config, **kwargs).eval()
            encoder = AutoModel.from_pretrained(str(base_encoder_dir(config.base_encoder)), **kwargs)
        finally:
            if shown:
                hf_logging.enable_progress_bar()
        model = cls(config, encoder)
        model.load_state_dict(_read_weights(weights), strict=False)
        # transformers wraps `to` in functools.wraps, which typeshed types as not binding `self`.
        return model.to(device=device, dtype=dtype).eval()  # type: ignore[call-arg]


AutoModel.register(BertSumConfig, BertSumModel)


def _check_weights(
    expected: dict[str, torch.Size], path: Path, base_encoder: str | None, new_lora: bool = False
) -> None:
    """One line naming what of the weights in `path` does not fit the model's `expected` shapes
    (over a `base_encoder`, the encoder's weights may be absent: the base holds them; adapters
    may be absent only when `new_lora`)."""
    with safe_open(str(path), "pt") as weights:
        shapes = {name: torch.Size(weights.get_slice(name).get_shape()) for name in weights.keys()}
        for name in [n for n in shapes if n.endswith(INT8_SCALE_SUFFIX)]:
            matrix = name[: -len(INT8_SCALE_SUFFIX)]
            if (
                matrix not in shapes
                or weights.get_slice(matrix).get_dtype() != "I8"
                or shapes[name] != (shapes[matrix][0], 1)
            ):
                raise InputError(f"{path}: {name} is not the scales of an int8 matrix")
            del shapes[name]
        scaled = {name[: -len(INT8_SCALE_SUFFIX)] for name in weights.keys() if name.endswith(INT8_SCALE_SUFFIX)}
        unscaled = sorted(n for n in shapes if n not in scaled and weights.get_slice(n).get_dtype() in ("I8", "U8"))
        if unscaled:
            raise InputError(f"{path}: {unscaled[0]} is an integer tensor without {INT8_SCALE_SUFFIX}")
    problems = {
        "unknown": sorted(set(shapes) - set(expected)),
        "missing": sorted(
            k
            for k in expected
            if k not in shapes
            and not (new_lora and is_lora(k))
            and not (base_encoder and k.startswith("encoder.") and not is_lora(k))
        ),
        "wrong shape": sorted(k for k in set(shapes) & set(expected) if shapes[k] != expected[k]),
    }
    for problem, names in problems.items():
        if names:
            more = f" and {len(names) - 3} more" if len(names) > 3 else ""
            against = base_encoder or "config.json"
            raise InputError(f"{path}: weights do not fit {against} ({problem}: {', '.join(names[:3])}{more})")


def _read_weights(path: Path) -> dict[str, torch.Tensor]:
    """The tensors of a weights file checked by `_check_weights`, int8 matrices scaled back to float32."""
    state = load_file(str(path))
    for name in [n for n in state if n.endswith(INT8_SCALE_SUFFIX)]:
        scale = state.pop(name)
        matrix = name[: -len(INT8_SCALE_SUFFIX)]
        state[matrix] = state[matrix].float() * scale.float()
    return state


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
