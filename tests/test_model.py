"""The model as a transformers model: Auto classes, directories of earlier releases, new heads."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest
import torch
from conftest import export
from safetensors.torch import save_file
from torch import nn
from transformers import AutoConfig, AutoModel

from summarizer.errors import InputError
from summarizer.modeling.configuration_bertsum import BertSumConfig
from summarizer.modeling.modeling_bertsum import BertSumModel, SentenceHead, load_tokenizer
from summarizer.pipeline import Summarizer

TEXT = (
    "The council met on Monday. It approved a budget for the new bridge. Residents complained about "
    "the noise. The bridge opens in May. Cats slept through it all. Officials said costs rose."
)


def test_the_auto_classes_load_a_saved_model(tiny_model_dir: Path) -> None:
    config = AutoConfig.from_pretrained(str(tiny_model_dir))
    assert isinstance(config, BertSumConfig) and config.encoder.model_type == "bert"
    assert config.head == {"type": "transformer", "layers": 2, "heads": 2, "feedforward": 64, "dropout": 0.1}
    model = AutoModel.from_pretrained(str(tiny_model_dir))
    assert isinstance(model, BertSumModel) and not model.training
    direct = BertSumModel.from_pretrained(tiny_model_dir)
    assert all(torch.equal(a, b) for a, b in zip(model.state_dict().values(), direct.state_dict().values()))


def test_save_and_load_keep_dtype_and_settings(tiny_model_dir: Path, tmp_path: Path) -> None:
    half = BertSumModel.from_pretrained(tiny_model_dir, dtype=torch.float16)
    assert {p.dtype for p in half.parameters()} == {torch.float16}
    half.save_pretrained(str(tmp_path))
    saved = json.loads((tmp_path / "config.json").read_text())
    assert saved["model_type"] == "bertsum" and saved["architectures"] == ["BertSumModel"]
    assert "_name_or_path" not in saved["encoder"]  # no path of the machine it was made on
    assert settings(BertSumModel.from_pretrained(tmp_path).config) == settings(half.config)


def settings(config: BertSumConfig) -> dict:
    """What defines the model in `config` (not where it was read from)."""
    names = ("encoder", "head", "pooling", "language", "features", "base_encoder")
    return {name: value for name, value in config.to_dict().items() if name in names}


def write_old_layout(model_dir: Path, directory: Path, **features: object) -> None:
    """`model_dir` as releases before `BertSumConfig` wrote it: the encoder's config.json beside
    bertsum.json, with flat head settings."""
    config = json.loads((model_dir / "config.json").read_text())
    for path in model_dir.iterdir():
        (directory / path.name).write_bytes(path.read_bytes())
    (directory / "config.json").write_text(json.dumps(config["encoder"]))
    head = config["head"]
    old = {
        "format_version": 1,
        "head": head["type"],
        "pooling": config["pooling"],
        "head_layers": head["layers"],
        "head_heads": head["heads"],
        "head_feedforward": head["feedforward"],
        "head_dropout": head["dropout"],
        "language": config["language"],
        "features": {**{k: v for k, v in config["features"].items() if k != "centrality_words"}, **features},
        "base_encoder": None,
    }
    (directory / "bertsum.json").write_text(json.dumps(old))


def test_a_directory_of_an_earlier_release_loads_and_scores_alike(tiny_model_dir: Path, tmp_path: Path) -> None:
    write_old_layout(tiny_model_dir, tmp_path)
    old, new = Summarizer.from_pretrained(tmp_path), Summarizer.from_pretrained(tiny_model_dir)
    assert settings(old.model.config) == settings(new.model.config)
    assert old.summarize(TEXT, k=2).sentence_scores == new.summarize(TEXT, k=2).sentence_scores


@pytest.mark.parametrize(
    ("features", "outcome"),
    [
        ({"centrality": True, "centrality_version": 3}, "letters"),
        ({"centrality": True, "centrality_version": 4}, "tokens"),
        ({"centrality": False, "centrality_version": 1}, None),
        ({"centrality": True, "centrality_version": 2}, "reads centrality version 2, which is no longer computed"),
        ({"centrality": True}, "reads centrality version 1, which is no longer computed"),  # saved before versions
    ],
)
def test_old_centrality_versions_become_named_words_or_a_clear_error(
    tiny_model_dir: Path, tmp_path: Path, features: dict, outcome: str | None
) -> None:
    write_old_layout(tiny_model_dir, tmp_path, **features)
    if outcome is not None and " " in outcome:
        with pytest.raises(InputError, match=f"bertsum.json: the model {outcome}: train it again"):
            BertSumModel.from_pretrained(tmp_path)
        return
    if features["centrality"]:  # the projection's weights, as a model trained with centrality has them
        weights = dict(BertSumModel.from_pretrained(tiny_model_dir).state_dict())
        weights.update({"centrality.weight": torch.zeros(32, 2), "centrality.bias": torch.zeros(32)})
        save_file(weights, str(tmp_path / "model.safetensors"), metadata={"format": "pt"})
    config = BertSumModel.from_pretrained(tmp_path).config.features
    assert config.centrality is features["centrality"]
    assert config.centrality_words == (outcome or "letters")


@dataclass(frozen=True)
class _MaxSettings:
    scale: float = 1.0


class MaxHead(SentenceHead, kind="test-max"):
    """A head written outside the package: the largest coordinate of each sentence vector, scaled."""

    Settings = _MaxSettings

    def __init__(self, dim: int, settings: _MaxSettings) -> None:
        super().__init__()
        self.scale = nn.Parameter(torch.tensor(settings.scale))

    def forward(self, sentences, mask, first=None):
        return sentences.max(dim=-1).values * self.scale


def test_a_new_head_is_a_new_class(tiny_encoder_dir: Path, tmp_path: Path) -> None:
    model = BertSumModel.from_encoder(tiny_encoder_dir, head={"type": "test-max", "scale": 2.0})
    assert isinstance(model.head, MaxHead) and model.head.scale.item() == 2.0
    export(model, load_tokenizer(tiny_encoder_dir), tmp_path)
    assert json.loads((tmp_path / "config.json").read_text())["head"] == {"type": "test-max", "scale": 2.0}
    summary = Summarizer.from_pretrained(tmp_path).summarize(TEXT, k=2)
    assert len(summary.sentences) == 2
    with pytest.raises(ValueError, match="head setting 'depth' is not one of the test-max head's"):
        BertSumConfig(head={"type": "test-max", "depth": 3})


def test_the_encoder_keeps_pytorch_s_fused_attention(tiny_encoder_dir: Path, tiny_model_dir: Path) -> None:
    # Wrapping the encoder's config must not reset its attention to the slow eager path.
    assert BertSumModel.from_encoder(tiny_encoder_dir).encoder.config._attn_implementation == "sdpa"
    assert BertSumModel.from_pretrained(tiny_model_dir).encoder.config._attn_implementation == "sdpa"


def test_a_converted_directory_saved_in_place_reads_its_new_config(tiny_model_dir: Path, tmp_path: Path) -> None:
    write_old_layout(tiny_model_dir, tmp_path)
    BertSumModel.from_pretrained(tmp_path).save_pretrained(str(tmp_path))  # bertsum.json stays behind
    assert (tmp_path / "bertsum.json").exists()
    assert settings(BertSumModel.from_pretrained(tmp_path).config) == settings(
        BertSumModel.from_pretrained(tiny_model_dir).config
    )
