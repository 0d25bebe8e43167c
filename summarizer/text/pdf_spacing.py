"""A PDF page's word and character spacing made explicit, so that pypdf's text extraction sees
the gaps between words.

pypdf decides where a space goes from how far the pen moved against the width of the text
shown. It leaves word spacing (`Tw`, the extra width of each space in justified text) out of
that width, so a line of groff's, mom's or a word processor's output broken at a kerned pair
reads "ha ve been lobbying the US go vernment"; and it takes character spacing (`Tc`) as part of
the glyphs, so Ghostscript's output, which sets the gap between two words as character spacing
in a string of two or three glyphs ("r" of one word, "a" of the next), reads
"particular,manyvariations". Both are text state that moves the pen by a fixed amount after a
glyph, as a number in a `TJ` array does, which pypdf does measure. So on a page that sets
either, a string that a simple font (Type 1 or TrueType: a byte is a glyph) shows becomes a
`TJ` array with that amount after each space (`Tw`) and between glyphs (`Tc`), shown with `Tw`
and `Tc` at 0 and set back after it, and the words read as the page shows them. Character
spacing stays as it was where it cannot make a gap (less than a tenth of the font size, or
negative: kerning) and in letter-spaced text (three gaps or more in a row: "C O N T E N T S"
is a heading set wide, not four words), and the amount after the last glyph is left out: a text
positioning operator places what follows, and pypdf would take it for a word gap. Pages that
set neither, strings of more than `MAX_STRING_BYTES` and pages this cannot read (pypdf then
reports what it cannot read) are left as they are. Only the page's own content is rewritten
(not form XObjects), in memory, never the file.
"""

from __future__ import annotations

import re
from typing import Any

_SPACE = 32
_SIMPLE_FONTS = frozenset(("/Type1", "/MMType1", "/TrueType"))  # a byte a glyph, with widths pypdf reads
# A character spacing that moves the pen by less than this share of the font size makes no gap.
MIN_GAP = 0.1
LETTER_SPACED = 3  # this many gaps in a row: letters set wide, not words
MAX_STRING_BYTES = 10_000  # a show operator's strings; longer ones are left as they are (time, memory)
_AFTER_SPACE = re.compile(rb"[^ ]* |[^ ]+")  # a string's pieces, each up to a space
_SHOW = frozenset((b"Tj", b"TJ", b"'", b'"'))


def explicit_spacing(page: Any) -> None:
    """Rewrite `page`'s content (a pypdf page of a reader, in memory) so that its word and
    character spacing are offsets in `TJ` arrays (module docstring); a page that sets neither is
    left untouched."""
    from pypdf.generic import ContentStream, NameObject

    try:
        contents = page.get_contents()
        if contents is None:
            return
        data = contents.get_data()
        if b"Tw" not in data and b"Tc" not in data and b'"' not in data:
            return
        content = ContentStream(contents, page.pdf, "bytes")  # as pypdf reads it: strings as bytes
        operations, changed = _explicit(content.operations, _simple_fonts(page))
    except Exception:  # a damaged page: pypdf reads it as it is, and reports what it cannot read
        return
    if changed:
        content.operations = operations
        page[NameObject("/Contents")] = content  # pypdf's extraction reads this object as it is


def _simple_fonts(page: Any) -> set[str]:
    """The names of the page's fonts that are simple: Type 1 or TrueType, a byte a glyph. A
    composite (Type0) font's codes are several bytes, a Type 3 font's widths are not what pypdf
    measures, and a damaged entry tells nothing: their strings are left as they are."""
    try:
        fonts = page["/Resources"]["/Font"].get_object()
        entries = list(fonts.items())
    except Exception:  # no fonts, or a damaged dictionary
        return set()
    simple = set()
    for name, font in entries:
        try:
            if font.get_object().get("/Subtype") in _SIMPLE_FONTS:
                simple.add(str(name))
        except Exception:  # this entry is damaged: the others still count
            continue
    return simple


def _explicit(operations: list[tuple[list[Any], bytes]], simple_fonts: set[str]) -> tuple[list[Any], bool]:
    """`operations` with each string that a simple font shows under word or character spacing
    shown by a `TJ` array with that spacing as offsets, `Tw` and `Tc` at 0 around it (and as they
    were after it), and whether anything changed."""
    from pypdf.generic import FloatObject, NumberObject

    word, character, size, simple = 0.0, 0.0, 1.0, False
    saved: list[tuple[float, float, float, bool]] = []  # q and Q save and restore the text state
    result: list[tuple[list[Any], bytes]] = []
    changed = False
    for operands, operator in operations:
        if operator == b"q":
            saved.append((word, character, size, simple))
        elif operator == b"Q" and saved:
            word, character, size, simple = saved.pop()
        elif operator == b"Tf" and len(operands) >= 2:
            simple = str(operands[0]) in simple_fonts
            size = _number(operands[1], size)
        elif operator == b"Tw" and operands:
            word = _number(operands[0], word)
        elif operator == b"Tc" and operands:
            character = _number(operands[0], character)
        elif operator == b'"' and len(operands) >= 3:  # set both, go to the next line, show
            word, character = _number(operands[0], word), _number(operands[1], character)
            result += [([operands[0]], b"Tw"), ([operands[1]], b"Tc")]
            operands, operator = [operands[2]], b"'"
        shown = (operands[0] if operator == b"TJ" else operands[:1]) if operator in _SHOW and operands else None
        explicit = _explicit_show(shown, word, character, size) if simple and isinstance(shown, list) else None
        if explicit is None:
            result.append((operands, operator))
            continue
        array, kept = explicit  # kept: the character spacing left to pypdf (letters set wide)
        if operator == b"'":
            result.append(([], b"T*"))
        result += [([NumberObject(0)], b"Tw"), ([FloatObject(kept)], b"Tc"), ([array], b"TJ")]
        result += [([FloatObject(word)], b"Tw"), ([FloatObject(character)], b"Tc")]
        changed = True
    return result, changed


def _explicit_show(shown: list[Any], word: float, character: float, size: float) -> tuple[Any, float] | None:
    """The `TJ` array that shows `shown` (strings and offsets) with the word spacing, and the
    character spacing where it makes gaps, as offsets, with the character spacing left as it is
    (0 if it is in the array); None when there is nothing to make explicit."""
    if size <= 0 or sum(len(item) for item in shown if isinstance(item, bytes)) > MAX_STRING_BYTES:
        return None  # no size (or a mirrored one), or too long to take apart
    gap = character >= MIN_GAP * size  # can it part two glyphs into two words?
    per_glyph = -1000 * character / size
    if gap and _letter_spaced(shown, per_glyph):
        gap = False
    if not word and not gap:
        return None
    return _offsets(shown, -1000 * word / size, per_glyph if gap else 0.0), 0.0 if gap else character


def _letter_spaced(shown: list[Any], per_glyph: float) -> bool:
    """Whether `LETTER_SPACED` gaps follow each other in `shown` with `per_glyph` after each glyph
    (offsets in the array may take a gap back, as Ghostscript's do)."""
    run, pending = 0, None  # the offset after the last glyph, until the next glyph comes
    for item in shown:
        if isinstance(item, bytes):
            for _ in item:
                if pending is not None:
                    run = run + 1 if pending <= -1000 * MIN_GAP else 0
                    if run >= LETTER_SPACED:
                        return True
                pending = per_glyph
        elif pending is not None:
            pending += _number(item, 0.0)
    return False


def _offsets(shown: list[Any], per_space: float, per_glyph: float) -> Any:
    """A `TJ` array showing `shown` (strings and offsets) with `per_space` after each space and
    `per_glyph` after each glyph but the last, adjacent offsets summed (pypdf judges each number
    on its own: a gap that the array's own offset takes back is no gap)."""
    from pypdf.generic import ArrayObject, ByteStringObject, FloatObject

    pieces: list[bytes | float] = []
    last = max((i for i, item in enumerate(shown) if isinstance(item, bytes) and item), default=-1)
    for position, item in enumerate(shown):
        if not isinstance(item, bytes):
            pieces.append(_number(item, 0.0))
        elif not per_glyph:  # word spacing alone: a piece per space
            for word in _AFTER_SPACE.findall(item):
                pieces += [word, per_space if word.endswith(b" ") else 0.0]
        else:
            for i, byte in enumerate(item):
                final = position == last and i == len(item) - 1
                pieces += [bytes((byte,)), (per_space if byte == _SPACE else 0.0) + (0.0 if final else per_glyph)]
    array = ArrayObject()
    text: list[bytes] = []
    offset = 0.0
    for piece in pieces:
        if isinstance(piece, bytes):
            if offset:
                array += [ByteStringObject(b"".join(text)), FloatObject(offset)] if text else [FloatObject(offset)]
                text, offset = [], 0.0
            text.append(piece)
        else:
            offset += piece
    if text:
        array.append(ByteStringObject(b"".join(text)))
    if offset:
        array.append(FloatObject(offset))
    return array


def _number(value: Any, default: float) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return default
