"""Documents as people have them: plain text, Markdown, reStructuredText, HTML, PDF, LaTeX, Word,
OpenDocument text and presentations, RTF, PowerPoint, Jupyter notebooks, EPUB books, e-mail
messages and subtitles in, running text out.

A `Document` is the paragraphs of a document's running text, each one line, in reading order:
what is left once a file's format is read. Plain text goes through `summarizer.text.layout` (soft
wraps joined); Markdown through markdown-it-py (paragraphs, list items and block quotes, with
their link text; no headings, code, tables, images or HTML); HTML through trafilatura (the
page's main text, never its navigation, scripts or markup). The other formats have modules of
their own: `restructured`, `pdf`, `latex`, `word`, `opendocument`, `rtf`, `slides`
(PowerPoint), `notebook` (Markdown cells, read here as Markdown), `ebook` (chapters, read here
as web pages), `mail` (the body, read here as plain text or HTML) and `subtitles` (what the cues
say). Of a Word, OpenDocument, RTF or PowerPoint document, and of reStructuredText, the
paragraphs that end no sentence (headings their style does not name, labels, most slide
bullets) are left out here, as in Markdown.
"""

from __future__ import annotations

import codecs
import functools
import logging
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import regex

from summarizer.errors import InputError, UnreadableDocument, first_line, quoted
from summarizer.text.apparatus import drop_html_references
from summarizer.text.ebook import epub_chapters
from summarizer.text.latex import latex_paragraphs, math_text
from summarizer.text.layout import CLOSING_MARKS, SENTENCE_END
from summarizer.text.layout import paragraphs as text_paragraphs
from summarizer.text.mail import email_body
from summarizer.text.notebook import notebook_markdown
from summarizer.text.opendocument import odp_paragraphs, odt_paragraphs
from summarizer.text.pdf import pdf_paragraphs
from summarizer.text.restructured import fits as fits_docutils
from summarizer.text.restructured import rst_paragraphs
from summarizer.text.rtf import rtf_paragraphs
from summarizer.text.slides import pptx_paragraphs
from summarizer.text.subtitles import subtitle_paragraphs
from summarizer.text.word import docx_paragraphs

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

FORMATS = (
    "text",
    "markdown",
    "rst",
    "html",
    "pdf",
    "latex",
    "docx",
    "odt",
    "rtf",
    "pptx",
    "odp",
    "notebook",
    "epub",
    "email",
    "subtitles",
)
# Formats read from bytes, never decoded as text here (an e-mail's parts name their charsets, an
# RTF document its code page), each with what a file of it is.
BINARY_FORMATS = {
    "pdf": "a PDF",
    "docx": "a Word document",
    "odt": "an OpenDocument text document",
    "rtf": "an RTF document",
    "pptx": "a PowerPoint presentation",
    "odp": "an OpenDocument presentation",
    "epub": "an EPUB book",
    "email": "an e-mail message",
}
EXTENSIONS = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".mdown": "markdown",
    ".mkd": "markdown",
    ".rst": "rst",
    ".rest": "rst",
    ".html": "html",
    ".htm": "html",
    ".xhtml": "html",
    ".pdf": "pdf",
    ".tex": "latex",
    ".ltx": "latex",
    ".latex": "latex",
    ".docx": "docx",
    ".odt": "odt",
    ".fodt": "odt",
    ".rtf": "rtf",
    ".pptx": "pptx",
    ".odp": "odp",
    ".fodp": "odp",
    ".ipynb": "notebook",
    ".epub": "epub",
    ".eml": "email",
    ".srt": "subtitles",
    ".vtt": "subtitles",
}
FORMATS_EXTRA = "pip install 'bertsum[formats]'"
# Byte order marks, UTF-32's before UTF-16's (UTF-32 LE's begins with UTF-16 LE's), and the
# codecs that read past them.
_BYTE_ORDER_MARKS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
_ENCODING_NAMES = {"utf-8-sig": "UTF-8", "utf-16": "UTF-16", "utf-32": "UTF-32"}
_ALPHANUMERIC = re.compile(r"\w")
_SURROGATE = re.compile("[\ud800-\udfff]")
# Control characters (C0 but tab, DEL, C1): no text, and to a terminal the start of an escape sequence.
_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f]")
# A news page's apparatus that a copy of its text keeps, each a paragraph of its own: the byline
# ("By Daily Mail Reporter", "By Sam Webb for MailOnline"), the time stamps ("PUBLISHED: 12:32
# EST, 24 November 2013 | UPDATED: ...", "Last updated at 5:23 PM on 15th October 2011") and the
# pointer to a video below. None is a sentence of the article.
_NAME = r"[A-Z][\w'’.-]*(?:\s+(?:[A-Z][\w'’.-]*|de|van|von|der|al|bin))*"
_NEWS_APPARATUS = re.compile(
    rf"By\s+(?:\.\s+)?{_NAME}(?:\s*(?:,|and|&)\s*{_NAME})*(?:\s*,?\s+(?:for|in)\s+(?:the\s+)?{_NAME})?\s*\.?"
    r"|(?:PUBLISHED|UPDATED|Published|Updated|Last\s+updated)(?:\s*:|\s+at\b|\s+on\b)[^.!?]{0,30}?\d{1,2}[:.]\d\d\b[^.!?]{0,90}?\b\d{4}\b.{0,120}"
    r"|Scroll\s+down\s+for\s+(?:the\s+)?(?:video|videos|more)\s*\.?"
)
# The same apparatus at the start of a paragraph, as copies that lost the page's lines have it
# ("By . Daily Mail Reporter . PUBLISHED: . 12:32 EST, 24 November 2013 . | . UPDATED: . 12:47
# EST, 24 November 2013 . A teenager..."): left out of the paragraph.
_STAMP = (
    r"(?:PUBLISHED|UPDATED|Last\s+updated(?:\s+at)?)\s*:?\s*\.?\s*"
    r"[^.!?|]{0,20}?\d{1,2}:\d\d[^.!?|]{0,50}?\b\d{4}\s*\.?\s*"  # a time of day, then the year
)
_NEWS_HEADER = re.compile(
    rf"(?:By\s+\.\s+[^.!?]{{1,80}}?\s+\.\s+)?{_STAMP}(?:\|\s*\.?\s*{_STAMP})*(?:Scroll\s+down\s+for\s+video\s*\.\s*)?"
)
_SENTENCE_TERMINAL = regex.compile(rf"(?r)[\p{{Sentence_Terminal}}…][{CLOSING_MARKS}]*$")
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
    """The running text of a document: one paragraph per entry, each on one line; and a note on
    each part it names that could not be read (a LaTeX document's missing `\\input` file)."""

    paragraphs: tuple[str, ...]
    left_out: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if any(_CONTROL.search(paragraph) for paragraph in self.paragraphs):  # never output: a space or nothing
            cleaned = (_CONTROL.sub(lambda c: " " if c[0].isspace() else "", p) for p in self.paragraphs)
            object.__setattr__(self, "paragraphs", tuple(cleaned))
        # Surrogates (from a notebook's JSON escapes, an RTF's \u, reStructuredText's `unicode`
        # directive) are no text that can be encoded: a pair is the character it stands for, a
        # lone one U+FFFD.
        if any(_SURROGATE.search(paragraph) for paragraph in self.paragraphs):
            mended = (p.encode("utf-16", "surrogatepass").decode("utf-16", "replace") for p in self.paragraphs)
            object.__setattr__(self, "paragraphs", tuple(mended))

    @classmethod
    def from_file(cls, path: str | Path, format: str | None = None) -> Document:
        """Read a file; `format` defaults to the one its extension names (`format_of`)."""
        path = Path(path)
        try:
            data = path.read_bytes()
        except OSError as error:
            raise InputError(f"{quoted(str(path))}: cannot read: {error.strerror or error}") from None
        return read_document(data, format or format_of(path), quoted(str(path)), path)

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


def read_document(data: str | bytes, format: str, name: str, path: Path | None = None) -> Document:
    """The running text of `data` read as `format` (perhaps none: `Document.paragraphs` is
    empty); an `InputError` naming `name` when it cannot be read as that format. `path` is the
    file `data` comes from: a LaTeX document's `\\input` files are read from its directory (none
    without it)."""
    check_format(format)
    try:
        if format in BINARY_FORMATS:
            if isinstance(data, str):
                raise UnreadableDocument(f"{BINARY_FORMATS[format]} is read from its bytes, not from text")
            return Document(_article_text(_BINARY_READERS[format](data)))
        if isinstance(data, bytes):
            data = _decode(data, keep_bytes=format == "html")
        if not data.strip():
            return Document(())
        if format == "latex":
            assert isinstance(data, str)
            paragraphs, left_out = latex_paragraphs(data, path)
            return Document(_article_text(p for p in paragraphs if _is_running_text(p)), tuple(left_out))
        return Document(_article_text(_READERS[format](data)))
    except UnreadableDocument as error:
        raise InputError(f"{name}: {error}") from None
    except RecursionError:
        raise InputError(f"{name}: not readable as {format}: nested too deeply") from None
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, NotImplementedError) as error:
        # A reader's library met a file it was not written for: that file, not the run, fails
        # (the library's error stays the cause, for a caller that wants it).
        raise InputError(f"{name}: not readable as {format}: {first_line(error)}") from error


def _article_text(paragraphs: Iterable[str]) -> tuple[str, ...]:
    """`paragraphs` less a news page's apparatus (`_NEWS_APPARATUS`, `_NEWS_HEADER`)."""
    out = []
    for paragraph in paragraphs:
        header = _NEWS_HEADER.match(paragraph)
        if header and header.end() < len(paragraph):
            paragraph = paragraph[header.end() :]
        if not _NEWS_APPARATUS.fullmatch(paragraph):
            out.append(paragraph)
    return tuple(out)


def _decode(data: bytes, keep_bytes: bool) -> str | bytes:
    """UTF-8 text, or UTF-16 or UTF-32 text that begins with its byte order mark (as Windows
    saves "Unicode" text); HTML stays bytes, for its parser to decode by the page's own charset."""
    encoding = next((name for mark, name in _BYTE_ORDER_MARKS if data.startswith(mark)), None)
    if encoding is None:
        if b"\x00" in data:
            raise UnreadableDocument("binary file, not text")
        if keep_bytes:
            return data
        encoding = "utf-8-sig"
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as error:
        raise UnreadableDocument(f"not valid {_ENCODING_NAMES[encoding]} text (byte {error.start})") from None
    if "\x00" in text:
        raise UnreadableDocument("binary file, not text")
    return text


def markdown_paragraphs(text: str, math: bool = False) -> list[str]:
    """Paragraphs, list items and block quotes of Markdown (CommonMark with tables, footnotes and
    front matter), with the text of links and inline code; never headings, code blocks, tables,
    images, badges, HTML, link targets or footnotes (left out as a PDF's are, with their marks),
    nor a paragraph that is all code or that ends no sentence (a label, a caption, a line of
    badges: not running text, as a heading is not). With `math`, as Jupyter renders it: `$x^2$`
    and `$$x^2$$` are math, read as text (`x^2`); a `$$` block between the start of a sentence
    and its lower-case rest ("the loss $$...$$ where x is...") is read within that sentence, and
    is no paragraph otherwise."""
    result = []
    enclosing: list[str] = []
    tokens = _markdown_parser(math).parse(text)
    held = ("", "")  # a paragraph that display math interrupts: as it is, and with the math
    for index, token in enumerate(tokens):
        if token.nesting == 1:
            enclosing.append(token.type)
        elif token.nesting == -1:
            enclosing.pop()
        elif token.type == "inline" and enclosing[-1:] == ["paragraph_open"] and _in_running_text(enclosing):
            children = token.children or []
            paragraph = _inline_paragraph(children)
            code = all(child.type == "code_inline" or not child.content.strip() for child in children)
            before, interrupted = held
            if interrupted and paragraph[:1].islower():
                paragraph, code = f"{interrupted} {paragraph}", False
            elif _is_running_text(before):
                result.append(before)
            interrupted = _interrupted(paragraph, tokens, index + 1) if math and not code else ""
            held = (paragraph, interrupted) if interrupted else ("", "")
            if _is_running_text(paragraph) and not code and not interrupted:
                result.append(paragraph)
    return result


def _interrupted(paragraph: str, tokens: Sequence[Token], start: int) -> str:
    """A paragraph that ends no sentence, with the display math that follows it (`tokens` from
    `start`), when a paragraph comes next (that may be the sentence's rest); "" otherwise."""
    if start >= len(tokens) or tokens[start].type != "paragraph_close" or _SENTENCE_TERMINAL.search(paragraph):
        return ""
    end = start + 1
    while end < len(tokens) and tokens[end].type.startswith("math_block"):
        end += 1
    if end == start + 1 or end >= len(tokens) or tokens[end].type != "paragraph_open":
        return ""
    return " ".join([paragraph, *(math_text(block.content) for block in tokens[start + 1 : end])])


def _in_running_text(enclosing: Sequence[str]) -> bool:
    return "table_open" not in enclosing and "footnote_block_open" not in enclosing


@functools.cache
def _markdown_parser(math: bool = False) -> MarkdownIt:
    from markdown_it import MarkdownIt
    from mdit_py_plugins.dollarmath import dollarmath_plugin
    from mdit_py_plugins.footnote import footnote_plugin
    from mdit_py_plugins.front_matter import front_matter_plugin

    parser = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    # Footnotes as GitHub writes them ("[^1]" and "[^1]: ..."); no inline "^[...]" notes, which
    # GitHub does not know and which would take text such as a regular expression's "^[a-z]".
    parser = parser.use(front_matter_plugin).use(footnote_plugin, inline=False)
    # Math as Jupyter's MathJax reads it; not where a price is ("$5 and $10": a digit by a dollar).
    return parser.use(dollarmath_plugin, allow_space=False, allow_digits=False, double_inline=True) if math else parser


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
    if token.type in ("math_inline", "math_inline_double"):
        return math_text(token.content)
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
    drop_html_references(tree)  # a page's list of references is none of its text
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


def _is_running_text(paragraph: str) -> bool:
    """Whether a block of Markdown or HTML is running text: words that end a sentence."""
    return bool(_ALPHANUMERIC.search(paragraph) and SENTENCE_END.search(paragraph))


def notebook_paragraphs(text: str) -> list[str]:
    """The paragraphs of a notebook's Markdown cells, with their math."""
    return [paragraph for cell in notebook_markdown(text) for paragraph in markdown_paragraphs(cell, math=True)]


def _ending_sentences(reader: Callable[[Any], list[str]]) -> Callable[[Any], list[str]]:
    """`reader`, keeping the paragraphs that end a sentence (of a Word, OpenDocument, RTF,
    PowerPoint or reStructuredText document: their markup names some headings and labels, not
    all of them)."""
    return lambda data: [paragraph for paragraph in reader(data) if _is_running_text(paragraph)]


def _rst_paragraphs(text: str) -> list[str]:
    """reStructuredText as docutils reads it, the paragraphs that end a sentence; as plain text
    when docutils would take time that grows faster than the text (`fits_docutils`)."""
    return _ending_sentences(rst_paragraphs)(text) if fits_docutils(text) else text_paragraphs(text)


def epub_paragraphs(data: bytes) -> list[str]:
    """The paragraphs of an EPUB book's chapters, each read as a web page is."""
    return [paragraph for chapter in epub_chapters(data) for paragraph in html_paragraphs(chapter)]


def email_paragraphs(data: bytes) -> list[str]:
    """The paragraphs of an e-mail message's body: plain text, or HTML read as a web page is."""
    format, body = email_body(data)
    if not body.strip():
        return []
    return html_paragraphs(body) if format == "html" else text_paragraphs(body)


# Each reader takes text; html's takes a page's undecoded bytes too (`_decode` keeps them for it).
_READERS: dict[str, Callable[[Any], list[str]]] = {
    "text": text_paragraphs,
    "markdown": markdown_paragraphs,
    "rst": _rst_paragraphs,
    "html": html_paragraphs,
    "notebook": notebook_paragraphs,
    "subtitles": subtitle_paragraphs,
}
_BINARY_READERS: dict[str, Callable[[bytes], list[str]]] = {
    "pdf": pdf_paragraphs,
    "docx": _ending_sentences(docx_paragraphs),
    "odt": _ending_sentences(odt_paragraphs),
    "rtf": _ending_sentences(rtf_paragraphs),
    "pptx": _ending_sentences(pptx_paragraphs),
    "odp": _ending_sentences(odp_paragraphs),
    "epub": epub_paragraphs,
    "email": email_paragraphs,
}
