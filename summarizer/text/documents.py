"""Documents as people have them: plain text, Markdown, HTML, PDF, LaTeX, Word or Jupyter
notebooks in, running text out.

A `Document` is the paragraphs of a document's running text, each one line, in reading order:
what is left once a file's format is read. Plain text goes through `summarizer.text.layout` (soft
wraps joined); Markdown through markdown-it-py (paragraphs, list items and block quotes, with
their link text; no headings, code, tables, images or HTML); HTML through trafilatura (the
page's main text, never its navigation, scripts or markup); PDF through pypdf, then the plain
text rules (running headers, footers, page numbers and verbatim blocks in a fixed-pitch font
dropped), then without captions and footnotes (`summarizer.text.typeset`); LaTeX through
pylatexenc (`summarizer.text.latex`: the body as typeset, with its inputs); Word (.docx) through
python-docx and notebooks through their Markdown cells (`summarizer.text.office`).
"""

from __future__ import annotations

import functools
import io
import itertools
import logging
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from summarizer.errors import InputError, UnreadableDocument, first_line
from summarizer.text.latex import latex_paragraphs
from summarizer.text.layout import LINE_BREAK, SENTENCE_END, is_section_heading
from summarizer.text.layout import paragraphs as text_paragraphs
from summarizer.text.notebook import notebook_markdown
from summarizer.text.pdf_spacing import explicit_spacing
from summarizer.text.typeset import is_note, running_paragraphs, with_bullets
from summarizer.text.word import docx_paragraphs

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

FORMATS = ("text", "markdown", "html", "pdf", "latex", "docx", "notebook")
BINARY_FORMATS = ("pdf", "docx")  # read from bytes, never decoded as text
EXTENSIONS = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".mdown": "markdown",
    ".mkd": "markdown",
    ".html": "html",
    ".htm": "html",
    ".xhtml": "html",
    ".pdf": "pdf",
    ".tex": "latex",
    ".ltx": "latex",
    ".latex": "latex",
    ".docx": "docx",
    ".ipynb": "notebook",
}
FORMATS_EXTRA = "pip install 'bertsum[formats]'"
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
_ALPHANUMERIC = re.compile(r"\w")
# Blocks of trafilatura's XML whose text is running text; headings, code and tables are not.
_HTML_BLOCKS = ("p", "item", "quote")
# Class names (whole tokens of a class attribute, lower-cased) that documentation generators
# give a <pre> holding a program, a shell session or a synopsis: DocBook, Texinfo, Doxygen,
# Javadoc, Pandoc, highlighters; and those they give the elements around it (Sphinx,
# Asciidoctor, Python-Markdown). trafilatura reads a <pre> it does not take for code as a quote,
# which is running text; a <pre> without such a class stays one (a plain-text e-mail in a
# mailing-list archive is a <pre> of prose).
_CODE_ON_PRE = frozenset(
    "programlisting screen synopsis funcsynopsis code sourcecode source example example-preformatted lisp "
    "verbatim fragment console shell terminal prettyprint literal-block methodsignature signature".split()
)
_CODE_AROUND = frozenset("highlight codehilite sourcecode listingblock literal-block programlisting code".split())
_CODE_PREFIXES = ("language-", "lang-", "brush:", "highlight-")  # on the <pre>, its <code>, or around


@dataclass(frozen=True)
class Document:
    """The running text of a document: one paragraph per entry, each on one line."""

    paragraphs: tuple[str, ...]

    @classmethod
    def from_file(cls, path: str | Path, format: str | None = None) -> Document:
        """Read a file; `format` defaults to the one its extension names (`format_of`)."""
        path = Path(path)
        try:
            data = path.read_bytes()
        except OSError as error:
            raise InputError(f"{path}: cannot read: {error.strerror or error}") from None
        return read_document(data, format or format_of(path), str(path), path.parent)

    @classmethod
    def from_text(cls, text: str | bytes, format: str = "text") -> Document:
        """A document from its text (or bytes: a PDF's, or UTF-8 text) in `format`."""
        return read_document(text, format, "document")


def format_of(path: str | Path) -> str:
    """The format a file's extension names; plain text for any other."""
    return EXTENSIONS.get(Path(path).suffix.lower(), "text")


def check_format(format: str) -> None:
    if format not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {format!r}")


def read_document(data: str | bytes, format: str, name: str, directory: Path | None = None) -> Document:
    """The running text of `data` read as `format` (perhaps none: `Document.paragraphs` is
    empty); an `InputError` naming `name` when it cannot be read as that format. `directory` is
    the file's, where a LaTeX document's `\\input` files are read from (none without it)."""
    check_format(format)
    try:
        if format in BINARY_FORMATS:
            if isinstance(data, str):
                raise UnreadableDocument(f"a {_NAMES[format]} is read from its bytes, not from text")
            if format == "pdf":
                return Document(tuple(pdf_paragraphs(data)))
            return Document(tuple(p for p in docx_paragraphs(data) if _is_running_text(p)))
        if isinstance(data, bytes):
            data = _decode(data, keep_bytes=format == "html")
        if not data.strip():
            return Document(())
        if format == "latex":
            assert isinstance(data, str)
            return Document(tuple(p for p in latex_paragraphs(data, directory) if _is_running_text(p)))
        if format == "notebook":
            assert isinstance(data, str)
            return Document(tuple(p for cell in notebook_markdown(data) for p in markdown_paragraphs(cell)))
        return Document(tuple(_READERS[format](data)))
    except UnreadableDocument as error:
        raise InputError(f"{name}: {error}") from None


def _decode(data: bytes, keep_bytes: bool) -> str | bytes:
    """UTF-8 text; HTML stays bytes, for its parser to decode by the page's own charset."""
    if b"\x00" in data:
        raise UnreadableDocument("binary file, not text")
    if keep_bytes:
        return data
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise UnreadableDocument(f"not valid UTF-8 text (byte {error.start})") from None


def markdown_paragraphs(text: str) -> list[str]:
    """Paragraphs, list items and block quotes of Markdown (CommonMark with tables, footnotes and
    front matter), with the text of links and inline code; never headings, code blocks, tables,
    images, badges, HTML, link targets or footnotes (left out as a PDF's are, with their marks),
    nor a paragraph that is all code or that ends no sentence (a label, a caption, a line of
    badges: not running text, as a heading is not)."""
    result = []
    enclosing: list[str] = []
    for token in _markdown_parser().parse(text):
        if token.nesting == 1:
            enclosing.append(token.type)
        elif token.nesting == -1:
            enclosing.pop()
        elif token.type == "inline" and enclosing[-1:] == ["paragraph_open"] and _in_running_text(enclosing):
            children = token.children or []
            paragraph = _inline_paragraph(children)
            code = all(child.type == "code_inline" or not child.content.strip() for child in children)
            if _is_running_text(paragraph) and not code:
                result.append(paragraph)
    return result


def _in_running_text(enclosing: Sequence[str]) -> bool:
    return "table_open" not in enclosing and "footnote_block_open" not in enclosing


@functools.cache
def _markdown_parser() -> MarkdownIt:
    from markdown_it import MarkdownIt
    from mdit_py_plugins.footnote import footnote_plugin
    from mdit_py_plugins.front_matter import front_matter_plugin

    parser = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    # Footnotes as GitHub writes them ("[^1]" and "[^1]: ..."); no inline "^[...]" notes, which
    # GitHub does not know and which would take text such as a regular expression's "^[a-z]".
    return parser.use(front_matter_plugin).use(footnote_plugin, inline=False)


def _inline_paragraph(children: Sequence[Token]) -> str:
    """The words of a paragraph's inline tokens; a footnote mark goes, with the space before it,
    and so does struck-out text ("~~annoy~~ help you": the writer took it back)."""
    text, struck = "", 0
    for child in children:
        struck += {"s_open": 1, "s_close": -1}.get(child.type, 0)
        if child.type == "footnote_ref":
            text = text.rstrip()
        elif not struck:
            text += _inline_text(child)
    return " ".join(text.split())


def _inline_text(token: Token) -> str:
    if token.type in ("text", "code_inline"):
        return token.content
    return " " if token.type in ("softbreak", "hardbreak") else ""  # images, inline HTML, markup


def html_paragraphs(page: str | bytes) -> list[str]:
    """The paragraphs, list items and quotes of a page's main text, as trafilatura finds it
    (those that end no sentence are labels, left out as in Markdown)."""
    try:
        import trafilatura
        from lxml import etree
    except ImportError:
        raise UnreadableDocument(f"reading HTML needs trafilatura: {FORMATS_EXTRA}") from None
    logging.getLogger("trafilatura").setLevel(logging.CRITICAL)  # its warnings are ours to say
    tree = trafilatura.load_html(page)  # parsed once: for the code blocks, then by trafilatura
    if tree is None:
        return []
    code = _code_text(tree)  # before extracting, which changes the tree
    extracted = trafilatura.extract(
        tree,
        output_format="xml",
        favor_recall=True,
        include_comments=False,
        include_tables=False,
        include_images=False,
        include_links=False,
        include_formatting=False,
        deduplicate=False,
    )
    if not extracted:
        return []
    main = etree.fromstring(extracted.encode()).find("main")
    result = []
    for block in main.iter(*_HTML_BLOCKS) if main is not None else ():
        text = " ".join(_own_text(block).split())  # its inner blocks are read on their own
        if block.tag == "quote" and text in code:  # a <pre> of code that trafilatura took for a quote
            continue
        if _is_running_text(text):  # not a label, a caption or a breadcrumb, as in Markdown
            result.append(text)
    return result


def _own_text(block: Any) -> str:
    """The text of a block of trafilatura's XML. One that holds other blocks (a list item with a
    quote or a list in it) gives its words around them, less its code of more than one line
    (a program set beside the item's paragraphs; its inline code stays)."""
    if not any(inner.tag in _HTML_BLOCKS for inner in block.iterdescendants()):
        return "".join(block.itertext())

    def outside(element: Any) -> str:
        parts = [element.text or ""]
        for child in element:
            program = child.tag == "code" and "\n" in "".join(child.itertext()).strip()
            if child.tag not in _HTML_BLOCKS and not program:
                parts.append(outside(child))
            parts.append(child.tail or "")
        return "".join(parts)

    return outside(block)


def _code_text(tree: Any) -> str:
    """The text of the page's <pre> blocks that a class marks as code (`_CODE_ON_PRE`,
    `_CODE_AROUND`, `_CODE_PREFIXES`), each with its whitespace made single spaces, in page order
    and joined by a space (trafilatura may join neighbouring ones into one block)."""
    found = []
    for pre in tree.iter("pre"):
        inner = [child for child in pre if child.tag == "code"]
        on_pre = _class_tokens(pre, *inner)
        around = _class_tokens(*list(pre.iterancestors())[:2])
        if (
            on_pre & _CODE_ON_PRE
            or around & _CODE_AROUND
            or any(token.startswith(_CODE_PREFIXES) for token in on_pre | around)
        ):
            found.append(" ".join("".join(pre.itertext()).split()))
    return " ".join(text for text in found if text)


def _class_tokens(*elements: Any) -> set[str]:
    return {token for element in elements for token in (element.get("class") or "").lower().split()}


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


def _is_running_text(paragraph: str) -> bool:
    """Whether a block of Markdown or HTML is running text: words that end a sentence."""
    return bool(_ALPHANUMERIC.search(paragraph) and SENTENCE_END.search(paragraph))


def _running_key(line: str) -> str:
    return _DIGITS.sub("#", " ".join(line.split()).lower())


_NAMES = {"pdf": "PDF", "docx": "Word document"}
# Each reader takes text; html's takes a page's undecoded bytes too (`_decode` keeps them for it).
_READERS: dict[str, Callable[[Any], list[str]]] = {
    "text": text_paragraphs,
    "markdown": markdown_paragraphs,
    "html": html_paragraphs,
}
