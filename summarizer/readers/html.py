"""HTML pages: the paragraphs, list items and quotes of a page's main text, as trafilatura finds
it (never its navigation, scripts, code or markup), those that end a sentence (the rest are
labels, captions and breadcrumbs, left out as in Markdown).
"""

from __future__ import annotations

import logging
from typing import Any

from summarizer.readers.base import Entry, Reader
from summarizer.text.apparatus import drop_html_references

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


def html_paragraphs(page: str | bytes) -> list[str]:
    """The paragraphs, list items (each an `Entry`) and quotes of a page's main text, as
    trafilatura finds it."""
    import trafilatura
    from lxml import etree

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
        result.append(Entry(text) if block.tag == "item" else text)
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


READER = Reader(
    "html",
    "an HTML page",
    (".html", ".htm", ".xhtml"),
    html_paragraphs,
    own_charset=True,
    running_text=True,
    needs={"trafilatura": "trafilatura", "lxml": "lxml"},
    extra="formats",
)
