"""A LaTeX document's source: its `\\input` files read in, comment lines out, and parsed by
pylatexenc (with the argument specs of the commands it does not know)."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from summarizer.errors import UnreadableDocument

MAX_INPUT_DEPTH = 8  # \input inside \input, as deep as this
MAX_INPUT_CHARS = 20_000_000  # the document with its inputs, at most
MAX_INPUTS = 1_000  # files read in, at most (a file read in twice counts twice)
# Commands that read a file in: \input and \include (relative to where the document is read
# from), \subfile (the subfiles package: the file's own document body), \import and \subimport
# (the import package: a directory, then a file in it; \subimport's is relative to the file it
# is in, \import's to the main file).
INPUTS = ("input", "include", "subfile", "import", "subimport")
_INPUT = re.compile(r"\\(?:input|include|subfile|import|subimport)(?![a-zA-Z@])")
_BARE_INPUT = re.compile(r"\\input[ \t]+([^\s{}%\\]+)")  # TeX's own form: \input sections/intro
_COMMENT_LINE = re.compile(r"(?m)^[ \t]*(?<!\\)%.*(?:\n|\Z)")  # a line that is all comment goes whole
# Forms pylatexenc cannot parse as TeX reads them: \let\a=\b (prints nothing) and \if0, the idiom
# that hides what follows up to its \fi (it compares "0" with the next character).
_LET = re.compile(r"\\let\s*\\(?:[a-zA-Z@]+|.)\s*(?:=\s*)?\\(?:[a-zA-Z@]+|.)")
_IF_ZERO = re.compile(r"\\if\s*0(?![0-9])")
VERBATIM_ENVIRONMENTS = ("verbatim", "verbatim*", "Verbatim", "BVerbatim", "lstlisting", "minted", "comment", "alltt")
# ... and any whose name ends in "verbatim" (fancyvrb's LVerbatim, a class's own smallverbatim)
_VERBATIM_BEGIN = re.compile(
    rf"\\begin\{{({'|'.join(map(re.escape, VERBATIM_ENVIRONMENTS))}|[a-zA-Z]*[vV]erbatim\*?)\}}"
)
# Arguments of commands that pylatexenc's parser does not know (its argument specs: "{" a
# mandatory argument, "[" an optional one, "*" a star).
ARGUMENTS = {
    "caption": "*[{", "captionof": "*{[{", "href": "{{", "footnotetext": "[{", "thanks": "{", "paragraph": "*[{",
    "subparagraph": "*[{", "hyperref": "[{", "subfile": "{", "import": "{{", "subimport": "*{{", "pageref": "*{",
    "parencite": "*[[{", "autocite": "*[[{", "footcite": "*[[{", "supercite": "[[{", "textcite": "*[[{",
    "Textcite": "*[[{", "Citet": "*[[{", "Citep": "*[[{", "Citealt": "*[[{", "Citeauthor": "*[[{",
    "citeyearpar": "*[[{", "nameref": "*{", "Autoref": "*{", "addbibresource": "[{", "printbibliography": "[",
    "keywords": "{", "affil": "[{", "affiliation": "{", "email": "{", "xspace": "", "captionsetup": "[{",
    "textsuperscript": "{", "textsubscript": "{", "bibliography": "{", "bibliographystyle": "{",
    "setlength": "{{", "addtolength": "{{", "setcounter": "{{", "graphicspath": "{", "newtheorem": "*{[{[",
    "theoremstyle": "{", "def": "{{", "todo": "[{", "missingfigure": "[{", "SI": "[{{", "si": "[{",
    "num": "[{", "qty": "[{{", "unit": "[{", "tfrac": "{{", "dfrac": "{{", "binom": "{{", "operatorname": "*{",
    "bibitem": "[{", "index": "[{", "glossary": "{", "@ifnextchar": "{{{", "newif": "{", "subfloat": "[[{",
    "tnote": "{",
    "nolinebreak": "[", "nopagebreak": "[", "color": "[{", "addcontentsline": "{{{", "authorrunning": "{",
    "titlerunning": "{", "tocauthor": "{", "toctitle": "{", "institute": "{", "orcidID": "{", "frametitle": "[{",
    "framesubtitle": "{", "numberwithin": "[{{", "enquote": "*{", "texorpdfstring": "{{",
    "title": "[{", "author": "[{", "authors": "{", "markboth": "{{", "markright": "{", "pacs": "{",
    "cmd": "{", "cs": "{", "marg": "{", "oarg": "{", "parg": "{", "meta": "{",
}  # fmt: skip
ENVIRONMENT_ARGUMENTS = {
    "itemize*": "[", "enumerate*": "[", "description*": "[", "inparaenum": "[", "inparaitem": "[",
    "compactitem": "[", "compactenum": "[", "asparaenum": "[", "asparaitem": "[", "subfigure": "[{",
    "subtable": "[{", "minipage": "[[[{", "wrapfigure": "[{[{", "wraptable": "[{[{", "proof": "[",
}  # fmt: skip
MATH_ENVIRONMENTS = {"alignat": "{", "alignat*": "{", "flalign": "", "flalign*": "", "dmath": "", "dmath*": ""}


def with_inputs(source: str, path: Path | None) -> tuple[str, list[str]]:
    """`source` (the text of the file at `path`) with each file it reads in (`INPUTS`) in its
    place, read from the directory of `path` and below it, never outside; and a note on each
    input left out (missing, unreadable, outside, the file itself or one that reads it in, too
    deep, or any without a `path`; a line it stood alone on goes whole). The document with its
    inputs is at most `MAX_INPUT_CHARS` long and reads at most `MAX_INPUTS` files in."""
    reader = _Inputs(None if path is None else path.resolve().parent)
    text = reader.placed(source, reader.root, 0, () if path is None else (path.resolve(),))
    return text, reader.left_out


class _Inputs:
    """The files one document reads in: where from, how much so far, and what was left out."""

    def __init__(self, root: Path | None) -> None:
        self.root, self.chars, self.count = root, 0, 0
        self.texts: dict[Path, str] = {}
        self.left_out: list[str] = []

    def placed(self, source: str, base: Path | None, depth: int, chain: tuple[Path, ...]) -> str:
        """`source` with its inputs in place (`base`: where its relative names start)."""
        self.chars += len(source)
        if self.chars > MAX_INPUT_CHARS:
            raise UnreadableDocument(f"longer than {MAX_INPUT_CHARS:,} characters with its input files")
        source = _BARE_INPUT.sub(r"\\input{\1}", source)
        if not _INPUT.search(source):
            return source
        from pylatexenc.latexwalker import LatexMacroNode

        found = [n for n in walk(parse(source)) if isinstance(n, LatexMacroNode) and n.macroname in INPUTS]
        pieces, end, mark, notes = [], len(source), len(self.left_out), []
        for node in sorted(found, key=lambda n: n.pos, reverse=True):  # from the end: positions hold
            start, stop = node.pos, node.pos + node.len
            if stop > end:  # inside an input already placed (none are: an input's argument holds no input)
                continue
            text = self._input(node, base, depth, chain)
            notes.append(self.left_out[mark:])
            del self.left_out[mark:]
            line_start, line_end = source.rfind("\n", 0, start) + 1, source.find("\n", stop)
            alone = not source[line_start:start].strip() and not source[stop : max(line_end, stop)].strip()
            if text is None and alone:
                start, stop = line_start, stop if line_end < 0 else line_end + 1
            pieces += [source[stop:end], "" if text is None else text.rstrip("\n")]
            end = start
        pieces.append(source[:end])
        self.left_out += [note for node_notes in reversed(notes) for note in node_notes]  # in the document's order
        return "".join(reversed(pieces))

    def _input(self, node: Any, base: Path | None, depth: int, chain: tuple[Path, ...]) -> str | None:
        """The text of the file `node` reads in, its own inputs placed; None (and a note in
        `left_out`) when it cannot be."""
        arguments = [inner_source(a).strip() for a in argument_nodes(node) or [] if getattr(a, "delimiters", None)]
        if not arguments or (node.macroname in ("import", "subimport") and len(arguments) < 2):
            return None
        command = f"\\{node.macroname}" + "".join(f"{{{argument}}}" for argument in arguments)
        root = self.root
        if root is None or base is None:
            self.left_out.append(f"{command}: left out: the document was read from text, not from its file")
            return None
        if depth >= MAX_INPUT_DEPTH:
            self.left_out.append(f"{command}: left out: input files nested more than {MAX_INPUT_DEPTH} deep")
            return None
        folder = base
        if node.macroname in ("import", "subimport"):
            folder = (root if node.macroname == "import" else base) / arguments[-2]
        name, problem = arguments[-1], f"not a file under {root}"
        for candidate in (name,) if name.endswith(".tex") else (name + ".tex", name):
            path = file_under(root, folder, candidate)
            if path is None:
                continue
            if path in chain:
                problem = "the file reads itself in"
                continue
            try:
                text = self._read(path)
            except OSError as error:
                problem = f"cannot read {path.name}: {error.strerror or error}"
                continue
            inner = path.parent if node.macroname in ("import", "subimport") else base
            return self.placed(text, inner, depth + 1, (*chain, path))
        self.left_out.append(f"{command}: left out: {problem}")
        return None

    def _read(self, path: Path) -> str:
        self.count += 1
        if self.count > MAX_INPUTS:
            raise UnreadableDocument(f"reads in more than {MAX_INPUTS:,} files")
        if path not in self.texts:
            if self.chars + path.stat().st_size > MAX_INPUT_CHARS:
                raise UnreadableDocument(f"longer than {MAX_INPUT_CHARS:,} characters with its input files")
            self.texts[path] = path.read_text(encoding="utf-8-sig", errors="replace")
        return self.texts[path]


def normalized(source: str) -> str:
    """`source` less its lines that are all comment (TeX reads on across them, so a paragraph they
    stand in stays one), its `\\let`s and its verbatim environments (code and `comment`, which
    TeX does not parse: a brace in them opens nothing), with `\\if0` as `\\iffalse`."""
    source = _without_verbatim(source)
    return _IF_ZERO.sub(r"\\iffalse ", _LET.sub("", _COMMENT_LINE.sub("", source)))


def file_under(root: Path, folder: Path, name: str) -> Path | None:
    """The regular file `folder / name` resolves to (symlinks followed) when it lies under
    `root`; None when it does not, or when the name cannot be resolved (a symlink loop, a name
    too long, a NUL in it)."""
    try:
        path = (folder / name).resolve()
        return path if path.is_relative_to(root) and path.is_file() else None
    except (OSError, RuntimeError, ValueError):
        return None


def _without_verbatim(source: str) -> str:
    """`source` less each verbatim environment, up to its end (or the source's, as TeX reads one
    never ended)."""
    pieces, at = [], 0
    while (begin := _VERBATIM_BEGIN.search(source, at)) is not None:
        pieces.append(source[at : begin.start()])
        end = source.find(f"\\end{{{begin.group(1)}}}", begin.end())
        at = len(source) if end < 0 else end + len(begin.group(1)) + 6
    pieces.append(source[at:])
    return "".join(pieces)


@functools.lru_cache(maxsize=64)
def walker_context(defined: tuple[tuple[str, str], ...] = (), theorems: tuple[str, ...] = ()) -> Any:
    """pylatexenc's parsing context, knowing `ARGUMENTS`, the `defined` commands' arguments and
    the document's theorem-like environments (their optional title)."""
    from pylatexenc import latexwalker
    from pylatexenc.macrospec import EnvironmentSpec, MacroSpec

    context = latexwalker.get_default_latex_context_db()
    known = [MacroSpec(name, spec) for name, spec in (*ARGUMENTS.items(), *defined)]
    environments = [EnvironmentSpec(name, spec) for name, spec in ENVIRONMENT_ARGUMENTS.items()]
    environments += [EnvironmentSpec(name, spec, is_math_mode=True) for name, spec in MATH_ENVIRONMENTS.items()]
    environments += [EnvironmentSpec(name, "[") for name in theorems]
    context.add_context_category("bertsum", macros=known, environments=environments, prepend=True)
    return context


def parse(source: str, defined: tuple[tuple[str, str], ...] = (), theorems: tuple[str, ...] = ()) -> list[Any]:
    """pylatexenc's nodes of `source` (tolerant of unbalanced braces and unknown commands)."""
    from pylatexenc.latexwalker import LatexWalker

    walker = LatexWalker(source, latex_context=walker_context(defined, theorems), tolerant_parsing=True)
    return list(walker.get_latex_nodes()[0])


def walk(nodes: Sequence[Any]) -> Iterator[Any]:
    """Every node of `nodes` and of what they hold (arguments, groups, environments), in order."""
    for node in nodes:
        if node is None:
            continue
        yield node
        yield from walk(argument_nodes(node) or [])
        yield from walk(getattr(node, "nodelist", None) or [])


def argument_nodes(node: Any) -> list[Any] | None:
    """A macro's or environment's parsed arguments (None for one it was given none)."""
    parsed = getattr(node, "nodeargd", None)
    return None if parsed is None else (parsed.argnlist or [])


def last_argument(node: Any) -> str:
    """The source of a command's last argument, inside its braces ("" without one)."""
    arguments = [a for a in argument_nodes(node) or [] if a is not None]
    return inner_source(arguments[-1]) if arguments else ""


def starred(node: Any) -> bool:
    arguments = argument_nodes(node) or []
    return bool(arguments) and arguments[0] is not None and arguments[0].latex_verbatim() == "*"


def inner_source(node: Any) -> str:
    """The LaTeX source inside a group's or an optional argument's delimiters."""
    verbatim = str(node.latex_verbatim())
    delimiters = getattr(node, "delimiters", None)
    return verbatim[1:-1] if delimiters and verbatim[:1] in "{[" else verbatim
