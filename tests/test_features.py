"""BERTSUM inputs: `[CLS] s1 [SEP] [CLS] s2 [SEP] ...` with interval segments, cut into windows."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from summarizer.modeling.features import FeatureBuilder, FeatureConfig
from summarizer.modeling.modeling_bertsum import load_tokenizer

CLS, SEP = 101, 102
THE_CAT_SAT = [1996, 4937, 2938, 1012]  # the cat sat .
DOGS_BARK_LOUDLY = [6077, 11286, 9928, 1012]  # dogs bark loudly .
IT_RAINS = [2009, 15811, 1012]  # it rains .


def test_layout_of_a_short_document(tokenizer) -> None:
    features = FeatureBuilder(tokenizer, FeatureConfig())(["The cat sat.", "Dogs bark loudly.", "It rains."])
    assert len(features.windows) == 1
    window = features.windows[0]
    assert window.input_ids == [CLS, *THE_CAT_SAT, SEP, CLS, *DOGS_BARK_LOUDLY, SEP, CLS, *IT_RAINS, SEP]
    assert window.token_type_ids == [0] * 6 + [1] * 6 + [0] * 5
    assert window.cls_positions == [0, 6, 12]
    assert features.sentence_indices == [0, 1, 2]
    assert features.to_columns() == {
        "input_ids": [window.input_ids],
        "cls_positions": [[0, 6, 12]],
        "sentence_indices": [0, 1, 2],
        "token_type_ids": [window.token_type_ids],
    }


def test_windows_restart_segments_and_positions(tokenizer) -> None:
    # Each sentence takes 6 tokens with [CLS] and [SEP]; 13 tokens fit two sentences per window.
    builder = FeatureBuilder(
        tokenizer, FeatureConfig(max_window_tokens=13, max_tokens_per_sentence=11, min_sentence_tokens=1)
    )
    features = builder(["The cat sat.", "Dogs bark loudly.", "The cat sat."])
    assert [w.input_ids for w in features.windows] == [
        [CLS, *THE_CAT_SAT, SEP, CLS, *DOGS_BARK_LOUDLY, SEP],
        [CLS, *THE_CAT_SAT, SEP],
    ]
    assert [w.token_type_ids for w in features.windows] == [[0] * 6 + [1] * 6, [0] * 6]
    assert [w.cls_positions for w in features.windows] == [[0, 6], [0]]


def test_short_sentences_are_skipped_and_the_rest_keep_their_indices(tokenizer) -> None:
    sentences = ["Hi.", "It rains.", "Hi.", "The cat sat."]
    features = FeatureBuilder(tokenizer, FeatureConfig(min_sentence_tokens=3))(sentences)
    assert features.sentence_indices == [1, 3]
    assert features.windows[0].input_ids == [CLS, *IT_RAINS, SEP, CLS, *THE_CAT_SAT, SEP]
    # max_sentences counts scored sentences, not the short ones skipped before them.
    capped = FeatureBuilder(tokenizer, FeatureConfig(min_sentence_tokens=3, max_sentences=2))(sentences)
    assert capped.sentence_indices == [1, 3]


def test_without_a_long_enough_sentence_every_nonempty_one_is_scored(tokenizer) -> None:
    builder = FeatureBuilder(tokenizer, FeatureConfig(min_sentence_tokens=3))
    ok, thanks = builder.tokenize(["OK.", "Thanks."])
    assert len(ok) == len(thanks) == 2
    features = builder(["OK.", "Thanks."])
    assert features.sentence_indices == [0, 1]
    assert features.windows[0].input_ids == [CLS, *ok, SEP, CLS, *thanks, SEP]
    assert builder.from_token_ids([[], [7, 8], [], [9]]).sentence_indices == [1, 3]
    assert builder.from_token_ids([[], []]).windows == []


def test_max_sentences_and_max_tokens_per_sentence(tokenizer) -> None:
    config = FeatureConfig(max_sentences=2, max_tokens_per_sentence=2, min_sentence_tokens=1)
    features = FeatureBuilder(tokenizer, config)(["The cat sat.", "Dogs bark loudly.", "It rains."])
    assert features.sentence_indices == [0, 1]
    assert features.windows[0].input_ids == [CLS, 1996, 4937, SEP, CLS, 6077, 11286, SEP]


def test_truncate_keeps_only_the_first_window(tokenizer) -> None:
    sentences = ["The cat sat.", "Dogs bark loudly.", "It rains.", "The cat sat."]
    full = FeatureBuilder(tokenizer, FeatureConfig(max_window_tokens=13, max_tokens_per_sentence=11))(sentences)
    truncated = FeatureBuilder(
        tokenizer, FeatureConfig(max_window_tokens=13, max_tokens_per_sentence=11, truncate=True)
    )(sentences)
    assert len(full.windows) == 2
    assert truncated.windows == full.windows[:1]
    assert truncated.sentence_indices == [0, 1]


def test_empty_document_has_no_windows(tokenizer) -> None:
    features = FeatureBuilder(tokenizer, FeatureConfig())([])
    assert features.windows == [] and features.sentence_indices == []


def test_batch_equals_one_document_at_a_time(tokenizer) -> None:
    builder = FeatureBuilder(
        tokenizer, FeatureConfig(max_window_tokens=13, max_tokens_per_sentence=11, min_sentence_tokens=1)
    )
    documents = [["The cat sat.", "Hi."], [], ["Dogs bark loudly.", "It rains.", "The cat sat."]]
    assert builder.batch(documents) == [builder(d) for d in documents]


def test_tokenizer_padding_and_truncation_settings_are_ignored(tokenizer) -> None:
    padded = copy.deepcopy(tokenizer)
    padded.backend_tokenizer.enable_truncation(max_length=2)
    padded.backend_tokenizer.enable_padding(length=20)
    sentences = ["Dogs bark loudly.", "It rains."]
    assert FeatureBuilder(padded, FeatureConfig()).tokenize(sentences) == [DOGS_BARK_LOUDLY, IT_RAINS]


def test_padding_a_call_of_the_tokenizer_switches_on_later_is_ignored_and_left_to_it(tokenizer) -> None:
    plain = copy.deepcopy(tokenizer)
    plain.backend_tokenizer.no_padding()
    plain.backend_tokenizer.no_truncation()
    builder = FeatureBuilder(plain, FeatureConfig())
    sentences = ["Dogs bark loudly.", "It rains."]
    plain(sentences, padding="max_length", max_length=20, truncation=True)  # leaves its backend padding
    assert plain.backend_tokenizer.padding is not None
    assert builder.tokenize(sentences) == [DOGS_BARK_LOUDLY, IT_RAINS]
    assert plain.backend_tokenizer.padding is not None  # the tokenizer's own settings are its own


def test_encoder_without_token_types_gets_none(tiny_distilbert_dir) -> None:
    tokenizer = load_tokenizer(tiny_distilbert_dir)
    assert "token_type_ids" not in tokenizer.model_input_names
    builder = FeatureBuilder(tokenizer, FeatureConfig(min_sentence_tokens=1))
    features = builder(["The cat sat.", "Dogs bark loudly."])
    first, second = builder.tokenize(["The cat sat.", "Dogs bark loudly."])
    cls, sep = tokenizer.cls_token_id, tokenizer.sep_token_id
    assert features.windows[0].input_ids == [cls, *first, sep, cls, *second, sep]
    assert features.windows[0].token_type_ids is None
    assert "token_type_ids" not in features.to_columns()


@pytest.mark.parametrize(
    "kwargs",
    [
        {"max_window_tokens": 2},
        {"max_window_tokens": 10, "max_tokens_per_sentence": 9},
        {"max_tokens_per_sentence": 0},
        {"min_sentence_tokens": 0},
        {"max_sentences": 0},
    ],
)
def test_invalid_config_is_rejected(kwargs: dict[str, int]) -> None:
    with pytest.raises(ValueError):
        FeatureConfig(**kwargs)


@st.composite
def _configs(draw: st.DrawFn) -> FeatureConfig:
    window = draw(st.integers(3, 40))
    return FeatureConfig(
        max_window_tokens=window,
        max_tokens_per_sentence=draw(st.integers(1, window - 2)),
        min_sentence_tokens=draw(st.integers(1, 4)),
        max_sentences=draw(st.none() | st.integers(1, 8)),
        truncate=draw(st.booleans()),
    )


@pytest.fixture(scope="module")
def builder(tokenizer) -> FeatureBuilder:
    return FeatureBuilder(tokenizer, FeatureConfig())


@settings(max_examples=300, deadline=None)
@given(config=_configs(), lengths=st.lists(st.integers(0, 4) | st.integers(5, 45), max_size=25))
def test_windows_cover_scored_sentences_once_in_order(
    builder: FeatureBuilder, config: FeatureConfig, lengths: list[int]
) -> None:
    # Synthetic word pieces: sentence i is made of ids 1000*(i+1) + 0, 1, 2, ...
    sentence_ids = [[1000 * (i + 1) + t for t in range(n)] for i, n in enumerate(lengths)]
    configured = copy.copy(builder)  # building one per example would copy the tokenizer each time
    configured.config = config
    features = configured.from_token_ids(sentence_ids)

    # Sentences short of min_sentence_tokens are skipped unless no sentence reaches it.
    shortest = config.min_sentence_tokens if max(lengths, default=0) >= config.min_sentence_tokens else 1
    eligible = [i for i, n in enumerate(lengths) if n >= shortest]
    if config.max_sentences is not None:
        eligible = eligible[: config.max_sentences]
    if config.truncate:
        assert len(features.windows) <= 1
        assert features.sentence_indices == eligible[: len(features.sentence_indices)]
    else:
        assert features.sentence_indices == eligible
    assert bool(features.windows) == bool(eligible)

    placed = 0  # scored sentences found in the windows so far
    for window in features.windows:
        assert 0 < len(window.input_ids) <= config.max_window_tokens
        assert len(window.token_type_ids) == len(window.input_ids)
        assert window.cls_positions[0] == 0
        ends = [*window.cls_positions[1:], len(window.input_ids)]
        for segment, (start, end) in enumerate(zip(window.cls_positions, ends)):
            kept = sentence_ids[features.sentence_indices[placed]][: config.max_tokens_per_sentence]
            assert window.input_ids[start:end] == [CLS, *kept, SEP]
            assert window.token_type_ids[start:end] == [segment % 2] * (end - start)
            placed += 1
        if placed < len(eligible):
            # The window was closed because the next scored sentence does not fit in it.
            following = min(len(sentence_ids[eligible[placed]]), config.max_tokens_per_sentence)
            assert len(window.input_ids) + following + 2 > config.max_window_tokens
    assert placed == len(features.sentence_indices)
