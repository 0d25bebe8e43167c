"""The language a text is written in, offline: py3langid (BSD-3-Clause; its model, 97 languages,
ships in its wheel), on the first `DETECT_CHARS` characters of a document, so that a book costs
no more than a page.

The model loads on first use (about a second of CPU, once per process); `warm_up` loads it in a
background thread while something else loads. `detect_language` answers None rather than guess:
for a text shorter than `MIN_CHARS`, and when the library's normalized probability of its best
language is under `MIN_CONFIDENCE`.

The thresholds were measured on the first 300 articles of OrangeSum's validation split
(French), the 274 of Klexikon's (German) and the first 300 of CNN/DailyMail's (English), cut to
their first N characters: at N = 100, 1 English text in 300 was confidently (0.90) named another
language (Nigerian Pidgin), and 12-15% of German and English fell under 0.9; from N = 150 on, no
text was named a wrong language at 0.8 or above, and at N = 150 and 0.9, 99.7% of the French,
95% of the German and 98% of the English were named right; from N = 500 on, all of them, at
0.95 or above. On 1,500 of their paragraphs of 200 characters or more, no wrong answer at 0.8
or above and 4 German paragraphs (0.7%) unsure. Reading 1,000 characters takes a few
milliseconds.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from py3langid.langid import LanguageIdentifier

DETECT_CHARS = 1000  # a document's language is read from this many characters at its start
MIN_CHARS = 150  # a text with fewer characters (each run of spaces one) is too short to tell
MIN_CONFIDENCE = 0.9  # the normalized probability the best language needs

_lock = threading.Lock()
_identifier: LanguageIdentifier | None = None


def _model() -> LanguageIdentifier:
    global _identifier
    with _lock:
        if _identifier is None:
            from py3langid.langid import MODEL_FILE, LanguageIdentifier

            _identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
        return _identifier


def warm_up() -> None:
    """Load the model in a background thread (a later `detect_language` waits for it)."""
    threading.Thread(target=_model, name="language-model", daemon=True).start()


def detect_language(text: str | Iterable[str]) -> str | None:
    """The ISO 639-1 code (or the library's ISO 639 code, for a language that has none) of the
    language `text` is written in, read from its first `DETECT_CHARS` characters; None when it is
    too short or the detector is not confident. An iterable of strings (paragraphs, sentences)
    is read as they are joined by spaces, only as far as needed."""
    prefix = text[:DETECT_CHARS] if isinstance(text, str) else _prefix(text)
    if len(" ".join(prefix.split())) < MIN_CHARS:
        return None
    code, confidence = _model().classify(prefix)
    return str(code) if confidence >= MIN_CONFIDENCE else None


def _prefix(pieces: Iterable[str]) -> str:
    taken: list[str] = []
    length = 0
    for piece in pieces:
        taken.append(piece)
        length += len(piece) + 1
        if length >= DETECT_CHARS:
            break
    return " ".join(taken)[:DETECT_CHARS]
