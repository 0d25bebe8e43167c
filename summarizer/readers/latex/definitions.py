"""What a LaTeX document defines for itself: its commands (`\\newcommand`, `\\def`,
`\\DeclareMathOperator`) and its conditionals (`\\iffalse`, `\\newif` switches), so that its
text reads as the commands expand and the conditionals choose."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from summarizer.readers.latex.source import argument_nodes, inner_source, walk

NEW_COMMANDS = ("newcommand", "renewcommand", "providecommand", "DeclareRobustCommand")


@dataclass(frozen=True)
class Command:
    """A command the document defines: how many arguments it takes, the first one's default
    when it is optional, and its body's source (`#1`... where the arguments go)."""

    arguments: int
    default: str | None
    body: str

    @property
    def spec(self) -> str:
        """pylatexenc's argument spec of the command."""
        return ("[" if self.default is not None else "{") + "{" * (self.arguments - 1) if self.arguments else ""


def defined_commands(nodes: Sequence[Any]) -> dict[str, Command]:
    """The commands that `nodes` define, by name (a later definition replaces an earlier one)."""
    from pylatexenc.latexwalker import LatexMacroNode

    commands: dict[str, Command] = {}
    for node in walk(nodes):
        if not isinstance(node, LatexMacroNode):
            continue
        found = _definition(node)
        if found is not None:
            name, command = found
            if name.replace("@", "").isalpha():
                commands[name] = command
    return commands


def _definition(node: Any) -> tuple[str, Command] | None:
    arguments = argument_nodes(node)
    if not arguments:
        return None
    if node.macroname in NEW_COMMANDS:
        _star, name, count, default, body = (arguments + [None] * 5)[:5]
        if name is None or body is None:
            return None
        try:
            number = int(inner_source(count).strip()) if count is not None else 0
        except ValueError:
            return None
        if not 0 <= number <= 9:  # as TeX allows
            return None
        return _name(name), Command(number, None if default is None else inner_source(default), inner_source(body))
    if node.macroname == "def" and len(arguments) == 2 and None not in arguments:
        name, body = arguments  # \def\name{body}; one with parameters (\def\name#1{...}) has no group here
        if getattr(body, "delimiters", None) == ("{", "}"):
            return _name(name), Command(0, None, inner_source(body))
    if node.macroname == "DeclareMathOperator" and len(arguments) >= 3 and None not in arguments[-2:]:
        return _name(arguments[-2]), Command(0, None, f"\\operatorname{{{inner_source(arguments[-1])}}}")
    return None


def _name(node: Any) -> str:
    return inner_source(node).strip().lstrip("\\")


def switches(nodes: Sequence[Any]) -> dict[str, bool]:
    """The `\\newif` switches that `nodes` declare, with the value each is last set to
    (`\\nametrue`, `\\namefalse`; false until set)."""
    from pylatexenc.latexwalker import LatexMacroNode

    values: dict[str, bool] = {}
    for node in walk(nodes):
        if not isinstance(node, LatexMacroNode):
            continue
        declared = argument_nodes(node) if node.macroname == "newif" else None
        if declared:
            name = _name(declared[-1] or node)
            if name.startswith("if") and len(name) > 2:
                values[name[2:]] = False
        else:
            for switch in values:
                if node.macroname in (switch + "true", switch + "false"):
                    values[switch] = node.macroname.endswith("true")
    return values


def chosen_branches(nodes: Sequence[Any], values: dict[str, bool]) -> list[Any]:
    """`nodes` with each conditional whose value is known (`\\iftrue`, `\\iffalse`, a switch of
    `values`) replaced by the branch it takes, at any depth; others (`\\ifdefined`...) keep their
    first branch. Nested conditionals are matched with their `\\fi`."""
    from pylatexenc.latexwalker import LatexMacroNode

    result: list[Any] = []
    stack: list[tuple[bool, bool]] = []  # per open conditional: does it show its first branch, are we past \else
    for node in nodes:
        name = node.macroname if isinstance(node, LatexMacroNode) else None
        if name is not None and name.startswith("if") and (name in ("iftrue", "iffalse") or name[2:] in values):
            stack.append((name == "iftrue" or values.get(name[2:], False), False))
            continue
        if name is not None and name.startswith("if") and stack:
            stack.append((True, False))  # an unknown conditional inside a known one: counted for its \fi
            continue
        if name == "else" and stack:
            stack[-1] = (stack[-1][0], True)
            continue
        if name == "fi" and stack:
            stack.pop()
            continue
        if all(shows != past_else for shows, past_else in stack):
            if getattr(node, "nodelist", None):
                node.nodelist = chosen_branches(node.nodelist, values)
            result.append(node)
    return result
