"""Settings read from YAML into nested dataclasses, with `dotted.key=value` overrides.

A key the dataclass lacks, or a value of the wrong type or range, raises `ConfigError` naming
the key (`section.key: ...`); checks in `__post_init__` raise `SettingError`, which carries the
field's name. A dataclass with an `extra_setting(key, value, where)` classmethod takes other keys too,
into its `others` field; one with a `RENAMED` mapping says what replaced a key it no longer has.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from pathlib import Path
from typing import Any, Union

import yaml

from summarizer.errors import InputError, SettingError


class ConfigError(InputError):
    """A setting that does not exist or has an unusable value; the message names its key."""


def read_yaml(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ConfigError(f"{path}: cannot read the config: {error.strerror}") from None
    try:
        values = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise ConfigError(f"{path}: not valid YAML: {error}") from None
    if values is None:
        return {}
    if not isinstance(values, dict):
        raise ConfigError(f"{path}: the config must be a mapping of settings")
    return values


def parse_override(override: str) -> tuple[str, Any]:
    key, sep, raw = override.partition("=")
    key = key.strip()
    if not sep or not key or any(not part for part in key.split(".")):
        raise ConfigError(f"{override!r}: an override looks like section.key=value")
    try:
        value = yaml.safe_load(raw) if raw.strip() else None
    except yaml.YAMLError:
        value = raw
    return key, value


def set_dotted(values: dict[str, Any], key: str, value: Any) -> None:
    *parents, last = key.split(".")
    node = values
    for depth, part in enumerate(parents):
        child = node.setdefault(part, {})
        if not isinstance(child, dict):
            raise ConfigError(f"{'.'.join(parents[: depth + 1])}: is a value, not a section")
        node = child
    node[last] = value


def build(cls: type, values: Any, path: str) -> Any:
    if not isinstance(values, dict):
        raise ConfigError(f"{path or 'config'}: expected a section of settings, got {_describe(values)}")
    hints = typing.get_type_hints(cls)
    extra = getattr(cls, "extra_setting", None)  # a section that takes settings beyond its fields
    known = {f.name for f in dataclasses.fields(cls) if f.init} - ({"others"} if extra else set())
    kwargs: dict[str, Any] = {}
    others: dict[str, Any] = {}
    for key, value in values.items():
        where = f"{path}.{key}" if path else str(key)
        if key in known:
            kwargs[key] = coerce(hints[key], value, where)
        elif extra is not None:
            others[key] = extra(key, value, where)
        elif key in (renamed := getattr(cls, "RENAMED", {})):
            raise ConfigError(f"{where}: no longer a setting: {renamed[key]}")
        else:
            raise ConfigError(f"{where}: unknown setting (known in {path or 'the config'}: {', '.join(sorted(known))})")
    if others:
        kwargs["others"] = others
    try:
        return cls(**kwargs)
    except ConfigError:
        raise
    except SettingError as error:  # a check in __post_init__, naming its field
        where = f"{path}.{error.field}" if path and error.field in known else path or "config"
        raise ConfigError(f"{where}: {error}") from None
    except (TypeError, ValueError) as error:
        raise ConfigError(f"{path or 'config'}: {error}") from None


def readable(hint: Any) -> bool:
    """Whether `coerce` checks values of `hint` itself (not a class of Lightning's or a Literal)."""
    if hint in (bool, int, float, str, type(None)):
        return True
    origin = typing.get_origin(hint)
    if origin in (Union, types.UnionType, list):
        return all(readable(a) for a in typing.get_args(hint))
    return False


def coerce(hint: Any, value: Any, where: str) -> Any:
    if dataclasses.is_dataclass(hint):
        return build(typing.cast(type, hint), value, where)  # a hint: the dataclass itself, not an instance
    origin = typing.get_origin(hint)
    if origin in (Union, types.UnionType):
        options = typing.get_args(hint)
        if value is None and type(None) in options:
            return None
        for option in options:
            if option is type(None):
                continue
            try:
                return coerce(option, value, where)
            except ConfigError:
                continue
        raise ConfigError(f"{where}: expected {_name(hint)}, got {_describe(value)}")
    if origin is dict:
        if not isinstance(value, dict):
            raise ConfigError(f"{where}: expected {_name(hint)}, got {_describe(value)}")
        return value
    if origin is list:
        (item,) = typing.get_args(hint)
        if not isinstance(value, list):
            raise ConfigError(f"{where}: expected {_name(hint)}, got {_describe(value)}")
        return [coerce(item, v, f"{where}[{i}]") for i, v in enumerate(value)]
    if hint is bool:
        if isinstance(value, bool):
            return value
    elif hint is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    elif hint is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        if isinstance(value, str):  # YAML reads 2e-5 (no dot) as text
            try:
                return float(value)
            except ValueError:
                pass
    elif hint is str:
        if isinstance(value, str):
            return value
    else:
        raise ConfigError(f"{where}: settings of type {_name(hint)} are not supported")
    raise ConfigError(f"{where}: expected {_name(hint)}, got {_describe(value)}")


def _name(hint: Any) -> str:
    if typing.get_origin(hint) in (Union, types.UnionType):
        return " or ".join("null" if a is type(None) else _name(a) for a in typing.get_args(hint))
    if typing.get_origin(hint) is list:
        (item,) = typing.get_args(hint)
        return "a list of sections" if dataclasses.is_dataclass(item) else f"a list of {_name(item)}"
    if typing.get_origin(hint) is dict or dataclasses.is_dataclass(hint):
        return "a section"
    return {bool: "true/false", int: "an integer", float: "a number", str: "text"}.get(hint, str(hint))


def _describe(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "a section"
    return f"{value!r}"
