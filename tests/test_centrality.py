"""Lexical centrality features: the ranking, the stop words, and the way into a model."""

from __future__ import annotations

import hashlib
import json
import math
import runpy
from pathlib import Path

import pytest
import torch
from conftest import TINY_HEAD, export

from summarizer.modeling.batch import collate
from summarizer.modeling.features import FeatureBuilder, FeatureConfig
from summarizer.modeling.modeling_bertsum import BertSumModel, load_tokenizer
from summarizer.modeling.settings import CONFIG_FILE
from summarizer.pipeline import Summarizer
from summarizer.text.centrality import (
    DEFAULT_WORDS,
    WORD_PATTERNS,
    content_words,
    most_central,
    sentence_centrality,
    sentence_similarity,
    stop_words,
)
from summarizer.text.sentences import available_languages
from summarizer.training.preprocess import DocumentPreprocessor

DOCUMENT = [
    "The council approved the new bridge budget for the harbour.",
    "The bridge budget was approved by the council after a long debate.",
    "Cats sleep for most of the afternoon.",
    "The harbour bridge opens next year, the council said.",
]


def test_the_sentence_sharing_most_words_ranks_first_and_the_off_topic_one_last() -> None:
    features = sentence_centrality(DOCUMENT)
    ranks = [rank for _, rank in features]
    assert ranks[2] == 1.0  # the cats share no content word with the others
    assert min(range(len(ranks)), key=ranks.__getitem__) in (0, 1)
    assert sorted(ranks) == [0.0, 1 / 3, 2 / 3, 1.0]
    # log(n * pagerank): the PageRank shares sum to one.
    assert sum(math.exp(relative) for relative, _ in features) == pytest.approx(len(DOCUMENT))
    assert features[2][0] < 0 < features[0][0]


def test_textrank_baseline_keeps_the_most_central_sentences_in_document_order() -> None:
    ranks = [rank for _, rank in sentence_centrality(DOCUMENT)]
    chosen = most_central(DOCUMENT, 2)
    assert chosen == sorted(chosen) and 2 not in chosen
    assert sorted(ranks[i] for i in chosen) == [0.0, 1 / 3]
    assert most_central(DOCUMENT, 10) == [0, 1, 2, 3]


def test_sentences_sharing_only_stop_words_are_not_similar() -> None:
    graph = sentence_similarity(["The cat is on the mat.", "The dog is in the house.", "A cat, a mat."])
    edges = {(int(a), int(b)): float(w) for a, b, w in zip(graph.source, graph.target, graph.weight)}
    assert edges == {(0, 2): pytest.approx(1.0), (2, 0): pytest.approx(1.0)}  # same content words: cat, mat


def letters(number: int) -> str:
    """A distinct word of letters for each number: 0 -> "a", 27 -> "bb"."""
    word = ""
    while True:
        number, digit = divmod(number, 26)
        word += chr(ord("a") + digit)
        if number == 0:
            return word


def test_long_documents_stay_sparse() -> None:
    # 3,000 sentences, each sharing content words with few others: edges, not 9 million pairs.
    sentences = [f"Topic{letters(i // 3)} report{letters(i // 3)} number{letters(i)}." for i in range(3000)]
    graph = sentence_similarity(sentences)
    assert graph.size == 3000 and len(graph.weight) == 3000 * 2
    ranks = [rank for _, rank in sentence_centrality(sentences)]
    assert ranks == pytest.approx([0.5] * 3000)  # every sentence alike


def test_words_are_runs_of_letters_by_default() -> None:
    sentences = ["Sales rose 12 percent in 2004.", "The 2004 budget grew by 12 million.", "Cats sleep."]
    assert len(sentence_similarity(sentences).weight) == 0  # numbers link nothing
    assert content_words("Mp3 players, 2004-05.") == ["mp", "players"]
    assert content_words("Ünïcode façade") == ["ünïcode", "façade"]
    assert content_words("Cafe\u0301 noir") == ["cafe", "noir"]  # a combining mark splits its word
    for check in (lambda: content_words("text", "digits"), lambda: stop_words("english", "digits")):
        with pytest.raises(ValueError, match="centrality_words must be one of letters, tokens, got 'digits'"):
            check()
    with pytest.raises(ValueError, match="centrality_words"):
        FeatureConfig(centrality=True, centrality_words="versions")


def test_degenerate_documents() -> None:
    assert sentence_centrality([]) == []
    assert sentence_centrality(["Only one."]) == [[0.0, 0.0]]
    # No content words anywhere: every sentence is as central as any other, rank included.
    features = sentence_centrality(["It is.", "Was it?", "..."])
    assert features == [[pytest.approx(0.0), 0.5]] * 3


def test_stop_words_follow_the_sentence_language() -> None:
    assert {"the", "and", "of"} <= stop_words("english")
    assert "der" in stop_words("german")
    assert stop_words("slovene")  # Punkt's name for the stopwords package's "slovenian"
    assert stop_words("estonian") == frozenset()  # no list: every word counts


def test_stop_lists_are_nltk_s_where_it_has_the_language() -> None:
    assert {"will", "just", "now"} <= stop_words("english") and not {"would", "could"} & stop_words("english")
    assert stop_words("english_web") == stop_words("english")
    assert "anderes" in stop_words("german")
    assert {"aby", "jak"} <= stop_words("czech")  # NLTK has no Czech list: the stopwords package's
    plans = ["Mayors would tax.", "Farmers would sell.", "Shops will open.", "Ports will close."]
    assert _linked_pairs(plans, "letters") == {(0, 1), (1, 0)}


def test_tokens_take_the_letters_of_each_whitespace_token_as_one_word() -> None:
    text = "Pernod's low-fare bid: 5bn euros (2004), U.S. rivals."
    assert content_words(text, "tokens") == ["pernods", "lowfare", "bid", "bn", "euros", "us", "rivals"]
    assert content_words(text, "letters") == ["pernod", "s", "low", "fare", "bid", "bn", "euros", "u", "s", "rivals"]
    # Combining marks stay in their word: two Malayalam words that differ by a vowel sign; an
    # accent composed or not is the same word; a mark that follows no letter is dropped.
    assert content_words("കാല കില", "tokens") == ["കാല", "കില"]
    assert content_words("Cafe\u0301 caf\u00e9 \u0301 1\u0301a", "tokens") == ["caf\u00e9", "caf\u00e9", "a"]
    assert {"dont", "s", "t"} <= stop_words("english", "tokens") and "dont" not in stop_words("english")
    # A possessive or a hyphenated compound is one word as tokens.
    sentences = ["Pernod's shares rose.", "Pernod will bid.", "Low-fare airlines grew.", "Fare rises hurt."]
    assert _linked_pairs(sentences, "letters") == {(0, 1), (1, 0), (2, 3), (3, 2)}
    assert _linked_pairs(sentences, "tokens") == set()
    assert _linked_pairs(["Pernod's shares rose.", "Pernod's bid failed."], "tokens") == {(0, 1), (1, 0)}


# Digests of every Punkt language's stop list per word pattern: saved models read these features.
STOP_LIST_DIGESTS = {"letters": "301247ee687af458", "tokens": "e6729d37498e41d1"}


@pytest.mark.parametrize("words", WORD_PATTERNS)
def test_stop_lists_never_change(words: str) -> None:
    lists = "\n".join(f"{name}: {' '.join(sorted(stop_words(name, words)))}" for name in available_languages())
    assert hashlib.sha256(lists.encode()).hexdigest()[:16] == STOP_LIST_DIGESTS[words]


def _linked_pairs(sentences: list[str], words: str) -> set[tuple[int, int]]:
    graph = sentence_similarity(sentences, words=words)
    return {(int(a), int(b)) for a, b in zip(graph.source, graph.target)}


def test_the_model_language_chooses_the_stop_words(tiny_encoder_dir, tokenizer, tmp_path) -> None:
    sentences = [
        "Die Stadt baut eine Brücke.",
        "Die Brücke ist neu und die Stadt zahlt.",
        "Der Hund und die Katze schlafen.",
    ]
    german = sentence_centrality(sentences, "german")
    assert german[2][1] == 1.0  # shares no German content word
    assert german != sentence_centrality(sentences, "english")  # "die" and "und" link it in English
    model = BertSumModel.from_encoder(tiny_encoder_dir, language="german", features=FeatureConfig(centrality=True))
    export(model, tokenizer, tmp_path)
    config = model.config
    prepared = Summarizer.from_pretrained(tmp_path).prepare([sentences])[0]
    assert prepared.sections[0].features.sentence_features == german
    row = DocumentPreprocessor(tokenizer, config.features, None, "german")(
        {"id": ["d"], "text": [""], "sentences": [sentences], "reference": [""]}
    )
    assert row["sentence_features"] == [german]


def test_features_carry_the_centrality_of_scored_sentences_only(tokenizer) -> None:
    sentences = [*DOCUMENT[:2], "Yes.", *DOCUMENT[2:]]  # "Yes." is too short to be scored
    builder = FeatureBuilder(tokenizer, FeatureConfig(centrality=True))
    features = builder(sentences)
    assert features.sentence_indices == [0, 1, 3, 4]
    whole = sentence_centrality(sentences)
    assert features.sentence_features == [whole[i] for i in features.sentence_indices]
    assert builder.batch([sentences])[0].sentence_features == features.sentence_features
    assert "sentence_features" not in FeatureBuilder(tokenizer, FeatureConfig())(sentences).to_columns()

    rows = [features.to_columns(), builder(DOCUMENT[:2]).to_columns()]
    batch = collate(rows, tokenizer.pad_token_id)
    assert batch.sentence_features.shape == (2, 4, 2)
    assert torch.allclose(batch.sentence_features[0], torch.tensor(features.sentence_features))
    assert batch.sentence_features[1, 2:].abs().sum() == 0  # padding


def centrality_model(encoder_dir, words: str = DEFAULT_WORDS) -> BertSumModel:
    torch.manual_seed(0)
    features = FeatureConfig(centrality=True, centrality_words=words)
    return BertSumModel.from_encoder(encoder_dir, head=TINY_HEAD, features=features).eval()


def test_centrality_moves_scores_and_survives_export(tiny_encoder_dir, tmp_path) -> None:
    tokenizer = load_tokenizer(tiny_encoder_dir)
    model = centrality_model(tiny_encoder_dir)
    assert model.centrality is not None
    scratch = {id(p) for p in model.scratch_parameters()}
    encoder = {id(p) for p in model.encoder.parameters()}
    assert {id(p) for p in model.centrality.parameters()} <= scratch
    assert scratch | encoder == {id(p) for p in model.parameters()} and not scratch & encoder
    builder = FeatureBuilder(tokenizer, model.config.features)
    batch = collate([builder(DOCUMENT).to_columns()], tokenizer.pad_token_id)
    with torch.no_grad():
        scores = model(batch)
        batch.sentence_features = batch.sentence_features.flip(1)
        assert not torch.allclose(model(batch), scores)
        batch.sentence_features = None
        with pytest.raises(ValueError, match="centrality"):
            model(batch)

    export(model, tokenizer, tmp_path)
    assert json.loads((tmp_path / CONFIG_FILE).read_text())["features"]["centrality"] is True
    loaded = Summarizer.from_pretrained(tmp_path)
    summary = loaded.summarize(" ".join(DOCUMENT), k=2, trigram_blocking=False)
    direct = sorted(range(len(DOCUMENT)), key=lambda i: -scores[0, i].item())[:2]
    assert summary.indices == sorted(direct)


def test_models_saved_without_the_setting_load_without_centrality(tiny_model_dir, tmp_path) -> None:
    settings = json.loads((tiny_model_dir / CONFIG_FILE).read_text())
    settings["features"].pop("centrality", None)
    for path in tiny_model_dir.iterdir():
        (tmp_path / path.name).write_bytes(path.read_bytes())
    (tmp_path / CONFIG_FILE).write_text(json.dumps(settings))
    model = BertSumModel.from_pretrained(tmp_path)
    assert model.centrality is None and model.config.features.centrality is False


@pytest.mark.parametrize("words", WORD_PATTERNS)
def test_models_keep_the_words_they_were_trained_with(tiny_encoder_dir, tmp_path, words) -> None:
    export(centrality_model(tiny_encoder_dir, words), load_tokenizer(tiny_encoder_dir), tmp_path)
    assert json.loads((tmp_path / CONFIG_FILE).read_text())["features"]["centrality_words"] == words
    sentences = ["Pernod's shares rose.", "Pernod will bid.", "Pernod's rivals waited.", "Cats sleep all day."]
    assert sentence_centrality(sentences, words="letters") != sentence_centrality(sentences, words="tokens")
    prepared = Summarizer.from_pretrained(tmp_path).prepare([sentences])[0]
    assert prepared.sections[0].features.sentence_features == sentence_centrality(sentences, words=words)


def test_textrank_words_script_scores_each_word_pattern(tmp_path, capsys) -> None:
    script = runpy.run_path(str(Path(__file__).resolve().parents[1] / "scripts" / "textrank_words.py"))
    # "Pernod's" links the first two sentences only when it is one word.
    sentences = ["Pernod's shares rose.", "Pernod's bid failed.", "Pernod said so."]
    assert most_central(sentences, 1, words="tokens") == [0] and most_central(sentences, 1) == [2]
    data = tmp_path / "docs.jsonl"
    data.write_text(json.dumps({"text": " ".join(sentences), "summary": sentences[2]}) + "\n")
    script["main"](["--data", str(data), "-k", "1"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"{data}: 1 documents")
    assert lines[1].startswith("letters: rouge1 100.00 ") and lines[2].startswith("tokens: rouge1 ")
    assert not lines[2].startswith("tokens: rouge1 100.00 ")


def test_reference_ranking_script_measures_choice_and_order(tmp_path, capsys) -> None:
    script = runpy.run_path(str(Path(__file__).resolve().parents[1] / "scripts" / "reference_ranking.py"))
    article = script["Article"]
    sentences = ["a", "b", "c", "d", "e"]
    by_rank = lambda _: [1, 2, 0, 4, 3]  # noqa: E731 - ranks: c, a, b, e, d
    assert script["agreement"]([article(sentences, [2, 0, 1], 3)], by_rank) == (1.0, pytest.approx(1.0))
    assert script["agreement"]([article(sentences, [1, 0, 2], 3)], by_rank) == (1.0, pytest.approx(-1.0))  # reversed
    assert script["agreement"]([article(sentences, [0, 2, 1], 3)], by_rank) == (1.0, pytest.approx(0.5))
    # A reference of 4 sentences, 2 found: both among the top 4, too few to correlate.
    share, correlation = script["agreement"]([article(sentences, [3, 4], 4)], by_rank)
    assert share == 0.5 and math.isnan(correlation)
    # Tied ranks share their mean rank, and a reference whose sentences all tie has no order.
    tied = lambda _: [0, 1, 1, 2, 3]  # noqa: E731
    assert script["agreement"]([article(sentences, [0, 1, 2, 3], 4)], tied)[1] == pytest.approx(0.9486833)
    assert script["agreement"]([article(sentences, [0, 2, 1, 3], 4)], tied)[1] == pytest.approx(0.9486833)
    assert math.isnan(script["agreement"]([article(sentences, [0, 1, 2], 3)], lambda _: [0] * 5)[1])

    data = tmp_path / "docs.jsonl"
    reference = "\n".join([DOCUMENT[1], "A sentence the article does not have.", DOCUMENT[0]])
    data.write_text(json.dumps({"text": " ".join(DOCUMENT), "summary": reference}) + "\n")
    script["main"](["--data", str(data)])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"{data}: 1 articles; 2 of 3 reference sentences found verbatim"
    assert lines[1].startswith("document position: 100.0% of them in its top")
    assert [line.split(":")[0] for line in lines[2:]] == [f"centrality, words as {w}" for w in WORD_PATTERNS]
