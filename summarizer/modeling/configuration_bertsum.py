"""A model's settings: `BertSumConfig`, a transformers config holding the encoder's as a sub-config.

One `config.json` describes a model: the encoder's configuration, the head and pooling (each
a small module with its own settings), the language and the feature settings, and for a compact
model the packaged encoder its weights build on. It is read by `settings.read_settings`, which
checks what every runtime reads and converts directories written before this format; the
settings of the heads and poolings are `settings`' too, so that this module needs nothing of
`modeling_bertsum`. Nothing in a model directory is ever executed: `refuse_code` turns away any
that would need its own Python code.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from transformers import AutoConfig, PreTrainedConfig
from transformers.configuration_utils import SubConfigSpec
from transformers.models.auto.configuration_auto import CONFIG_MAPPING

from summarizer.errors import InputError, SettingError, first_line
from summarizer.modeling.features import FeatureConfig
from summarizer.modeling.settings import (
    CONFIG_FILE,
    MODEL_TYPE,
    ModelSettings,
    check_pooling,
    checked_languages,
    head_settings,
    read_settings,
)
from summarizer.ranking import RankerConfig
from summarizer.resources import read_json


class BertSumConfig(PreTrainedConfig):
    """encoder: the encoder's config (a `PreTrainedConfig` or its dict). head: `{"type": kind,
    **settings}` (`modeling_bertsum`). pooling: "cls" or "mean".
    language: a Punkt language name (sentences, stop words, ROUGE), that of a document whose
    language is neither given nor detected. languages: the ISO 639-1 codes of the languages the
    model reads (None: `language`'s alone); a document in another is refused. features: a `FeatureConfig`
    or its dict. base_encoder: for a compact model, the packaged encoder (one of BASE_ENCODERS)
    whose weights it leaves out. lora_rank: the rank of the low-rank adapters on every linear
    layer of the encoder's layers (0: none). trigram_blocking: whether summaries pass over
    a sentence that shares a word trigram with one already chosen, unless the caller says
    (`SelectionConfig`): the selection the model was validated with, as a generation config
    holds a model's decoding defaults. ranker: its summary-level ranker (`RankerConfig` or its
    dict; None: none), which selection asks for summaries of a fixed number of sentences.
    """

    model_type = MODEL_TYPE
    sub_configs_defaults = {"encoder": SubConfigSpec(config_class=AutoConfig, model_type="bert")}

    encoder: PreTrainedConfig | dict | None = None
    head: dict | str | None = None  # a kind alone takes that head's defaults; None: linear
    pooling: str = "cls"
    language: str = "english"
    languages: list[str] | None = None
    features: FeatureConfig | dict | None = None
    base_encoder: str | None = None
    lora_rank: int = 0
    trigram_blocking: bool = True
    ranker: RankerConfig | dict | None = None

    def __post_init__(self, **kwargs: Any) -> None:
        self.head = head_settings(self.head)
        check_pooling(self.pooling)
        if not isinstance(self.lora_rank, int) or isinstance(self.lora_rank, bool) or self.lora_rank < 0:
            raise SettingError("lora_rank", f"must be a whole number, 0 or more, got {self.lora_rank!r}")
        # What every runtime reads, checked as `read_settings` checks it.
        if not isinstance(self.features, FeatureConfig):
            self.features = FeatureConfig(**(self.features or {}))
        self.ranker = RankerConfig.from_settings(self.ranker)
        ModelSettings(self.language, self.features, self.base_encoder, self.trigram_blocking)
        checked = checked_languages(self.languages, self.language)  # kept as given: None stays None
        self.languages = list(checked) if self.languages else None
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
        if isinstance(self.ranker, RankerConfig):
            settings["ranker"] = self.ranker.to_dict()
        return settings


AutoConfig.register(BertSumConfig.model_type, BertSumConfig)


def read_config(directory: Path) -> BertSumConfig:
    """The config of the model in `directory` (converted if an earlier release wrote it), or an
    `InputError` naming the file and what is wrong with it."""
    refuse_code(directory)
    settings = read_settings(directory)
    values = dict(settings.values)
    try:
        return BertSumConfig.from_dict(values)
    except (TypeError, ValueError, KeyError, AttributeError) as error:
        raise InputError(f"{settings.path}: invalid settings: {first_line(error)}") from None


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
