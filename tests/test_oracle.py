"""Greedy ROUGE oracle: hand-worked cases and agreement with a set-union implementation."""

from __future__ import annotations

import json
import re
import runpy
import unicodedata
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from rouge_score.tokenize import tokenize as rouge_tokenize

from summarizer.text.sentences import reference_sentences, split_sentences
from summarizer.text.words import rouge_words
from summarizer.training.oracle import greedy_oracle, greedy_oracle_words, oracle_targets

# BERTSUM's set-union oracle, as the preprocessing benchmark compares against it.
_REFERENCE = runpy.run_path(str(Path(__file__).resolve().parents[1] / "scripts" / "bench_preprocess.py"))
_ngrams, _f1, set_union_oracle = _REFERENCE["_ngrams"], _REFERENCE["_f1"], _REFERENCE["set_union_oracle"]


def test_rouge_words_lowercases_and_keeps_alphanumerics() -> None:
    assert rouge_words("Hello, World! It's 3.5 km-long.") == [
        "hello",
        "world",
        "it",
        "s",
        "3",
        "5",
        "km",
        "long",
    ]
    assert rouge_words(" -- ") == []


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(codec="ascii"), max_size=40))
def test_rouge_words_tokenize_ascii_text_as_rouge_score_does(text: str) -> None:
    assert rouge_words(text) == rouge_tokenize(text, None)


def test_rouge_words_keep_letters_of_any_script() -> None:
    assert rouge_words("Über das Café, naïve_x. Кошка СИДИТ") == ["über", "das", "café", "naïve", "x", "кошка", "сидит"]


def test_rouge_words_keep_combining_marks_inside_their_words() -> None:
    assert rouge_words("മലയാളം ഭാഷ") == ["മലയാളം", "ഭാഷ"]  # vowel signs (Mc, Mn) and a virama
    assert rouge_words("हिन्दी भाषा") == ["हिन्दी", "भाषा"]
    assert rouge_words("Cafe\u0301 noir") == ["cafe\u0301", "noir"]  # a decomposed accent
    assert rouge_words("İstanbul") == ["i\u0307stanbul"]  # casefolding adds a combining dot


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(exclude_categories=("Cn", "Cs")), max_size=40))  # assigned in unicodedata
def test_rouge_words_change_nothing_but_combining_marks(text: str) -> None:
    folded = text.casefold()
    assume(not any(unicodedata.category(c).startswith("M") for c in folded))
    assert rouge_words(text) == re.findall(r"[^\W_]+", folded)


def test_oracle_labels_text_in_other_scripts() -> None:
    sentences = ["Собака спит во дворе.", "Кошка сидит на окне."]
    assert greedy_oracle(sentences, "Кошка сидит на окне.", 2) == [1]


def test_hand_worked_selection_with_a_tie_and_a_stop() -> None:
    # Reference "the cat sat on the mat": unigrams {the, cat, sat, on, mat} (5),
    # bigrams {the cat, cat sat, sat on, on the, the mat} (5).
    sentences = ["A dog barked.", "The cat sat.", "On the mat."]
    # Step 1: "the cat sat" has 3/3 unigram hits (R=3/5, F=0.75) and 2/2 bigram hits
    # (R=2/5, F=0.571): 1.321. "on the mat" scores the same, so the earlier one wins.
    # "a dog barked" scores 0.
    # Step 2: adding "on the mat" gives 5/5 unigrams (F=1) and 4/4 bigrams, recall 4/5
    # ("sat on" spans two document sentences and does not count): F=0.889, total 1.889.
    # Step 3: adding "a dog barked" lowers unigram precision to 5/8 with no new hits, so
    # the search stops with two sentences although three are allowed.
    assert greedy_oracle(sentences, "The cat sat on the mat.", max_sentences=3) == [1, 2]
    assert greedy_oracle(sentences, "The cat sat on the mat.", max_sentences=1) == [1]
    assert oracle_targets(sentences, "The cat sat on the mat.") == [0.0, 1.0, 1.0]


def test_selection_is_returned_in_document_order() -> None:
    # Reference "a b c d". Step 1: "a b c" scores F1=0.857 (3/3, R=3/4) + 0.8 (2/2, R=2/3);
    # "c d" only 0.667 + 0.5. Step 2: adding "c d" completes both sets: 1 + 1.
    assert greedy_oracle_words([["c", "d"], ["a", "b", "c"]], ["a", "b", "c", "d"]) == [0, 1]


def test_a_better_single_sentence_is_not_diluted() -> None:
    # Reference "cat" has no bigrams. "cat" alone scores F1=1; adding "the cat" would
    # halve the precision, so the oracle keeps one sentence.
    assert greedy_oracle(["The cat.", "Cat!"], "cat") == [1]


def test_reference_as_list_is_the_same_as_one_string() -> None:
    sentences = ["The cat sat.", "On the mat.", "A dog barked."]
    # Reference bigrams span the reference's sentences, as in BERTSUM ("sat on").
    assert greedy_oracle(sentences, ["The cat sat.", "On the mat."]) == greedy_oracle(
        sentences, "The cat sat on the mat."
    )


@pytest.mark.parametrize(
    ("sentences", "reference", "k"),
    [([], "words", 3), (["Some words."], "", 3), (["Some words."], "!!!", 3), (["Some words."], "words", 0)],
)
def test_nothing_to_select(sentences: list[str], reference: str, k: int) -> None:
    assert greedy_oracle(sentences, reference, k) == []


def test_sentences_without_words_are_never_picked() -> None:
    assert greedy_oracle(["...", "The cat sat.", "--"], "the cat sat", max_sentences=3) == [1]


_WORD = st.sampled_from(["a", "b", "c", "d", "e", "f", "g"])


@settings(max_examples=400, deadline=None)
@given(
    sentences=st.lists(st.lists(_WORD, max_size=8), max_size=12),
    reference=st.lists(_WORD, max_size=15),
    k=st.integers(0, 6),
)
def test_equals_the_set_union_oracle(sentences: list[list[str]], reference: list[str], k: int) -> None:
    assert greedy_oracle_words(sentences, reference, k) == set_union_oracle(sentences, reference, k)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(max_size=30), max_size=8), st.text(max_size=40), st.integers(1, 4))
def test_raw_text_equals_the_set_union_oracle(sentences: list[str], reference: str, k: int) -> None:
    expected = set_union_oracle([rouge_words(s) for s in sentences], rouge_words(reference), k)
    assert greedy_oracle(sentences, reference, k) == expected


@pytest.mark.shared_data
def test_cnndm_agrees_with_the_set_union_oracle(shared_data: Path) -> None:
    with (shared_data / "cnndm" / "validation.jsonl").open(encoding="utf-8") as lines:
        rows = [json.loads(line) for _, line in zip(range(100), lines)]
    for row in rows:
        sentences = [rouge_words(s) for s in split_sentences(row["article"])]
        reference = [w for s in reference_sentences(row["highlights"]) for w in rouge_words(s)]
        assert greedy_oracle_words(sentences, reference, 3) == set_union_oracle(sentences, reference, 3), row["id"]
