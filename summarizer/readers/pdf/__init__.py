"""PDFs: the running text of their text layer (pypdf).

Running headers, footers and page numbers go, and verbatim blocks set in a fixed-pitch font
(programs, commands, files' contents); the lines left are read by the plain text rules
(`summarizer.text.layout`: soft wraps joined, hyphenation by the maker's habit), then without
captions and footnotes (`summarizer.readers.pdf.typeset`). Word and character spacing are made explicit
first (`summarizer.readers.pdf.spacing`), so that words are neither cut nor run together.
"""

from __future__ import annotations

import io
import itertools
import logging
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from summarizer.errors import UnreadableDocument, first_line
from summarizer.readers.base import Reader
from summarizer.readers.pdf.spacing import explicit_spacing
from summarizer.readers.pdf.typeset import is_note, running_paragraphs, with_bullets
from summarizer.text.layout import LINE_BREAK, SENTENCE_END, is_section_heading
from summarizer.text.layout import paragraphs as text_paragraphs

# Lines a PDF page starts or ends with that are running headers or footers when they recur
# (digits aside) on this share of the pages, or that are a page number alone.
RUNNING_LINES = 2
RUNNING_SHARE = 0.5
_PAGE_NUMBER = re.compile(
    r"(?i)(?:page\s+)?[-–—(\[]?\s*(?:\d{1,4}|[ivxlcdm]{1,7})\s*[-–—)\]]?(?:\s*(?:/|of)\s*\d{1,4})?"
)
# A PDF sets programs, commands and files' contents in a fixed-pitch font. A line that is all
# but this share of its characters in one is verbatim, not running text (`_without_verbatim`),
# unless most of the document is: then the body itself is typewriter (a printed text file).
VERBATIM_SHARE = 0.9
MAX_FIXED_PITCH_SHARE = 0.5
# A font is fixed-pitch when its descriptor says so, when all of its glyphs are as wide and at
# least this many of them are not digits (TeX's cmtt and most embedded fonts leave the flag
# unset; a proportional font's digits are often all as wide), or by name (the standard Courier
# carries no widths).
MIN_WIDTHS = 10
_FIXED_PITCH_FLAG = 1
_FIXED_PITCH_NAME = re.compile(r"(?i)courier|mono(?!type)|consol|menlo|inconsolata")
_DIGIT_CODES = range(ord("0"), ord("9") + 1)
_FORM_DEPTH = 3  # forms drawn inside forms that are looked into for their fonts
_DIGITS = re.compile(r"\d+")
# Programs that make PDFs without hyphenating words (a browser's print, an office suite's export).
_UNHYPHENATED_MAKERS = re.compile(r"(?i)skia|chrom|mozilla|webkit|libreoffice|openoffice|microsoft|google")


def pdf_paragraphs(data: bytes) -> list[str]:
    """The paragraphs of a PDF's text layer, without running headers, footers, page numbers
    and verbatim blocks (programs, commands, files' contents: lines in a fixed-pitch font)."""
    from pypdf import PdfReader

    logging.getLogger("pypdf").setLevel(logging.CRITICAL)  # damaged files are reported below
    if not data.lstrip().startswith(b"%PDF-"):
        raise UnreadableDocument("not a PDF file (no %PDF- header)")
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            try:
                opened = reader.decrypt("")  # many PDFs are encrypted with an empty password
            except Exception as error:  # an algorithm pypdf cannot run without `cryptography`
                raise UnreadableDocument(f"encrypted PDF that cannot be opened here: {first_line(error)}") from None
            if not opened:
                raise UnreadableDocument("encrypted PDF: it needs a password (decrypt it first, e.g. qpdf --decrypt)")
        pages = [[line for line in _page_lines(page) if line.text.strip()] for page in reader.pages]
        typeset = _hyphenates(reader)
    except UnreadableDocument:
        raise
    except Exception as error:  # a damaged file raises many types (PdfReadError, KeyError, ValueError...)
        raise UnreadableDocument(f"not a readable PDF: {first_line(error)}") from None
    lines = _without_running_lines(pages)
    if not lines:
        raise UnreadableDocument("the PDF has no text layer (a scanned document?): run OCR on it first")
    whole, kept = "\n".join(line.text for line in lines), "\n".join(_without_verbatim(lines))
    text = with_bullets(unicodedata.normalize("NFKC", kept))
    wrapped_as = None  # the document with its verbatim blocks, read only when one went
    if kept != whole and (as_read := with_bullets(unicodedata.normalize("NFKC", whole))) != text:
        wrapped_as = as_read
    paragraphs = text_paragraphs(text, wrapped_as=wrapped_as, typeset=typeset, notes=is_note)
    return [" ".join(paragraph.split()) for paragraph in running_paragraphs(paragraphs)]  # words spaced once


def _hyphenates(reader: Any) -> bool:
    """Whether the program that made a PDF (its metadata's producer and creator) hyphenates words
    to wrap lines, as typesetters do (TeX, groff); browsers and office suites do not by default.
    Yes when the metadata cannot be read."""
    try:
        metadata = reader.metadata or {}
        made_by = " ".join(str(metadata.get(key) or "") for key in ("/Producer", "/Creator"))
    except Exception:  # damaged metadata: the text is read all the same
        return True
    return _UNHYPHENATED_MAKERS.search(made_by) is None


@dataclass(frozen=True)
class _Line:
    """A line of a PDF page's text, with how many of its characters (white space aside) are set
    in a fixed-pitch font."""

    text: str
    fixed: int = 0

    @property
    def size(self) -> int:
        return _visible(self.text)


def _visible(text: str) -> int:
    """How many characters of `text` are not white space."""
    return len("".join(text.split()))


def _page_lines(page: Any) -> list[_Line]:
    """A page's text (pypdf's `extract_text`, whose pieces the visitor sees in order) in lines.
    A page without a fixed-pitch font is read without the visitor, which makes pypdf read
    drawings too (a figure of many paths took seconds). Word and character spacing are made
    explicit first (`pdf_spacing`), so that words are neither cut nor run together."""
    explicit_spacing(page)
    if not _uses_fixed_pitch(page):
        return [_Line(line) for line in LINE_BREAK.split(page.extract_text() or "")]
    lines = [_Line("")]
    fonts: dict[int, bool] = {}

    def visit(text: str, _matrix: Any, _text_matrix: Any, font: Any, _size: Any) -> None:
        if font is not None and id(font) not in fonts:
            fonts[id(font)] = _is_fixed_pitch(font)
        fixed = font is not None and fonts[id(font)]
        for i, part in enumerate(LINE_BREAK.split(text)):
            if i:
                lines.append(_Line(""))
            last = lines[-1]
            lines[-1] = _Line(last.text + part, last.fixed + (_visible(part) if fixed else 0))

    page.extract_text(visitor_text=visit)
    return lines


def _uses_fixed_pitch(page: Any) -> bool:
    """Whether a font of the page or of a form it draws is fixed-pitch (yes when that cannot be
    told: the page is then read with the visitor)."""

    def entries(dictionary: Any, key: str) -> list[Any]:
        found = dictionary.get(key) if dictionary is not None else None
        return [value.get_object() for value in found.get_object().values()] if found is not None else []

    def fonts(resources: Any, depth: int) -> Iterator[Any]:
        resources = resources.get_object() if resources is not None else None
        yield from entries(resources, "/Font")
        for drawn in entries(resources, "/XObject") if depth < _FORM_DEPTH else ():
            if drawn.get("/Subtype") == "/Form":
                yield from fonts(drawn.get("/Resources"), depth + 1)

    try:
        return any(_is_fixed_pitch(font) for font in fonts(page.get("/Resources"), 0))
    except Exception:  # pypdf's objects raise many types on damaged values
        return True


def _is_fixed_pitch(font: Any) -> bool:
    """Whether a PDF font dictionary is a fixed-pitch font (`MIN_WIDTHS`): by its descriptor's
    flag, its widths or its name, each of which a damaged dictionary may lack."""
    return any(_tells(test, font) for test in (_flagged_fixed_pitch, _fixed_widths, _named_fixed_pitch))


def _tells(test: Callable[[Any], bool], font: Any) -> bool:
    try:
        return test(font)
    except Exception:  # pypdf's objects raise many types on damaged values
        return False


def _flagged_fixed_pitch(font: Any) -> bool:
    descriptor = font.get("/FontDescriptor")
    if descriptor is None and "/DescendantFonts" in font:  # a composite font's is its descendant's
        descriptor = font["/DescendantFonts"][0].get_object().get("/FontDescriptor")
    return descriptor is not None and bool(int(descriptor.get_object().get("/Flags", 0)) & _FIXED_PITCH_FLAG)


def _fixed_widths(font: Any) -> bool:
    first = int(font.get("/FirstChar", 0))
    widths = {first + i: float(width) for i, width in enumerate(font["/Widths"].get_object()) if float(width) > 0}
    letters = [code for code in widths if code not in _DIGIT_CODES]
    return len(letters) >= MIN_WIDTHS and len(set(widths.values())) == 1


def _named_fixed_pitch(font: Any) -> bool:
    return bool(_FIXED_PITCH_NAME.search(str(font.get("/BaseFont", ""))))


def _without_running_lines(pages: Sequence[list[_Line]]) -> list[_Line]:
    """The pages' lines in order, less page numbers and the headers and footers that recur."""
    edges = [page[:RUNNING_LINES] + page[-RUNNING_LINES:] for page in pages]
    seen = Counter(key for edge in edges for key in {_running_key(line.text) for line in edge})
    recurring = {key for key, count in seen.items() if len(pages) > 1 and count >= max(2, RUNNING_SHARE * len(pages))}

    def running(line: str, position: int, size: int) -> bool:
        at_edge = position < RUNNING_LINES or position >= size - RUNNING_LINES
        return at_edge and (_PAGE_NUMBER.fullmatch(line.strip()) is not None or _running_key(line) in recurring)

    return [line for page in pages for i, line in enumerate(page) if not running(line.text, i, len(page))]


def _without_verbatim(lines: Sequence[_Line]) -> list[str]:
    """The lines' text, each block of verbatim lines (`VERBATIM_SHARE`) that stands between
    sentences a blank line instead: one at the start, or after a line that ends a sentence or a
    colon, unless it is a single line that the next goes on from in lower case. A block inside an
    open sentence is code the sentence quotes, and stays in it (a numbered section heading ends
    none: "3.3.1. BZ2_bzCompressInit" above a function's declaration). Nothing is verbatim in a document
    mostly set in a fixed-pitch font (`MAX_FIXED_PITCH_SHARE`)."""
    if sum(line.fixed for line in lines) > MAX_FIXED_PITCH_SHARE * sum(line.size for line in lines):
        return [line.text for line in lines]
    groups = [
        (verbatim, [line.text for line in group])
        for verbatim, group in itertools.groupby(lines, lambda line: line.fixed >= VERBATIM_SHARE * line.size)
    ]
    result: list[str] = []
    for i, (verbatim, block) in enumerate(groups):
        between = not result or SENTENCE_END.search(result[-1].rstrip()) is not None or _heading_alone(result)
        goes_on = i + 1 < len(groups) and groups[i + 1][1][0].lstrip()[:1].islower()
        if verbatim and between and not (len(block) == 1 and goes_on):
            result.append("")
        else:
            result.extend(block)
    return result


def _heading_alone(lines: Sequence[str]) -> bool:
    """Whether the last of `lines` is a numbered section heading on a line of its own: the line
    before it is blank or ends a sentence."""
    before = lines[-2].rstrip() if len(lines) > 1 else ""
    return is_section_heading(lines[-1]) and (not before or SENTENCE_END.search(before) is not None)


def _running_key(line: str) -> str:
    return _DIGITS.sub("#", " ".join(line.split()).lower())


READER = Reader("pdf", "a PDF", (".pdf",), pdf_paragraphs, binary=True, needs={"pypdf": "pypdf"})
