"""Words as ROUGE counts them: what trigram blocking, the oracle and ROUGE compare."""

from __future__ import annotations

import regex

# A letter or digit, then letters, digits and combining marks: a vowel sign (Devanagari,
# Malayalam) or a decomposed accent stays inside its word.
_WORD = regex.compile(r"[\p{L}\p{N}][\p{L}\p{N}\p{M}]*")


def rouge_words(text: str) -> list[str]:
    """Case-folded words of letters and digits, in any script, with their combining marks.

    On ASCII text these are exactly the words rouge-score's tokenizer keeps (no stemming).
    """
    return _WORD.findall(text.casefold())
