"""Training runs with the tiny encoder on synthetic documents: learning, export, resume, errors."""

from __future__ import annotations

import csv
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from pytorch_lightning.callbacks import Callback
from safetensors.torch import load_file

from summarizer.batch import collate
from summarizer.config import TrainConfig, load_config
from summarizer.features import FeatureBuilder
from summarizer.model import ExtractiveSummarizer, load_tokenizer
from summarizer.sentences import split_sentences
from summarizer.train import TrainResult, train

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
    for split, count in (("train", 16), ("validation", 4), ("test", 4)):
        rows = [document(rng, i, LONG_SENTENCES if i == 0 and split != "validation" else 12) for i in range(count)]
        (directory / f"{split}.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    return directory


def tiny_config(encoder: Path, data: Path, runs: Path, *overrides: str) -> TrainConfig:
    """configs/tiny.yaml on the synthetic files, with its run directory under `runs`."""
    return load_config(
        TINY,
        [
            f"model.encoder={encoder}",
            f"data.train={data / 'train.jsonl'}",
            f"data.validation={data / 'validation.jsonl'}",
            f"data.test={data / 'test.jsonl'}",
            "data.limit_train=null",
            "data.limit_validation=null",
            "data.limit_test=null",
            f"output.runs_dir={runs}",
            *overrides,
        ],
    )


def train_losses(result: TrainResult) -> list[float]:
    (metrics,) = (result.run_dir / "csv").glob("version_*/metrics.csv")
    with metrics.open() as handle:
        return [float(row["train_loss"]) for row in csv.DictReader(handle) if row.get("train_loss")]


@pytest.fixture(scope="module")
def tiny_run(tiny_encoder_dir: Path, synthetic: Path, tmp_path_factory: pytest.TempPathFactory) -> TrainResult:
    config = tiny_config(tiny_encoder_dir, synthetic, tmp_path_factory.mktemp("runs"), "trainer.max_epochs=4")
    return train(config)


def long_document_logits(model_dir: Path, synthetic: Path) -> tuple[torch.Tensor, int, int]:
    """Scores the exported model gives the long test document; its sentence and window counts."""
    model = ExtractiveSummarizer.from_pretrained(model_dir)
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
    assert set(tiny_run.test) >= {"test_rouge1", "test_rouge2", "test_rougeLsum", "test_lead_rouge1", "test_oracle_rouge1"}
    assert (tiny_run.run_dir / "checkpoints" / "last.ckpt").exists()
    assert list((tiny_run.run_dir / "tensorboard").glob("version_*/events.out.tfevents.*"))

    exported = tiny_run.export_dir
    assert {"config.json", "bertsum.json", "model.safetensors", "tokenizer.json"} <= {p.name for p in exported.iterdir()}
    reloaded = ExtractiveSummarizer.from_pretrained(exported)
    best = torch.load(tiny_run.best_checkpoint, map_location="cpu", weights_only=True)["state_dict"]
    weights = load_file(str(exported / "model.safetensors"))
    assert weights.keys() == {k.removeprefix("model.") for k in best}
    assert all(torch.equal(weights[k.removeprefix("model.")], v) for k, v in best.items())

    fresh = ExtractiveSummarizer.from_encoder(tiny_encoder_dir, reloaded.config).eval()
    fresh.load_state_dict({k.removeprefix("model."): v for k, v in best.items()})
    tokenizer = load_tokenizer(exported)
    features = FeatureBuilder(tokenizer, reloaded.config.features)(
        ["The market report was read.", "Crucially the council approved the budget.", "The river rose."]
    )
    batch = collate([features.to_columns()], tokenizer.pad_token_id)
    with torch.no_grad():
        assert torch.equal(reloaded(batch), fresh(batch))


def test_long_document_trains_and_every_sentence_is_scored(tiny_run: TrainResult, synthetic: Path) -> None:
    scores, sentences, windows = long_document_logits(tiny_run.export_dir, synthetic)
    assert windows > 4  # about 1,200 tokens: more than the encoder's 512 positions
    assert scores.shape == (sentences,) == (LONG_SENTENCES,)
    assert torch.isfinite(scores).all()
    assert len(set(scores.tolist())) == sentences


class Crash(Callback):
    """Stops training with an error in the middle of an epoch, as a killed run would."""

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx: int) -> None:
        if trainer.current_epoch == 1 and batch_idx == 3:
            raise RuntimeError("simulated crash")


def test_resumed_run_matches_unbroken_run(tiny_encoder_dir: Path, synthetic: Path, tmp_path: Path) -> None:
    overrides = ("trainer.max_epochs=3", "model.pooling=mean", "model.head_dropout=0.2", "data.limit_train=8")
    unbroken = train(tiny_config(tiny_encoder_dir, synthetic, tmp_path / "a", *overrides))

    config = tiny_config(tiny_encoder_dir, synthetic, tmp_path / "b", *overrides)
    with pytest.raises(RuntimeError, match="simulated crash"):
        train(config, callbacks=[Crash()])
    assert not (config.export_dir / "model.safetensors").exists()
    resumed = train(config, resume=True)

    assert resumed.best_checkpoint.name == unbroken.best_checkpoint.name
    assert resumed.test == unbroken.test
    assert resumed.best_score == unbroken.best_score
    first = load_file(str(unbroken.export_dir / "model.safetensors"))
    second = load_file(str(resumed.export_dir / "model.safetensors"))
    assert all(torch.equal(first[k], second[k]) for k in first)


BAD_RUNS = {
    "trainer.max_epoch=2": "trainer.max_epoch: unknown setting",
    "trainer.max_epochs=two": "trainer.max_epochs: expected an integer, got 'two'",
    "model.head=lstm": "model.head: head must be one of linear, transformer, got 'lstm'",
    "data.train=missing.jsonl": "data.train: missing.jsonl: no such file or directory",
}


@pytest.fixture(scope="module")
def bad_runs(tiny_encoder_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[int, str, str]]:
    """`python -m summarizer.train` with each bad override, run side by side: exit code, stdout, stderr."""
    command = [sys.executable, "-m", "summarizer.train", "--config", str(TINY), f"model.encoder={tiny_encoder_dir}"]
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    cwd = tmp_path_factory.mktemp("bad-runs")
    running = {
        override: subprocess.Popen([*command, override], cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for override in BAD_RUNS
    }
    outputs = {override: p.communicate(timeout=180) for override, p in running.items()}
    return {override: (running[override].returncode, *outputs[override]) for override in running}


@pytest.mark.parametrize("override", BAD_RUNS)
def test_bad_settings_and_missing_data_exit_2(override: str, bad_runs: dict[str, tuple[int, str, str]]) -> None:
    code, stdout, stderr = bad_runs[override]
    assert code == 2, stderr
    assert BAD_RUNS[override] in stderr
    assert "Traceback" not in stdout + stderr


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
    assert (config.trainer.precision, config.trainer.strategy, config.trainer.devices) == ("bf16-mixed", "ddp", 2)
    assert (config.trainer.accumulate_grad_batches, config.trainer.gradient_clip_val) == (4, 0.5)
    assert config.model.features.max_window_tokens == 256
    assert config.selection.ratio == 0.4
    assert config.data.validation is None and config.data.validation_fraction == 0.1
    assert config.optim.scheduler == "cosine"
