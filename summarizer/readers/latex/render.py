"""pylatexenc's renderer, taught what a reader of the typeset document sees: the apparatus
left out (`DROPPED`, `DROPPED_ENVIRONMENTS`), paragraphs where sections, list items and
paragraph-like blocks start, references and citations as the document prints them, its own
commands expanded, and the math and units pylatexenc does not know."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Any

from summarizer.errors import UnreadableDocument
from summarizer.readers.latex import citations
from summarizer.readers.latex.definitions import Command, chosen_branches
from summarizer.readers.latex.numbering import NAMES, SECTIONS, UNKNOWN
from summarizer.readers.latex.source import MATH_ENVIRONMENTS, argument_nodes, inner_source, last_argument, parse

MAX_EXPANSION_DEPTH = 16  # a command defined by way of another, as deep as this
MAX_EXPANSIONS = 200_000  # commands expanded in one document, at most
PARAGRAPH = "\n\n"
MARK = "\x01"  # a footnote's mark: it goes with the space before it
XSPACE = "\x02"  # \xspace: a space, unless punctuation follows
PAGE = "\x0e"  # \pageref: a page number, which only typesetting knows
DISPLAY, DISPLAYED = "\x06", "\x07"  # around display math: in its sentence, unless it starts a paragraph
HOLE = "\x0f"  # a word the document's class prints, which this source does not define: its sentence goes
# Environments whose content is not running text: floats, code, bibliography, hidden text, keyword
# lists and authors' biographies.
DROPPED_ENVIRONMENTS = frozenset(
    "figure figure* table table* wrapfigure wraptable sidewaysfigure sidewaystable subfigure subtable "
    "tabular tabular* tabularx tabulary longtable supertabular array tikzpicture picture pgfpicture "
    "algorithm algorithm* algorithmic algorithm2e lstlisting verbatim verbatim* Verbatim minted alltt "
    "thebibliography references thereferences CSLReferences cslreferences comment titlepage filecontents "
    "filecontents* tablenotes keyword keywords IEEEkeywords IEEEbiography IEEEbiographynophoto".split()
)
# Environments whose content stands in paragraphs of its own, and lists set inside a sentence.
BLOCKS = frozenset(
    "itemize enumerate description compactitem compactenum compactdesc asparaenum asparaitem abstract quote "
    "quotation center flushleft flushright proof minipage".split()
)
INLINE_LISTS = frozenset("itemize* enumerate* description* inparaenum inparaitem inparadesc".split())
DROPPED = frozenset(
    "title author date thanks maketitle caption captionof label bibliography bibliographystyle printbibliography "
    "addbibresource tableofcontents listoffigures listoftables includegraphics nocite keywords vspace hspace "
    "newpage clearpage pagebreak linebreak noindent centering appendix input include subfile import subimport "
    "affil affiliation email newcommand renewcommand providecommand DeclareRobustCommand DeclareMathOperator "
    "def let usepackage documentclass todo missingfigure listoftodos newif newtheorem theoremstyle setlength "
    "addtolength setcounter graphicspath captionsetup bibitem tnote nolinebreak nopagebreak color addcontentsline "
    "authorrunning titlerunning tocauthor toctitle institute orcidID frametitle framesubtitle numberwithin "
    "index glossary markboth markright pacs authors".split()
)
# Commands that print nothing where they stand: font and size switches, spacing, TeX primitives.
# Any other that is defined nowhere the reader sees (the document's class defines it) and stands
# where a word does (before punctuation, "~", "\\ ", "{}" or a group's end) prints a word
# unread: its sentence goes (`HOLE`).
INVISIBLE = frozenset(
    "relax protect null strut unskip ignorespaces nobreak allowbreak break hfil hfill vfil vfill smallskip "
    "medskip bigskip newline normalfont bf it tt rm sc sf sl em bfseries itshape ttfamily sffamily rmfamily "
    "scshape slshape upshape mdseries tiny scriptsize footnotesize small normalsize large Large LARGE huge Huge "
    "sloppy fussy raggedright raggedleft frenchspacing nonfrenchspacing onecolumn twocolumn selectfont "
    "boldmath unboldmath displaystyle textstyle scriptstyle leavevmode indent par noindent hline cr".split()
)
_WORD_FOLLOWS = re.compile(r"[.,;:!?)~}]|\\ |\{\}|$")
FOOTNOTES = ("footnote", "footnotetext", "footnotemark", "thanks")
REFERENCES = {"ref": False, "pageref": False, "eqref": False, "nameref": False,
              "autoref": True, "Autoref": True, "cref": True, "Cref": True}  # fmt: skip
# The TeX family's logos, as the words they print (documents draw them with kerns and boxes).
LOGOS = {
    "TeX": "TeX", "LaTeX": "LaTeX", "latex": "LaTeX", "LaTeXe": "LaTeX2e", "BibTeX": "BibTeX", "AmS": "AMS",
    "AmSTeX": "AMS-TeX", "AMSTeX": "AMS-TeX", "XeTeX": "XeTeX", "XeLaTeX": "XeLaTeX", "LuaTeX": "LuaTeX",
    "LuaLaTeX": "LuaLaTeX", "pdfTeX": "pdfTeX", "pdfLaTeX": "pdfLaTeX", "ConTeXt": "ConTeXt", "MF": "Metafont",
    "MP": "MetaPost", "eTeX": "e-TeX",
}  # fmt: skip
# Math and units pylatexenc leaves out, as the characters they print.
RELATIONS = {
    "ne": "≠", "land": "∧", "lor": "∨", "iff": "⟺", "implies": "⟹", "impliedby": "⟸", "models": "⊨",
    "coloneqq": "≔", "coloneq": "≔", "eqqcolon": "≕", "vee": "∨", "wedge": "∧",
}  # fmt: skip
SYMBOLS = {
    "bot": "⊥", "|": "‖", "Vert": "‖", "neg": "¬", "arg": "arg ", "euro": "€", "texteuro": "€",
    "tablename": "Table", "figurename": "Figure", "hspace": " ", "choose": " choose ",
    "meter": "m", "metre": "m", "second": "s", "kilogram": "kg", "gram": "g", "percent": "%", "hertz": "Hz",
    "kilo": "k", "mega": "M", "giga": "G", "tera": "T", "milli": "m", "micro": "µ", "nano": "n", "byte": "B",
    "celsius": "°C", "degreeCelsius": "°C", "watt": "W", "joule": "J", "volt": "V", "ampere": "A",
    "newton": "N", "hour": "h", "minute": "min", "litre": "L", "liter": "L", "bit": "bit", "per": "/",
}  # fmt: skip
_XSPACE_PUNCTUATION = re.compile(rf"{XSPACE}(?=[.,;:!?)\]'’”/~\-]|$)")  # xspace's own exceptions
_LEADING_DISPLAY = re.compile(rf"(?:(?<=\n\n)|^)(?:\s*{DISPLAY}[^{DISPLAYED}]*{DISPLAYED})+")
# Display math after a finished sentence is no sentence's: it stands between two.
_DISPLAY_AFTER_SENTENCE = re.compile(rf"([.!?][\"'”’)\]]*)(?:\s*{DISPLAY}[^{DISPLAYED}]*{DISPLAYED})+")
_SPACES = re.compile(r"[^\S\n]+")
_SENTENCE_END = re.compile(r"[.!?…][\"'”’)\]]*$")
_BLANK_LINES = re.compile(r"\n(?: ?\n)+")
_SCRIPT_GROUP = re.compile(r"([_^])\{([^{}]{2,})\}")  # x^{n-2}: read as x^(n-2), not x^n-2
_DISPLAY_MARKS = re.compile(f"[{DISPLAY}{DISPLAYED}]")
# A page reference in an aside, "(see page 4)" or ", see p. 4,", goes with it; any other reads
# as LaTeX prints a number it does not know.
_PAGE_WORDS = rf"(?:on )?(?:pp?\. ?|pages? )?{PAGE}"
_PAGE_ASIDE = re.compile(rf" ?\((?:see |cf\. )?{_PAGE_WORDS}\)|, (?:see |cf\. ){_PAGE_WORDS}(?:,|(?=[.;:]))", re.I)
_BEFORE_MARK = re.compile(rf"[^\S\n]*\n?[^\S\n]*{MARK}")


def renderer(
    labels: dict[str, tuple[str, str]],
    commands: dict[str, Command],
    references: dict[str, citations.Reference],
    switches: dict[str, bool],
) -> Any:
    """A pylatexenc `LatexNodes2Text` for one document."""
    return _renderer_class()(labels, commands, references, switches)


def finished(text: str) -> str:
    """Rendered text with its marks resolved: citations as `citations.resolved` reads them,
    footnote marks out with the space before them, display math that starts a paragraph out, a
    page reference out with the aside it is in (else `??`), `\\xspace` a space unless
    punctuation follows. White space is made single first (a line of spaces or tabs ends a
    paragraph, as TeX reads it), so that no pattern here meets a long run."""
    text = _BLANK_LINES.sub("\n\n", _SPACES.sub(" ", text))
    text = citations.resolved(_BEFORE_MARK.sub("", text))
    text = _DISPLAY_AFTER_SENTENCE.sub(r"\1", _LEADING_DISPLAY.sub("", text))
    text = _PAGE_ASIDE.sub("", _DISPLAY_MARKS.sub("", text)).replace(PAGE, UNKNOWN[1])
    text = text.replace("\u00ad", "")  # soft hyphens (\\-) out of their words
    text = _without_holes(text)
    return _XSPACE_PUNCTUATION.sub("", text).replace(XSPACE, " ")


def _without_holes(text: str) -> str:
    """`text` less each sentence with a word unread (`HOLE`) in it."""
    if HOLE not in text:
        return text
    paragraphs = []
    for paragraph in text.split(PARAGRAPH):
        if HOLE in paragraph:
            sentences, current = [], []
            for word in paragraph.split(" "):
                current.append(word)
                if _SENTENCE_END.search(word):
                    sentences.append(" ".join(current))
                    current = []
            sentences.append(" ".join(current))
            paragraph = " ".join(sentence for sentence in sentences if sentence and HOLE not in sentence)
        paragraphs.append(paragraph)
    return PARAGRAPH.join(paragraphs)


@functools.cache
def _renderer_class() -> type:
    from pylatexenc.latex2text import LatexNodes2Text
    from pylatexenc.latexwalker import LatexEnvironmentNode

    class Renderer(LatexNodes2Text):
        def __init__(
            self,
            labels: dict[str, tuple[str, str]],
            commands: dict[str, Command],
            references: dict[str, citations.Reference],
            switches: dict[str, bool],
        ) -> None:
            super().__init__(latex_context=_text_context(), math_mode="text")
            self.labels, self.commands, self.references, self.switches = labels, commands, references, switches
            self.depth = self.expansions = 0
            self.defined = tuple(sorted((name, c.spec) for name, c in commands.items() if c.arguments))

        def macro_node_to_text(self, node: Any) -> str:
            if node.macroname in LOGOS:  # as TeX prints it, whatever a document's own definition draws
                return LOGOS[node.macroname] + (" " if getattr(node, "macro_post_space", "") else "")
            command = self.commands.get(node.macroname)
            if command is None and self.unread_word(node):
                return HOLE
            if command is None or self.depth >= MAX_EXPANSION_DEPTH:
                return str(super().macro_node_to_text(node))
            values = [None if a is None else inner_source(a) for a in argument_nodes(node) or []]
            if command.default is not None and values and values[0] is None:
                values[0] = command.default
            body = re.sub(r"#([1-9])", lambda m: _nth(values, int(m.group(1)) - 1), command.body)
            self.expansions += 1
            if self.expansions > MAX_EXPANSIONS:
                raise UnreadableDocument(f"its commands expand more than {MAX_EXPANSIONS:,} times")
            self.depth += 1
            try:
                text = str(self.nodelist_to_text(chosen_branches(_parsed(body, self.defined), self.switches)))
            finally:
                self.depth -= 1
            # TeX drops the space after a command's name; a sentence that reads "\\method is" means one.
            return text + (" " if not command.arguments and bool(getattr(node, "macro_post_space", None)) else "")

        def unread_word(self, node: Any) -> bool:
            """Whether `node` is a command that stands for a word but that neither pylatexenc nor the
            document defines (`INVISIBLE`)."""
            if node.macroname in INVISIBLE or not node.macroname.isalpha() or (argument_nodes(node) or []):
                return False
            if self.latex_context.get_macro_spec(node.macroname).macroname:
                return False
            following = node.parsing_state.s[node.pos + node.len :].lstrip(" \t")
            return _WORD_FOLLOWS.match(following) is not None

        def math_node_to_text(self, node: Any) -> str:
            """Math as text, display math too: in its sentence, as the page sets it. A sub- or
            superscript of several characters keeps its grouping: x^{n-2} as x^(n-2)."""
            verbatim = str(node.latex_verbatim())
            if _SCRIPT_GROUP.search(verbatim):
                grouped = parse(_SCRIPT_GROUP.sub(r"\1{(\2)}", verbatim))
                if len(grouped) == 1 and type(grouped[0]) is type(node):
                    node = grouped[0]
            text = " ".join(str(super().math_node_to_text(node)).split())
            if isinstance(node, LatexEnvironmentNode) or node.displaytype == "display":
                return f" {DISPLAY}{text}{DISPLAYED} "
            return text

        def reference(self, node: Any, named: bool) -> str:
            keys = [key.strip() for key in last_argument(node).split(",") if key.strip()]
            found = [self.labels.get(key, UNKNOWN) for key in keys]
            if node.macroname == "eqref":
                return _listed([f"({number})" for _kind, number in found])
            if node.macroname == "pageref":
                return PAGE
            if not named:
                return _listed([number for _kind, number in found])
            kinds = {kind for kind, _number in found}
            if len(kinds) == 1:  # "Figures 1 and 2", in order as cleveref sorts them
                plural = "s" if len(found) > 1 else ""
                numbers = sorted((number for _kind, number in found), key=_number_order)
                return f"{_name(found[0][0])}{plural} {_listed(numbers)}"
            return _listed([f"{_name(kind)} {number}" for kind, number in found])

        def citation(self, node: Any) -> str:
            keys = [key.strip() for key in last_argument(node).split(",") if key.strip()]
            name = node.macroname
            if name in citations.PARENTHETICAL:
                return citations.CITED + citations.citation_text(keys, self.references) + citations.ENDED
            form = "authors" if name in citations.AUTHORS else "year" if name in citations.YEARS else "author-year"
            text = citations.citation_text(keys, self.references, form)
            return f"({text})" if name == "citeyearpar" else text

    return Renderer


def _name(kind: str) -> str:
    return NAMES.get(kind, kind if kind[:1].isupper() else "Section")


@functools.lru_cache(maxsize=4096)
def _parsed_cached(body: str, defined: tuple[tuple[str, str], ...]) -> tuple[Any, ...]:
    return tuple(parse(body, defined))


def _parsed(body: str, defined: tuple[tuple[str, str], ...]) -> list[Any]:
    """A command body's nodes, parsed once per body; one with a conditional each time (choosing
    its branches changes the nodes, by the document's switches)."""
    return parse(body, defined) if "\\if" in body else list(_parsed_cached(body, defined))


def _number_order(number: str) -> tuple[int | str, ...]:
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"[.]", number))


def _listed(items: Sequence[str]) -> str:
    """ "1", "1 and 2", "1, 2 and 3"."""
    return " and ".join([", ".join(items[:-1]), items[-1]]) if len(items) > 1 else "".join(items)


def _nth(values: Sequence[str | None], index: int) -> str:
    return (values[index] or "") if index < len(values) else ""


@functools.cache
def _text_context() -> Any:
    from pylatexenc import latex2text
    from pylatexenc.latex2text import EnvironmentTextSpec, MacroTextSpec

    def paragraph(_node: Any) -> str:
        return PARAGRAPH

    def item(node: Any, l2tobj: Any) -> str:
        label = (argument_nodes(node) or [None])[0]
        text = " ".join(str(l2tobj.nodelist_to_text([label])).split()) if label is not None else ""
        return PARAGRAPH + (f"{text}{'' if text[-1:] in ':.' else ':'} " if text else "")

    def reference(named: bool) -> Any:
        return lambda node, l2tobj: l2tobj.reference(node, named)

    def citation(node: Any, l2tobj: Any) -> str:
        return str(l2tobj.citation(node))

    def link_text(node: Any, l2tobj: Any) -> str:
        arguments = [a for a in argument_nodes(node) or [] if a is not None]
        return str(l2tobj.nodelist_to_text(arguments[-1:]))

    def arguments_text(separator: str) -> Any:
        def text(node: Any, l2tobj: Any) -> str:
            arguments = [a for a in argument_nodes(node) or [] if getattr(a, "delimiters", None) == ("{", "}")]
            return separator.join(str(l2tobj.nodelist_to_text([a])).strip() for a in arguments)

        return text

    def block(node: Any, l2tobj: Any) -> str:
        return PARAGRAPH + str(l2tobj.nodelist_to_text(node.nodelist)) + PARAGRAPH

    def inline(node: Any, l2tobj: Any) -> str:  # a list run into its sentence (itemize*, inparaenum)
        return " ".join(str(l2tobj.nodelist_to_text(node.nodelist)).split())

    def math(node: Any, l2tobj: Any) -> str:
        return str(l2tobj.math_node_to_text(node))

    def frame(node: Any, l2tobj: Any) -> str:  # a Beamer slide: its text, not its title ({Title} first)
        content = list(node.nodelist)
        while content and getattr(content[0], "chars", "x").strip() == "":
            content.pop(0)
        if content and getattr(content[0], "delimiters", None) == ("{", "}"):
            content.pop(0)
        return PARAGRAPH + str(l2tobj.nodelist_to_text(content)) + PARAGRAPH

    def quoted(node: Any, l2tobj: Any) -> str:
        return f"“{link_text(node, l2tobj)}”"

    macros = [MacroTextSpec(name, simplify_repl=lambda _node: MARK) for name in FOOTNOTES]
    cited = citations.PARENTHETICAL | citations.AUTHOR_YEAR | citations.AUTHORS | citations.YEARS
    macros += [MacroTextSpec(name, simplify_repl=citation) for name in sorted(cited)]
    macros += [MacroTextSpec(name, simplify_repl=paragraph) for name in (*SECTIONS, "par")]
    macros += [MacroTextSpec(name, discard=True) for name in sorted(DROPPED)]
    macros += [MacroTextSpec(name, simplify_repl=reference(named)) for name, named in REFERENCES.items()]
    macros += [MacroTextSpec(name, simplify_repl=symbol) for name, symbol in SYMBOLS.items()]
    macros += [MacroTextSpec(name, simplify_repl=f" {symbol} ") for name, symbol in RELATIONS.items()]
    macros += [
        MacroTextSpec("item", simplify_repl=item),
        MacroTextSpec("href", simplify_repl=link_text),
        MacroTextSpec("hyperref", simplify_repl=link_text),
        MacroTextSpec("url", simplify_repl=lambda node: last_argument(node).strip()),
        MacroTextSpec("xspace", simplify_repl=lambda _node: XSPACE),
        MacroTextSpec("S", simplify_repl="§"),
        MacroTextSpec("@ifnextchar", simplify_repl=lambda node: ""),
        MacroTextSpec("tfrac", simplify_repl=arguments_text("/")),
        MacroTextSpec("dfrac", simplify_repl=arguments_text("/")),
        MacroTextSpec("binom", simplify_repl=lambda node, l2tobj: f"C({arguments_text(', ')(node, l2tobj)})"),
        MacroTextSpec("SI", simplify_repl=arguments_text(" ")),
        MacroTextSpec("qty", simplify_repl=arguments_text(" ")),
        *(MacroTextSpec(name, discard=False) for name in ("mbox", "textsuperscript", "textsubscript", "operatorname")),
        *(MacroTextSpec(name, discard=False) for name in ("si", "num", "unit")),
    ]
    environments = [EnvironmentTextSpec(name, discard=True) for name in sorted(DROPPED_ENVIRONMENTS)]
    environments += [EnvironmentTextSpec(name, simplify_repl=block) for name in sorted(BLOCKS)]
    environments += [EnvironmentTextSpec(name, simplify_repl=inline) for name in sorted(INLINE_LISTS)]
    environments += [EnvironmentTextSpec(name, simplify_repl=math) for name in sorted(MATH_ENVIRONMENTS)]
    environments += [EnvironmentTextSpec("frame", simplify_repl=frame)]

    def typeset_text(node: Any, l2tobj: Any) -> str:  # \\texorpdfstring{what TeX sets}{a PDF bookmark's}
        arguments = [a for a in argument_nodes(node) or [] if a is not None]
        return str(l2tobj.nodelist_to_text(arguments[:1]))

    def delimited(opening: str, closing: str) -> Any:
        """A guide's \\marg{text} as it prints, {text}; \\marg{\\\\name} as {\\name}."""

        def text(node: Any, l2tobj: Any) -> str:
            inner = link_text(node, l2tobj).strip() or last_argument(node).strip().replace("\\\\", "\\")
            return f"{opening}{inner}{closing}"

        return text

    macros += [
        # A guide's own commands that print commands and their arguments (ltxdoc's, ltxguide's)
        MacroTextSpec("cmd", simplify_repl=lambda node: last_argument(node).strip()),
        MacroTextSpec("cs", simplify_repl=lambda node: "\\" + last_argument(node).strip()),
        MacroTextSpec("marg", simplify_repl=delimited("{", "}")),
        MacroTextSpec("oarg", simplify_repl=delimited("[", "]")),
        MacroTextSpec("parg", simplify_repl=delimited("(", ")")),
        MacroTextSpec("meta", simplify_repl=delimited("⟨", "⟩")),
        MacroTextSpec("enquote", simplify_repl=quoted),
        MacroTextSpec("texorpdfstring", simplify_repl=typeset_text),
    ]
    context = latex2text.get_default_latex_context_db()
    context.add_context_category("bertsum", macros=macros, environments=environments, prepend=True)
    context.set_unknown_macro_spec(MacroTextSpec("", discard=False))  # \mbox-like: its text
    context.set_unknown_environment_spec(EnvironmentTextSpec("", simplify_repl=block))  # a theorem, a box
    return context
