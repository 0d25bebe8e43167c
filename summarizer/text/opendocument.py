"""OpenDocument text (.odt, and the flat .fodt): the body's paragraphs, read from content.xml.

The paragraphs (`text:p`) of the body, of its sections and of its lists, in document order.
Headings (`text:h`) are not running text, nor a paragraph whose style, or a style it inherits
from (`styles.xml` and the document's automatic styles), is a heading, title, subtitle,
caption, contents, index, bibliography, header or footer style, has an outline level or has a
name that ends in "caption". Tables, frames and text boxes, tables of contents and indexes are
not the body's paragraphs; footnotes and endnotes (their mark and their text) and comments are
left out of the paragraph they are in, and so is hidden text (a hidden-text field, a span in a
style that hides its text; a paragraph a hidden-paragraph field or its style hides goes whole).
Text a tracked change deleted is kept apart from the body (`text:tracked-changes`) and left
out; inserted text is read. Spaces (`text:s`), tabs and
line breaks inside a paragraph are a space; soft hyphens go.
"""

from __future__ import annotations

import re
from typing import Any

from summarizer.errors import UnreadableDocument
from summarizer.text.package import MAX_TEXT_BYTES, article, open_package, parse_xml, require_lxml
from summarizer.text.word import apparatus_style

KIND = "OpenDocument text document"
_OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
_TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
_STYLE = "{urn:oasis:names:tc:opendocument:xmlns:style:1.0}"
_DRAW = "{urn:oasis:names:tc:opendocument:xmlns:drawing:1.0}"
_MANIFEST = "{urn:oasis:names:tc:opendocument:xmlns:manifest:1.0}"
# Blocks whose paragraphs are the body's (tables, indexes, frames and the rest are not).
_BLOCKS = {f"{_TEXT}{name}" for name in ("section", "list", "list-item", "list-header", "numbered-paragraph")}
_SPACES = {f"{_TEXT}s", f"{_TEXT}tab", f"{_TEXT}line-break"}
# Inside a paragraph: a note's mark and text, a comment, a ruby's annotation, hidden text (drawings are
# `_DRAW` elements: frames, text boxes, shapes).
_APART = {f"{_TEXT}note", f"{_OFFICE}annotation", f"{_TEXT}ruby-text", f"{_TEXT}hidden-text"}
_ENCODED = re.compile(r"_([0-9a-fA-F]{2})_")  # a style name's character ("_20_" is a space)


def odt_paragraphs(data: bytes) -> list[str]:
    """The text of each paragraph of an OpenDocument text's body that is not a heading, a title,
    a caption or a contents or index entry, on one line (empty ones left out)."""
    if data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith((b"<?xml", b"<office:document")):
        content = _flat(data)
        styles, hidden = _styles(content), _hidden_styles(content)
    else:
        package = open_package(
            data, KIND, "content.xml", "an old binary document (such as Word's .doc), not .odt: save it as .odt first"
        )
        with package.archive:
            if _encrypted(package):
                raise UnreadableDocument(f"an encrypted (password-protected) {KIND}: remove its password first")
            shared = package.xml("styles.xml") if "styles.xml" in package else None
            content = package.xml("content.xml")
            styles = {**(_styles(shared) if shared is not None else {}), **_styles(content)}
            hidden = (_hidden_styles(shared) if shared is not None else set()) | _hidden_styles(content)
    body = content.find(f"{_OFFICE}body")
    text = body.find(f"{_OFFICE}text") if body is not None else None
    if text is None:
        held = [child for child in body if isinstance(child.tag, str)] if body is not None else []
        what = f"its body is a {_local(held[0].tag)}" if held else "it has no text body"
        raise UnreadableDocument(f"not {article(KIND)} ({what})")
    result = []
    for paragraph in _paragraphs(text):
        style = paragraph.get(f"{_TEXT}style-name")
        if _not_running(style, styles) or style in hidden or _hides_itself(paragraph):
            continue
        parts: list[str] = []
        _inline(paragraph, parts, hidden)
        line = " ".join("".join(parts).replace("\xad", "").split())
        if line:
            result.append(line)
    return result


def _flat(data: bytes) -> Any:
    """A flat OpenDocument file's root (`office:document`)."""
    require_lxml(KIND)
    if len(data) > MAX_TEXT_BYTES:
        raise UnreadableDocument(f"more than {MAX_TEXT_BYTES / 1e6:g} MB of text")
    root = parse_xml(data, f"flat {KIND}")
    if root.tag != f"{_OFFICE}document":
        raise UnreadableDocument(f"not {article(KIND)} (an XML file, but no flat OpenDocument one)")
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
    for group in (f"{_OFFICE}styles", f"{_OFFICE}automatic-styles"):
        for container in root.iterchildren(group):
            for style in container.iterchildren(f"{_STYLE}style"):
                name = style.get(f"{_STYLE}name")
                if name and style.get(f"{_STYLE}family") == "paragraph":
                    shown = style.get(f"{_STYLE}display-name") or _decoded(name)
                    outline = (style.get(f"{_STYLE}default-outline-level") or "0") != "0"
                    styles[name] = (shown, style.get(f"{_STYLE}parent-style-name"), outline)
    return styles


def _hidden_styles(root: Any) -> set[str]:
    """The styles (of text or of paragraphs) of a part that hide their text (`text:display="none"`)."""
    return {
        style.get(f"{_STYLE}name")
        for group in (f"{_OFFICE}styles", f"{_OFFICE}automatic-styles")
        for container in root.iterchildren(group)
        for style in container.iterchildren(f"{_STYLE}style")
        for properties in style.iterchildren(f"{_STYLE}text-properties")
        if properties.get(f"{_TEXT}display") == "none"
    }


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


def _paragraphs(element: Any) -> list[Any]:
    """The `text:p` elements of the body, of its sections and of its lists, in document order."""
    found = []
    for child in element:
        if child.tag == f"{_TEXT}p":
            found.append(child)
        elif child.tag in _BLOCKS:
            found.extend(_paragraphs(child))
    return found


def _inline(element: Any, parts: list[str], hidden: set[str]) -> None:
    """The text of a paragraph's content, added to `parts`; notes, comments, drawings and hidden
    text out."""
    parts.append(element.text or "")
    for child in element:
        tag = child.tag
        if tag in _SPACES:
            parts.append(" ")  # `text:s` of any count: runs of spaces are one space in the end
        elif (
            isinstance(tag, str)
            and tag not in _APART
            and not tag.startswith(_DRAW)
            and child.get(f"{_TEXT}style-name") not in hidden
        ):
            _inline(child, parts, hidden)
        parts.append(child.tail or "")


def _decoded(name: str) -> str:
    """A style's name as shown: "Heading_20_1" is "Heading 1"."""
    return _ENCODED.sub(lambda match: chr(int(match[1], 16)), name)


def _local(tag: str) -> str:
    return tag.rpartition("}")[2]
