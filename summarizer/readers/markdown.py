"""Markdown (CommonMark with tables, footnotes and front matter, read by markdown-it-py):
paragraphs, list items and block quotes, with their link text; never headings, code, tables,
images or HTML, nor a paragraph that ends no sentence (a label, a caption, a line of badges).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING

import regex

from summarizer.readers.base import Entry, Reader
from summarizer.readers.latex import math_text
from summarizer.text.layout import CLOSING_MARKS

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

_SENTENCE_TERMINAL = regex.compile(rf"(?r)[\p{{Sentence_Terminal}}…][{CLOSING_MARKS}]*$")


def markdown_paragraphs(text: str, math: bool = False) -> list[str]:
    """Paragraphs, list items (each an `Entry`) and block quotes of Markdown (CommonMark with tables, footnotes and
    front matter), with the text of links and inline code; never headings, code blocks, tables,
    images, badges, HTML, link targets or footnotes (left out as a PDF's are, with their marks),
    nor a paragraph that is all code (the record keeps those that end a sentence: a label, a
    caption, a line of badges is not running text, as a heading is not). With `math`, as Jupyter renders it: `$x^2$`
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
            if "list_item_open" in enclosing:
                paragraph = Entry(paragraph)
            code = all(child.type == "code_inline" or not child.content.strip() for child in children)
            before, interrupted = held
            if interrupted and paragraph[:1].islower():
                paragraph, code = f"{interrupted} {paragraph}", False
            elif before:
                result.append(before)
            interrupted = _interrupted(paragraph, tokens, index + 1) if math and not code else ""
            held = (paragraph, interrupted) if interrupted else ("", "")
            if not code and not interrupted:
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


READER = Reader(
    "markdown",
    "a Markdown document",
    (".md", ".markdown", ".mdown", ".mkd"),
    markdown_paragraphs,
    running_text=True,
    needs={"markdown_it": "markdown-it-py", "mdit_py_plugins": "mdit-py-plugins"},
)
