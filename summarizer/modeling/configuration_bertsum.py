"""A model's settings: `BertSumConfig`, a transformers config holding the encoder's as a sub-config.

One `config.json` describes a model: the encoder's configuration, the head and pooling (each
a small module with its own settings), the language and the feature settings, and for a compact
model the packaged encoder its weights build on. Directories written before this format
(`bertsum.json` beside the encoder's `config.json`) are converted when read. Nothing in a model
directory is ever executed: `refuse_code` turns away any that would need its own Python code.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from transformers import AutoConfig, PreTrainedConfig
from transformers.configuration_utils import SubConfigSpec
from transformers.models.auto.configuration_auto import CONFIG_MAPPING

from summarizer.errors import InputError, SettingError, first_line
from summarizer.modeling.features import FeatureConfig, convert_saved_features
from summarizer.resources import BASE_ENCODERS, base_encoder_dir, read_json
from summarizer.text.sentences import check_language

CONFIG_FILE = "config.json"
# The settings file of directories written before `BertSumConfig`, and its only format.
_OLD_SETTINGS_FILE = "bertsum.json"
_OLD_FORMAT_VERSION = 1


class BertSumConfig(PreTrainedConfig):
    """encoder: the encoder's config (a `PreTrainedConfig` or its dict). head: `{"type": kind,
    **settings}` (`modeling_bertsum`). pooling: "cls" or "mean".
    language: a Punkt language name (sentences, stop words, ROUGE). features: a `FeatureConfig`
    or its dict. base_encoder: for a compact model, the packaged encoder (one of BASE_ENCODERS)
    whose weights it leaves out. lora_rank: the rank of the low-rank adapters on every linear
    layer of the encoder's layers (0: none). trigram_blocking: whether summaries skip a
    sentence that shares a word trigram with one already chosen, unless the caller says
    (`SelectionConfig`): the selection the model was validated with, as a generation config
    holds a model's decoding defaults.
    """

    model_type = "bertsum"
    sub_configs_defaults = {"encoder": SubConfigSpec(config_class=AutoConfig, model_type="bert")}

    encoder: PreTrainedConfig | dict | None = None
    head: dict | str | None = None  # a kind alone takes that head's defaults; None: linear
    pooling: str = "cls"
    language: str = "english"
    features: FeatureConfig | dict | None = None
    base_encoder: str | None = None
    lora_rank: int = 0
    trigram_blocking: bool = True

    def __post_init__(self, **kwargs: Any) -> None:
        # The heads and poolings register themselves in the modeling module, which imports this one.
        from summarizer.modeling.modeling_bertsum import check_pooling, head_settings

        self.head = head_settings(self.head)
        check_pooling(self.pooling)
        check_language(self.language)
        if not isinstance(self.features, FeatureConfig):
            self.features = FeatureConfig(**(self.features or {}))
        if not isinstance(self.lora_rank, int) or isinstance(self.lora_rank, bool) or self.lora_rank < 0:
            raise SettingError("lora_rank", f"must be a whole number, 0 or more, got {self.lora_rank!r}")
        if not isinstance(self.trigram_blocking, bool):
            raise SettingError("trigram_blocking", f"must be true or false, got {self.trigram_blocking!r}")
        if self.base_encoder is not None and self.base_encoder not in BASE_ENCODERS:
            raise SettingError("base_encoder", f"must be one of {', '.join(BASE_ENCODERS)}, got {self.base_encoder!r}")
        # A composite config resets its sub-configs' attention implementation: the encoder keeps
        # the one it was loaded with (PyTorch's fused kernel, unless asked otherwise).
        attention = self.encoder._attn_implementation if isinstance(self.encoder, PreTrainedConfig) else None
        super().__post_init__(**kwargs)
        assert isinstance(self.encoder, PreTrainedConfig)  # the sub-config, made from a dict or the default
        if attention is not None and self._attn_implementation is None:
            self.encoder._attn_implementation = attention
        self.encoder.name_or_path = ""  # where the encoder came from is no setting of the model

    def to_dict(self) -> dict[str, Any]:
        settings = super().to_dict()
        assert isinstance(self.features, FeatureConfig)  # made one in __post_init__
        settings["features"] = self.features.to_dict()
        return settings


AutoConfig.register(BertSumConfig.model_type, BertSumConfig)


def read_config(directory: Path) -> BertSumConfig:
    """The config of the model in `directory` (converted if an earlier release wrote it), or an
    `InputError` naming the file and what is wrong with it."""
    refuse_code(directory)
    path = directory / CONFIG_FILE
    settings = read_json(path) if path.is_file() else {}
    if settings.get("model_type") == BertSumConfig.model_type:
        return _config(settings, path)
    if (directory / _OLD_SETTINGS_FILE).is_file():
        return _convert(directory / _OLD_SETTINGS_FILE)
    raise InputError(f'{directory}: not a bertsum model directory (no {CONFIG_FILE} with model_type "bertsum")')


def _convert(path: Path) -> BertSumConfig:
    """The config of a directory written before `BertSumConfig` (`bertsum.json`)."""
    settings = read_json(path)
    version = settings.pop("format_version", None)
    if version != _OLD_FORMAT_VERSION:
        raise InputError(f"{path}: model format {version} is not supported (expected {_OLD_FORMAT_VERSION})")
    base = settings.get("base_encoder")
    encoder_path = (base_encoder_dir(base) if base in BASE_ENCODERS else path.parent) / CONFIG_FILE
    if not encoder_path.is_file():
        raise InputError(f"{path.parent}: {CONFIG_FILE} is missing (the encoder's settings)")
    head = {"type": settings.pop("head", "linear"), "dropout": settings.pop("head_dropout", 0.1)}
    for name in ("layers", "heads", "feedforward"):
        value = settings.pop(f"head_{name}", None)
        if head["type"] == "transformer" and value is not None:
            head[name] = value
    settings["head"] = head
    settings["encoder"] = read_json(encoder_path)
    try:
        settings["features"] = convert_saved_features(settings.get("features") or {})
    except ValueError as error:
        raise InputError(f"{path}: {error}") from None
    return _config(settings, path)


def _config(settings: dict[str, Any], path: Path) -> BertSumConfig:
    settings.pop("transformers_version", None)
    try:
        return BertSumConfig.from_dict(settings)
    except (TypeError, ValueError, KeyError, AttributeError) as error:
        raise InputError(f"{path}: invalid settings: {first_line(error)}") from None


def refuse_code(directory: Path) -> None:
    """An `InputError` if loading `directory` would need Python code from it (`auto_map`, or a
    `model_type` transformers does not know, at any depth of the config): nothing from a model
    directory is ever executed."""
    for name in (CONFIG_FILE, "tokenizer_config.json"):
        path = directory / name
        if path.is_file():
            _refuse_code_in(read_json(path), path, name == CONFIG_FILE, top=True)


def _refuse_code_in(settings: dict[str, Any], path: Path, is_config: bool, top: bool) -> None:
    if "auto_map" in settings:
        raise InputError(f"{path}: refused: it asks to run Python code from its directory (auto_map)")
    kind = settings.get("model_type")
    if is_config and kind is not None:
        if kind not in CONFIG_MAPPING:
            raise InputError(
                f"{path}: refused: model_type {kind!r} is not one transformers knows (it would need code "
                "from the directory)"
            )
        if kind == BertSumConfig.model_type and not top:
            raise InputError(f"{path}: refused: a bertsum model cannot be the encoder of another")
    for value in settings.values():
        if isinstance(value, dict):
            _refuse_code_in(value, path, is_config, top=False)
