import pytest

from summarizer.training.rouge import bootstrap_interval, rouge


@pytest.mark.parametrize("language", ["english", "english_web"])
def test_english_uses_rouge_score_with_stemming(language: str):
    result = rouge([["The cats sit."]], [["The cat sits."]], bootstrap_samples=10, language=language)
    assert result.mean["rouge1"] == pytest.approx(100.0)  # cats/cat and sit/sits stem alike


def test_other_languages_count_their_own_words():
    result = rouge([["Кошка сидит на окне."]], [["Кошка сидит дома."]], bootstrap_samples=10, language="russian")
    assert result.mean["rouge1"] == pytest.approx(100 * 2 * (2 / 4) * (2 / 3) / (2 / 4 + 2 / 3))


def test_words_differing_in_a_vowel_sign_do_not_match():
    def rouge1(prediction: str, reference: str) -> float:
        return rouge([[prediction]], [[reference]], bootstrap_samples=10, language="malayalam").mean["rouge1"]

    assert rouge1("കാല", "കില") == 0.0
    assert rouge1("കാല", "കാല") == pytest.approx(100.0)


def test_bootstrap_interval_brackets_the_mean():
    values = [10.0, 20.0, 30.0, 40.0, 50.0]
    low, high = bootstrap_interval(values, samples=500)
    assert low < 30.0 < high
    assert 10.0 <= low and high <= 50.0
