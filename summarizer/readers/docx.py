"""Word documents (.docx, Office Open XML): the body's paragraphs, read with python-docx's XML
classes from the two parts they need (`word/document.xml` and `word/styles.xml`, unpacked by
`summarizer.readers.package`); no other part is unpacked or parsed.

Headings, the title, captions and tables of contents are not running text (a paragraph style
names them); tables, text boxes, headers, footers, comments and footnotes are not in the body's
paragraphs (a text box anchored in one is left out of it). Text a tracked change deleted is
left out, text it inserted is read, and so is hidden text (a run whose formatting, character
style or paragraph style hides it, as Word does not print it); a line break inside a paragraph is
a space.
"""

from __future__ import annotations

from typing import Any

from summarizer.errors import UnreadableDocument, first_line
from summarizer.readers.base import Reader
from summarizer.readers.package import open_package

BODY = "word/document.xml"
STYLES = "word/styles.xml"
# Paragraph styles (their names, as word processors show them: Word, LibreOffice) that are not
# running text, here and in OpenDocument and RTF documents; so is a name that ends in "caption"
# ("Table Caption", pandoc's "TableCaption").
NOT_RUNNING = (
    "heading", "title", "subtitle", "caption", "contents", "toc", "table of figures", "index", "bibliography",
    "header", "footer",
)  # fmt: skip
_FALLBACK = "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback"


def docx_paragraphs(data: bytes) -> list[str]:
    """The text of each paragraph of a .docx document's body that is not a heading, a title, a
    caption or a table of contents entry, on one line (empty ones left out)."""
    from docx.oxml.ns import qn

    old_binary = "an old binary Word document (.doc), not .docx: save it as .docx first"
    package = open_package(data, "Word .docx document", BODY, old_binary)
    body_xml, styles_xml = package.read(BODY), package.read(STYLES) if STYLES in package else None
    try:
        from docx.oxml.parser import parse_xml
        from docx.styles.styles import Styles

        body = parse_xml(body_xml).find(qn("w:body"))
        if body is None:
            raise ValueError(f"no body in {BODY}")
        apart, hiding = _style_traits(Styles(parse_xml(styles_xml)) if styles_xml else [])
        paragraphs = [child for child in body.iterchildren(qn("w:p"), qn("w:sdt")) for child in _paragraphs(child, qn)]
        result = []
        for paragraph in paragraphs:
            style = _style_id(paragraph, qn)
            if style in apart:
                continue
            text = " ".join(_text(paragraph, qn, hiding, hiding.get(style or "", False)).split())
            if text:
                result.append(text)
        return result
    except Exception as error:  # python-docx and lxml raise many types on damaged parts
        raise UnreadableDocument(f"not a readable Word document: {first_line(error)}") from None


def _paragraphs(element: Any, qn: Any) -> list[Any]:
    """A body paragraph, or the paragraphs a content control (`w:sdt`) holds, itself or in
    content controls inside it (not in its tables)."""
    if element.tag == qn("w:p"):
        return [element]
    content = element.find(qn("w:sdtContent"))
    children = content.iterchildren(qn("w:p"), qn("w:sdt")) if content is not None else ()
    return [paragraph for child in children for paragraph in _paragraphs(child, qn)]


def apparatus_style(name: str) -> bool:
    """Whether a paragraph style of this name (as shown) sets no running text: a heading, a
    title, a caption, a contents or index entry..."""
    name = name.lower()
    return name.startswith(NOT_RUNNING) or name.endswith("caption")


def _style_traits(styles: Any) -> tuple[set[str], dict[str, bool]]:
    """The styles that are an `apparatus_style`, and whether each style that says hides its text
    (`w:vanish`): by itself or by the styles it is based on, the nearest that says. Each style's
    own settings are read once, and each chain of base styles is walked once."""
    own = {
        style.style_id: (
            apparatus_style(style.name or ""),
            style.font.hidden if hasattr(style, "font") else None,
            style.element.basedOn_val,
        )
        for style in styles
    }
    traits: dict[str, tuple[bool, bool | None]] = {}
    for start in own:
        chain, style_id = [], start
        while style_id in own and style_id not in traits and style_id not in chain:
            chain.append(style_id)
            style_id = own[style_id][2]
        apparatus, hidden = traits.get(style_id, (False, None))  # where the chain ends, or a loop
        for link in reversed(chain):
            name_says, hides, _ = own[link]
            apparatus, hidden = apparatus or name_says, hides if hides is not None else hidden
            traits[link] = (apparatus, hidden)
    apart = {style_id for style_id, (apparatus, _) in traits.items() if apparatus}
    return apart, {style_id: hidden for style_id, (_, hidden) in traits.items() if hidden is not None}


def _style_id(paragraph: Any, qn: Any) -> str | None:
    style = paragraph.find(f"{qn('w:pPr')}/{qn('w:pStyle')}")
    return None if style is None else style.get(qn("w:val"))


def _hidden_run(run: Any, qn: Any, hiding: dict[str, bool], default: bool) -> bool:
    """Whether a run (`w:r`) is hidden text: by its own formatting, else its character style's,
    else `default` (its paragraph style's)."""
    from docx.text.font import Font

    hidden = Font(run).hidden
    if hidden is not None:
        return hidden
    style = run.find(f"{qn('w:rPr')}/{qn('w:rStyle')}")
    return hiding.get(style.get(qn("w:val")), default) if style is not None else default


def _text(paragraph: Any, qn: Any, hiding: dict[str, bool], hidden: bool) -> str:
    """A paragraph's text: its runs' text, tabs and breaks as spaces, deleted and hidden text left
    out (`hiding`: the styles that say whether they hide text; `hidden`: the paragraph style's)."""
    text_tag, run_tag = qn("w:t"), qn("w:r")
    apart = {qn("w:del"), qn("w:txbxContent"), _FALLBACK}  # deleted text, text boxes (and their copies)
    parts = []
    for element in paragraph.iter(text_tag, qn("w:tab"), qn("w:br"), qn("w:cr"), qn("w:noBreakHyphen")):
        if any(ancestor.tag in apart for ancestor in element.iterancestors()):
            continue
        run = next(element.iterancestors(run_tag), None)
        if run is not None and _hidden_run(run, qn, hiding, hidden):
            continue
        if element.tag == text_tag:
            parts.append(element.text or "")
        else:
            parts.append("-" if element.tag == qn("w:noBreakHyphen") else " ")
    return "".join(parts)


READER = Reader(
    "docx",
    "a Word document",
    (".docx",),
    docx_paragraphs,
    binary=True,
    running_text=True,
    needs={"docx": "python-docx", "lxml": "lxml"},
    extra="formats",
)
