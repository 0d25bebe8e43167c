"""What a LaTeX document's `\\label`s stand for: the number LaTeX would print for a `\\ref`,
counted as LaTeX counts (sections, appendices, chapters; figures, tables and equations, within
chapters when there are some; subfigures as "2b"; each numbered row of an `align`; theorems
and the like as `\\newtheorem` declares them; algorithms), and the kind of thing it is, which
`\\autoref` and `\\cref` name."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from summarizer.readers.latex.source import argument_nodes, inner_source, last_argument, starred, walk

SECTIONS = ("part", "chapter", "section", "subsection", "subsubsection", "paragraph", "subparagraph")
_NUMBERED_SECTIONS = SECTIONS[:5]
EQUATIONS = frozenset("equation align gather multline flalign alignat eqnarray".split())  # numbered unstarred
_ROWS = frozenset("align gather flalign alignat eqnarray".split())  # a number per row
FLOATS = {"figure": "figure", "figure*": "figure", "wrapfigure": "figure", "sidewaysfigure": "figure",
          "table": "table", "table*": "table", "wraptable": "table", "sidewaystable": "table",
          "algorithm": "algorithm", "algorithm*": "algorithm"}  # fmt: skip
SUBFLOATS = ("subfigure", "subtable", "subfloat")
NAMES = {"section": "Section", "appendix": "Appendix", "figure": "Figure", "table": "Table", "part": "Part",
         "equation": "Equation", "chapter": "Chapter", "algorithm": "Algorithm", "item": "Item"}  # fmt: skip
UNKNOWN = ("section", "??")


@dataclass(frozen=True)
class Theorem:
    """A theorem-like environment (`\\newtheorem`): its name, the counter it steps (its own or
    one it shares) and the sectioning level it is numbered within."""

    name: str
    counter: str
    within: str | None


def theorems(nodes: Sequence[Any]) -> dict[str, Theorem]:
    """The environments that `\\newtheorem` declares (`{env}{Name}[within]`, or `{env}[shared]{Name}`,
    numbered within what the shared counter's is)."""
    from pylatexenc.latexwalker import LatexMacroNode

    found: dict[str, Theorem] = {}
    for node in walk(nodes):
        if not (isinstance(node, LatexMacroNode) and node.macroname == "newtheorem"):
            continue
        _star, env, shared, name, within = ((argument_nodes(node) or []) + [None] * 5)[:5]
        if env is None or name is None:
            continue
        counter = inner_source(shared).strip() if shared is not None else inner_source(env).strip()
        within_name = inner_source(within).strip() if within is not None else None
        if shared is not None and counter in found:
            within_name = found[counter].within
        found[inner_source(env).strip()] = Theorem(inner_source(name).strip(), counter, within_name)
    return found


def numbered_within(nodes: Sequence[Any]) -> dict[str, str]:
    """The counters that `\\numberwithin{counter}{section}` numbers within a sectioning level."""
    from pylatexenc.latexwalker import LatexMacroNode

    found = {}
    for node in walk(nodes):
        if isinstance(node, LatexMacroNode) and node.macroname == "numberwithin":
            arguments = [
                inner_source(a).strip()
                for a in argument_nodes(node) or []
                if getattr(a, "delimiters", None) == ("{", "}")
            ]
            if len(arguments) == 2:
                found[arguments[0]] = arguments[1]
    return found


@dataclass
class _Counters:
    sections: list[int] = field(default_factory=lambda: [0] * len(_NUMBERED_SECTIONS))
    appendix: bool = False
    counts: dict[str, int] = field(default_factory=dict)  # figure, table, equation, algorithm, theorems
    current: tuple[str, str] = UNKNOWN  # what a \label names now: the last counter stepped
    within: dict[str, str] = field(default_factory=dict)  # counters numbered within a sectioning level

    @property
    def chapters(self) -> bool:
        return self.sections[1] > 0

    def section(self, level: int) -> tuple[str, str]:
        self.sections[level] += 1
        self.sections[level + 1 :] = [0] * (len(self.sections) - level - 1)
        chapter_wise = ("figure", "table", "equation") if level == 1 else ()  # a book's floats count per chapter
        self.counts = {
            counter: count
            for counter, count in self.counts.items()
            if counter not in chapter_wise and (counter not in self.within or self._level(self.within[counter]) < level)
        }
        if level == 0:
            return "part", str(self.sections[0])
        top = 1 if self.chapters else 2
        numbers = [str(n) for n in self.sections[top : level + 1]]
        if self.appendix and numbers:
            numbers[0] = _letters(int(numbers[0]))
        if self.appendix and level == top:
            return "appendix", ".".join(numbers)
        return ("chapter" if level == 1 else "section"), ".".join(numbers)

    def start_appendix(self) -> None:
        self.appendix = True
        top = 1 if self.chapters else 2
        self.sections[top:] = [0] * (len(self.sections) - top)

    @staticmethod
    def _level(within: str | None) -> int:
        return _NUMBERED_SECTIONS.index(within) if within in _NUMBERED_SECTIONS else len(_NUMBERED_SECTIONS)

    def step(self, counter: str, kind: str, within: str | None = None) -> tuple[str, str]:
        """Step `counter` (numbered `within` a sectioning level from now on, when given)."""
        if within is not None:
            self.within[counter] = within
        self.counts[counter] = self.counts.get(counter, 0) + 1
        return kind, self._number(counter, self.counts[counter])

    def peek(self, counter: str) -> str:
        """The number `counter` will take when next stepped (a figure's, for its subfigures)."""
        return self._number(counter, self.counts.get(counter, 0) + 1)

    def _number(self, counter: str, count: int) -> str:
        """How LaTeX prints `count` of `counter`: after the sectioning numbers it is within, or
        the chapter's for floats and equations of a book."""
        within = self.within.get(counter)
        if within in _NUMBERED_SECTIONS:
            top = 1 if self.chapters else 2
            prefix = [str(n) for n in self.sections[top : _NUMBERED_SECTIONS.index(within) + 1]]
            return ".".join([*prefix, str(count)])
        if within is None and self.chapters and counter in ("figure", "table", "equation"):
            return f"{self.sections[1]}.{count}"
        return str(count)


def _letters(number: int) -> str:
    letters = ""
    while number > 0:
        number, rest = divmod(number - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters


def numbered_labels(
    nodes: Sequence[Any], declared: dict[str, Theorem], within: dict[str, str] | None = None
) -> dict[str, tuple[str, str]]:
    """Each label of `nodes`: the kind and the number of what it labels. An environment ends what
    its labels refer to, as its group ends LaTeX's current label. `within` are the counters that
    `\\numberwithin` numbers within a sectioning level."""
    from pylatexenc.latexwalker import LatexEnvironmentNode, LatexMacroNode

    counters, labels = _Counters(within=dict(within or {})), dict[str, tuple[str, str]]()
    counters.within.update({t.counter: t.within for t in declared.values() if t.within})
    floats: list[tuple[str, str, bool]] = []  # the floats around the node: kind, number it takes, a subfloat
    subfloats: list[int] = []  # per float: subfloats so far

    def visit(node_list: Sequence[Any], rows: bool = False) -> None:
        for node in node_list:
            if isinstance(node, LatexMacroNode):
                name = node.macroname
                if name in _NUMBERED_SECTIONS and not starred(node):
                    counters.current = counters.section(_NUMBERED_SECTIONS.index(name))
                elif name == "appendix":
                    counters.start_appendix()
                elif name == "caption" and floats:
                    kind, number, sub = floats[-1]  # a subfloat's caption steps no float counter
                    counters.current = (kind, number) if sub else counters.step(kind, kind)
                elif name == "label":
                    labels.setdefault(last_argument(node).strip(), counters.current)
                elif name == "\\" and rows:
                    counters.current = counters.step("equation", "equation")
                elif name in ("nonumber", "notag") and rows:
                    counters.counts["equation"] = counters.counts.get("equation", 1) - 1
                elif name == "item":
                    counters.current = ("item", str(counters.counts.get("item", 0) + 1))
                    counters.counts["item"] = counters.counts.get("item", 0) + 1
                visit([a for a in argument_nodes(node) or [] if a is not None])
            elif isinstance(node, LatexEnvironmentNode):
                enter(node)
            elif getattr(node, "nodelist", None):
                visit(node.nodelist, rows)

    def enter(node: Any) -> None:
        name, saved = node.environmentname, counters.current
        saved_items = counters.counts.get("item")
        kind = FLOATS.get(name)
        if name in EQUATIONS:
            counters.current = counters.step("equation", "equation")
        elif name in declared:
            theorem = declared[name]
            counters.current = counters.step(theorem.counter, theorem.name, theorem.within)
        elif name in ("enumerate", "itemize", "description"):
            counters.counts["item"] = 0
        if kind is not None:
            floats.append((kind, counters.peek(kind), False))
            subfloats.append(0)
            visit(node.nodelist)
            floats.pop()
            subfloats.pop()
        elif name in SUBFLOATS and floats:
            subfloats[-1] += 1
            parent, number, _sub = floats[-1]
            counters.current = (parent, f"{number}{chr(ord('a') + subfloats[-1] - 1)}")
            floats.append((*counters.current, True))
            visit(node.nodelist)
            floats.pop()
        else:
            visit(node.nodelist, rows=name in _ROWS)
        counters.current = saved
        if saved_items is not None:
            counters.counts["item"] = saved_items

    visit(nodes)
    return labels
