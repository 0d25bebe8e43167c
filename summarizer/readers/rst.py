"""reStructuredText (.rst, .rest): the running text of a document, read with docutils.

The paragraphs of the body and its sections, of list items, definitions, option descriptions,
block quotes and admonitions, each on one line, with the text of their inline markup (emphasis,
literals, links, substitutions, math as text, and roles docutils does not know: an explicit
title as Sphinx shows it, ``:ref:`the guide <guide>``` as "the guide", a target as written
but for Sphinx's "~" (``:func:`~os.path.join``` reads "join") and "!", a menu selection's
arrows as "‣"); never titles, headers and footers, the document's bibliographic fields, field
lists, literal, code and doctest blocks, tables, line blocks, comments, footnotes and citations
(nor their marks), images and figures, the table of contents, substitution definitions, raw
blocks, or the directives docutils does not know (Sphinx's `toctree`, `versionadded`,
`automodule`...) with their content.

Nothing is read from elsewhere: docutils' configuration files, `include`, and `raw` or
`csv-table` with a file or URL are off. docutils takes time that grows faster than the text in
some cases (many auto-numbered footnotes, a paragraph of thousands of unclosed inline marks), so
a document that `fits` no bound is read as plain text instead (`summarizer.readers.text`).
"""

from __future__ import annotations

import io
import re
from typing import Any

from summarizer.errors import UnreadableDocument, first_line
from summarizer.readers import text as plain
from summarizer.readers.base import ReadAs, Reader
from summarizer.readers.latex import math_text

MAX_CHARACTERS = 500_000  # a longer document is read as plain text (many footnotes: 11 s at this size)
MAX_BLOCK_CHARACTERS = 30_000  # so is one with a longer unindented block (a paragraph of inline marks: 1 s)
_ROLE = re.compile(r":([\w.+:-]+):`(.*)`", re.DOTALL)  # a role docutils does not know, as written
_EXPLICIT_TITLE = re.compile(r"(.*?)\s*<[^<>]*>", re.DOTALL)  # :ref:`title <target>`
_MARK = "\x00"  # where a footnote or citation mark was: it goes with the space before it
_LEFT_MARK = re.compile(rf"\s*{_MARK}(?=[\s.,;:!?)\]]|$)|{_MARK}")
_SETTINGS = {
    "_disable_config": True,  # no docutils.conf from the working directory, no DOCUTILSCONFIG
    "file_insertion_enabled": False,  # include, raw and csv-table read no file or URL
    "raw_enabled": False,
    "report_level": 5,  # no report on stderr: a document with errors is read as docutils reads it
    "halt_level": 5,
    "syntax_highlight": "none",
    "doctitle_xform": False,
    "line_length_limit": MAX_CHARACTERS,  # docutils drops a whole document that has a longer line
}
_BLOCK = re.compile(r"(?:^|\n)[ \t]*\n")  # a blank line


def fits(text: str) -> bool:
    """Whether docutils reads `text` in time that grows about as the text does: at most
    `MAX_CHARACTERS`, and no unindented block (between blank lines) over `MAX_BLOCK_CHARACTERS`."""
    if len(text) > MAX_CHARACTERS:
        return False
    return all(len(block) <= MAX_BLOCK_CHARACTERS or block[:1].isspace() for block in _BLOCK.split(text))


def rst_paragraphs(text: str) -> list[str]:
    """The text of each paragraph of a reStructuredText document's running text, on one line
    (empty ones, and those that are all literal text, left out)."""
    from docutils import nodes
    from docutils.core import publish_doctree

    try:
        document = publish_doctree(text, settings_overrides={**_SETTINGS, "warning_stream": io.StringIO()})
    except RecursionError:
        raise
    except Exception as error:  # docutils raises many types on input it was not written for
        raise UnreadableDocument(f"not a readable reStructuredText document: {first_line(error)}") from None
    apart = (
        nodes.title, nodes.subtitle, nodes.docinfo, nodes.field_list, nodes.literal_block, nodes.doctest_block,
        nodes.table, nodes.line_block, nodes.comment, nodes.footnote, nodes.citation, nodes.image, nodes.figure,
        nodes.substitution_definition, nodes.raw, nodes.system_message, nodes.term, nodes.classifier,
        nodes.option_group, nodes.attribution, nodes.rubric, nodes.target, nodes.decoration,
    )  # fmt: skip
    result: list[str] = []
    _blocks(document, result, apart, nodes)
    return result


def _blocks(element: Any, result: list[str], apart: tuple[type, ...], nodes: Any) -> None:
    """The paragraphs under `element`, in document order, added to `result`."""
    for child in element.children:
        if isinstance(child, apart) or (isinstance(child, nodes.topic) and "contents" in child["classes"]):
            continue
        if isinstance(child, nodes.paragraph):
            if all(isinstance(part, nodes.literal) or not part.astext().strip() for part in child.children):
                continue  # all code
            line = " ".join(_LEFT_MARK.sub("", _inline(child, nodes)).split())
            if line:
                result.append(line)
        elif isinstance(child, nodes.Element):
            _blocks(child, result, apart, nodes)


def _inline(element: Any, nodes: Any) -> str:
    """A paragraph's text, with its inline markup's text; footnote and citation marks left out."""
    parts = []
    for child in element.children:
        if isinstance(child, nodes.Text):
            parts.append(str(child))
        elif isinstance(child, (nodes.footnote_reference, nodes.citation_reference)):
            parts.append(_MARK)
        elif isinstance(child, nodes.problematic):
            parts.append(_role_text(child.astext()))
        elif isinstance(child, nodes.math):
            parts.append(math_text(child.astext()))
        elif not isinstance(child, (nodes.system_message, nodes.image)):
            parts.append(_inline(child, nodes))
    return "".join(parts)


def _role_text(source: str) -> str:
    """What a role docutils does not know shows, as Sphinx shows it: its explicit title, else its
    target without a leading "~" path (only the last name) or "!"; other markup as written."""
    role = _ROLE.fullmatch(source)
    if role is None:
        return source
    name, content = role[1], role[2]
    if name in ("menuselection", "guilabel"):  # "&" marks a shortcut's letter
        content = re.sub(r"&(?=\w)", "", content).replace("-->", "‣")
    title = _EXPLICIT_TITLE.fullmatch(content)
    if title is not None and title[1]:
        return title[1]
    if content.startswith("~"):
        return content[1:].rpartition(".")[2]
    return content.removeprefix("!")


def _read(text: str) -> list[str] | list[ReadAs]:
    """reStructuredText as docutils reads it; as plain text when docutils would take time that
    grows faster than the text (`fits`)."""
    return rst_paragraphs(text) if fits(text) else [ReadAs(plain.READER, text)]


READER = Reader(
    "rst",
    "a reStructuredText document",
    (".rst", ".rest"),
    _read,
    running_text=True,
    needs={"docutils": "docutils"},
)
