"""A model directory's settings as data, without torch or transformers: the names of its files,
the settings of its heads and poolings, and `read_settings`, the one reader of its
`config.json`.

Both runtimes read a model through `read_settings`: ONNX Runtime (`summarizer.runtime.onnx_model`)
takes the settings that decide how documents become inputs and summaries (`ModelSettings`), torch
builds a `BertSumConfig` from all of them (`configuration_bertsum.read_config`). Directories
written before `BertSumConfig` (`bertsum.json` beside the encoder's `config.json`) are converted
as they are read.
"""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from summarizer.errors import InputError, SettingError, check, check_at_least, first_line
from summarizer.modeling.features import FeatureConfig, convert_saved_features
from summarizer.ranking import RankerConfig
from summarizer.resources import BASE_ENCODERS, base_encoder_dir, read_json
from summarizer.text.sentences import LANGUAGE_CODES, check_language, language_code

MODEL_TYPE = "bertsum"
CONFIG_FILE = "config.json"
WEIGHTS_FILE = "model.safetensors"
# A matrix a compact weights file holds as int8 has its scales (float32, one per row) under its
# name and this suffix.
INT8_SCALE_SUFFIX = ".int8_scale"
# The settings file of directories written before `BertSumConfig`, and its only format.
_OLD_SETTINGS_FILE = "bertsum.json"
_OLD_FORMAT_VERSION = 1


# The settings of each kind of scoring head (`modeling_bertsum`'s heads), by kind. A head defined
# elsewhere adds its own as its class is defined (`SentenceHead`).


def _check_dropout(dropout: float) -> None:
    if not 0.0 <= dropout < 1.0:
        raise SettingError("dropout", f"must be in [0, 1), got {dropout}")


@dataclass(frozen=True)
class LinearHeadSettings:
    dropout: float = 0.1

    def __post_init__(self) -> None:
        _check_dropout(self.dropout)


@dataclass(frozen=True)
class TransformerHeadSettings:
    layers: int = 2
    heads: int = 8
    feedforward: int = 2048
    dropout: float = 0.1

    def __post_init__(self) -> None:
        check_at_least(self, 1, "layers", "heads", "feedforward")
        _check_dropout(self.dropout)


HEAD_SETTINGS: dict[str, type] = {"linear": LinearHeadSettings, "transformer": TransformerHeadSettings}
# The poolings that turn token vectors into sentence vectors (`modeling_bertsum`'s, and any added).
POOLINGS: list[str] = ["cls", "mean"]


def head_settings(settings: dict[str, Any] | str | None) -> dict[str, Any]:
    """`settings` with every default filled in, checked: `{"type": kind, ...}` (a kind alone, or
    None for the linear head, take that head's defaults).

    A `SettingError` for "head" says what is wrong.
    """
    if settings is None or isinstance(settings, str):
        settings = {"type": settings or "linear"}
    settings = dict(settings)
    kind = settings.pop("type", None)
    if kind not in HEAD_SETTINGS:
        raise SettingError("head", f"type must be one of {', '.join(HEAD_SETTINGS)}, got {kind!r}")
    settings_class = HEAD_SETTINGS[kind]
    hints = typing.get_type_hints(settings_class)
    fields = {f.name: hints.get(f.name) for f in dataclasses.fields(settings_class)}
    unknown = sorted(set(settings) - set(fields))
    if unknown:
        raise SettingError(
            "head", f"setting {unknown[0]!r} is not one of the {kind} head's ({', '.join(sorted(fields))})"
        )
    for name, value in settings.items():
        settings[name] = _checked(name, value, fields[name])
    try:
        checked = settings_class(**settings)
    except (TypeError, ValueError) as error:
        raise SettingError("head", str(error)) from None
    return {"type": kind, **dataclasses.asdict(checked)}


def _checked(name: str, value: Any, hint: Any) -> Any:
    """`value` of a head setting declared as `hint` (int, float, bool and str are checked; a
    whole number is a float too), or a `SettingError` for "head" naming the setting."""
    expected = {int: "an integer", float: "a number", bool: "true or false", str: "text"}.get(hint)
    if expected is None:
        return value
    fits = (
        isinstance(value, hint)
        if hint in (bool, str)
        else (not isinstance(value, bool) and isinstance(value, (int, float) if hint is float else int))
    )
    if not fits:
        raise SettingError("head", f"{name} must be {expected}, got {value!r}")
    return float(value) if hint is float else value


def check_pooling(kind: str) -> None:
    """A `SettingError` for "pooling" unless `kind` names a pooling."""
    check(kind in POOLINGS, "pooling", f"must be one of {', '.join(POOLINGS)}, got {kind!r}")


@dataclass(frozen=True)
class ModelSettings:
    """What every runtime reads of a model's settings, checked as it is made: the Punkt
    `language` (sentences, stop words, ROUGE of a document whose language is neither given nor
    detected), the `languages` the model reads (ISO 639-1 codes; empty: `language`'s alone), the `features`,
    the packaged `base_encoder` of a compact model (one of BASE_ENCODERS) and whether summaries
    block repeated trigrams unless the caller says, and its summary-level `ranker`, if it has one
    (`summarizer.ranking`). `values`: everything the file holds (as a
    `BertSumConfig` is made from it), `path`: the file read (None for settings made in code)."""

    language: str = "english"
    features: FeatureConfig = field(default_factory=FeatureConfig)
    base_encoder: str | None = None
    trigram_blocking: bool = True
    values: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    path: Path | None = field(default=None, compare=False)
    languages: tuple[str, ...] = ()  # as config.json holds them: `checked_languages` makes them a tuple
    ranker: RankerConfig | None = None  # as config.json holds it: `RankerConfig.from_settings` checks it

    def __post_init__(self) -> None:
        check_language(self.language)
        object.__setattr__(self, "languages", checked_languages(self.languages, self.language))
        object.__setattr__(self, "ranker", RankerConfig.from_settings(self.ranker))
        check(
            isinstance(self.trigram_blocking, bool),
            "trigram_blocking",
            f"must be true or false, got {self.trigram_blocking!r}",
        )
        check(
            self.base_encoder is None or self.base_encoder in BASE_ENCODERS,
            "base_encoder",
            f"must be one of {', '.join(BASE_ENCODERS)}, got {self.base_encoder!r}",
        )


def checked_languages(languages: Any, language: str) -> tuple[str, ...]:
    """The ISO 639-1 codes a model reads (`languages`; None or empty: the code of its Punkt
    `language` alone), checked: known codes (`LANGUAGE_CODES`), `language`'s among them."""
    if languages is None or (isinstance(languages, (list, tuple)) and not languages):
        return (language_code(language),)
    known = ", ".join(LANGUAGE_CODES)
    if not isinstance(languages, (list, tuple)) or not all(isinstance(code, str) for code in languages):
        raise SettingError("languages", f"must be a list of ISO 639-1 codes ({known}), got {languages!r}")
    unknown = [code for code in languages if code not in LANGUAGE_CODES]
    if unknown:
        raise SettingError("languages", f"must be ISO 639-1 codes of {known}; got {unknown[0]!r}")
    code = language_code(language)
    check(code in languages, "languages", f"must include {code!r}, the code of the model's language {language!r}")
    return tuple(dict.fromkeys(languages))


def read_settings(directory: Path) -> ModelSettings:
    """The settings of the model in `directory` (converted if an earlier release wrote them), or
    an `InputError` naming the file and what is wrong with it."""
    path = directory / CONFIG_FILE
    values = read_json(path) if path.is_file() else {}
    if values.get("model_type") != MODEL_TYPE:
        if not (directory / _OLD_SETTINGS_FILE).is_file():
            raise InputError(
                f'{directory}: not a bertsum model directory (no {CONFIG_FILE} with model_type "{MODEL_TYPE}")'
            )
        path = directory / _OLD_SETTINGS_FILE
        values = _convert(path)
    values.pop("transformers_version", None)
    try:
        return ModelSettings(
            values.get("language", "english"),
            FeatureConfig(**(values.get("features") or {})),
            values.get("base_encoder"),
            values.get("trigram_blocking", True),
            values,
            path,
            values.get("languages") or (),
            values.get("ranker"),
        )
    except (TypeError, ValueError) as error:
        raise InputError(f"{path}: invalid settings: {first_line(error)}") from None


def _convert(path: Path) -> dict[str, Any]:
    """The settings of a directory written before `BertSumConfig` (`bertsum.json`), as
    `config.json` holds them today."""
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
    settings["model_type"] = MODEL_TYPE
    return settings
