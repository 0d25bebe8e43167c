"""Equations as the text they read as: Word's (Office Math, OMML) and OpenDocument's (MathML).

A fraction reads "a/b", a script "x^2" or "x_i", a root "√(x)", a big operator with its limits
"∑_(i=1)^n", brackets as they are set; a group of more than one symbol in a script or a
fraction is bracketed ("x^(n-2)"), as LaTeX's math is read (`summarizer.readers.latex`). Relations
and the arithmetic operators stand between spaces: "E = mc^2".
"""

from __future__ import annotations

import re
from typing import Any

_M = "{http://schemas.openxmlformats.org/officeDocument/2006/math}"
_MATHML = "{http://www.w3.org/1998/Math/MathML}"
_OPERATOR = re.compile(r"\s*([=<>≤≥≠≈≡∼∝→←↔⇒⇔∈∉⊂⊆+±∓×÷·−])\s*")
_SIMPLE = re.compile(r"[\w.′'∞]+|.")  # a script or fraction part that needs no brackets: one symbol or number


def spaced(text: str) -> str:
    """Math's text with its relations and operators between single spaces (a sign stays by its
    number: "-1", "x = -1")."""
    text = _OPERATOR.sub(r" \1 ", text)
    text = re.sub(r"(^|[(\[{=<>≤≥≠≈,] )([+−-]) (?=\w)", r"\1\2", text)  # a sign, not an operator
    return " ".join(text.split())


def _grouped(text: str) -> str:
    text = text.strip()
    return text if _SIMPLE.fullmatch(text) else f"({text})"


def omml_text(element: Any) -> str:
    """The text of an Office Math element (`m:oMath`, `m:oMathPara`, or any part of one)."""
    return spaced(_omml(element))


def _omml(element: Any) -> str:
    tag = element.tag
    if not isinstance(tag, str) or tag.endswith("Pr"):  # properties: no text
        return ""
    name = tag.removeprefix(_M)

    def part(child: str) -> str:
        found = element.find(f"{_M}{child}")
        return "" if found is None else _omml(found)

    def setting(properties: str, child: str, default: str) -> str:
        found = element.find(f"{_M}{properties}/{_M}{child}")
        return default if found is None else found.get(f"{_M}val", default)

    if name == "t":
        return element.text or ""
    if name == "f":
        return f"{_grouped(part('num'))}/{_grouped(part('den'))}"
    if name in ("sSup", "sSub", "sSubSup", "sPre"):
        subscript, superscript = part("sub"), part("sup")
        scripts = (f"_{_grouped(subscript)}" if subscript else "") + (
            f"^{_grouped(superscript)}" if superscript else ""
        )
        return scripts + part("e") if name == "sPre" else part("e") + scripts
    if name == "rad":
        degree = part("deg")
        return f"{degree}√({part('e')})" if degree else f"√{_grouped(part('e'))}"
    if name == "d":
        begin, end, separator = (
            setting("dPr", "begChr", "("),
            setting("dPr", "endChr", ")"),
            setting("dPr", "sepChr", "|"),
        )
        return begin + separator.join(_omml(e) for e in element.iterfind(f"{_M}e")) + end
    if name == "nary":
        subscript, superscript = part("sub"), part("sup")
        limits = (f"_{_grouped(subscript)}" if subscript else "") + (f"^{_grouped(superscript)}" if superscript else "")
        return f"{setting('naryPr', 'chr', '∫')}{limits} {part('e')}"
    if name == "func":
        return f"{part('fName')} {part('e')}"
    if name == "eqArr":
        return "; ".join(_omml(e) for e in element.iterfind(f"{_M}e"))
    return "".join(_omml(child) for child in element)


def mathml_text(element: Any) -> str:
    """The text of a MathML element (`math`, or any part of one); its annotations (a StarMath
    or LaTeX copy) are not read."""
    return spaced(_mathml(element))


def _mathml(element: Any) -> str:
    tag = element.tag
    if not isinstance(tag, str):
        return ""
    name = tag.removeprefix(_MATHML)
    children = [child for child in element if isinstance(child.tag, str)]
    texts = [_mathml(child) for child in children]

    def nth(index: int) -> str:
        return texts[index] if index < len(texts) else ""

    if name in ("mi", "mn", "mo", "mtext", "ms"):
        return "".join(element.itertext())
    if name in ("annotation", "annotation-xml", "none", "mprescripts"):
        return ""
    if name == "semantics":
        return nth(0)
    if name == "mfrac":
        return f"{_grouped(nth(0))}/{_grouped(nth(1))}"
    if name in ("msup", "mover"):
        return f"{nth(0)}^{_grouped(nth(1))}" if name == "msup" or nth(1) not in "¯^~˜→" else nth(0)
    if name in ("msub", "munder"):
        return f"{nth(0)}_{_grouped(nth(1))}"
    if name in ("msubsup", "munderover"):
        return f"{nth(0)}_{_grouped(nth(1))}^{_grouped(nth(2))}"
    if name == "msqrt":
        return f"√{_grouped(''.join(texts))}"
    if name == "mroot":
        return f"{nth(1)}√({nth(0)})"
    if name == "mfenced":
        separator = (element.get("separators") or ",")[:1]
        return f"{element.get('open', '(')}{separator.join(texts)}{element.get('close', ')')}"
    if name == "mtable":
        return "; ".join(texts)
    if name == "mtr":
        return ", ".join(texts)
    return "".join(texts)
