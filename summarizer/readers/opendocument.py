"""OpenDocument text (.odt, and the flat .fodt) and presentations (.odp, .fodp), read from
content.xml: the reading both formats share (their records are in `odt` and `odp`).

A text: the paragraphs (`text:p`) of the body, of its sections and of its lists, in document
order. Headings (`text:h`) are not running text, nor a paragraph whose style, or a style it
inherits from (`styles.xml` and the document's automatic styles), is a heading, title, subtitle,
caption, contents, index, bibliography, header or footer style, has an outline level or has a
name that ends in "caption". Tables, frames and text boxes, tables of contents and indexes are
not the body's paragraphs; footnotes and endnotes (their mark and their text) and comments are
left out of the paragraph they are in, and so is hidden text (a hidden-text field, a span in a
style that hides its text; a paragraph a hidden-paragraph field or its style hides goes whole).
Text a tracked change deleted is kept apart from the body (`text:tracked-changes`) and left
out; inserted text is read. Spaces (`text:s`), tabs and
line breaks inside a paragraph are a space; soft hyphens go; a formula (a MathML object, in the
package or in a flat file's frame) reads as its text (`summarizer.text.formulas`). A References
or Bibliography section is no running text (`summarizer.text.apparatus`), and paragraphs that
are the lines of hard-wrapped text are joined as plain text's lines are
(`summarizer.text.layout.rejoined`). A paragraph of a list's item is a list's entry
(`summarizer.readers.base.Entry`).

A presentation, as a PowerPoint one is read (`summarizer.readers.pptx`): each shown slide's text
(its text boxes, outlines and shapes, in groups too, in the order the slide lists them; never its
title or subtitle, tables, charts, pictures, page number, date, header or footer, nor a hidden
shape), then its speaker notes; a raised note mark ("1", "*") is no text, nor a slide of the
notes such marks refer to; a slide's bullet fragments give way to the deck's sentences
(`summarizer.readers.pptx.talk_text`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from summarizer.errors import UnreadableDocument
from summarizer.readers.base import word_processor_paragraphs
from summarizer.readers.docx import apparatus_style
from summarizer.readers.package import MAX_TEXT_BYTES, Package, article, open_package, parse_xml
from summarizer.readers.pptx import NOTE_MARK, note_marks, without_note_lists
from summarizer.text.apparatus import in_reference_sections
from summarizer.text.formulas import mathml_text

KIND = "OpenDocument text document"
PRESENTATION = "OpenDocument presentation"
_OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
_TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
_STYLE = "{urn:oasis:names:tc:opendocument:xmlns:style:1.0}"
_DRAW = "{urn:oasis:names:tc:opendocument:xmlns:drawing:1.0}"
_FO = "{urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0}"
_MANIFEST = "{urn:oasis:names:tc:opendocument:xmlns:manifest:1.0}"
_SHOW = "{urn:oasis:names:tc:opendocument:xmlns:presentation:1.0}"
_MATH = "{http://www.w3.org/1998/Math/MathML}math"
_HREF = "{http://www.w3.org/1999/xlink}href"
_AUTOMATIC = (f"{_OFFICE}automatic-styles",)  # a part's style groups: its automatic styles,
_ALL_STYLES = (f"{_OFFICE}styles", *_AUTOMATIC)  # and its common ones too
# Blocks whose paragraphs are the body's (tables, indexes, frames and the rest are not).
_BLOCKS = {f"{_TEXT}{name}" for name in ("section", "list", "list-item", "list-header", "numbered-paragraph")}
_SPACES = {f"{_TEXT}s", f"{_TEXT}tab", f"{_TEXT}line-break"}
# Inside a paragraph: a note's mark and text, a comment, a ruby's annotation, hidden text (drawings are
# `_DRAW` elements: frames, text boxes, shapes).
_APART = {f"{_TEXT}note", f"{_OFFICE}annotation", f"{_TEXT}ruby-text", f"{_TEXT}hidden-text"}
_ENCODED = re.compile(r"_([0-9a-fA-F]{2})_")  # a style name's character ("_20_" is a space)
_BOLD = {"bold", "600", "700", "800", "900"}  # `fo:font-weight`s that set text in bold
_RUN_IN_TERM_WORDS = 6  # at most, in a list item's bold term run into its sentence (`_run_in_term`)
# A presentation's frames that are not running text (by `presentation:class`): titles, what the
# master repeats on every slide, and what holds no text of its own (a notes page's slide image).
_NOT_RUNNING_FRAMES = {"title", "subtitle", "page-number", "date-time", "footer", "header", "page", "notes"}
# A slide's shapes that may hold paragraphs of their own (frames hold theirs in a text box).
_SHAPES = {
    f"{_DRAW}{name}" for name in ("custom-shape", "rect", "ellipse", "circle", "polygon", "regular-polygon", "path")
}


def odt_paragraphs(data: bytes) -> list[str]:
    """The text of each paragraph of an OpenDocument text's body that is not a heading, a title,
    a caption or a contents or index entry, on one line (empty ones left out)."""
    content, styles, hidden = _content(
        data, KIND, "an old binary document (such as Word's .doc), not .odt: save it as .odt first"
    )
    blocks: list[tuple[str, int | None, bool]] = []  # text, rank as a heading, whether running text
    entries: list[bool] = []  # whether each is a list's entry
    bold = _bold_styles(content)
    for paragraph in _paragraphs(_body(content, "text", KIND), headings=True):
        if _hides_itself(paragraph) or paragraph.get(f"{_TEXT}style-name") in hidden:
            continue
        text = _line(paragraph, hidden)
        entry = paragraph.getparent().tag == f"{_TEXT}list-item"
        if entry and paragraph.tag == f"{_TEXT}p" and (term := _run_in_term(paragraph, bold)) and text.startswith(term):
            text = f"{term}. {text[len(term) :].lstrip()}"
        if paragraph.tag == f"{_TEXT}h":
            blocks.append(
                (text, int(level) if (level := paragraph.get(f"{_TEXT}outline-level", "1")).isdigit() else 1, False)
            )
        else:
            blocks.append((text, None, not _not_running(paragraph.get(f"{_TEXT}style-name"), styles)))
        entries.append(entry)
    references = in_reference_sections([(text, rank) for text, rank, _ in blocks])
    # A paragraph left out ends one of the text's, for a hard-wrapped document's lines.
    lines = [text if kept and not listed else "" for (text, _, kept), listed in zip(blocks, references)]
    return word_processor_paragraphs(lines, entries)


def odp_paragraphs(data: bytes) -> list[str]:
    """The text of each paragraph of an OpenDocument presentation's shown slides that is not a
    title, a table or a footer, each slide's followed by its notes', on one line (empty ones
    left out)."""
    content, _, hidden = _content(
        data, PRESENTATION, "an old binary presentation (such as PowerPoint's .ppt), not .odp: save it as .odp first"
    )
    presentation = _body(content, "presentation", PRESENTATION)
    shown_nowhere = _hidden_pages(content)
    raised = _raised_styles(content)
    shown: list[tuple[list[str], list[str]]] = []  # each slide's paragraphs, and its notes'
    marks: set[str] = set()
    for page in presentation.iterchildren(f"{_DRAW}page"):
        if page.get(f"{_DRAW}style-name") in shown_nowhere:
            continue
        text: list[str] = []
        for paragraph in _slide_paragraphs(page):
            _add_line(paragraph, text, hidden, raised, marks)
        speaker: list[str] = []
        for notes in page.iterchildren(f"{_SHOW}notes"):
            for frame in notes.iterchildren(f"{_DRAW}frame"):
                if frame.get(f"{_SHOW}class") == "notes":
                    for paragraph in _frame_paragraphs(frame):
                        _add_line(paragraph, speaker, hidden, raised, marks)
        shown.append((text, speaker))
    return without_note_lists(shown, marks)


def _content(data: bytes, kind: str, old_binary: str) -> tuple[Any, dict[str, tuple[str, str | None, bool]], set[str]]:
    """A document's content (`office:document-content`, or a flat file's `office:document`), its
    paragraph styles and the styles that hide their text."""
    # a file given open is a package's (`summarizer.readers.package.packaged_file`)
    if isinstance(data, bytes) and data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith((b"<?xml", b"<office:document")):
        content = _flat(data, kind)
        _formulas_as_text(content, None)
        return content, _styles(content), _hidden_styles(content)
    package = open_package(data, kind, "content.xml", old_binary)
    if _encrypted(package):
        raise UnreadableDocument(f"an encrypted (password-protected) {kind}: remove its password first")
    shared = package.xml("styles.xml") if "styles.xml" in package else None
    content = package.xml("content.xml")
    _formulas_as_text(content, package)
    styles = {**(_styles(shared) if shared is not None else {}), **_styles(content)}
    hidden = (_hidden_styles(shared) if shared is not None else set()) | _hidden_styles(content)
    return content, styles, hidden


def _formulas_as_text(content: Any, package: Package | None) -> None:
    """Each formula's frame in `content` made a span of its text: a formula object (MathML,
    in the flat file's frame or in the package's part the frame names) reads as its text."""
    for frame in list(content.iter(f"{_DRAW}frame")):
        math = None
        for embedded in frame.iterchildren(f"{_DRAW}object"):
            math = embedded.find(_MATH)
            target = (embedded.get(_HREF) or "").removeprefix("./").strip("/")
            part = f"{target}/content.xml"
            if math is None and package is not None and target and part in package:
                root = package.xml(part)
                math = root if root.tag == _MATH else root.find(f".//{_MATH}")
            if math is not None:
                break
        if math is not None and frame.getparent() is not None:
            span = frame.makeelement(f"{_TEXT}span", {})
            span.text, span.tail = mathml_text(math), frame.tail
            frame.getparent().replace(frame, span)


def _body(content: Any, kind_of_body: str, kind: str) -> Any:
    """The content's body of this kind (`office:text`, `office:presentation`), else one line
    that says what the body holds."""
    body = content.find(f"{_OFFICE}body")
    found = body.find(f"{_OFFICE}{kind_of_body}") if body is not None else None
    if found is None:
        held = [child for child in body if isinstance(child.tag, str)] if body is not None else []
        what = f"its body is a {_local(held[0].tag)}" if held else f"it has no {kind_of_body} body"
        raise UnreadableDocument(f"not {article(kind)} ({what})")
    return found


def _add_line(
    paragraph: Any,
    lines: list[str],
    hidden: set[str],
    raised: frozenset[str] = frozenset(),
    marks: set[str] | None = None,
) -> None:
    """A paragraph's text on one line, added to `lines` unless empty or hidden (its style hides
    it); the note marks in `raised` styles left out, and added to `marks`."""
    if paragraph.get(f"{_TEXT}style-name") in hidden:
        return
    line = _line(paragraph, hidden, raised, marks)
    if line:
        lines.append(line)


def _line(paragraph: Any, hidden: set[str], raised: frozenset[str] = frozenset(), marks: set[str] | None = None) -> str:
    """A paragraph's text on one line (`_inline`)."""
    parts: list[str] = []
    _inline(paragraph, parts, hidden, raised, marks)
    return " ".join("".join(parts).replace("\xad", "").split())


def _hidden_pages(content: Any) -> set[str]:
    """The drawing-page styles of hidden slides (`presentation:visibility="hidden"`)."""
    return {
        name
        for name, properties in _style_properties(content, "drawing-page-properties", _AUTOMATIC)
        if properties.get(f"{_SHOW}visibility") == "hidden"
    }


def _raised_styles(content: Any) -> frozenset[str]:
    """The automatic text styles that raise their text (superscript), where a note's mark is."""
    return frozenset(
        name
        for name, properties in _style_properties(content, "text-properties", _AUTOMATIC)
        if (position := (properties.get(f"{_STYLE}text-position") or "0").split()[0]) == "super"
        or (position.endswith("%") and _positive(position[:-1]))
    )


def _bold_styles(content: Any) -> frozenset[str]:
    """The automatic text styles that set their text in bold."""
    return frozenset(
        name
        for name, properties in _style_properties(content, "text-properties", _AUTOMATIC)
        if properties.get(f"{_FO}font-weight") in _BOLD
    )


def _run_in_term(paragraph: Any, bold: frozenset[str]) -> str | None:
    """The term in bold a paragraph begins with, run into the sentence that follows it with no
    mark between them ("Very Fast This algorithm produces ...", a list of options), or None: at
    most `_RUN_IN_TERM_WORDS` words, then a space and a capital."""
    if (paragraph.text or "").strip() or len(paragraph) == 0:
        return None
    first = paragraph[0]
    if first.tag != f"{_TEXT}span" or first.get(f"{_TEXT}style-name") not in bold:
        return None
    raw, after = "".join(first.itertext()), first.tail or ""
    term = " ".join(raw.split())
    if not term or len(term.split()) > _RUN_IN_TERM_WORDS or not term[-1].isalnum():
        return None
    ends_apart = len(first) > 0 and first[-1].tag in _SPACES and not (first[-1].tail or "").strip()
    if not (raw[-1:].isspace() or ends_apart or after[:1].isspace()):
        return None  # "**Bold**face": one word
    return term if after.lstrip()[:1].isupper() else None


def _positive(number: str) -> bool:
    try:
        return float(number) > 0
    except ValueError:
        return False


def _slide_paragraphs(group: Any) -> list[Any]:
    """The paragraphs of a slide's (or a group's) frames and shapes, in the order it lists them;
    not its titles, footers, tables, charts or hidden shapes, nor its notes page."""
    found = []
    for child in group:
        if child.get(f"{_DRAW}display") == "none":
            continue
        if child.tag == f"{_DRAW}frame" and child.get(f"{_SHOW}class") not in _NOT_RUNNING_FRAMES:
            found.extend(_frame_paragraphs(child))
        elif child.tag in _SHAPES:
            found.extend(_paragraphs(child))
        elif child.tag == f"{_DRAW}g":
            found.extend(_slide_paragraphs(child))
    return found


def _frame_paragraphs(frame: Any) -> list[Any]:
    """The paragraphs of a frame's text box (a frame of a table, a chart or a picture has none)."""
    return [paragraph for box in frame.iterchildren(f"{_DRAW}text-box") for paragraph in _paragraphs(box)]


def _flat(data: bytes, kind: str) -> Any:
    """A flat OpenDocument file's root (`office:document`)."""
    if len(data) > MAX_TEXT_BYTES:
        raise UnreadableDocument(f"more than {MAX_TEXT_BYTES / 1e6:g} MB of text")
    root = parse_xml(data, f"flat {kind}")
    if root.tag != f"{_OFFICE}document":
        raise UnreadableDocument(f"not {article(kind)} (an XML file, but no flat OpenDocument one)")
    return root


def _encrypted(package: Any) -> bool:
    """Whether the manifest says content.xml is encrypted (a document saved with a password)."""
    if "META-INF/manifest.xml" not in package:
        return False
    manifest = package.xml("META-INF/manifest.xml")
    return any(
        entry.find(f"{_MANIFEST}encryption-data") is not None
        for entry in manifest.iter(f"{_MANIFEST}file-entry")
        if entry.get(f"{_MANIFEST}full-path") == "content.xml"
    )


def _styles(root: Any) -> dict[str, tuple[str, str | None, bool]]:
    """Paragraph styles of a part's `office:styles` and `office:automatic-styles` (not its
    master pages'): name -> (the name as shown, the parent's name, whether it is a heading's)."""
    styles = {}
    for style in _style_elements(root):
        name = style.get(f"{_STYLE}name")
        if name and style.get(f"{_STYLE}family") == "paragraph":
            shown = style.get(f"{_STYLE}display-name") or _decoded(name)
            outline = (style.get(f"{_STYLE}default-outline-level") or "0") != "0"
            styles[name] = (shown, style.get(f"{_STYLE}parent-style-name"), outline)
    return styles


def _hidden_styles(root: Any) -> set[str]:
    """The styles (of text or of paragraphs) of a part that hide their text (`text:display="none"`)."""
    return {
        name
        for name, properties in _style_properties(root, "text-properties")
        if properties.get(f"{_TEXT}display") == "none"
    }


def _style_elements(root: Any, groups: tuple[str, ...] = _ALL_STYLES) -> Iterator[Any]:
    """The styles (`style:style`) of a part's style groups: its common and automatic ones."""
    for group in groups:
        for container in root.iterchildren(group):
            yield from container.iterchildren(f"{_STYLE}style")


def _style_properties(root: Any, kind: str, groups: tuple[str, ...] = _ALL_STYLES) -> Iterator[tuple[str, Any]]:
    """Each style of `groups` with its properties of `kind` ("text-properties"...): (name, element)."""
    for style in _style_elements(root, groups):
        for properties in style.iterchildren(f"{_STYLE}{kind}"):
            yield style.get(f"{_STYLE}name"), properties


def _hides_itself(paragraph: Any) -> bool:
    """Whether a hidden-paragraph field hides this paragraph."""
    return any(field.get(f"{_TEXT}is-hidden") == "true" for field in paragraph.iter(f"{_TEXT}hidden-paragraph"))


def _not_running(name: str | None, styles: dict[str, tuple[str, str | None, bool]]) -> bool:
    """Whether a paragraph of style `name` is a heading, a title, a caption... by its style or
    one it inherits from."""
    seen = set()
    while name and name not in seen:
        seen.add(name)
        shown, parent, outline = styles.get(name, (_decoded(name), None, False))  # a style it does not define
        if outline or apparatus_style(shown):
            return True
        name = parent
    return False


def _paragraphs(element: Any, headings: bool = False) -> list[Any]:
    """The `text:p` elements of the body, of its sections and of its lists, in document order;
    with `headings`, its `text:h` elements too."""
    found = []
    for child in element:
        if child.tag == f"{_TEXT}p" or (headings and child.tag == f"{_TEXT}h"):
            found.append(child)
        elif child.tag in _BLOCKS:
            found.extend(_paragraphs(child, headings))
    return found


def _inline(
    element: Any,
    parts: list[str],
    hidden: set[str],
    raised: frozenset[str] = frozenset(),
    marks: set[str] | None = None,
) -> None:
    """The text of a paragraph's content, added to `parts`; notes, comments, drawings and hidden
    text out, and a note's mark (a span of one of the `raised` styles that holds only a mark),
    which is added to `marks`."""
    parts.append(element.text or "")
    for child in element:
        tag = child.tag
        style = child.get(f"{_TEXT}style-name")
        if tag in _SPACES:
            parts.append(" ")  # `text:s` of any count: runs of spaces are one space in the end
        elif style in raised and NOTE_MARK.fullmatch(mark := _short_text(child)):
            if marks is not None:
                marks.update(note_marks(mark))
        elif isinstance(tag, str) and tag not in _APART and not tag.startswith(_DRAW) and style not in hidden:
            _inline(child, parts, hidden, raised, marks)
        parts.append(child.tail or "")


def _short_text(element: Any, most: int = 12) -> str:
    """An element's text, stripped, when it is at most `most` characters long, else "" (read
    no further than that, so that nested spans cost no more than their depth)."""
    text = ""
    for piece in element.itertext():
        text += piece
        if len(text.strip()) > most:
            return ""
    return text.strip()


def _decoded(name: str) -> str:
    """A style's name as shown: "Heading_20_1" is "Heading 1"."""
    return _ENCODED.sub(lambda match: chr(int(match[1], 16)), name)


def _local(tag: str) -> str:
    return tag.rpartition("}")[2]
