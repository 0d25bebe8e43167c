"""A document's list of references, which is none of its running text: the section a heading
names one ("\\section*{References}", `summarizer.text.apparatus`), up to the next heading of its
level or above; and the entries typed by hand outside a `thebibliography` (a `\\bibitem` in the
body: what follows it, up to the next heading). The environments that hold such lists
(`thebibliography`, pandoc's `CSLReferences`) are left out where the text is rendered
(`render.DROPPED_ENVIRONMENTS`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from summarizer.readers.latex.numbering import SECTIONS
from summarizer.readers.latex.source import last_argument
from summarizer.text.apparatus import is_references_heading

_MARKUP = re.compile(r"\\[a-zA-Z]+\*?|[{}~]")
_ENTRY = len(SECTIONS)  # a hand-typed entry's list ends at any heading


def without_reference_list(nodes: Sequence[Any]) -> list[Any]:
    """The body's nodes (its top level) less its lists of references."""
    from pylatexenc.latexwalker import LatexMacroNode

    kept: list[Any] = []
    dropping: int | None = None  # the level of the heading (or entry) whose list this is
    for node in nodes:
        if isinstance(node, LatexMacroNode) and node.macroname in SECTIONS:
            level = SECTIONS.index(node.macroname)
            if dropping is not None and level <= dropping:
                dropping = None
            if dropping is None and kept and is_references_heading(_MARKUP.sub(" ", last_argument(node))):
                dropping = level
        elif isinstance(node, LatexMacroNode) and node.macroname == "bibitem" and dropping is None:
            dropping = _ENTRY
        if dropping is None:
            kept.append(node)
    return kept
