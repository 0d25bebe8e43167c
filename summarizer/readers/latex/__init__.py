"""LaTeX sources read as their typeset text reads (pylatexenc parses and renders them).

The running text is the document's body (after `\\begin{document}`, when there is one) with the
files it reads in (`\\input`, `\\include`, `\\subfile`, `\\import`), from the main file's
directory and never from outside it; its paragraphs are what blank lines, sectioning commands,
list items and blocks (an abstract, a quote, a theorem) delimit. The apparatus goes, as a PDF's
does (`summarizer.readers.pdf.typeset`): headings, the title block, floats (figures, tables,
algorithms, listings) with their captions, footnotes, parenthetical citations, the
bibliography, code, comments, notes (`\\todo`) and what a false conditional hides. What a reader
sees stays: fonts as their words, accents, quotes and dashes as characters, math as text
(`$\\alpha$` as α, display math in its sentence), references as the numbers LaTeX prints,
citations that a sentence needs as authors and years, URLs, links' text, and the document's own
commands expanded.

source (inputs, comment lines, parsing) -> definitions (commands, conditionals) -> numbering
(labels) and citations (bibliography) -> render (text) -> paragraphs.
"""

from __future__ import annotations

import re
from pathlib import Path

from summarizer.errors import UnreadableDocument, first_line
from summarizer.readers.base import LeftOut, Reader
from summarizer.readers.latex import citations, definitions, numbering, reference_list, render, source
from summarizer.text.layout import CLOSING_MARKS, SENTENCE_END

__all__ = ["READER", "latex_paragraphs", "math_text"]
_SENTENCE_BREAK = re.compile(rf"[.!?…][{re.escape(CLOSING_MARKS)}]*(?=\s)")


def latex_paragraphs(text: str, path: Path | None = None) -> tuple[list[str], list[str]]:
    """The paragraphs of a LaTeX document's running text, each on one line (perhaps ones that
    end no sentence: the record keeps those that do), and a note on each file it reads in that
    was left out. `path` is the document's file: the files it reads in and its bibliography are
    read from its directory (none without it)."""
    from pylatexenc.latexwalker import LatexEnvironmentNode

    try:
        document, left_out = source.with_inputs(text, path)
        document = source.normalized(document)
        preamble, begins, _body = document.partition("\\begin{document}")
        head = source.parse(preamble) if begins else []
        declared = tuple(sorted(numbering.theorems(head)))
        nodes = source.parse(document, _arguments(definitions.defined_commands(head)), declared)
        commands = definitions.defined_commands(nodes)
        if not begins and any(c.arguments for c in commands.values()):  # defined in the text itself
            nodes = source.parse(document, _arguments(commands), tuple(sorted(numbering.theorems(nodes))))
        body = next(
            (n.nodelist for n in nodes if isinstance(n, LatexEnvironmentNode) and n.environmentname == "document"),
            nodes,
        )
        switches = definitions.switches(nodes)
        body = reference_list.without_reference_list(definitions.chosen_branches(body, switches))
        labels = numbering.numbered_labels(body, numbering.theorems(nodes), numbering.numbered_within(nodes))
        references = citations.bibliography(nodes, None if path is None else path.resolve().parent)
        rendered = render.renderer(labels, commands, references, switches).nodelist_to_text(body)
    except UnreadableDocument:
        raise
    except RecursionError:
        raise UnreadableDocument("not readable LaTeX: nested too deeply") from None
    except Exception as error:  # pylatexenc raises many types on sources it cannot follow
        raise UnreadableDocument(f"not readable LaTeX: {first_line(error)}") from None
    paragraphs = (" ".join(p.split()) for p in render.finished(str(rendered)).split(render.PARAGRAPH))
    return [_to_last_sentence(paragraph) for paragraph in paragraphs if paragraph], left_out


def math_text(latex: str) -> str:
    """Math (the source between a formula's delimiters) as text: `\\alpha \\ne 0` as `α ≠ 0`."""
    try:
        text = render.renderer({}, {}, {}, {}).nodelist_to_text(source.parse(f"${latex}$"))
        return " ".join(render.finished(str(text)).split())
    except Exception:  # a formula pylatexenc cannot follow stays as it was written
        return latex


def _arguments(commands: dict[str, definitions.Command]) -> tuple[tuple[str, str], ...]:
    """The argument specs of the commands that take arguments, for the parser."""
    return tuple(sorted((name, command.spec) for name, command in commands.items() if command.arguments))


def _to_last_sentence(paragraph: str) -> str:
    """A paragraph up to its last sentence's end, when what follows ends none (display math or
    a list that a sentence leads into, at the paragraph's end); as it is otherwise."""
    if SENTENCE_END.search(paragraph):
        return paragraph
    ends = [found.end() for found in _SENTENCE_BREAK.finditer(paragraph)]
    return paragraph[: ends[-1]] if ends else paragraph


def _read(text: str, path: Path | None) -> list[str | LeftOut]:
    paragraphs, left_out = latex_paragraphs(text, path)
    return [*paragraphs, *(LeftOut(note) for note in left_out)]


READER = Reader(
    "latex",
    "a LaTeX document",
    (".tex", ".ltx", ".latex"),
    _read,
    running_text=True,
    with_path=True,
    needs={"pylatexenc": "pylatexenc"},
)
