"""Word documents (.docx, Office Open XML): the body's paragraphs, read with python-docx's XML
classes from the two parts they need (`word/document.xml` and `word/styles.xml`, unpacked by
`summarizer.readers.package`); no other part is unpacked or parsed.

Headings, the title, captions and tables of contents are not running text (a paragraph style
names them); tables, text boxes, headers, footers, comments and footnotes are not in the body's
paragraphs (a text box anchored in one is left out of it). Text a tracked change deleted is
left out, text it inserted is read, and so is hidden text (a run whose formatting, character
style or paragraph style hides it, as Word does not print it); a line break inside a paragraph is
a space, and an equation (Office Math) reads as its text (`summarizer.text.formulas`). A
References or Bibliography section is no running text (`summarizer.text.apparatus`), and
paragraphs that are the lines of hard-wrapped text are joined as plain text's lines are
(`summarizer.text.layout.rejoined`). A bulleted or numbered paragraph (by its own numbering or
its style's) is a list's entry (`summarizer.readers.base.Entry`).
"""

from __future__ import annotations

import re
from typing import Any

from summarizer.errors import UnreadableDocument, first_line
from summarizer.readers.base import Reader, word_processor_paragraphs
from summarizer.readers.package import open_package
from summarizer.text.apparatus import in_reference_sections
from summarizer.text.formulas import omml_text

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
_HEADING_NAME = re.compile(r"heading (\d)")


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
        styles: Any = Styles(parse_xml(styles_xml)) if styles_xml else []
        apart, hiding = _style_traits(styles)
        ranks = _heading_ranks(styles)
        numbered_styles = _numbered_styles(styles, qn)
        paragraphs = [child for child in body.iterchildren(qn("w:p"), qn("w:sdt")) for child in _paragraphs(child, qn)]
        blocks = []  # each paragraph's text, its rank as a heading, whether it is running text, a list's entry
        for paragraph in paragraphs:
            style = _style_id(paragraph, qn)
            text = " ".join(_text(paragraph, qn, hiding, hiding.get(style or "", False)).split())
            numbered = _numbering(paragraph, qn)
            entry = numbered if numbered is not None else style in numbered_styles
            blocks.append((text, _rank(paragraph, style, ranks, qn), style not in apart, entry))
        references = in_reference_sections([(text, rank) for text, rank, _, _ in blocks])
        # A paragraph left out ends one of the text's, for a hard-wrapped document's lines.
        lines = [text if kept and not listed else "" for (text, _, kept, _), listed in zip(blocks, references)]
        return word_processor_paragraphs(lines, (entry for *_, entry in blocks))
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


def _heading_ranks(styles: Any) -> dict[str, int]:
    """The rank of each heading style ("Heading 2": 2; the title's: 0), by its name or the name
    of a style it is based on."""
    own = {style.style_id: (style.name or "", style.element.basedOn_val) for style in styles}
    ranks = {}
    for start in own:
        seen, style_id = set(), start
        while style_id in own and style_id not in seen:
            seen.add(style_id)
            name, style_id = own[style_id][0].lower(), own[style_id][1]
            rank = _HEADING_NAME.fullmatch(name)
            if rank or name == "title":
                ranks[start] = int(rank[1]) if rank else 0
                break
    return ranks


def _rank(paragraph: Any, style: str | None, ranks: dict[str, int], qn: Any) -> int | None:
    """A paragraph's rank as a heading (its outline level's, else its style's), None for none."""
    level = paragraph.find(f"{qn('w:pPr')}/{qn('w:outlineLvl')}")
    if level is not None and (value := level.get(qn("w:val")) or "").isdigit() and int(value) < 9:
        return int(value) + 1
    return ranks.get(style or "")


def _numbering(element: Any, qn: Any) -> bool | None:
    """Whether a paragraph's (or a style's) own properties number it as a list's entry (a bullet
    or a number: `w:numPr`); False where they take numbering away (`w:numId` 0), None where they
    do not say."""
    numbering = element.find(f"{qn('w:pPr')}/{qn('w:numPr')}")
    if numbering is None:
        return None
    number = numbering.find(qn("w:numId"))
    return number is None or number.get(qn("w:val")) != "0"


def _numbered_styles(styles: Any, qn: Any) -> set[str]:
    """The paragraph styles that number their paragraphs as a list's entries ("List Bullet"), by
    their own properties or those of the nearest style they are based on that says."""
    own = {style.style_id: (_numbering(style.element, qn), style.element.basedOn_val) for style in styles}
    numbered = set()
    for start in own:
        seen, style_id = set(), start
        while style_id in own and style_id not in seen:
            seen.add(style_id)
            says, style_id = own[style_id]
            if says is not None:
                if says:
                    numbered.add(start)
                break
    return numbered


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
    text_tag, run_tag, math_tag = qn("w:t"), qn("w:r"), qn("m:oMath")
    # Deleted text, text boxes (and their copies); an equation is read whole, as its text.
    apart = {qn("w:del"), qn("w:txbxContent"), _FALLBACK, math_tag}
    parts = []
    for element in paragraph.iter(text_tag, qn("w:tab"), qn("w:br"), qn("w:cr"), qn("w:noBreakHyphen"), math_tag):
        if any(ancestor.tag in apart for ancestor in element.iterancestors()):
            continue
        run = next(element.iterancestors(run_tag), None)
        if run is not None and _hidden_run(run, qn, hiding, hidden):
            continue
        if element.tag == math_tag:
            parts.append(omml_text(element))
        elif element.tag == text_tag:
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
    packaged=True,
    running_text=True,
    needs={"docx": "python-docx", "lxml": "lxml"},
    extra="formats",
)
