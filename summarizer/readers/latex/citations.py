"""Citations as a reader of the typeset text meets them.

A parenthetical citation (`\\cite`, `\\citep`, `\\parencite`...) is apparatus, left out with the
space before it, and with the brackets or separators that only it filled ("(\\cite{a})", "et
al.~\\cite{a}."). One that carries the sentence's grammar ("detailed in \\cite{a}", "\\cite{a}
showed", "see \\cite{a}") reads as its authors and year, as an author citation (`\\citet`,
`\\textcite`) always does: "Cohen et al. (2021)". Authors and years come from the document's
bibliography: the `.bib` files it names (`\\bibliography`, `\\addbibresource`), read from its
directory, and natbib's labels in a `thebibliography` (`\\bibitem[Cohen et~al.(2021)]{key}`);
without an entry, from a key that names authors before a year ("cohen2021title" as "Cohen
(2021)", "DraganKohler2014" as "Dragan and Kohler (2014)"), else the key in brackets.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from summarizer.readers.latex.source import argument_nodes, file_under, inner_source, last_argument, walk

MAX_BIB_BYTES = 50_000_000  # a .bib file larger than this is not read
PARENTHETICAL = frozenset("cite citep citealp parencite autocite footcite supercite Citep Autocite Parencite".split())
AUTHOR_YEAR = frozenset("citet citealt Citet Citealt textcite Textcite".split())
AUTHORS = frozenset("citeauthor Citeauthor".split())
YEARS = frozenset("citeyear citeyearpar".split())
CITED = "\x03"  # a parenthetical citation's text follows, up to ENDED
ENDED = "\x04"
_REMOVED = "\x05"
# Words after which a citation is part of the sentence (a preposition, a verb of using, "see"),
# in English, German, French and Spanish.
GRAMMATICAL_AFTER = frozenset(
    "in on by from of to with see cf cf. following follow follows followed after like as than via unlike per "
    "using use uses used adopt adopts adopted extend extends extended e.g. i.e. also "
    "aus von bei nach siehe vgl. vgl mit durch laut gemäß dans de par voir selon chez cf. en por según ver".split()
)  # fmt: skip
# Words after which a citation is the sentence's subject ("\\cite{a} showed").
GRAMMATICAL_BEFORE = frozenset(
    "is are was were has have had shows show showed shown proposes propose proposed introduces introduced "
    "uses used finds found argues argue argued reports reported demonstrates demonstrated presents presented "
    "studies studied suggests suggested observes observed extends extended provides provided describes "
    "described achieves achieved employs employed develops developed considers considered applies applied "
    "defines defined gives gave notes noted claims claimed states stated discusses discussed 's ’s".split()
)  # fmt: skip
_RUN = re.compile(r"[\s,;]*(?:(?:and|or|und|oder|et|ou|y|o|&)[\s,;]*)?")  # between citations of one list
_RUN_LENGTH = 40  # characters between two citations of one list, at most
_NEXT_WORD = re.compile(r"\s*((?:['’]s\b)|[\w'’]+)")
_CITATION = re.compile(rf"([^\S\n]*\n?[^\S\n]*){CITED}([^{ENDED}]*){ENDED}")  # the space before, in its paragraph
_LOOK_BACK = 80  # characters before a citation that say whether the sentence needs it
_LAST_WORD = re.compile(r"(\S+)$")
_NATBIB_LABEL = re.compile(r"^(.*?)\s*\(\s*(\d{4}[a-z]?)\s*\)")
_KEY_YEAR = re.compile(r"(?<!\d)((?:1[89]|20)\d{2})(?!\d)")
_KEY_AUTHORS = re.compile(r"[A-Za-z]+(?:[_:.\-][A-Za-z]+)*[_:.\-]?")  # letters, perhaps separated
_KEY_NAMES = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")  # "DraganKohler", "arias_blocher", "LeCun"
_BIB_ENTRY = re.compile(r"@\s*([A-Za-z]+)\s*[{(]\s*([^,\s]+)\s*,")
_BIB_FIELD = re.compile(r"\s*([A-Za-z][\w-]*)\s*=\s*")
_EMPTY_BRACKETS = re.compile(rf"[^\S\n]*[(\[][^\S\n]*{_REMOVED}(?:[^\S\n,;]*[,;]?[^\S\n]*{_REMOVED})*[^\S\n]*[)\]]")
_BEFORE_CLOSING = re.compile(rf"[^\S\n]*[,;][^\S\n]*{_REMOVED}(?=[^\S\n]*[)\]])")
_AFTER_ABBREVIATION = re.compile(rf"\.[^\S\n]*{_REMOVED}[^\S\n]*\.")


NUMERIC_STYLES = re.compile(
    r"(?i)^(?:ieee\w*|unsrt\w*|plain|abbrv\w*|alpha|acm\w*|siam\w*|splncs\w*|spmpsci|elsarticle-num\w*|"
    r"naturemag|nature|vancouver|amsplain|amsalpha|ama|numeric\w*|science|phaip|apsrev\w*|gerplain|gerabbrv|"
    r"gerunsrt|alphadin|unsrtdin|plaindin|abbrvdin)$"
)


@dataclass(frozen=True)
class Reference:
    """A bibliography entry as a citation prints it: its authors ("Cohen et al.") and year."""

    authors: str
    year: str
    numeric: bool = False  # a numbered reference: `authors` is its number in brackets

    def cited(self, form: str = "author-year") -> str:
        if self.numeric or form == "authors" or not self.year:
            return self.authors
        return self.year if form == "year" else f"{self.authors} ({self.year})"


def bibliography(nodes: Sequence[Any], directory: Path | None) -> dict[str, Reference]:
    """The references a document's citations can name, by key, as its citation style prints
    them: numbers ("[3]": the order of its `\\bibitem`s, else of first citation) unless the
    document cites by author and year (natbib's labels of its `\\bibitem`s, the `.bib` files it
    names, read under `directory`)."""
    from pylatexenc.latexwalker import LatexMacroNode

    references: dict[str, Reference] = {}
    files: list[str] = []
    items: list[str] = []  # \bibitem keys, in order
    cited: dict[str, None] = {}  # keys in order of first citation
    numeric = True  # LaTeX's own style, and natbib's or biblatex's numeric ones
    for node in walk(nodes):
        if not isinstance(node, LatexMacroNode):
            continue
        name = node.macroname
        if name == "bibitem":
            label, key = ((argument_nodes(node) or []) + [None, None])[:2]
            found = _NATBIB_LABEL.match(_text(inner_source(label))) if label is not None else None
            if key is not None:
                items.append(inner_source(key).strip())
                if found:
                    references[items[-1]] = Reference(found.group(1).strip(), found.group(2))
                    numeric = False
        elif name in ("bibliography", "addbibresource"):
            files += [name.strip() for name in last_argument(node).split(",") if name.strip()]
        elif name == "usepackage" and last_argument(node).strip() in ("natbib", "biblatex"):
            numeric = _numeric_package(last_argument(node).strip(), _options(node))
        elif name == "bibliographystyle":
            numeric = NUMERIC_STYLES.match(last_argument(node).strip()) is not None
        elif name in PARENTHETICAL | AUTHOR_YEAR | AUTHORS | YEARS:
            cited.update((key.strip(), None) for key in last_argument(node).split(",") if key.strip())
    if numeric:
        order = items or list(cited)
        return {key: Reference(f"[{number}]", "", numeric=True) for number, key in enumerate(order, 1)}
    if directory is not None:
        root = directory.resolve()
        for name in files:
            path = file_under(root, root, name if name.endswith(".bib") else name + ".bib")
            if path is None:
                continue
            try:
                if path.stat().st_size > MAX_BIB_BYTES:
                    continue
                text = path.read_text(encoding="utf-8-sig", errors="replace")
            except OSError:
                continue
            try:
                entries = bib_references(text)
            except RecursionError:  # braces never closed, entry after entry: left unread
                continue
            for key, reference in entries.items():
                references.setdefault(key, reference)
    return references


def _options(node: Any) -> str:
    """A command's first optional argument (`\\usepackage[numbers]{natbib}`), "" without one."""
    optional = [a for a in argument_nodes(node) or [] if getattr(a, "delimiters", None) == ("[", "]")]
    return inner_source(optional[0]) if optional else ""


def _numeric_package(package: str, options: str) -> bool:
    """Whether natbib or biblatex, loaded with `options`, numbers citations: natbib only with
    `numbers`, biblatex unless an author-year or author-title style is chosen."""
    if package == "natbib":
        return "numbers" in options
    style = re.search(r"(?:^|,)\s*(?:cite|bib)?style\s*=\s*([\w-]+)", options)
    return not (style and re.match(r"(?i)author|apa|chicago|verbose|mla|ext-author", style.group(1)))


def bib_references(text: str) -> dict[str, Reference]:
    """The authors (or editors) and year of each entry of a BibTeX file, by key."""
    references = {}
    for entry in _BIB_ENTRY.finditer(text):
        if entry.group(1).lower() in ("comment", "string", "preamble"):
            continue
        fields = _fields(text, entry.end())
        names = fields.get("author") or fields.get("editor")
        year = re.search(r"\d{4}", fields.get("year") or fields.get("date") or "")
        if names:
            references[entry.group(2)] = Reference(_authors(names), year.group(0) if year else "")
    return references


def _fields(text: str, at: int) -> dict[str, str]:
    """An entry's fields from `at` (after its key) to its closing brace, lower-cased names."""
    fields: dict[str, str] = {}
    while at < len(text):
        found = _BIB_FIELD.match(text, at)
        if not found:
            break
        at = found.end()
        value, at = _value(text, at)
        fields[found.group(1).lower()] = value
        while at < len(text) and text[at] in " \t\r\n#":
            at += 1
        if at < len(text) and text[at] == ",":
            at += 1
        else:
            break
    return fields


def _value(text: str, at: int) -> tuple[str, int]:
    """A field's value starting at `at` ({...}, "..." or a bare word) and where it ends."""
    if at < len(text) and text[at] in '{"':
        closing, depth, start = ("}" if text[at] == "{" else '"'), 0, at + 1
        for i in range(at, len(text)):
            char = text[i]
            if char == "{":
                depth += 1
            elif char == "}":
                depth -= 1
                if closing == "}" and depth == 0:
                    return text[start:i], i + 1
            elif char == '"' and closing == '"' and depth == 0 and i > at:
                return text[start:i], i + 1
        return text[start:], len(text)
    found = re.match(r"[^,}\s]*", text[at:])
    return (found.group(0), at + found.end()) if found else ("", at)


def _authors(names: str) -> str:
    """ "Cohen", "Cohen and Smith" or "Cohen et al." from BibTeX's "Cohen, Ada and Smith, Bo"."""
    people = [p.strip() for p in _top_level_split(" ".join(names.split()), " and ") if p.strip()]
    others = any(p.lower() == "others" for p in people)
    surnames = [_surname(p) for p in people if p.lower() != "others"]
    if not surnames:
        return ""
    if len(surnames) >= 3 or others:
        return f"{surnames[0]} et al."
    return " and ".join(surnames)


def _surname(name: str) -> str:
    if name.startswith("{") and name.endswith("}"):
        return _text(name[1:-1])  # an organization, braced whole
    parts = _top_level_split(name, ",")
    last = parts[0] if len(parts) > 1 else (_top_level_split(name, " ") or [name])[-1]
    return _text(last).strip()


def _top_level_split(text: str, separator: str) -> list[str]:
    """`text` split at `separator` outside braces (case-insensitive)."""
    parts, depth, start, lowered = [], 0, 0, text.lower()
    i = 0
    while i < len(text):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
        elif depth == 0 and lowered.startswith(separator, i):
            parts.append(text[start:i])
            i += len(separator)
            start = i
            continue
        i += 1
    parts.append(text[start:])
    return parts


def _text(latex: str) -> str:
    """LaTeX source as its characters ("M{\\"u}ller" to "Müller")."""
    return " ".join(str(_plain_renderer().latex_to_text(latex)).split())


@functools.cache
def _plain_renderer() -> Any:
    from pylatexenc.latex2text import LatexNodes2Text

    return LatexNodes2Text()


def citation_text(keys: Sequence[str], references: dict[str, Reference], form: str = "author-year") -> str:
    """What a citation of `keys` reads as in a sentence: "Cohen et al. (2021); Smith (2020)"."""
    return "; ".join(_reference(key, references).cited(form) for key in keys)


def _reference(key: str, references: dict[str, Reference]) -> Reference:
    if key in references:
        return references[key]
    year = _KEY_YEAR.search(key)
    before = key[: year.start()] if year else ""
    names = _KEY_NAMES.findall(before)
    if not year or not names or len(names[0]) < 2 or not _KEY_AUTHORS.fullmatch(before):
        return Reference(f"[{key}]", "")
    if "etal" in (name.lower() for name in names):  # ACL Anthology keys: "makino-etal-2021-neural"
        names = names[:1] + ["etal", "etal"]
    surnames = [name[:1].upper() + name[1:] for name in names]
    authors = f"{surnames[0]} et al." if len(surnames) > 2 else " and ".join(surnames)
    return Reference(authors, year.group(1))


def resolved(text: str) -> str:
    """`text` with each parenthetical citation (`CITED`...`ENDED`) read as its authors and year
    (or its number) where the sentence needs it: after a preposition or "see", as the subject
    of a verb ("\\cite{a} showed"), or in a list with one that is read; else left out with what
    only it filled."""
    kept_until = -1  # where the last citation read ends

    def replace(match: re.Match[str]) -> str:
        nonlocal kept_until
        window = match.string[max(0, match.start() - _LOOK_BACK) : match.start()]
        before = window.rstrip()
        word = _LAST_WORD.search(before)
        last = word.group(1).lower().lstrip("([{\"'“‘") if word else ""
        gap = window[len(before) :] + match.group(1)
        paragraph_starts = (not before and match.start() <= _LOOK_BACK) or gap.count("\n") >= 2
        ended = before[-1:] in (".", "!", "?", ":", ";") and not last.endswith(("al.", "e.g.", "i.e.", "cf."))
        following = _NEXT_WORD.match(match.string, match.end())
        next_word = following.group(1) if following else ""
        starts = paragraph_starts or ended
        clause_starts = starts or before[-1:] == ","
        subject = (clause_starts and next_word.lower() in GRAMMATICAL_BEFORE) or (starts and next_word[:1].islower())
        after_word = last in GRAMMATICAL_AFTER or last.rstrip(",") in GRAMMATICAL_AFTER
        listed = (
            kept_until >= 0
            and match.start() - kept_until <= _RUN_LENGTH
            and _RUN.fullmatch(match.string, kept_until, match.start()) is not None
        )
        if match.group(2) and (after_word or subject or listed):
            kept_until = match.end()
            return match.group(1) + match.group(2)
        return _REMOVED

    text = _CITATION.sub(replace, text)
    text = _EMPTY_BRACKETS.sub("", text)
    text = _BEFORE_CLOSING.sub("", text)
    text = _AFTER_ABBREVIATION.sub(".", text)  # "et al.~\\cite{a}." ends once
    return re.sub(rf"[^\S\n]*{_REMOVED}", "", text)
