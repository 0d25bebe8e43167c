"""Preprocessing into a cached `datasets.Dataset`: columns, labels, and the cache."""

from __future__ import annotations

import copy
import math
from pathlib import Path
from typing import Any

import pytest
from tokenizers import normalizers

from summarizer.modeling.batch import collate
from summarizer.modeling.features import FeatureBuilder, FeatureConfig
from summarizer.modeling.modeling_bertsum import load_tokenizer
from summarizer.text.centrality import WORD_PATTERNS
from summarizer.text.sentences import reference_sentences, split_sentences
from summarizer.training import preprocess as preprocess_module
from summarizer.training.data import Example, LoadedData
from summarizer.training.oracle import greedy_oracle
from summarizer.training.preprocess import LabelConfig, preprocess

DOCUMENTS = [
    Example(
        id="cats",
        text="The cat sat on the mat. A dog barked at the postman.\nThe cat then slept all day.",
        reference="The cat sat on the mat and slept.",
    ),
    # No sentence reaches min_sentence_tokens: both are scored all the same.
    Example(id="short", text="Hi. Yo.", reference="Hi."),
    Example(
        id="split",
        sentences=["Markets fell sharply on Monday.", "Oil prices rose.", "Analysts expect a rebound."],
        reference="Markets fell on Monday.\nAnalysts expect a rebound.",
    ),
]


def _data(fingerprint: str = "fixed", documents: list[Example] = DOCUMENTS) -> LoadedData:
    return LoadedData("test", list(documents), [], fingerprint)


class _Counting(preprocess_module.DocumentPreprocessor):
    calls = 0

    def __call__(self, batch: dict[str, list[Any]]) -> dict[str, list[Any]]:
        type(self).calls += 1
        return super().__call__(batch)


@pytest.fixture
def counting(monkeypatch: pytest.MonkeyPatch) -> type[_Counting]:
    monkeypatch.setattr(_Counting, "calls", 0)
    monkeypatch.setattr(preprocess_module, "DocumentPreprocessor", _Counting)
    return _Counting


def test_columns_and_labels(tokenizer, tmp_path: Path) -> None:
    config = FeatureConfig()
    dataset = preprocess(_data(), tokenizer, config, LabelConfig(oracle_size=2), num_proc=1, cache_dir=tmp_path)
    assert dataset.column_names == [
        *("id", "sentences", "reference", "labels"),
        *("input_ids", "cls_positions", "sentence_indices", "token_type_ids"),
    ]
    rows = dataset.to_list()
    assert [r["id"] for r in rows] == ["cats", "short", "split"]
    assert rows[2]["sentences"] == DOCUMENTS[2].sentences
    builder = FeatureBuilder(tokenizer, config)
    for row, document in zip(rows, DOCUMENTS):
        sentences = document.sentences or split_sentences(document.text)
        assert row["sentences"] == sentences
        assert row["reference"] == reference_sentences(document.reference)
        features = builder(sentences)
        assert row["input_ids"] == [w.input_ids for w in features.windows]
        assert row["token_type_ids"] == [w.token_type_ids for w in features.windows]
        assert row["sentence_indices"] == features.sentence_indices
        scored = [sentences[i] for i in features.sentence_indices]
        expected = [int(i in greedy_oracle(scored, row["reference"], 2)) for i in range(len(scored))]
        assert row["labels"] == expected
    # Adding "The cat then slept all day." brings one more reference word ("slept") but four
    # that are not, and four bigrams none of which is in the reference: both F1 fall.
    assert rows[0]["labels"] == [1, 0, 0]
    assert rows[1]["sentence_indices"] == [0, 1] and rows[1]["labels"] == [1, 0]
    assert rows[2]["labels"] == [1, 0, 1]


def test_centrality_column_reaches_the_batch(tokenizer, tmp_path: Path) -> None:
    config = FeatureConfig(centrality=True)
    dataset = preprocess(_data(), tokenizer, config, LabelConfig(oracle_size=2), num_proc=1, cache_dir=tmp_path)
    rows = dataset.to_list()
    builder = FeatureBuilder(tokenizer, config)
    for row in rows:
        expected = builder(row["sentences"]).sentence_features
        assert len(row["sentence_features"]) == len(row["sentence_indices"])
        for got, want in zip(row["sentence_features"], expected):
            assert got == pytest.approx(want)
    batch = collate(rows, tokenizer.pad_token_id)
    assert batch.sentence_features is not None and batch.sentence_features.shape[:2] == batch.sentence_mask.shape
    plain = preprocess(_data(), tokenizer, FeatureConfig(), num_proc=1, cache_dir=tmp_path)
    assert "sentence_features" not in plain.column_names  # a cache entry of its own


def test_second_run_comes_from_the_cache(tokenizer, tmp_path: Path, counting: type[_Counting]) -> None:
    first = preprocess(_data(), tokenizer, FeatureConfig(), num_proc=1, cache_dir=tmp_path)
    assert counting.calls == 1
    second = preprocess(_data(), tokenizer, FeatureConfig(), num_proc=1, cache_dir=tmp_path)
    assert counting.calls == 1
    assert second.to_list() == first.to_list()
    assert not list((tmp_path / "features").glob(".tmp-*"))


@pytest.mark.parametrize(
    "change",
    [
        {"fingerprint": "other file"},
        {"features": FeatureConfig(max_sentences=1)},
        {"labels": LabelConfig(oracle_size=1)},
        {"labels": None},
        {"language": "german"},
    ],
)
def test_any_change_misses_the_cache(
    tokenizer, tmp_path: Path, counting: type[_Counting], change: dict[str, Any]
) -> None:
    preprocess(_data(), tokenizer, FeatureConfig(), num_proc=1, cache_dir=tmp_path)
    arguments: dict[str, Any] = {"features": FeatureConfig(), "labels": LabelConfig()}
    arguments.update((k, v) for k, v in change.items() if k != "fingerprint")
    preprocess(_data(change.get("fingerprint", "fixed")), tokenizer, num_proc=1, cache_dir=tmp_path, **arguments)
    assert counting.calls == 2


def test_cache_follows_the_tokenizer_definition_not_its_padding(
    tokenizer, tmp_path: Path, counting: type[_Counting]
) -> None:
    preprocess(_data(), tokenizer, FeatureConfig(), num_proc=1, cache_dir=tmp_path)
    padded = copy.deepcopy(tokenizer)
    padded.backend_tokenizer.enable_padding(length=64)
    preprocess(_data(), padded, FeatureConfig(), num_proc=1, cache_dir=tmp_path)
    assert counting.calls == 1
    cased = copy.deepcopy(tokenizer)  # same vocabulary and class, different ids for "The"
    cased.backend_tokenizer.normalizer = normalizers.BertNormalizer(lowercase=False)
    preprocess(_data(), cased, FeatureConfig(), num_proc=1, cache_dir=tmp_path)
    assert counting.calls == 2


def test_cache_dir_defaults_to_bertsum_cache(tokenizer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BERTSUM_CACHE", str(tmp_path / "elsewhere"))
    preprocess(_data(), tokenizer, FeatureConfig(), num_proc=1)
    assert len(list((tmp_path / "elsewhere" / "features").iterdir())) == 1


def test_without_labels_every_label_is_zero(tokenizer, tmp_path: Path) -> None:
    dataset = preprocess(_data(), tokenizer, FeatureConfig(), labels=None, num_proc=1, cache_dir=tmp_path)
    assert [r["labels"] for r in dataset.to_list()] == [[0, 0, 0], [0, 0], [0, 0, 0]]


def test_encoder_without_token_types(tiny_distilbert_dir: Path, tmp_path: Path) -> None:
    dataset = preprocess(_data(), load_tokenizer(tiny_distilbert_dir), FeatureConfig(), num_proc=1, cache_dir=tmp_path)
    assert "token_type_ids" not in dataset.column_names
    assert dataset[0]["labels"] == [1, 0, 0]


def test_two_processes_give_the_same_rows(tokenizer, tmp_path: Path) -> None:
    documents = DOCUMENTS * 4
    one = preprocess(_data("a", documents), tokenizer, FeatureConfig(), num_proc=1, cache_dir=tmp_path)
    two = preprocess(_data("b", documents), tokenizer, FeatureConfig(), num_proc=2, cache_dir=tmp_path)
    assert two.to_list() == one.to_list()


def test_centrality_words_key_the_cache_only_with_centrality(
    tokenizer, tmp_path: Path, counting: type[_Counting]
) -> None:
    for words in WORD_PATTERNS:
        preprocess(_data(), tokenizer, FeatureConfig(centrality_words=words), num_proc=1, cache_dir=tmp_path)
    assert counting.calls == 1
    for words in WORD_PATTERNS:
        config = FeatureConfig(centrality=True, centrality_words=words)
        preprocess(_data(), tokenizer, config, num_proc=1, cache_dir=tmp_path)
    assert counting.calls == 1 + len(WORD_PATTERNS)


def test_teacher_scores_mix_into_the_labels(tokenizer, tmp_path: Path) -> None:
    """A teacher's score of each document sentence: `teacher_weight` of each target, the rest the
    oracle label; a sentence the teacher did not score (NaN) keeps its oracle label."""
    teacher = [[0.8, 0.2, math.nan], [0.4, 0.6], [0.1, 0.9, 0.5]]
    labels = LabelConfig(oracle_size=2, teacher_weight=0.25)
    rows = preprocess(_data(), tokenizer, FeatureConfig(), labels, num_proc=1, cache_dir=tmp_path, teacher=teacher)
    plain = preprocess(_data(), tokenizer, FeatureConfig(), LabelConfig(oracle_size=2), num_proc=1, cache_dir=tmp_path)
    oracle = [row["labels"] for row in plain.to_list()]
    assert oracle == [[1, 0, 0], [1, 0], [1, 0, 1]]
    assert [row["labels"] for row in rows.to_list()] == [
        pytest.approx([0.75 + 0.2, 0.05, 0.0]),
        pytest.approx([0.75 + 0.1, 0.15]),
        pytest.approx([0.75 + 0.025, 0.225, 0.75 + 0.125]),
    ]
    batch = collate(rows.to_list(), tokenizer.pad_token_id)
    assert batch.labels[2, :3].tolist() == pytest.approx([0.775, 0.225, 0.875])
    other = [[0.8, 0.2, math.nan], [0.4, 0.6], [0.1, 0.9, 0.6]]
    again = preprocess(_data(), tokenizer, FeatureConfig(), labels, num_proc=1, cache_dir=tmp_path, teacher=other)
    assert again.to_list()[2]["labels"][2] == pytest.approx(0.75 + 0.15)  # other scores, another cache entry
    with pytest.raises(ValueError, match="teacher scores for 2 documents, but there are 3"):
        preprocess(_data(), tokenizer, FeatureConfig(), labels, num_proc=1, cache_dir=tmp_path, teacher=teacher[:2])


def test_each_document_is_split_and_labelled_in_its_own_language(tokenizer, tmp_path: Path) -> None:
    text = "Die Kosten betragen etwa 240 Mio. Euro pro Jahr. Das ist viel Geld für die Stadt."
    reference = "Die Kosten betragen etwa 240 Mio. Euro pro Jahr."
    documents = [
        Example(id="de", text=text, reference=reference, language="german"),
        Example(id="run", text=text, reference=reference),  # the run's language: English
    ]
    rows = preprocess(
        _data("languages", documents), tokenizer, FeatureConfig(), num_proc=1, cache_dir=tmp_path
    ).to_list()
    assert rows[0]["sentences"] == split_sentences(text, "german") and len(rows[0]["sentences"]) == 2
    assert rows[0]["reference"] == [reference]
    assert len(rows[1]["sentences"]) == 3 and rows[1]["reference"] == [
        "Die Kosten betragen etwa 240 Mio.",
        "Euro pro Jahr.",
    ]
    assert rows[0]["labels"] == [1, 0]
