"""The BERTSUM network as a transformers model: an encoder, sentence vectors, a scoring head.

`BertSumModel` is a `PreTrainedModel` over a `BertSumConfig`, registered with `AutoModel`:
`save_pretrained` / `from_pretrained` write and read `config.json` and `model.safetensors`
(dtype and device as transformers offers them); the tokenizer is saved beside them. A compact
directory (`save_compact`) holds the config, naming a packaged base encoder, and only the
parameters training changed, in float16 or int8; the base fills in the rest, tokenizer included.
`warm_start` loads an exported model's weights into a new one, so training can continue it.
No pickle and no Lightning are needed to load either.
Above 250 lines: the model with its two directory formats, whose weights are checked and read
by the same helpers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import torch
from safetensors import safe_open
from safetensors.torch import load_file, save_file
from torch import nn
from transformers import AutoModel, AutoTokenizer, PreTrainedModel, PreTrainedTokenizerBase
from transformers.utils import logging as hf_logging

from summarizer.batch import Batch, collate
from summarizer.configuration import CONFIG_FILE, BertSumConfig, base_encoder_dir, read_config, refuse_code
from summarizer.errors import InputError, first_line
from summarizer.heads import build_head
from summarizer.pooling import CentralityProjection, build_pooling

WEIGHTS_FILE = "model.safetensors"
# A tokenizer directory holds tokenizer_config.json and one of these.
VOCABULARY_FILES = ("tokenizer.json", "vocab.txt", "vocab.json", "spiece.model", "sentencepiece.bpe.model", "tokenizer.model")
# Encoders whose position ids start after the padding index.
_POSITION_OFFSET_FAMILIES = {"roberta": 2, "xlm-roberta": 2, "camembert": 2, "longformer": 2, "mpnet": 2}
# A matrix a compact file holds as int8 has its scales (float32, one per row) under its name and this suffix.
INT8_SCALE_SUFFIX = ".int8_scale"
# Settings a warm start must share with the model it starts from (besides the encoder's shapes).
_WARM_START_SETTINGS = ("head", "pooling", "language", "features")


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


class BertSumModel(PreTrainedModel):
    """Scores every scored sentence of every document in a `Batch` (logits, higher = keep)."""

    config_class = BertSumConfig
    base_model_prefix = "bertsum"
    # The encoder's attention runs as PyTorch's fused kernel (the head needs none of transformers').
    _supports_sdpa = True

    def __init__(self, config: BertSumConfig, encoder: PreTrainedModel | None = None) -> None:
        super().__init__(config)
        limit = encoder_position_limit(config.encoder)
        if config.features.max_window_tokens > limit:
            raise ValueError(
                f"max_window_tokens ({config.features.max_window_tokens}) exceeds what the encoder "
                f"can read ({limit} positions)"
            )
        self.encoder = encoder if encoder is not None else AutoModel.from_config(config.encoder)
        dim = config.encoder.hidden_size
        self.pooling = build_pooling(config.pooling)
        self.head = build_head(dim, config.head)
        # Centrality features enter as a learned vector added to each sentence's encoder vector.
        self.centrality = CentralityProjection(dim) if config.features.centrality else None
        self.post_init()

    def _init_weights(self, module: nn.Module) -> None:
        """The encoder comes pretrained and the head keeps PyTorch's initialization."""

    @classmethod
    def from_encoder(cls, encoder_dir: str | Path, config: BertSumConfig | None = None, **settings: Any) -> BertSumModel:
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
        return self.pooling.finish(grid, batch).view(documents, slots, -1)

    def forward(self, batch: Batch, max_windows_per_pass: int | None = None) -> torch.Tensor:
        """Logits [documents, max_sentences]; entries outside `batch.sentence_mask` mean nothing."""
        vectors = self.sentence_vectors(batch, max_windows_per_pass)
        if self.centrality is not None:
            vectors = self.centrality(vectors, batch)
        return self.head(vectors, batch.sentence_mask, batch.first_sentence)

    def score_rows(self, rows: Sequence[Mapping[str, Any]], pad_token_id: int, max_windows_per_pass: int | None = None) -> list[list[float]]:
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
            raise InputError(f"{directory}: built on {saved.base_encoder}, not on the configured encoder ({base_encoder or 'a directory'})")
        ours, theirs = self.config.to_dict(), saved.to_dict()
        differing = [name for name in _WARM_START_SETTINGS if ours[name] != theirs[name]]
        if ours["encoder"]["model_type"] != theirs["encoder"]["model_type"]:
            differing.insert(0, "encoder")
        if differing:
            name = differing[0]
            raise InputError(f"{directory}: its {name} settings differ from the configured ones ({theirs[name]!r}, not {ours[name]!r})")
        _check_weights({k: v.shape for k, v in self.state_dict().items()}, weights, saved.base_encoder)
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
                raise InputError(f"{directory}: a compact model loads on one device: give device_map a device such as \"cuda\"")
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
        return model.to(device=device, dtype=dtype).eval()


AutoModel.register(BertSumConfig, BertSumModel)


def _check_weights(expected: dict[str, torch.Size], path: Path, base_encoder: str | None) -> None:
    """One line naming what of the weights in `path` does not fit the model's `expected` shapes
    (over a `base_encoder`, the encoder's weights may be absent: the base holds them)."""
    with safe_open(str(path), "pt") as weights:
        shapes = {name: torch.Size(weights.get_slice(name).get_shape()) for name in weights.keys()}
        for name in [n for n in shapes if n.endswith(INT8_SCALE_SUFFIX)]:
            matrix = name[: -len(INT8_SCALE_SUFFIX)]
            if matrix not in shapes or weights.get_slice(matrix).get_dtype() != "I8" or shapes[name] != (shapes[matrix][0], 1):
                raise InputError(f"{path}: {name} is not the scales of an int8 matrix")
            del shapes[name]
        scaled = {name[: -len(INT8_SCALE_SUFFIX)] for name in weights.keys() if name.endswith(INT8_SCALE_SUFFIX)}
        unscaled = sorted(n for n in shapes if n not in scaled and weights.get_slice(n).get_dtype() in ("I8", "U8"))
        if unscaled:
            raise InputError(f"{path}: {unscaled[0]} is an integer tensor without {INT8_SCALE_SUFFIX}")
    problems = {
        "unknown": sorted(set(shapes) - set(expected)),
        "missing": sorted(k for k in expected if k not in shapes and not (base_encoder and k.startswith("encoder."))),
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
