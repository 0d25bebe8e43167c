"""Training runs with the tiny encoder on synthetic documents: learning, export, resume, errors."""

from __future__ import annotations

import csv
import json
import os
import random
import re
import stat
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import pytorch_lightning as pl
import torch
from pytorch_lightning.callbacks import Callback, Timer
from pytorch_lightning.strategies import DDPStrategy
from safetensors.torch import load_file

from summarizer.errors import InputError
from summarizer.modeling.batch import collate
from summarizer.modeling.features import DocumentFeatures, FeatureBuilder
from summarizer.modeling.modeling_bertsum import BertSumModel, load_tokenizer
from summarizer.pipeline import Summarizer
from summarizer.runtime import precision
from summarizer.runtime.backends import GRAPH_FILE, INT8_GRAPH_FILE
from summarizer.runtime.onnx_model import OnnxModel
from summarizer.text.sentences import split_sentences
from summarizer.training import train as train_module
from summarizer.training.data import load_documents
from summarizer.training.evaluate import evaluate
from summarizer.training.settings import ConfigError, TrainConfig, load_config
from summarizer.training.teacher import teacher_runtime
from summarizer.training.train import AveragedWeights, TrainResult, build_trainer, export_model, main, report, train

ROOT = Path(__file__).resolve().parents[1]
TINY = ROOT / "configs" / "tiny.yaml"
WORDS = (
    "market city team report water energy school music policy river garden office road family "
    "doctor museum village season budget station festival harbour library council forest bridge"
).split()
LONG_SENTENCES = 90


def sentence(rng: random.Random, key: bool) -> str:
    words = rng.sample(WORDS, rng.randint(6, 10))
    return ("Crucially the " if key else "The ") + " ".join(words) + "."


def document(rng: random.Random, index: int, sentences: int) -> dict[str, str]:
    keys = set(rng.sample(range(sentences), 3))
    lines = [sentence(rng, i in keys) for i in range(sentences)]
    return {
        "id": f"doc-{index}",
        "text": " ".join(lines),
        "summary": "\n".join(line for i, line in enumerate(lines) if i in keys),
    }


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """train / validation / test JSONL files; the first training and test documents are long."""
    rng = random.Random(0)
    directory = tmp_path_factory.mktemp("synthetic")
    for split, count in (("train", 20), ("validation", 4), ("test", 4)):
        rows = [document(rng, i, LONG_SENTENCES if i == 0 and split != "validation" else 12) for i in range(count)]
        (directory / f"{split}.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    return directory


def tiny_overrides(encoder: Path, data: Path, runs: Path, *overrides: str) -> list[str]:
    """Overrides of configs/tiny.yaml for the synthetic files, with its run directory under `runs`;
    the exports without their ONNX graphs (half a minute each) unless `output.graph=true` is given."""
    return [
        "output.graph=false",
        f"model.encoder={encoder}",
        f"data.train={data / 'train.jsonl'}",
        f"data.validation={data / 'validation.jsonl'}",
        f"data.test={data / 'test.jsonl'}",
        "data.limit_train=null",
        "data.limit_validation=null",
        "data.limit_test=null",
        f"output.runs_dir={runs}",
        *overrides,
    ]


def tiny_config(encoder: Path, data: Path, runs: Path, *overrides: str) -> TrainConfig:
    """configs/tiny.yaml on the synthetic files, with its run directory under `runs`."""
    return load_config(TINY, tiny_overrides(encoder, data, runs, *overrides))


def train_losses(result: TrainResult) -> list[float]:
    (metrics,) = (result.run_dir / "csv").glob("version_*/metrics.csv")
    with metrics.open() as handle:
        return [float(row["train_loss"]) for row in csv.DictReader(handle) if row.get("train_loss")]


@pytest.fixture(scope="module")
def tiny_run(tiny_encoder_dir: Path, synthetic: Path, tmp_path_factory: pytest.TempPathFactory) -> TrainResult:
    """4 epochs on 16 of the 20 training documents; the other 4 are held out for the test. Its
    export has the ONNX graphs."""
    overrides = ("trainer.max_epochs=4", "data.test=null", "data.test_fraction=0.2", "output.graph=true")
    return train(tiny_config(tiny_encoder_dir, synthetic, tmp_path_factory.mktemp("runs"), *overrides))


def long_document_logits(model_dir: Path, synthetic: Path) -> tuple[torch.Tensor, int, int]:
    """Scores the exported model gives the long test document; its sentence and window counts."""
    model = BertSumModel.from_pretrained(model_dir)
    row = json.loads((synthetic / "test.jsonl").read_text().splitlines()[0])
    sentences = split_sentences(row["text"])
    features = FeatureBuilder(load_tokenizer(model_dir), model.config.features)(sentences)
    with torch.no_grad():
        logits = model(collate([features.to_columns()], load_tokenizer(model_dir).pad_token_id))
    return logits[0, : len(features.sentence_indices)], len(sentences), len(features.windows)


def test_tiny_run_learns_and_exports(tiny_run: TrainResult, tiny_encoder_dir: Path, synthetic: Path) -> None:
    losses = train_losses(tiny_run)
    assert len(losses) == 4 * 8
    assert sum(losses[-8:]) < 0.9 * sum(losses[:8])  # last epoch against the first
    assert (tiny_run.run_dir / "checkpoints" / "last.ckpt").exists()
    assert list((tiny_run.run_dir / "tensorboard").glob("version_*/events.out.tfevents.*"))

    exported = tiny_run.export_dir
    assert {"config.json", "model.safetensors", "tokenizer.json", GRAPH_FILE, INT8_GRAPH_FILE} <= {
        p.name for p in exported.iterdir()
    }
    assert isinstance(Summarizer.from_pretrained(exported).model, OnnxModel)
    assert json.loads((exported / "config.json").read_text())["architectures"] == ["BertSumModel"]
    assert json.loads((exported / "config.json").read_text())["trigram_blocking"] is True  # configs/tiny.yaml's
    reloaded = BertSumModel.from_pretrained(exported)
    best = torch.load(tiny_run.best_checkpoint, map_location="cpu", weights_only=True)["state_dict"]
    weights = load_file(str(exported / "model.safetensors"))
    assert weights.keys() == {k.removeprefix("model.") for k in best}
    assert all(torch.equal(weights[k.removeprefix("model.")], v) for k, v in best.items())

    fresh = BertSumModel.from_encoder(tiny_encoder_dir, reloaded.config).eval()
    fresh.load_state_dict({k.removeprefix("model."): v for k, v in best.items()})
    tokenizer = load_tokenizer(exported)
    features = FeatureBuilder(tokenizer, reloaded.config.features)(
        ["The market report was read.", "Crucially the council approved the budget.", "The river rose."]
    )
    batch = collate([features.to_columns()], tokenizer.pad_token_id)
    with torch.no_grad():  # same weights; where transformers places them in memory may move the last bit
        torch.testing.assert_close(reloaded(batch), fresh(batch), rtol=0, atol=1e-6)


def test_reported_test_scores_are_the_exported_models(tiny_run: TrainResult) -> None:
    held_out = load_documents(tiny_run.run_dir / "test.jsonl").documents
    assert len(held_out) == tiny_run.test.documents == 4  # 20% of the 20 training documents
    expected = evaluate(Summarizer.from_pretrained(tiny_run.export_dir), held_out, load_config(TINY).selection)
    assert tiny_run.test.to_dict() == expected.to_dict()


def test_export_replaces_the_previous_model_whole(tiny_run: TrainResult, tmp_path: Path) -> None:
    target = tmp_path / "model"
    target.mkdir()
    (target / "stale.bin").write_text("from an earlier export")
    model = BertSumModel.from_pretrained(tiny_run.export_dir)
    export_model(model, load_tokenizer(tiny_run.export_dir), target, graph=False)
    graphs = {GRAPH_FILE, INT8_GRAPH_FILE}
    assert {p.name for p in target.iterdir()} == {p.name for p in tiny_run.export_dir.iterdir()} - graphs
    assert [p.name for p in tmp_path.iterdir()] == ["model"]  # no staging or old directory left


def test_exported_files_are_readable_as_the_umask_allows(tiny_run: TrainResult, tmp_path: Path) -> None:
    """Every file of an export, the weights too, gets the mode a new file gets under the umask, so
    that a model directory copied to another user or into an image can be read there."""
    model = BertSumModel.from_pretrained(tiny_run.export_dir)
    previous = os.umask(0o022)
    try:
        export_model(model, load_tokenizer(tiny_run.export_dir), tmp_path / "model")
    finally:
        os.umask(previous)
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in (tmp_path / "model").iterdir()}
    assert "model.safetensors" in modes and set(modes.values()) == {0o644}, modes


def test_long_document_trains_and_every_sentence_is_scored(tiny_run: TrainResult, synthetic: Path) -> None:
    scores, sentences, windows = long_document_logits(tiny_run.export_dir, synthetic)
    assert windows > 4  # about 1,200 tokens: more than the encoder's 512 positions
    assert scores.shape == (sentences,) == (LONG_SENTENCES,)
    assert torch.isfinite(scores).all()
    assert len(set(scores.tolist())) == sentences


def test_bf16_mixed_run_with_centrality_clips_gradients(
    tiny_encoder_dir: Path, synthetic: Path, tmp_path: Path
) -> None:
    """Lightning refuses to clip a fused AdamW's gradients under bf16-mixed too, not only 16-mixed.

    With centrality on, its projection trains too, at the head's learning rate.
    """
    overrides = (
        *("trainer.precision=bf16-mixed", "trainer.max_epochs=1", "data.limit_train=4", "data.test=null"),
        "model.features.centrality=true",
    )
    config = tiny_config(tiny_encoder_dir, synthetic, tmp_path, *overrides)
    assert config.trainer.gradient_clip_val and config.optim.fused
    result = train(config)
    assert result.best_checkpoint.exists()
    trained = BertSumModel.from_pretrained(result.export_dir)
    assert trained.centrality is not None
    checkpoint = torch.load(result.best_checkpoint, map_location="cpu", weights_only=False)
    groups = checkpoint["optimizer_states"][0]["param_groups"]
    unused_pooler = [p for name, p in trained.named_parameters() if name.startswith("encoder.pooler.")]
    assert sum(len(group["params"]) for group in groups) == len(list(trained.parameters())) - len(unused_pooler)


class Crash(Callback):
    """Stops training with an error in the middle of an epoch, as a killed run would."""

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx: int) -> None:
        if trainer.current_epoch == 1 and batch_idx == 3:
            raise RuntimeError("simulated crash")


def test_resumed_run_matches_unbroken_run(tiny_encoder_dir: Path, synthetic: Path, tmp_path: Path) -> None:
    overrides = ("trainer.max_epochs=3", "model.pooling=mean", "model.head.dropout=0.2", "data.limit_train=8")
    unbroken = train(tiny_config(tiny_encoder_dir, synthetic, tmp_path / "a", *overrides))

    config = tiny_config(tiny_encoder_dir, synthetic, tmp_path / "b", *overrides)
    with pytest.raises(RuntimeError, match="simulated crash"):
        train(config, callbacks=[Crash()])
    assert not (config.export_dir / "model.safetensors").exists()
    resumed = train(config, resume=True)

    assert resumed.best_checkpoint.name == unbroken.best_checkpoint.name
    assert resumed.test.to_dict() == unbroken.test.to_dict()
    assert resumed.best_score == unbroken.best_score
    first = load_file(str(unbroken.export_dir / "model.safetensors"))
    second = load_file(str(resumed.export_dir / "model.safetensors"))
    assert all(torch.equal(first[k], second[k]) for k in first)


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (
            b"\x80\x02garbage",
            r"last.ckpt: not a readable training checkpoint \(\w+Error: .*\); delete it or run without",
        ),
        (None, r"last.ckpt: not a checkpoint of this training \(no state_dict\)"),
    ],
)
def test_resume_names_a_damaged_or_foreign_checkpoint(
    tiny_encoder_dir: Path, synthetic: Path, tmp_path: Path, content: bytes | None, expected: str
) -> None:
    config = tiny_config(tiny_encoder_dir, synthetic, tmp_path, "trainer.max_epochs=1", "data.limit_train=4")
    last = config.run_dir / "checkpoints" / "last.ckpt"
    last.parent.mkdir(parents=True)
    if content is None:
        torch.save({"weights": torch.zeros(2)}, last)  # a torch file, but not Lightning's
    else:
        last.write_bytes(content)
    with pytest.raises(InputError, match=expected):
        train(config, resume=True)
    assert last.exists()  # left for the user to look at


@pytest.mark.parametrize(
    ("averaged", "override", "expected"),
    [(True, "optim.ema_decay=null", "set, as the checkpoint holds"), (False, "optim.ema_decay=0.99", "null, as")],
)
def test_resume_needs_weight_averaging_as_the_run_started(
    tiny_encoder_dir: Path, synthetic: Path, tmp_path: Path, averaged: bool, override: str, expected: str
) -> None:
    config = tiny_config(tiny_encoder_dir, synthetic, tmp_path, override)
    checkpoint = tmp_path / "last.ckpt"
    torch.save({"state_dict": {}, **({"current_model_state": {}} if averaged else {})}, checkpoint)
    with pytest.raises(ConfigError, match=f"last.ckpt: --resume needs optim.ema_decay as the run started: {expected}"):
        train_module.check_same_model(config, checkpoint)


def test_resume_refuses_other_model_settings(tiny_encoder_dir: Path, synthetic: Path, tmp_path: Path) -> None:
    overrides = ("trainer.max_epochs=1", "data.limit_train=4", "data.test=null")
    first = train(tiny_config(tiny_encoder_dir, synthetic, tmp_path, *overrides))
    changed = tiny_config(tiny_encoder_dir, synthetic, tmp_path, *overrides, "model.features.centrality=true")
    with pytest.raises(ConfigError, match=r"last.ckpt: --resume .*model.features.centrality was False, now True"):
        train(changed, resume=True)
    assert first.best_checkpoint.exists()

    # The checkpoint holds the settings: the run's config.yaml is only for people to read.
    last = changed.run_dir / "checkpoints" / "last.ckpt"
    (changed.run_dir / "config.yaml").unlink()
    with pytest.raises(ConfigError, match=r"model.features.centrality was False, now True"):
        train_module.check_same_model(changed, last)

    # Settings added since a run started count at their defaults.
    checkpoint = torch.load(last, map_location="cpu", weights_only=True)
    recorded = checkpoint["hyper_parameters"]["model"]
    del recorded["attention_dropout"], recorded["features"]["truncate"]
    torch.save(checkpoint, last)
    unchanged = tiny_config(tiny_encoder_dir, synthetic, tmp_path, *overrides)
    assert unchanged.model.attention_dropout == 0.0 and unchanged.model.features.truncate is False  # the defaults
    train_module.check_same_model(unchanged, last)
    recorded["head"] = {"type": "linear"}
    torch.save(checkpoint, last)
    with pytest.raises(ConfigError, match=r"model.head.type was 'linear', now 'transformer'"):
        train_module.check_same_model(unchanged, last)


@pytest.mark.parametrize(
    ("override", "error", "message"),
    [
        ("data.train={tmp}/missing.jsonl", InputError, "data.train: .*missing.jsonl: no such file"),
        ("trainer.precision=64-bits", ConfigError, "trainer: .*64-bits"),
    ],
)
def test_failed_start_keeps_the_previous_run(
    override: str, error: type[Exception], message: str, tiny_encoder_dir: Path, synthetic: Path, tmp_path: Path
) -> None:
    config = tiny_config(tiny_encoder_dir, synthetic, tmp_path / "runs", override.format(tmp=tmp_path))
    last = config.run_dir / "checkpoints" / "last.ckpt"
    last.parent.mkdir(parents=True)
    last.write_bytes(b"the previous run")
    with pytest.raises(error, match=message):
        train(config)
    assert last.read_bytes() == b"the previous run"
    assert not (config.run_dir / "config.yaml").exists()


def test_unusable_encoder_and_runs_dir_exit_2(
    tiny_encoder_dir: Path, synthetic: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    not_a_model = tmp_path / "not-a-model"
    not_a_model.mkdir()
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    args = ["--config", str(TINY), *tiny_overrides(tiny_encoder_dir, synthetic, tmp_path / "runs")]
    assert main([*args, f"model.encoder={not_a_model}"]) == 2
    assert (
        f"python -m summarizer.train: model.encoder: {not_a_model}: not a Hugging Face model" in capsys.readouterr().err
    )
    assert main([*args, f"output.runs_dir={blocker}"]) == 2
    assert (
        f"python -m summarizer.train: output.runs_dir: cannot write the run directory {blocker / 'tiny'}"
        in capsys.readouterr().err
    )


@pytest.mark.parametrize(
    ("raised", "code", "stderr"),
    [
        (
            RuntimeError("out of memory\nmore detail"),
            1,
            "python -m summarizer.train: unexpected error: RuntimeError: out of memory (--debug shows more)\n",
        ),
        (KeyboardInterrupt(), 130, "python -m summarizer.train: interrupted\n"),
    ],
)
def test_unexpected_errors_exit_with_one_line(
    raised: BaseException, code: int, stderr: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def fail(*args: object, **kwargs: object) -> None:
        raise raised

    monkeypatch.setattr(train_module, "train", fail)
    assert main(["--config", str(TINY)]) == code
    assert capsys.readouterr().err == stderr


BAD_RUNS = {
    "trainer.max_epoch=2": "trainer.max_epoch: not an argument of pytorch_lightning.Trainer (did you mean max_epochs?)",
    "trainer.max_epochs=two": "trainer.max_epochs: expected an integer, got 'two'",
    "model.head=lstm": "model.head: head type must be one of linear, transformer, ",  # (then any head a test adds)
    "model.head.layers=0": "model.head: head layers must be at least 1, got 0",
    "data.train=missing.jsonl": "data.train: missing.jsonl: no such file or directory",
}


@pytest.mark.parametrize("override", BAD_RUNS)
def test_bad_settings_and_missing_data_exit_2(
    override: str, tiny_encoder_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["--config", str(TINY), f"model.encoder={tiny_encoder_dir}", override]) == 2
    out, err = capsys.readouterr()
    assert BAD_RUNS[override] in err and len(err.splitlines()) == 1
    assert override != "model.head=lstm" or err.endswith(", got 'lstm'\n")
    assert "Traceback" not in out + err


def test_the_module_exits_2_with_one_line_for_a_bad_setting(tiny_encoder_dir: Path, tmp_path: Path) -> None:
    """`python -m summarizer.train` itself, as a user runs it (the test above calls its `main`)."""
    command = [sys.executable, "-m", "summarizer.train", "--config", str(TINY), f"model.encoder={tiny_encoder_dir}"]
    done = subprocess.run(
        [*command, "trainer.max_epoch=2"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"python -m summarizer.train: {BAD_RUNS['trainer.max_epoch=2']}\n"


def test_trainer_settings_pass_through_overrides() -> None:
    config = load_config(
        TINY,
        [
            "trainer.precision=bf16-mixed",
            "trainer.strategy=ddp",
            "trainer.devices=2",
            "trainer.accumulate_grad_batches=4",
            "trainer.gradient_clip_val=0.5",
            "model.features.max_window_tokens=256",
            "selection.ratio=0.4",
            "data.validation=null",
            "data.validation_fraction=0.1",
            "optim.scheduler=cosine",
        ],
    )
    trainer = build_trainer(config, [])
    assert (trainer.precision, trainer.num_devices, type(trainer.strategy)) == ("bf16-mixed", 2, DDPStrategy)
    assert (trainer.accumulate_grad_batches, trainer.gradient_clip_val) == (4, 0.5)
    assert config.model.features.max_window_tokens == 256
    assert config.selection.ratio == 0.4
    assert config.data.validation is None and config.data.validation_fraction == 0.1
    assert config.optim.scheduler == "cosine"


# The CNN/DailyMail recipe: partly frozen encoder, one window per document, one pass in a fixed
# order whose first N documents are a run of their own.

ONE_PASS = (
    "trainer.max_epochs=1",
    "data.shuffle=fixed",
    "data.batch_size=2",
    "data.bucket_batches=2",
    "data.first_window_share=0.5",
    "model.features.max_window_tokens=64",
    "model.features.max_tokens_per_sentence=30",
    "model.trainable_layers=1",
    "optim.scheduler=inverse_sqrt",
    "optim.warmup_steps=2",
)


def test_only_the_top_layers_and_the_head_change(tiny_encoder_dir: Path, synthetic: Path, tmp_path: Path) -> None:
    before = load_file(str(tiny_encoder_dir / "model.safetensors"))
    result = train(tiny_config(tiny_encoder_dir, synthetic, tmp_path, *ONE_PASS))  # output.graph=false
    assert load_config(TINY).output.graph is True  # exported with the graphs unless a run says otherwise
    assert not (result.export_dir / GRAPH_FILE).exists() and not (result.export_dir / INT8_GRAPH_FILE).exists()
    assert not isinstance(Summarizer.from_pretrained(result.export_dir).model, OnnxModel)  # torch, until added
    after = load_file(str(result.export_dir / "model.safetensors"))
    changed = {
        k.removeprefix("encoder.")
        for k in after
        if k not in {f"encoder.{b}" for b in before} or not torch.equal(after[k], before[k.removeprefix("encoder.")])
    }
    assert changed and all(k.startswith(("encoder.layer.1.", "head.")) for k in changed)
    assert any(k.startswith("encoder.layer.1.") for k in changed)


def test_a_model_summarizes_by_default_with_the_selection_it_was_validated_with(
    tiny_encoder_dir: Path, synthetic: Path, tmp_path: Path
) -> None:
    overrides = (*ONE_PASS, "selection.trigram_blocking=false", "output.snapshots=[8]")
    result = train(tiny_config(tiny_encoder_dir, synthetic, tmp_path, *overrides))
    mixed = tmp_path / "mixed"  # a model interpolated from the run's models keeps the run's default
    script = Path(__file__).resolve().parents[1] / "scripts" / "interpolate_models.py"
    done = subprocess.run(
        [sys.executable, script, result.run_dir, result.export_dir, result.run_dir / "model-8", "0.5", mixed],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    for directory in (result.export_dir, result.run_dir / "model-8", mixed):
        assert json.loads((directory / "config.json").read_text())["trigram_blocking"] is False
    assert Summarizer.from_pretrained(result.export_dir).trigram_blocking is False
    assert result.test is not None and result.test.selection.trigram_blocking is False


@pytest.mark.parametrize("averaging", [(), ("optim.ema_decay=0.5",)], ids=["last-weights", "ema"])
def test_the_first_documents_of_one_pass_are_a_run_of_their_own(
    tiny_encoder_dir: Path, synthetic: Path, tmp_path: Path, averaging: tuple[str, ...]
) -> None:
    overrides = (*ONE_PASS, *averaging)
    whole = train(tiny_config(tiny_encoder_dir, synthetic, tmp_path / "all", *overrides, "output.snapshots=[8]"))
    part = train(tiny_config(tiny_encoder_dir, synthetic, tmp_path / "part", *overrides, "data.limit_train=8"))
    snapshot = load_file(str(whole.run_dir / "model-8" / "model.safetensors"))
    alone = load_file(str(part.export_dir / "model.safetensors"))
    final = load_file(str(whole.export_dir / "model.safetensors"))
    assert all(torch.equal(snapshot[k], alone[k]) for k in alone)
    assert not all(torch.equal(final[k], alone[k]) for k in alone)
    if averaging:  # what is exported is the average, not the last step's weights
        last = torch.load(part.best_checkpoint, map_location="cpu", weights_only=True)["current_model_state"]
        assert not all(torch.allclose(alone[k], last[f"model.{k}"]) for k in alone)


def test_weight_averaging_leaves_the_training_itself_alone(
    tiny_encoder_dir: Path, synthetic: Path, tmp_path: Path
) -> None:
    # A run with averaging keeps the last step's weights beside the average (scripts/export_last_weights.py
    # exports them): they must be what the same recipe trains without it, the control it is compared
    # with, also after a validation in between (which runs on the average, then puts the weights back).
    settings = (*ONE_PASS, "trainer.max_epochs=2")
    plain = train(tiny_config(tiny_encoder_dir, synthetic, tmp_path / "plain", *settings))
    averaged = train(tiny_config(tiny_encoder_dir, synthetic, tmp_path / "ema", *settings, "optim.ema_decay=0.5"))

    def saved(result: TrainResult) -> dict:  # the checkpoint of the second epoch's end
        return torch.load(result.run_dir / "checkpoints" / "last.ckpt", map_location="cpu", weights_only=True)

    weights, ema = saved(plain)["state_dict"], saved(averaged)
    last = ema["current_model_state"]
    assert weights.keys() == last.keys() and all(torch.equal(weights[k], last[k]) for k in weights)
    assert not all(torch.equal(weights[k], ema["state_dict"][k]) for k in weights)  # the average


def test_weight_averaging_averages_the_weights_and_leaves_integer_buffers_whole(tiny_encoder_dir: Path) -> None:
    module = pl.LightningModule()
    module.model = BertSumModel.from_encoder(str(tiny_encoder_dir))
    averaging = AveragedWeights(0.9)
    averaging.setup(SimpleNamespace(), module, "fit")
    first = {name: p.detach().clone() for name, p in module.named_parameters()}
    for step in (1, 2, 3):  # three optimizer steps, each moving every weight by 1
        with torch.no_grad():
            for p in module.parameters():
                p.add_(1.0)
        averaging.on_train_batch_end(SimpleNamespace(global_step=step), module, None, None, step - 1)
    average = dict(averaging.average(module).named_parameters())
    # the first update copies the weights (+1); then 0.9 of the average and 0.1 of the weights (+2, +3)
    assert all(torch.allclose(average[name], first[name] + 1.29, atol=1e-5) for name in first)
    ids = averaging.average(module).model.encoder.embeddings.position_ids
    assert torch.equal(ids, torch.arange(ids.shape[-1]).expand_as(ids))  # averaged in floats, 0.9 truncates them


class CrashMidEpoch(Callback):
    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx: int) -> None:
        if batch_idx == 5:
            raise RuntimeError("simulated crash")


def test_a_run_resumes_mid_epoch_from_its_last_periodic_checkpoint(
    tiny_encoder_dir: Path, synthetic: Path, tmp_path: Path
) -> None:
    overrides = (*ONE_PASS, "checkpoint.every_n_steps=2")
    unbroken = train(tiny_config(tiny_encoder_dir, synthetic, tmp_path / "a", *overrides))
    config = tiny_config(tiny_encoder_dir, synthetic, tmp_path / "b", *overrides)
    with pytest.raises(RuntimeError, match="simulated crash"):
        train(config, callbacks=[CrashMidEpoch()])
    saved = torch.load(config.run_dir / "checkpoints" / "last.ckpt", map_location="cpu", weights_only=False)
    assert saved["global_step"] == 4
    resumed = train(config, resume=True)
    first = load_file(str(unbroken.export_dir / "model.safetensors"))
    second = load_file(str(resumed.export_dir / "model.safetensors"))
    assert all(torch.equal(first[k], second[k]) for k in first)


def test_snapshots_must_fall_on_whole_steps(tiny_encoder_dir: Path, synthetic: Path, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"output.snapshots: each must be a multiple of .* \(4\)"):
        tiny_config(
            tiny_encoder_dir,
            synthetic,
            tmp_path,
            "data.batch_size=2",
            "trainer.accumulate_grad_batches=2",
            "output.snapshots=[6]",
        )


def test_compact_export_needs_the_packaged_encoder_and_trainable_layers(
    tiny_encoder_dir: Path, synthetic: Path, tmp_path: Path
) -> None:
    with pytest.raises(ConfigError, match=r"output.compact: needs a packaged model.encoder \(null or a name\)"):
        tiny_config(tiny_encoder_dir, synthetic, tmp_path, "output.compact=true", "model.trainable_layers=1")
    with pytest.raises(ConfigError, match="output.compact: .* and model.trainable_layers"):
        load_config(TINY, ["model.encoder=all-mpnet-base-v2", "output.compact=true"])
    config = load_config(TINY, ["model.encoder=all-mpnet-base-v2", "output.compact=true", "model.trainable_layers=1"])
    assert config.model.base_encoder == "all-mpnet-base-v2"


@pytest.mark.parametrize(
    ("capability", "flags", "expected"),
    [
        ("AVX2", "avx2 fma", "32-true"),
        ("AVX512", "avx512f avx512bw", "32-true"),
        ("AVX512", "avx512f avx512_bf16", "bf16-mixed"),
    ],
)
def test_auto_precision_takes_bf16_only_where_the_cpu_computes_it(
    monkeypatch, capability: str, flags: str, expected: str
) -> None:
    monkeypatch.setattr(torch.backends.cpu, "get_cpu_capability", lambda: capability)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(precision, "cpu_flags", lambda: frozenset(flags.split()))  # /proc/cpuinfo's flags line
    assert train_module.auto_precision() == expected
    assert teacher_runtime() == (("torch", "bf16") if expected == "bf16-mixed" else ("auto", "int8"))  # the same test


def test_the_test_split_is_built_as_the_trained_model_reads_documents(
    tiny_encoder_dir: Path, synthetic: Path, tmp_path: Path
) -> None:
    # Training truncates here; the test documents are scored from features the exported model would build.
    truncated = ("model.features.truncate=true", "model.features.max_sentences=2")
    config = tiny_config(tiny_encoder_dir, synthetic, tmp_path, *truncated)
    tokenizer = load_tokenizer(tiny_encoder_dir)
    datamodule = train_module.build_datamodule(config, tokenizer)
    datamodule.setup()
    summarizer = Summarizer(train_module.build_model(config.model).eval(), tokenizer)
    test = datamodule.datasets["test"]
    for row in test:
        assert DocumentFeatures.from_columns(row) == summarizer.builder(row["sentences"])
    assert max(map(len, test["sentence_indices"])) > 2
    assert max(map(len, datamodule.datasets["validation"]["sentence_indices"])) == 2  # training's own settings


def test_a_run_cut_short_by_its_time_limit_says_so_in_one_line(
    tiny_encoder_dir: Path, synthetic: Path, tmp_path: Path
) -> None:
    class TimeIsUpAfterOneEpoch(Callback):
        def on_train_epoch_end(self, trainer: pl.Trainer, module: pl.LightningModule) -> None:
            next(c for c in trainer.callbacks if isinstance(c, Timer))._duration = 0.0

    limit = ("trainer.max_epochs=3", "trainer.max_time={hours: 1}")
    config = tiny_config(tiny_encoder_dir, synthetic, tmp_path / "one", *limit)
    result = train(config, callbacks=[TimeIsUpAfterOneEpoch()])
    assert re.fullmatch(
        r"Training stopped at its time limit \(trainer.max_time \{'hours': 1\}\) after 1\.\d of 3 epochs: "
        "the model is that of a shorter run",
        result.cut_short or "",
    )
    assert report(result, config).splitlines()[0] == result.cut_short
    config = tiny_config(
        tiny_encoder_dir, synthetic, tmp_path / "none", "trainer.max_epochs=3", "trainer.max_time={seconds: 0}"
    )
    with pytest.raises(InputError) as stopped:
        train(config)
    assert re.fullmatch(
        r"Training stopped at its time limit \(trainer.max_time \{'seconds': 0\}\) after 0\.\d of 3 epochs "
        "before its first checkpoint: nothing to export",
        str(stopped.value),
    )
