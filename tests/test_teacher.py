"""Distillation: a teacher model's sentence scores on the training documents, cached, as targets."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from summarizer.errors import InputError
from summarizer.pipeline import Summarizer
from summarizer.training import teacher as teacher_module
from summarizer.training.data import Example, LoadedData
from summarizer.training.settings import load_config
from summarizer.training.teacher import teacher_runtime, teacher_scores
from summarizer.training.train import build_datamodule

CONFIGS = Path(__file__).resolve().parents[1] / "configs"
DOCUMENTS = [
    Example(
        id="harbour",
        text="The council approved the new budget for the harbour on Monday. Yes. "
        "The library will open on Sundays from next month. Parking fees rise by a fifth.",
        reference="The council approved the harbour budget.",
    ),
    Example(
        id="split",
        sentences=[
            "Markets fell sharply on Monday after the report.",
            "Oil prices rose.",
            "Analysts expect a rebound.",
        ],
        reference="Markets fell on Monday.",
    ),
]


def _data(fingerprint: str = "fixed") -> LoadedData:
    return LoadedData("test", list(DOCUMENTS), [], fingerprint)


def _scored_only(scores: list[list[float]]) -> list[list[float]]:
    """Each document's scores without the NaN of the sentences the teacher did not score."""
    return [[x for x in row if not math.isnan(x)] for row in scores]


def _no_model(*args: object, **kwargs: object) -> Summarizer:
    """Stands in for `Summarizer.from_pretrained` where the teacher must not score anything."""
    raise AssertionError("scored again")


@pytest.fixture
def scored(monkeypatch: pytest.MonkeyPatch) -> list[list[list[str]]]:
    """The documents of each call in which the teacher scores (`Summarizer.summarize_batch`)."""
    calls: list[list[list[str]]] = []
    original = Summarizer.summarize_batch

    def recording(self: Summarizer, texts: list[list[str]], *args: Any, **kwargs: Any) -> Iterator[Any]:
        calls.append(list(texts))
        return original(self, texts, *args, **kwargs)

    monkeypatch.setattr(teacher_module.Summarizer, "summarize_batch", recording)
    return calls


def test_teacher_scores_every_sentence_as_summarize_does_and_caches_them(
    tiny_model_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scores = teacher_scores(_data(), str(tiny_model_dir), cache_dir=tmp_path)
    summarizer = Summarizer.from_pretrained(
        tiny_model_dir, precision=teacher_runtime()[1], backend=teacher_runtime()[0]
    )
    expected = [
        s.sentence_scores
        for s in summarizer.summarize_batch([summarizer.sentences(DOCUMENTS[0].text), DOCUMENTS[1].sentences])
    ]
    assert [len(row) for row in scores] == [4, 3]
    assert math.isnan(scores[0][1]) and expected[0][1] is None  # "Yes." is too short to score
    for got, want in zip(_scored_only(scores), expected):
        assert got == pytest.approx([x for x in want if x is not None])
    monkeypatch.setattr(teacher_module.Summarizer, "from_pretrained", _no_model)
    again = teacher_scores(_data(), str(tiny_model_dir), cache_dir=tmp_path)
    assert _scored_only(again) == _scored_only(scores)
    # The same documents read again from a copy of their file (another fingerprint) are not scored again.
    copied = teacher_scores(_data("copied"), str(tiny_model_dir), cache_dir=tmp_path)
    assert _scored_only(copied) == _scored_only(scores)
    reordered = teacher_scores(
        LoadedData("test", DOCUMENTS[::-1], [], "fixed"), str(tiny_model_dir), cache_dir=tmp_path
    )
    assert [len(row) for row in reordered] == [3, 4] and reordered[0] == scores[1]
    new = Example(id="new", sentences=["A new document has sentences of its own.", "It is scored."])
    with pytest.raises(AssertionError, match="scored again"):  # a document it did not score is scored
        teacher_scores(LoadedData("test", [*DOCUMENTS, new], [], "fixed"), str(tiny_model_dir), cache_dir=tmp_path)


def test_a_stopped_scoring_keeps_what_it_scored(
    tiny_model_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, scored: list[list[list[str]]]
) -> None:
    # Scores are written every `chunk` documents: a run stopped midway, or one on more documents,
    # scores only the documents not scored before.
    recording = Summarizer.summarize_batch

    def stopping(self: Summarizer, texts: list[list[str]], *args: Any, **kwargs: Any) -> Iterator[Any]:
        if scored:
            raise KeyboardInterrupt
        return recording(self, texts, *args, **kwargs)

    monkeypatch.setattr(teacher_module.Summarizer, "summarize_batch", stopping)
    with pytest.raises(KeyboardInterrupt):
        teacher_scores(_data(), str(tiny_model_dir), cache_dir=tmp_path, chunk=1)
    assert [len(call) for call in scored] == [1]
    monkeypatch.setattr(teacher_module.Summarizer, "summarize_batch", recording)
    scores = teacher_scores(_data(), str(tiny_model_dir), cache_dir=tmp_path, chunk=1)
    assert [len(call) for call in scored] == [1, 1] and scored[1] != scored[0]
    assert [len(row) for row in scores] == [4, 3]


def test_a_missing_teacher_is_one_line(tmp_path: Path) -> None:
    wanted = rf'^data.teacher: {tmp_path}: not a bertsum model directory \(no config.json with model_type "bertsum"\)$'
    with pytest.raises(InputError, match=wanted):
        teacher_scores(_data(), str(tmp_path), cache_dir=tmp_path)


def test_training_targets_mix_the_teacher_in_and_validation_keeps_the_oracle(
    tiny_model_dir: Path, tiny_encoder_dir: Path, tokenizer
) -> None:
    overrides = [f"model.encoder={tiny_encoder_dir}", f"data.teacher={tiny_model_dir}", "data.teacher_weight=0.5"]
    datamodule = build_datamodule(load_config(CONFIGS / "tiny.yaml", overrides), tokenizer)
    datamodule.setup("fit")
    train = [x for row in datamodule.datasets["train"]["labels"] for x in row]
    validation = [x for row in datamodule.datasets["validation"]["labels"] for x in row]
    assert any(0 < x < 0.5 for x in train) and all(0 <= x <= 1 for x in train)
    assert set(validation) <= {0.0, 1.0}


def test_a_mix_source_without_the_teacher_keeps_its_oracle_labels(
    tiny_model_dir: Path, tiny_encoder_dir: Path, tokenizer
) -> None:
    # as the built-in model's papers, which the news teacher reads worse than their oracle labels
    def labels(taught: str) -> tuple[dict[str, list[float]], frozenset[str]]:
        mix = f"data.mix=[{{data: aclsum, split: train, repeat: 2, teacher: {taught}}}]"
        overrides = [f"model.encoder={tiny_encoder_dir}", f"data.teacher={tiny_model_dir}", "data.limit_train=4", mix]
        datamodule = build_datamodule(load_config(CONFIGS / "tiny.yaml", overrides), tokenizer)
        datamodule.setup("fit")
        return {row["id"]: row["labels"] for row in datamodule.datasets["train"]}, datamodule.untaught

    kept, untaught = labels("false")
    mixed = [kept.pop(i) for i in untaught if i in kept]
    assert len(mixed) == len(untaught) == 200 and len(kept) == 4  # ACLSum's 100 papers twice, 4 taught
    assert all(set(row) <= {0.0, 1.0} for row in mixed)
    assert any(0 < x < 1 for row in kept.values() for x in row)
    taught, none = labels("true")  # the same documents, the teacher's on all
    assert not none and any(0 < x < 1 for i in untaught if i in taught for x in taught[i])


def test_a_teacher_that_cannot_load_is_one_line_naming_the_setting(tiny_model_dir: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "config.json").write_text((tiny_model_dir / "config.json").read_text())
    with pytest.raises(InputError, match=rf"^data.teacher: {broken}: not a bertsum model directory"):
        teacher_scores(_data(), str(broken), cache_dir=tmp_path)


def test_a_repeated_document_is_scored_once(
    tiny_model_dir: Path, tmp_path: Path, scored: list[list[list[str]]]
) -> None:
    # data.mix repeats documents: the teacher scores each text once and gives every repeat its scores
    repeated = LoadedData("test", [*DOCUMENTS, DOCUMENTS[1], DOCUMENTS[0]], [], "repeated")
    scores = teacher_scores(repeated, str(tiny_model_dir), cache_dir=tmp_path)
    assert [len(call) for call in scored] == [2] and len(scores) == 4
    assert scores[2] == scores[1] and [len(row) for row in scores] == [4, 3, 3, 4]


def test_scores_of_another_precision_or_an_unreadable_part_are_scored_again(
    tiny_model_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    teacher_scores(_data(), str(tiny_model_dir), cache_dir=tmp_path)
    (part,) = (tmp_path / "teacher").glob("*/*.json")
    original = Summarizer.from_pretrained
    monkeypatch.setattr(teacher_module.Summarizer, "from_pretrained", _no_model)
    monkeypatch.setattr(
        teacher_module, "teacher_runtime", lambda: ("torch", "fp32" if teacher_runtime()[1] != "fp32" else "bf16")
    )
    with pytest.raises(AssertionError, match="scored again"):  # bf16 and fp32 scores differ
        teacher_scores(_data(), str(tiny_model_dir), cache_dir=tmp_path)
    monkeypatch.undo()
    part.write_text('{"truncated": [0.5')
    monkeypatch.setattr(teacher_module.Summarizer, "from_pretrained", _no_model)
    with pytest.raises(AssertionError, match="scored again"):
        teacher_scores(_data(), str(tiny_model_dir), cache_dir=tmp_path)
    assert f"data.teacher: {part}: unreadable" in capsys.readouterr().err
    monkeypatch.setattr(teacher_module.Summarizer, "from_pretrained", original)
    assert [len(row) for row in teacher_scores(_data(), str(tiny_model_dir), cache_dir=tmp_path)] == [4, 3]


def test_untaught_documents_are_not_scored_and_keep_nan(
    tiny_model_dir: Path, tmp_path: Path, scored: list[list[list[str]]]
) -> None:
    # data.mix sources with `teacher: false`: their oracle labels stay, so the teacher need not read them
    scores = teacher_scores(_data(), str(tiny_model_dir), cache_dir=tmp_path, untaught={"split"})
    assert [len(call) for call in scored] == [1] and len(scores[1]) == 3 and all(math.isnan(x) for x in scores[1])
    assert len(scores[0]) == 4 and not math.isnan(scores[0][0])
