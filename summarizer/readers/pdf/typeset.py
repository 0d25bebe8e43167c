"""What a typeset page (a PDF) sets beside its running text: captions of tables and figures,
footnotes and their marks. None of it is part of the text's flow: a float's caption lands where
the float was placed, a footnote at the foot of a page, in the middle of whatever paragraph
reads across it.

A caption is a paragraph that begins with its label ("Table 1:", "Figure 2.", "Fig. 3-5:"). A
footnote is a paragraph that begins with its number set against its first word ("1The machine
has..."), as a PDF's text layer gives a superscript, when its mark is near it: the same number
set against the end of a word ("accelerator1."; not a name the document writes more than once,
"latin1"), which goes with it, in one of the `MAX_MARK_DISTANCE` paragraphs before it (or after
it, in another column); or when the footnote before or after it in number stands within two
paragraphs ("1This...", "2Another..."). Both are paragraphs of their own (`is_note`: the plain
text rules start a paragraph at one, and go on with it only from a full line to one in lower
case). A paragraph a note cut in two (it ends with no full stop, question or exclamation mark,
the next after the note begins in lower case) is whole again.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_CAPTION = re.compile(r"(?:Table|Figure|Fig\.|Listing|Algorithm|Exhibit)\s+[A-Z]?\d{1,3}(?:[.-]\d{1,3})?[:.](?:\s|$)")
_FOOTNOTE = re.compile(r"(\d{1,2})(?=[A-Z][a-z])")
MAX_MARK_DISTANCE = 8
_FULL_STOP = re.compile(r"[.!?…][\"'”’»)\]]*$")  # a sentence's end, not a clause's (";", ":")
# A list's bullet that a TeX font maps to no character: a C1 control code at a line's start.
_UNMAPPED_BULLET = re.compile(r"^([ \t]*)[\x80-\x9f](?=[ \t])", re.MULTILINE)


def with_bullets(text: str) -> str:
    """`text` with each bullet that its font maps to a control code at a line's start made a
    bullet ("\\x88 item" to "• item"), so that the line starts a list item."""
    return _UNMAPPED_BULLET.sub(r"\1•", text)


def is_note(line: str) -> bool:
    """Whether `line` begins a caption or what may be a footnote."""
    return _CAPTION.match(line) is not None or _FOOTNOTE.match(line) is not None


def running_paragraphs(paragraphs: Sequence[str]) -> list[str]:
    """`paragraphs` of a typeset page less captions and footnotes, and the footnotes' marks; a
    paragraph that a caption or a footnote cut is joined again."""
    texts = list(paragraphs)
    whole = "\n".join(texts)  # the document as read, for how often it writes a word
    left_out = [_CAPTION.match(text) is not None for text in texts]
    numbers = [int(note.group(1)) if (note := _FOOTNOTE.match(text)) else None for text in texts]
    for at, number in enumerate(numbers):
        if number is None or left_out[at]:
            continue
        marked = _unmark(texts, whole, left_out, at, str(number))
        listed = any(numbers[i] in (number - 1, number + 1) for i in range(max(0, at - 2), min(len(texts), at + 3)))
        left_out[at] = marked or listed
    result: list[list[str]] = []  # each paragraph kept, as the pieces it is joined from
    cut = False  # a caption or a footnote was left out since the last paragraph kept
    for text, out in zip(texts, left_out):
        if out:
            cut = True
            continue
        if cut and result and not _FULL_STOP.search(result[-1][-1]) and text[:1].islower():
            result[-1].append(text)
        else:
            result.append([text])
        cut = False
    return [" ".join(pieces) for pieces in result]


def _unmark(texts: list[str], whole: str, left_out: list[bool], at: int, number: str) -> bool:
    """Takes the mark of the footnote `number` at `texts[at]` out of the nearest paragraph that
    holds one (before the footnote first, the last mark there; then after it, the first), if any
    within `MAX_MARK_DISTANCE`: whether it found one."""
    mark = re.compile(rf"(?<=[^\W\d_A-Z]{{3}}){number}(?=[.,;:)]?(?:\s|$))")  # not "GPT2", "πr3"
    for distance in range(1, MAX_MARK_DISTANCE + 1):
        for where, last in ((at - distance, True), (at + distance, False)):
            if not 0 <= where < len(texts) or left_out[where] or _FOOTNOTE.match(texts[where]):
                continue
            found = [hit for hit in mark.finditer(texts[where]) if not _named(whole, texts[where], hit)]
            if found:
                hit = found[-1] if last else found[0]
                texts[where] = texts[where][: hit.start()] + texts[where][hit.end() :]
                return True
    return False


def _named(whole: str, text: str, hit: re.Match[str]) -> bool:
    """Whether the word that `hit` (a mark's number in `text`) ends is a name with its digits
    ("latin1", "Type1"): the document, `whole`, writes it more than once."""
    word = text[: hit.end()].rsplit(None, 1)[-1]
    return whole.count(word) > 1
