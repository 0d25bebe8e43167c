"""The summary-level ranker: its settings, its choice in selection, and a model that carries one."""

import json
import math
import shutil
from pathlib import Path

import pytest

from summarizer import Summarizer
from summarizer.errors import InputError, SettingError
from summarizer.modeling.configuration_bertsum import BertSumConfig
from summarizer.ranking import FEATURES, RankerConfig, best_combination, combination_features
from summarizer.resources import builtin_model_dir
from summarizer.selection import SelectionConfig, select_sentences

SENTENCES = [
    "The council approved the new budget on Monday.",  # 0
    "Critics said the plan ignores rural schools.",  # 1
    "The council approved the new budget after a long debate.",  # 2: the words of 0, and its trigrams
    "Taxes will rise by two percent next year.",  # 3
    "The mayor welcomed the vote.",  # 4
]
ALL = list(range(len(SENTENCES)))
SCORES = [0.9, 0.1, 0.85, 0.8, 0.7]  # by score 0, 2, 3, 4, 1


def ranker(**weights: float) -> RankerConfig:
    """A ranker of 2-sentence summaries over the named features, unstandardized, with these weights."""
    size = len(weights)
    return RankerConfig(tuple(weights), (0.0,) * size, (1.0,) * size, tuple(weights.values()), lengths=(2,))


# Summed scores, less five times the content words two sentences share: 0 and 2 say the same.
NOT_REDUNDANT = ranker(score_sum=1.0, pair_overlap=-5.0)


def select(scores=SCORES, with_ranker=NOT_REDUNDANT, sentences=SENTENCES, **options):
    selection = SelectionConfig(**{"trigram_blocking": False, **options})
    return select_sentences(sentences, list(range(len(sentences))), scores, selection, ranker=with_ranker)


def test_the_ranker_trades_a_high_score_for_a_sentence_that_says_something_else():
    assert select(k=2, with_ranker=None) == [0, 2]  # the two best scored say the same
    assert select(k=2) == [0, 3]


def test_the_ranker_chooses_only_summaries_of_its_lengths():
    assert select(k=3) == [0, 2, 3]  # it ranks summaries of 2 sentences
    assert select(k=2, ratio=0.4) == [0, 2]  # a ratio, or a number of words, is selected by score
    assert select(k=2, max_words=18) == [0, 2]  # 8 and 10 words


def test_with_trigram_blocking_no_two_chosen_sentences_share_a_trigram():
    alike = ranker(score_sum=1.0, pair_overlap=5.0, position=1.0)  # prefers the two that say the same
    assert select(k=2, with_ranker=alike) == [0, 2]
    assert select(k=2, with_ranker=alike, trigram_blocking=True) == [3, 4]  # by score: [0, 3]
    assert select(k=2, with_ranker=None, trigram_blocking=True) == [0, 3]


def test_score_order_on_request():
    assert select(k=2, order="score") == [0, 3]
    late = ranker(position=1.0)  # the latest two of the five
    assert select(k=2, with_ranker=late) == [3, 4]
    assert select(k=2, with_ranker=late, order="score") == [3, 4]
    assert select([0.9, 0.1, 0.85, 0.7, 0.8], k=2, with_ranker=late, order="score") == [4, 3]


def test_the_candidates_are_the_best_scored_sentences_that_stand_alone_once():
    late = ranker(position=1.0)  # the latest two of the candidates
    assert select(k=2, with_ranker=late) == [3, 4]
    assert select(k=2, with_ranker=RankerConfig(**{**late.to_dict(), "candidates": 3})) == [2, 3]  # of 0, 2, 3
    leading = [*SENTENCES[:4], "The mayor said:"]  # the best scored and the latest leads in
    assert select([0.5, 0.4, 0.3, 0.2, 0.9], k=2, with_ranker=late, sentences=leading) == [2, 3]
    twice = [SENTENCES[0], SENTENCES[3], SENTENCES[1], SENTENCES[3]]  # a sentence printed twice
    assert select([0.9, 0.8, 0.5, 0.7], k=2, with_ranker=late, sentences=twice) == [1, 2]


def test_without_more_candidates_than_sentences_asked_for_selection_takes_them_by_score():
    late = ranker(position=1.0)
    page = [SENTENCES[0], "The mayor said:", SENTENCES[3]]  # two that stand alone, for two asked
    assert select([0.1, 0.9, 0.5], k=2, with_ranker=late, sentences=page) == [0, 2]


def test_the_features_of_a_combination():
    sentences = ["Rain fell on the town.", "The town flooded after rain.", "Schools closed early today."]
    features = combination_features(sentences, [0, 1], [0.5, 1.0], "english")
    assert features["score_sum"] == 1.5 and features["score_min"] == 0.5
    assert features["logit_sum"] == pytest.approx(math.log(1 / 1e-9))  # 0 for 0.5; the epsilon keeps 1 finite
    assert features["first_sentence"] == 1.0 and features["position"] == pytest.approx(0.5 / 3)
    assert features["log_words"] == pytest.approx(math.log(10))  # words between spaces
    # content words, stop words ("on", "the", "after") left out: rain fell town / town flooded rain
    assert features["pair_overlap"] == pytest.approx(2 / 3)
    # the combination's counts (rain 2, town 2, fell, flooded) against the document's (and schools,
    # closed, early, today): 10 / sqrt(10 * 14)
    assert features["document_cosine"] == pytest.approx(10 / math.sqrt(140))
    alone = combination_features(sentences, [2], [1.5], "english")  # a score out of range counts as 1
    assert alone["pair_overlap"] == 0.0 and alone["logit_sum"] == pytest.approx(math.log(1 / 1e-9))
    assert alone["position"] == pytest.approx(2 / 3) and alone["first_sentence"] == 0.0


def test_each_feature_chooses_as_it_should():
    sentences = ["Rain fell on the town.", "The town flooded after rain.", "Schools closed early today."]
    single = dict(zip(FEATURES, (1.0,) * len(FEATURES)))

    def best(**weights: float) -> tuple[int, ...] | None:
        chosen = ranker(**{name: weights.get(name, 0.0) for name in single})
        return best_combination(chosen, sentences, [0, 1, 2], [0.2, 0.9, 0.6], 2, "english")

    assert best(score_sum=1.0) == (1, 2)
    assert best(score_min=-1.0) == (0, 1)  # the lowest score is 0.2: 0 and another
    assert best(pair_overlap=1.0) == (0, 1)  # rain and town, in both
    assert best(first_sentence=1.0) == (0, 1)  # ties: the first combination
    assert best(log_words=-1.0) == (0, 2)  # 5 + 4 words
    assert best(document_cosine=1.0) == (0, 2)  # more of the document's words than (0, 1); ties (1, 2)
    assert best_combination(
        ranker(score_sum=1.0), sentences, [0, 1, 2], [0.2, 0.9, 0.6], 2, "english", lambda c: 2 not in c
    ) == (0, 1)
    assert (
        best_combination(ranker(score_sum=1.0), sentences, [0, 1, 2], [0.2, 0.9, 0.6], 2, "english", lambda c: False)
        is None
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"features": ["score_sum", "magic"]}, r"ranker\.features must be among .*got 'magic'"),
        ({"features": ["score_sum", "score_sum"]}, r"ranker\.features must name each feature once"),
        ({"weights": [1.0]}, r"ranker\.weights must hold 2 numbers, one for each feature, got 1"),
        ({"mean": [0.0, "0"]}, r"ranker\.mean must hold finite numbers, got '0'"),
        ({"weights": [1.0, float("nan")]}, r"ranker\.weights must hold finite numbers, got nan"),
        ({"std": [1.0, 0.0]}, r"ranker\.std must be above 0"),
        ({"lengths": [5]}, r"ranker\.lengths must be whole numbers from 1 to candidates - 1 \(4\), got 5"),
        ({"candidates": True}, r"ranker\.candidates must be a whole number from 2 to 10, got True"),
        ({"candidates": 11}, r"ranker\.candidates must be a whole number from 2 to 10, got 11"),
        (
            {"mean": [0, 10**400]},
            r"ranker\.mean must hold finite numbers, got 1000000000000000000000000000000000000\.\.\.$",
        ),
        ({"lengths": []}, r"ranker\.lengths must name at least one number of sentences"),
        ({"lengths": [2, 2]}, r"ranker\.lengths must name each number once"),
        ({"words": "bytes"}, r"ranker\.words must be one of"),
        ({"code": "import os"}, r"ranker has no setting 'code'"),
    ],
)
def test_a_ranker_setting_out_of_place_is_named(change, message):
    settings = {"features": ["score_sum", "position"], "mean": [0, 0], "std": [1, 1], "weights": [1, -1], **change}
    with pytest.raises(SettingError, match=message):
        RankerConfig.from_settings(settings)


def test_a_ranker_without_weights_is_refused():
    with pytest.raises(SettingError, match=r"ranker needs mean, std, weights"):
        RankerConfig.from_settings({"features": ["score_sum"]})
    with pytest.raises(SettingError, match=r"ranker must be an object or null"):
        RankerConfig.from_settings(["score_sum"])


ACCURATE_CONFIG = Path(__file__).parents[1] / "models/news-accurate/bertsum_news_accurate/model/config.json"


@pytest.mark.parametrize(
    ("path", "lengths"),
    [(builtin_model_dir("news") / "config.json", (2, 3, 4)), (ACCURATE_CONFIG, (3, 4))],
    ids=["news", "news-accurate"],
)
def test_the_built_in_models_carry_a_ranker_for_the_lengths_it_won_at(path, lengths):
    config = json.loads(path.read_text())
    shipped = RankerConfig.from_settings(config["ranker"])
    assert shipped is not None and shipped.lengths == lengths and shipped.candidates == 5
    assert BertSumConfig.from_dict(config).to_dict()["ranker"] == config["ranker"]  # read and written alike


@pytest.mark.parametrize("backend", ["onnx", "torch"])
def test_a_model_with_a_ranker_summarizes_with_it(graph_dir: Path, tmp_path: Path, backend: str) -> None:
    directory = tmp_path / "model"
    shutil.copytree(graph_dir, directory)
    config = json.loads((directory / "config.json").read_text())
    late = {**ranker(position=1.0).to_dict(), "lengths": [2]}
    (directory / "config.json").write_text(json.dumps({**config, "ranker": late, "trigram_blocking": False}))
    summarizer = Summarizer.from_pretrained(directory, precision="fp32", backend=backend)
    text = " ".join(f"Sentence {i} tells how the harbour at Port {i} changed in the year {1900 + i}." for i in range(9))
    summary = summarizer.summarize(text, k=2)
    scored = sorted(range(9), key=lambda i: (-(summary.sentence_scores[i] or 0.0), i))
    assert summary.indices == sorted(scored[:5])[-2:] != sorted(scored[:2])  # the latest of the five best
    assert summarizer.summarize(text, k=3).indices == sorted(scored[:3])  # not a length it ranks
    summarizer.ranker = None
    assert summarizer.summarize(text, k=2).indices == sorted(scored[:2])  # by score
    (directory / "config.json").write_text(json.dumps({**config, "ranker": {**late, "weights": ["1"]}}))
    with pytest.raises(InputError, match=r"config\.json: invalid settings: ranker\.weights must hold finite numbers"):
        Summarizer.from_pretrained(directory, precision="fp32", backend=backend)
