"""What a typeset page (a PDF) sets beside its running text: captions of tables and figures,
footnotes and their marks. None of it is part of the text's flow: a float's caption lands where
the float was placed, a footnote at the foot of a page, in the middle of whatever paragraph
reads across it.

A caption is a paragraph that begins with its label ("Table 1:", "Figure 2.", "Fig. 3:"). A
footnote is a paragraph that begins with its number set against its first word ("1The machine
has..."), as a PDF's text layer gives a superscript; the same number set against the end of a
word in the text ("accelerator1.") is its mark, and goes with it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from summarizer.text.layout import SENTENCE_END

_CAPTION = re.compile(r"(?:Table|Figure|Fig\.|Listing|Algorithm|Exhibit)\s+[A-Z]?\d{1,3}(?:\.\d{1,3})?[:.]\s")
_FOOTNOTE = re.compile(r"(\d{1,2})(?=[A-Z][a-z])")
# A mark: a number after three lower-case letters of a word, before punctuation or a space
# ("quality2."; not "GPT2", nor a variable's exponent or index, "πr3", "δr1").
_MARK = re.compile(r"(?<=[^\W\d_A-Z]{3})(\d{1,2})(?=[.,;:)]?(?:\s|$))")
# A list's bullet that a TeX font maps to no character: a C1 control code at a line's start.
_UNMAPPED_BULLET = re.compile(r"^(\s*)[\x80-\x9f](?=\s)", re.MULTILINE)


def with_bullets(text: str) -> str:
    """`text` with each bullet that its font maps to a control code at a line's start made a
    bullet ("\\x88 item" to "• item"), so that the line starts a list item."""
    return _UNMAPPED_BULLET.sub(r"\1•", text)


def running_paragraphs(paragraphs: Sequence[str]) -> list[str]:
    """`paragraphs` of a typeset page less captions and footnotes, and the footnotes' marks; a
    paragraph that a caption or a footnote cut (it ends no sentence, the next after them begins
    in lower case) is joined again."""
    notes = {note.group(1) for paragraph in paragraphs if (note := _FOOTNOTE.match(paragraph))}
    result: list[str] = []
    cut = False  # a caption or a footnote was left out since the last paragraph kept
    for paragraph in paragraphs:
        if _CAPTION.match(paragraph) or _FOOTNOTE.match(paragraph):
            cut = True
            continue
        if notes:
            paragraph = _MARK.sub(lambda mark: "" if mark.group(1) in notes else mark.group(), paragraph)
        if cut and result and not SENTENCE_END.search(result[-1]) and paragraph[:1].islower():
            result[-1] = f"{result[-1]} {paragraph}"
        else:
            result.append(paragraph)
        cut = False
    return result
