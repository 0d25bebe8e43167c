"""A document's list of references, which is none of its running text: the section that a
heading such as "References", "Bibliography" or "Works Cited" opens (numbered or not, in
English, German, French, Spanish or Italian), up to the next heading of its rank or above, in
whatever way a format marks its headings; in a web page or a book, the block its markup
names a bibliography (`role="doc-bibliography"`, EPUB's `epub:type="bibliography"`, the
"references" class Wikipedia and citation styles give their lists); and a journal article's
reference set as a paragraph of its own wherever it stands (`is_citation`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

REFERENCES_HEADING = re.compile(
    r"(?:(?:\d{1,2}(?:\.\d{1,2})*|[IVXivx]{1,5}|[A-Z])[.)]?\s+)?"
    r"(?:references?|bibliography|select(?:ed)?\s+bibliography|works\s+cited|literature\s+cited|cited\s+literature|"
    r"reference\s+list|list\s+of\s+references|references\s+(?:and|&)\s+notes|notes\s+(?:and|&)\s+references|"
    r"bibliographie|literatur|literaturverzeichnis|quellen|références|références\s+bibliographiques|"
    r"referencias(?:\s+bibliográficas)?|bibliografía|bibliografia|riferimenti\s+bibliografici)\s*[:.]?",
    re.IGNORECASE,
)
_LIST_CLASSES = frozenset("references reflist refbegin bibliography csl-bib-body citation-list".split())
_LIST_ROLES = frozenset("doc-bibliography doc-endnotes".split())
_EPUB_TYPE = ("epub:type", "{http://www.idpf.org/2007/ops}type")
_HEADINGS = {f"h{level}": level for level in range(1, 7)}
_TEXT_BEFORE = "boolean(preceding::p[normalize-space()])"
UNRANKED = 99  # the rank of a "References" line that no heading markup ranks: any heading ends its section
# A journal article's locator, as a reference ends with it: Vancouver's year, perhaps a month
# and day, then volume, issue and pages, unspaced ("2013 Jul;41(Web Server issue):W535-43.",
# "1998;280(5):1-7."), APA's volume, issue and pages after the journal's name and a comma
# (", 41(2), 535-543."), or a PubMed identifier ("PMID: 23748563"); each ends a sentence or a
# clause. Not "7-6 (4), 6-3" (a tennis score), "Section 5(2), 10-12 of the Act", "2023; 7:30pm"
# or "published in JAMA 1998;280(5):1-7, found that...".
_PAGES = r"[A-Za-z]?\d+(?:[-–][A-Za-z]?\d+)?(?=[.;]|$)"
_LOCATOR = re.compile(
    rf"\b(?:1[89]|20)\d\d(?:\s[A-Z][a-z]{{2}}(?:\s\d{{1,2}})?)?;\d{{1,4}}(?:\([^()]{{1,40}}\))?:{_PAGES}"
    rf"|(?<=,\s)\d{{1,4}}\(\d{{1,4}}(?:[-–]\d{{1,4}})?\),\s{_PAGES}"
    r"|\bPMID:\s?\d{5,}(?=[.;]|\s*$)"
)
# The most words a paragraph that holds a locator has to be a reference rather than running
# text that cites one in passing.
MAX_CITATION_WORDS = 60


def is_references_heading(text: str) -> bool:
    """Whether a heading's (or a line's) whole text names a list of references."""
    return REFERENCES_HEADING.fullmatch(" ".join(text.split())) is not None


def is_citation(paragraph: str) -> bool:
    """Whether `paragraph` is a journal article's reference set apart, where no heading opens a
    list of references (a README's "If you use it, please cite:", a talk's last slide): it
    holds the article's locator (`_LOCATOR`) outside brackets, round or square, where running
    text cites in passing, and at most `MAX_CITATION_WORDS` words."""
    if len(paragraph.split()) > MAX_CITATION_WORDS:
        return False
    return any(_depth(paragraph, found.start()) == 0 for found in _LOCATOR.finditer(paragraph))


def _depth(text: str, end: int) -> int:
    """How many brackets, round or square, are open in `text` before `end`."""
    return sum(max(0, text.count(opening, 0, end) - text.count(closing, 0, end)) for opening, closing in ("()", "[]"))


def in_reference_sections(blocks: Sequence[tuple[str, int | None]]) -> list[bool]:
    """For each block (its text, and its rank when it is a heading: 1 the highest, None for
    running text), whether it is in a list of references: the heading that names one, and what
    follows it up to the next heading of its rank or above. A block of running text whose whole
    text names one (a "References" line no style marks as a heading) opens one that any heading
    ends. A heading before any running text is the document's title ("References", a manual's
    page on a language's references), not a list's."""
    result = []
    open_rank: int | None = None  # the rank of the references heading whose section this is
    text_before = False  # running text came before
    for text, rank in blocks:
        if open_rank is not None and rank is not None and rank <= open_rank:
            open_rank = None
        if open_rank is None and text_before and is_references_heading(text):
            open_rank = rank if rank is not None else UNRANKED
        text_before = text_before or (rank is None and bool(text))
        result.append(open_rank is not None)
    return result


def drop_html_references(tree: Any) -> None:
    """Leave out of a parsed page (lxml) its lists of references: the blocks its markup names a
    bibliography, and each section a heading (`h1`...`h6`) names one, up to the next heading of
    its rank or above (what follows the heading, or its wrapper when it is wrapped alone); not a
    heading before any paragraph, which is the page's title."""
    for element in list(tree.iter()):
        if not isinstance(element.tag, str) or element.getparent() is None:
            continue
        classes = set((element.get("class") or "").lower().split())
        types = {token for name in _EPUB_TYPE for token in (element.get(name) or "").lower().split()}
        if classes & _LIST_CLASSES or (element.get("role") or "") in _LIST_ROLES or "bibliography" in types:
            _drop(element)
    for heading in [h for h in tree.iter(*_HEADINGS) if is_references_heading("".join(h.itertext()))]:
        if heading.getparent() is None or not _attached(heading, tree) or not heading.xpath(_TEXT_BEFORE):
            continue
        rank, start = _HEADINGS[heading.tag], heading
        while (
            start.getnext() is None and start.getparent() is not None and start.getparent().tag not in ("body", "html")
        ):
            start = start.getparent()  # a heading wrapped alone (<div class="mw-heading"><h2>...)
        following = start.getnext()
        while following is not None and not _holds_heading(following, rank):
            after = following.getnext()
            _drop(following)
            following = after
        _drop(start)


def _attached(element: Any, tree: Any) -> bool:
    root = tree.getroottree().getroot() if hasattr(tree, "getroottree") else tree
    return any(ancestor is root for ancestor in element.iterancestors()) or element is root


def _holds_heading(element: Any, rank: int) -> bool:
    """Whether an element is, or holds, a heading of `rank` or above."""
    if not isinstance(element.tag, str):
        return False
    return any(_HEADINGS[h.tag] <= rank for h in element.iter(*_HEADINGS))


def _drop(element: Any) -> None:
    """Remove an element, keeping the text that follows it (its tail)."""
    parent = element.getparent()
    if parent is None:
        return
    if element.tail and element.tail.strip():
        previous = element.getprevious()
        if previous is not None:
            previous.tail = (previous.tail or "") + element.tail
        else:
            parent.text = (parent.text or "") + element.tail
    parent.remove(element)
