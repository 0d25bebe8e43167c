"""Rich Text Format (.rtf): the body's paragraphs, decoded by striprtf.

A pass over the RTF's groups here leaves out what is not the body's running text, and striprtf
(`rtf_to_text`) decodes what is left: `\\'hh` bytes by the document's code page (`\\ansicpg`)
or their font's character set (a Mac code page, `\\ansicpg10000` or `\\mac`, by Python's
codec of that name), `\\u` characters, quotes and dashes. Raw 8-bit bytes are read
as `\\'hh` bytes are; a `\\u` character out of range is a replacement character. striprtf is
given a font table rebuilt from each font's number and character set (its scan of a font table
is slow on a long entry), and an escaped backslash (`\\\\`) as a mark, not as a backslash its
own scans for `\\pict` and `\\bin` would meet.

Left out: headers and footers, footnotes (their automatic marks are no text), comments, field
instructions (a field reads as its result: a link as its text), pictures, objects, shapes and
text boxes, index and contents entries, bookmarks, the information, font, colour, list and
style tables, a list item's number or bullet, tables (paragraphs marked as in a table, `\\intbl`),
paragraphs of a heading, title, subtitle, caption, contents, index, bibliography, header or
footer style (by the style sheet's names, a style's base style too), with an outline level (a
heading's) or centred in a title's font size (`TITLE_SIZE`), text a tracked change deleted and
hidden text (`\\v`). A paragraph's table, style, outline level and alignment last, as RTF's
paragraph properties do, until `\\pard` or the end of the group that set them. `\\par`, a
section break and a page break end a paragraph; a line break (`\\line`) or a tab inside one is a
space. A References or Bibliography section is no running text (`summarizer.text.apparatus`),
and paragraphs that are the lines of hard-wrapped text (a licence saved a line a paragraph) are
joined as plain text's lines are (`summarizer.text.layout.rejoined`).
"""

from __future__ import annotations

import codecs
import re

from summarizer.errors import UnreadableDocument, first_line
from summarizer.readers.base import Reader
from summarizer.readers.docx import apparatus_style
from summarizer.readers.package import OLE
from summarizer.text.apparatus import in_reference_sections
from summarizer.text.layout import rejoined

# Groups that are never the body's text, by the control word that opens them; so is a group
# opened by `\*` (a destination a reader may skip: footnotes, field instructions, bookmarks...),
# and the rest of a group after a `\*` that does not open it.
APART = frozenset(
    "header headerl headerr headerf footer footerl footerr footerf footnote annotation info stylesheet listtable "
    "listoverridetable listtext pntext pict shp shpgrp shppict nonshppict object fldinst xe tc tcn txe rxe do "
    "comment".split()
)
# Control words that write text, left out with the rest of a deleted run's text.
_WRITING = frozenset(
    "par sect page line tab emdash endash emspace enspace qmspace bullet lquote rquote ldblquote rdblquote u "
    "chftn".split()
)
# Marks this pass writes for striprtf to carry into the text (noncharacters: no document's text).
_BREAK = "\ufdd0"  # a line break inside a paragraph: a space
_TABLE = "\ufdd1"  # a paragraph in a table, or the end of a cell: the line is left out
_HEADING = "\ufdd2"  # a paragraph of a heading's (title's, caption's...) style: left out
_BACKSLASH = "\ufdd3"  # an escaped backslash (`\\`): a backslash
# Control words that end a line of striprtf's text (so do an escaped line feed and carriage return).
_LINE_ENDS = frozenset("par sect page row".split())
_TOKEN = re.compile(r"\\([a-zA-Z]{1,32})(-?\d{1,10})? ?|\\'[0-9a-fA-F]{2}|\\.?|[{}]|[^\\{}]+", re.S)
_EIGHT_BIT = re.compile(r"[\x80-\xff]")
_STYLE_SHEET = re.compile(r"\{\\stylesheet")
_BRACES = re.compile(r"\\[\\{}]|[{}]")
_STYLE = re.compile(r"^\{\\s(\d+)\b")
_BASED_ON = re.compile(r"\\sbasedon(\d+)")
_OUTLINE = re.compile(r"\\outlinelevel[0-8]\b")
_CONTROL = re.compile(r"\\'[0-9a-fA-F]{2}|\\[a-zA-Z]+-?\d* ?|\\.|\{[^{}]*\}")
_BULLET = re.compile(r"^\u2022\s+")
_LEVELS = frozenset("012345678")  # a heading's outline levels (9 is body text)
# A centred paragraph in a font of at least TITLE_SIZE half-points (16 pt; RTF's default is 12 pt)
# is a title, as a word processor without styles (TextEdit) sets one.
DEFAULT_SIZE = 24
TITLE_SIZE = 32
_OUTSIDE = (False, False, False, False, False, DEFAULT_SIZE)
# Mac code pages by the number `\ansicpg` gives them (striprtf asks for "cp" and the number).
MAC_CODE_PAGES = {
    "cp10000": "mac_roman",
    "cp10006": "mac_greek",
    "cp10007": "mac_cyrillic",
    "cp10029": "mac_latin2",
    "cp10079": "mac_iceland",
    "cp10081": "mac_turkish",
}
_MAC = re.compile(r"^\{\\rtf\d*\\mac\b")


def _mac_code_page(name: str) -> codecs.CodecInfo | None:
    return codecs.lookup(MAC_CODE_PAGES[name]) if name in MAC_CODE_PAGES else None


codecs.register(_mac_code_page)


def rtf_paragraphs(data: bytes) -> list[str]:
    """The text of each paragraph of an RTF document's body that is not a heading, a title, a
    caption or in a table, on one line (empty ones left out)."""
    from striprtf.striprtf import rtf_to_text

    if data.startswith(OLE):
        raise UnreadableDocument("an old binary Word document (.doc), not RTF: save it as .rtf or .docx first")
    rtf = data.lstrip(b"\xef\xbb\xbf \t\r\n").decode("latin-1")  # a byte a character, for `\bin` and `\'hh`
    if not rtf.startswith("{\\rtf"):
        raise UnreadableDocument("not an RTF document (it does not start with {\\rtf)")
    body = _EIGHT_BIT.sub(lambda match: f"\\'{ord(match[0]):02x}", _body(rtf, _not_running_styles(rtf)))
    try:
        text = rtf_to_text(body, "mac_roman" if _MAC.match(rtf) else "cp1252", errors="replace")
    except Exception as error:  # striprtf meets input it was not written for
        raise UnreadableDocument(f"not a readable RTF document: {first_line(error)}") from None
    text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")  # `\u` surrogate pairs
    blocks = []  # each line's text, whether it is a heading's, and whether it is running text
    for line in re.split(r"[\r\n]", text):
        heading = _HEADING in line
        kept = _TABLE not in line and not heading
        line = line.replace(_BREAK, " ").replace(_BACKSLASH, "\\").replace("\xad", "").replace("\u2011", "-")
        line = line.replace(_TABLE, "").replace(_HEADING, "")
        blocks.append((" ".join(_BULLET.sub("", line.strip()).split()), heading, kept))
    references = in_reference_sections([(line, 1 if heading else None) for line, heading, _ in blocks])
    # A line left out (empty, a heading's, a table's) ends one of the text's, for hard-wrapped lines.
    return rejoined([line if kept and not listed else "" for (line, _, kept), listed in zip(blocks, references)])


def _body(rtf: str, not_running: set[str]) -> str:
    """The RTF less the groups that are not the body's text (`APART`, `\\*`), binary data,
    deleted and hidden text; the font table rebuilt; line breaks, escaped backslashes and the
    lines of table and heading paragraphs marked."""
    out: list[str] = []
    # Whether the text here is deleted, hidden; and the paragraph in a table, a heading's, centred;
    # the font size in half-points.
    deleted = hidden = table = heading = centred = False
    size = DEFAULT_SIZE
    enclosing: list[tuple[bool, bool, bool, bool, bool, int]] = []  # the same in the enclosing groups
    skipping, whole = 0, False  # the depth of a group being left out (0: none); whether all of it
    fonts: dict[str, str] | None = None  # in the font table: its fonts' character sets, by number
    font = ""  # the number of the font table's entry being read
    opened = False  # the last token opened a group
    position = 0
    while position < len(rtf):
        match = _TOKEN.match(rtf, position)
        assert match is not None  # every character starts a token
        token, word, argument = match[0], match[1], match[2]
        position = match.end()
        if word == "bin":  # binary data (a picture's): any bytes, never text
            position += max(int(argument or 0), 0)
            if not skipping:
                out.append("{}")  # ends the control word before it, as the data did
            opened = False
            continue
        if token == "{":
            enclosing.append((deleted, hidden, table, heading, centred, size))
            if not skipping:
                out.append(token)
            opened = True
            continue
        # A `\*` not opening its group (none should) leaves out the rest of it, as striprtf would
        # (and striprtf's pattern for a link, `{\field{ \*\fldinst{...`, is slow to scan).
        if enclosing and not skipping and (token == "\\*" or (opened and (word in APART or word == "fonttbl"))):
            if opened:
                out.pop()  # the group's "{"
            skipping, whole = len(enclosing), opened
            fonts = {} if word == "fonttbl" else None
        opened = False
        if token == "}":
            if skipping and len(enclosing) == skipping:
                skipping = 0
                if not whole:  # the end of a group whose rest was left out
                    out.append(token)
                else:  # in its place, a group that ends the control word before it (as the group did)
                    out.append("{}" if fonts is None else _font_table(fonts))
                fonts = None
            elif not skipping:
                out.append(token)
            deleted, hidden, table, heading, centred, size = enclosing.pop() if enclosing else _OUTSIDE
            continue
        if skipping:
            if fonts is not None and argument and argument.isdigit():
                if word == "f":
                    font = argument
                elif word == "fcharset" and font:
                    fonts[font] = argument
            continue
        if word == "plain":
            deleted = hidden = False
            size = DEFAULT_SIZE
        elif word == "fs" and argument:
            size = int(argument)
        elif word in ("qc", "ql", "qr", "qj", "qd", "qn"):
            centred = word == "qc"
        elif word == "deleted":
            deleted = argument != "0"
        elif word == "v":
            hidden = argument != "0"
        elif word == "pard":
            table = heading = centred = False
        elif word == "intbl":
            table = True
        elif (word == "s" and argument in not_running) or (word == "outlinelevel" and argument in _LEVELS):
            heading = True
        elif (deleted or hidden) and (word is None or word in _WRITING):  # text, a byte, a symbol; \par, \tab...
            continue
        out.append(_marked(token, word, argument, table, heading or (centred and size >= TITLE_SIZE)))
    return "".join(out)


def _marked(token: str, word: str | None, argument: str | None, table: bool, heading: bool) -> str:
    """The token as striprtf is to read it; a line written in a table or a heading's paragraph
    marked at its end, and where the paragraph becomes one."""
    if token == "\\\\":
        return _BACKSLASH
    if word == "line":
        return _BREAK
    if word in ("cell", "nestcell"):
        return _TABLE
    if word == "u" and argument and not -0x10000 <= int(argument) < 0x110000:  # out of range
        return "\\u65533 "
    if word == "fonttbl":  # not opening a group: only the rebuilt table is one
        return "{}"
    if word in _LINE_ENDS or word in ("intbl", "s", "outlinelevel") or token in ("\\\n", "\\\r"):
        return (_TABLE if table else "") + (_HEADING if heading else "") + token
    return token


def _font_table(fonts: dict[str, str]) -> str:
    """A font table of each font's number and character set (what decides its code page), each
    entry as striprtf's pattern for one reads it at once."""
    return "{\\fonttbl" + "".join(f"{{\\f{number}\\fcharset{charset} x;}}" for number, charset in fonts.items()) + "}"


def _not_running_styles(rtf: str) -> set[str]:
    """The numbers of the style sheet's paragraph styles that are not running text: by their
    names (or a base style's), or with an outline level."""
    sheet = _STYLE_SHEET.search(rtf)
    if not sheet:
        return set()
    entries: list[str] = []
    depth, start = 0, sheet.start()
    for brace in _BRACES.finditer(rtf, sheet.start()):
        if brace[0] == "{":
            depth += 1
            start = brace.start() if depth == 2 else start
        elif brace[0] == "}":
            depth -= 1
            if depth == 1:
                entries.append(rtf[start : brace.end()])
            elif depth == 0:
                break
    styles: dict[str, tuple[str | None, bool]] = {}  # number -> (its base style's, not running by itself)
    for entry in entries:
        style = _STYLE.match(entry)
        if style:
            base = _BASED_ON.search(entry)
            name = _CONTROL.sub("", entry[1:-1]).split(";")[0].strip().lower()
            heading = apparatus_style(name) or bool(_OUTLINE.search(entry))
            styles[style[1]] = (base[1] if base else None, heading)
    found = set()
    for number in styles:
        seen: set[str] = set()
        current: str | None = number
        while current in styles and current not in seen:
            seen.add(current)
            current, heading = styles[current]
            if heading:
                found.add(number)
                break
    return found


READER = Reader(
    "rtf",
    "an RTF document",
    (".rtf",),
    rtf_paragraphs,
    binary=True,
    running_text=True,
    needs={"striprtf.striprtf": "striprtf"},
    extra="formats",
)
