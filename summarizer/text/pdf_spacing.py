"""A PDF page's word and character spacing made explicit, so that pypdf's text extraction sees
the gaps between words.

pypdf decides where a space goes from how far the pen moved against the width of the text
shown. It leaves word spacing (`Tw`, the extra width of each space in justified text) out of
that width, so a line of groff's, mom's or a word processor's output broken at a kerned pair
reads "ha ve been lobbying the US go vernment"; and it takes character spacing (`Tc`) as part of
the glyphs, so Ghostscript's output, which sets the gap between two words as character spacing
after the first word's last glyph, reads "particular,manyvariations". Both are text state that
moves the pen by a fixed amount after a glyph, as a number in a `TJ` array does, which pypdf
does measure. So on a page that sets either, every string shown in a simple (single-byte) font
becomes a `TJ` array with that amount after each space (`Tw`) and between glyphs (`Tc`), shown
with `Tw` and `Tc` at 0 (and set back after it): the page looks the same and reads as it looks.
The amount after the last glyph is left out (`Tc` only): a text positioning operator places
what follows, and pypdf would take that amount for a word gap. Pages that set neither are left
as they are, and so is a page this cannot read (pypdf then reports what it cannot read). Only
the page's own content is rewritten (not form XObjects), in memory, never the file.
"""

from __future__ import annotations

import re
from typing import Any

_SPACE = 32
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
        operations, changed = _explicit(content.operations, _composite_fonts(page))
    except Exception:  # a damaged page: pypdf reads it as it is, and reports what it cannot read
        return
    if changed:
        content.operations = operations
        page[NameObject("/Contents")] = content  # pypdf's extraction reads this object as it is


def _composite_fonts(page: Any) -> set[str]:
    """The names of the page's fonts that are composite (Type0: codes of several bytes, where a
    byte is not a glyph)."""
    try:
        fonts = page["/Resources"]["/Font"].get_object()
        return {name for name, font in fonts.items() if font.get_object().get("/Subtype") == "/Type0"}
    except Exception:  # no fonts, or a damaged dictionary: treat every font as simple
        return set()


def _explicit(operations: list[tuple[list[Any], bytes]], composite: set[str]) -> tuple[list[Any], bool]:
    """`operations` with each string that a simple font shows under word or character spacing
    shown by a `TJ` array with that spacing as offsets, `Tw` and `Tc` at 0 around it (and as they
    were after it), and whether anything changed."""
    from pypdf.generic import FloatObject, NumberObject

    word, character, size, simple = 0.0, 0.0, 1.0, True
    saved: list[tuple[float, float, float, bool]] = []  # q and Q save and restore the text state
    result: list[tuple[list[Any], bytes]] = []
    changed = False
    for operands, operator in operations:
        if operator == b"q":
            saved.append((word, character, size, simple))
        elif operator == b"Q" and saved:
            word, character, size, simple = saved.pop()
        elif operator == b"Tf" and len(operands) >= 2:
            simple = str(operands[0]) not in composite
            size = _number(operands[1], size) or 1.0
        elif operator == b"Tw" and operands:
            word = _number(operands[0], word)
        elif operator == b"Tc" and operands:
            character = _number(operands[0], character)
        elif operator == b'"' and len(operands) >= 3:  # set both, go to the next line, show
            word, character = _number(operands[0], word), _number(operands[1], character)
            result += [([operands[0]], b"Tw"), ([operands[1]], b"Tc")]
            operands, operator = [operands[2]], b"'"
        if operator in _SHOW and operands and simple and (word or character):
            if operator == b"'":
                result.append(([], b"T*"))
            shown = operands[0] if operator == b"TJ" else [operands[0]]
            if not isinstance(shown, list):
                result.append((operands, operator))  # a damaged operand: left to pypdf
                continue
            array = _offsets(shown, -1000 * word / size, -1000 * character / size)
            result += [([NumberObject(0)], b"Tw"), ([NumberObject(0)], b"Tc"), ([array], b"TJ")]
            result += [([FloatObject(word)], b"Tw"), ([FloatObject(character)], b"Tc")]
            changed = True
            continue
        result.append((operands, operator))
    return result, changed


def _offsets(shown: list[Any], per_space: float, per_glyph: float) -> Any:
    """A `TJ` array showing `shown` (strings and offsets) with `per_space` after each space and
    `per_glyph` after each glyph but the last, adjacent offsets summed (pypdf judges each number
    on its own: a gap that the array's own offset takes back is no gap)."""
    from pypdf.generic import ArrayObject, ByteStringObject, FloatObject

    items: list[bytes | float] = []
    last = max((i for i, item in enumerate(shown) if isinstance(item, bytes) and item), default=-1)
    for position, item in enumerate(shown):
        if not isinstance(item, bytes):
            items.append(_number(item, 0.0))
        elif not per_glyph:  # word spacing alone: a piece per space
            for word in _AFTER_SPACE.findall(item):
                items += [word, per_space if word.endswith(b" ") else 0.0]
        else:
            for i, byte in enumerate(item):
                final = position == last and i == len(item) - 1
                items += [bytes((byte,)), (per_space if byte == _SPACE else 0.0) + (0.0 if final else per_glyph)]
    array = ArrayObject()
    for item in items:
        previous = array[-1] if array else None
        if isinstance(item, bytes):
            if isinstance(previous, ByteStringObject):
                array[-1] = ByteStringObject(previous + item)
            else:
                array.append(ByteStringObject(item))
        elif isinstance(previous, FloatObject):
            array[-1] = FloatObject(float(previous) + item)
        elif item:
            array.append(FloatObject(item))
    return array


def _number(value: Any, default: float) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return default
