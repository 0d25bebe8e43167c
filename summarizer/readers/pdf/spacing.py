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
negative: kerning) and in letter-spaced text (three gaps or more in a row: "CONTENTS" set
wide is one word; and strings after it with the same spacing), and a string's last glyph is
shown with the spacing as it was: the amount after it moves the pen to what follows, which a
positioning operator places anyway, and is no word gap. Pages that set neither, strings of more
than `MAX_STRING_BYTES` and pages this cannot read (pypdf then reports what it cannot read) are
left as they are. Only the page's own content is rewritten (not form XObjects), in memory,
never the file.
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
    tracked: float | None = None  # the character spacing of letters set wide in this text object
    saved: list[tuple[float, float, float, bool]] = []  # q and Q save and restore the text state
    result: list[tuple[list[Any], bytes]] = []
    changed = False
    for operands, operator in operations:
        if operator == b"q":
            saved.append((word, character, size, simple))
        elif operator == b"Q" and saved:
            word, character, size, simple = saved.pop()
        elif operator == b"BT":
            tracked = None
        elif operator == b"Tf" and len(operands) >= 2:
            simple = str(operands[0]) in simple_fonts
            size = _number(operands[1], size)
        elif operator == b"Tw" and operands:
            word = _number(operands[0], word)
        elif operator == b"Tc" and operands:  # set anew: Ghostscript sets it before each gap
            character, tracked = _number(operands[0], character), None
        elif operator == b'"' and len(operands) >= 3:  # set both, go to the next line, show
            word, character, tracked = _number(operands[0], word), _number(operands[1], character), None
            result += [([operands[0]], b"Tw"), ([operands[1]], b"Tc")]
            operands, operator = [operands[2]], b"'"
        shown = (operands[0] if operator == b"TJ" else operands[:1]) if operator in _SHOW and operands else None
        if not simple or not isinstance(shown, list) or size <= 0 or _length(shown) > MAX_STRING_BYTES:
            result.append((operands, operator))
            continue
        # Character spacing parts words where it is a tenth of the font size or more, unless the
        # letters are set wide: three gaps in a row here, or the spacing of such a string before.
        gap = character >= MIN_GAP * size and character != tracked
        if gap and _letter_spaced(shown, -1000 * character / size):
            gap, tracked = False, character
        if not word and not gap:
            result.append((operands, operator))
            continue
        array, tail = _offsets(shown, -1000 * word / size, -1000 * character / size if gap else 0.0)
        if not array:  # one glyph: nothing to take apart
            result.append((operands, operator))
            continue
        if operator == b"'":
            result.append(([], b"T*"))
        result += [([NumberObject(0)], b"Tw"), ([FloatObject(0.0 if gap else character)], b"Tc"), ([array], b"TJ")]
        result += [([FloatObject(word)], b"Tw"), ([FloatObject(character)], b"Tc")]
        if tail:  # the last glyph as it was: the spacing after it moves the pen, it parts no words
            result.append(([tail], b"TJ"))
        changed = True
    return result, changed


def _length(shown: list[Any]) -> int:
    return sum(len(item) for item in shown if isinstance(item, bytes))


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


def _offsets(shown: list[Any], per_space: float, per_glyph: float) -> tuple[Any, Any]:
    """A `TJ` array showing `shown` (strings and offsets) with `per_space` after each space and
    `per_glyph` after each glyph, adjacent offsets summed (pypdf judges each number on its own: a
    gap that the array's own offset takes back is no gap); with `per_glyph`, the last glyph and
    what follows it in `shown` are given apart, as a `TJ` array to show with the spacing itself
    (None without `per_glyph`)."""
    from pypdf.generic import ArrayObject, ByteStringObject, FloatObject

    pieces: list[bytes | float] = []
    strings = [i for i, item in enumerate(shown) if isinstance(item, bytes) and item]
    last = strings[-1] if strings and per_glyph else None
    tail = None
    for position, item in enumerate(shown):
        if last is not None and position > last:
            break
        if not isinstance(item, bytes):
            pieces.append(_number(item, 0.0))
        elif not per_glyph:  # word spacing alone: a piece per space
            for word in _AFTER_SPACE.findall(item):
                pieces += [word, per_space if word.endswith(b" ") else 0.0]
        else:
            if position == last:
                item = item[:-1]
                tail = ArrayObject([ByteStringObject(shown[last][-1:]), *shown[last + 1 :]])
            for byte in item:
                pieces += [bytes((byte,)), (per_space if byte == _SPACE else 0.0) + per_glyph]
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
    return array, tail


def _number(value: Any, default: float) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return default
