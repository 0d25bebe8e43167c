"""The formats' registry (`summarizer.readers`): one record per format module, from which the
command's `--input-format`, `format_of`, the library's `format=` and the docs' table follow; a
format added is known everywhere; the reader modules import one another without a cycle."""

from __future__ import annotations

import ast
import dataclasses
import re
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest

from summarizer import Summarizer
from summarizer.cli import command as cli
from summarizer.errors import InputError
from summarizer.readers import (
    Document,
    Reader,
    format_of,
    formats,
    read_document,
    read_file,
    reader,
    register,
    registry,
)

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "summarizer"
SHOUT = Reader("shout", "a shouted note", (".shout",), lambda text: [line.upper() for line in text.splitlines()])
NOTE = "the cat sat on the mat all day long.\nthe dog slept by the door until noon.\n"


@pytest.fixture
def shout(monkeypatch):
    """The registry with a throw-away format added, as it was again after the test."""
    monkeypatch.setattr(registry, "READERS", dict(registry.READERS))
    register(SHOUT)
    return SHOUT


def test_a_format_added_is_one_the_command_format_of_and_the_library_know(shout, tmp_path, capsys):
    assert cli.main(["--help"]) == 0
    shown = " ".join(capsys.readouterr().out.split())
    assert re.search(r"--input-format \{[a-z,]*\bshout\b", shown)  # a choice
    assert ".shout shout" in shown  # and its extension, in the help
    assert format_of("NOTES.SHOUT") == "shout"
    (tmp_path / "notes.shout").write_text(NOTE)
    shouted = ["THE CAT SAT ON THE MAT ALL DAY LONG.", "THE DOG SLEPT BY THE DOOR UNTIL NOON."]
    assert list(read_file(tmp_path / "notes.shout").paragraphs) == shouted
    assert Summarizer.from_pretrained().summarize(NOTE, k=1, format="shout").document == shouted
    assert cli.build_parser().parse_args(["--input-format", "shout", "x"]).input_format == "shout"


def test_a_format_s_name_and_extensions_are_its_own(shout):
    with pytest.raises(ValueError, match="a format named 'shout' is already registered"):
        register(SHOUT)
    with pytest.raises(ValueError, match=r"loud: \.shout already names shout"):
        register(dataclasses.replace(SHOUT, name="loud"))
    with pytest.raises(ValueError, match="lower-case identifier"):
        Reader("Loud", "a note", (), SHOUT.read)
    with pytest.raises(ValueError, match="begin with a dot"):
        Reader("loud", "a note", ("LOUD",), SHOUT.read)


def test_every_format_module_ends_in_its_record():
    """One module (or package) per format, named as the format; the rest are helpers."""
    modules = {path.stem for path in (PACKAGE / "readers").glob("*.py")} | {
        path.parent.name for path in (PACKAGE / "readers").glob("*/__init__.py")
    }
    helpers = {"__init__", "base", "registry", "package", "opendocument"}
    assert modules - helpers == set(formats())
    for name in formats():
        assert reader(name).name == name and reader(name).description.startswith(("a ", "an "))


def test_the_running_text_filter_is_the_record_s_and_reads_as_before():
    """A label or heading ending no sentence is left out where the record says so, and nowhere else."""
    text = "Introduction\n\nThe plan works well for everyone.\n"
    assert read_document(text, "markdown", "x").paragraphs == ("The plan works well for everyone.",)
    assert read_document(text, "text", "x").paragraphs == ("Introduction", "The plan works well for everyone.")
    assert reader("markdown").running_text and not reader("text").running_text
    mail = b"From: a@example.org\nSubject: x\nContent-Type: text/html\n\n<p>Agenda</p><p>The plan works well.</p>"
    assert read_document(mail, "email", "x").paragraphs == ("The plan works well.",)  # its body read as HTML


def test_the_install_hint_is_the_record_s(monkeypatch):
    monkeypatch.setitem(sys.modules, "docx", None)  # as if not installed
    hint = r"^x.docx: reading a Word document needs python-docx: pip install 'bertsum\[formats\]'$"
    with pytest.raises(InputError, match=hint):
        read_document(b"PK\x03\x04", "docx", "x.docx")


def test_extras_the_records_name_are_the_package_s():
    """Each record's extra exists and installs what the record needs; a format without one needs
    only the package's own dependencies."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]

    def names(requirements: list[str]) -> set[str]:
        """The distributions `requirements` name, and those they require (lxml, through python-docx)."""
        direct = {re.split(r"[<>=\[;\s]", requirement, maxsplit=1)[0].lower() for requirement in requirements}
        return direct | {name for distribution in direct for name in names_required(distribution)}

    def names_required(distribution: str) -> set[str]:
        try:
            required = metadata.requires(distribution) or []
        except metadata.PackageNotFoundError:
            return set()
        return {re.split(r"[<>=\[;\s(]", requirement, maxsplit=1)[0].lower() for requirement in required}

    for name in formats():
        record = reader(name)
        extra = project["optional-dependencies"][record.extra] if record.extra else []
        assert set(record.needs.values()) <= names(project["dependencies"]) | names(extra), name


def test_one_function_reads_a_file_for_the_command_and_the_library(tmp_path, monkeypatch):
    (tmp_path / "a.md").write_text("# Title\n\nThe plan works well for everyone.\n")
    source = cli.Source(tmp_path / "a.md", "a.md", Path("a.md"))
    from_bytes = read_file((tmp_path / "a.md").read_bytes(), "markdown")
    assert cli.read_source(source) == Document.from_file(tmp_path / "a.md") == from_bytes
    (tmp_path / "big.txt").write_text("Word. " * 100)
    big = cli.Source(tmp_path / "big.txt", "big.txt", Path("big.txt"))
    with pytest.raises(InputError, match=r"big.txt: larger than the input limit of 0.0001 MB \(raise it with --max-"):
        cli.read_source(big, 100)
    with pytest.raises(InputError, match=r"big.txt: larger than the input limit of 0.0001 MB$"):
        read_file(tmp_path / "big.txt", limit=100)
    (tmp_path / "empty.md").write_text("# Title\n")
    assert Document.from_file(tmp_path / "empty.md").paragraphs == ()
    with pytest.raises(InputError, match="no running text found in this markdown file"):
        read_file(tmp_path / "empty.md", require_text=True)


def test_the_usage_table_is_the_registry():
    """docs/usage.md's table of formats: one row per format, with its extensions and extra."""
    usage = (ROOT / "docs/usage.md").read_text()
    rows = re.findall(r"^\| `(\w+)` \| ([^|]*) \| ([^|]*) \| ([^|]*) \|$", usage, re.MULTILINE)
    assert [name for name, *_ in rows] == list(formats())
    for name, extensions, _what, extra in rows:
        record = reader(name)
        assert re.findall(r"`(\.\w+)`", extensions) == list(record.extensions), name
        assert (f"`bertsum[{record.extra}]`" if record.extra else "") == extra.strip(), name


def test_the_web_page_offers_formats_of_text():
    page = (PACKAGE / "serve/page/index.html").read_text()
    offered = re.findall(r'<option value="(\w+)">', page.split('<select id="format">')[1].split("</select>")[0])
    assert offered and all(not reader(name).binary for name in offered)


def _imports(path: Path, module: str) -> set[str]:
    """The modules of `summarizer` that a module imports (anywhere in it), `from a import b`
    counted as importing `a.b` where that is a module."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                inner = f"{node.module}.{alias.name}"
                found.add(inner if _module_path(inner) else node.module)
    return {name for name in found if name.startswith("summarizer.") and _module_path(name)}


def _module_path(name: str) -> Path | None:
    base = ROOT / name.replace(".", "/")
    return next((path for path in (base.with_suffix(".py"), base / "__init__.py") if path.is_file()), None)


def _graph(*packages: str) -> dict[str, set[str]]:
    modules = {}
    for package in packages:
        for path in (ROOT / package.replace(".", "/")).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return {name: _imports(path, name) & set(modules) for name, path in modules.items()}


def test_readers_and_text_import_without_a_cycle_and_text_never_imports_readers():
    graph = _graph("summarizer.readers", "summarizer.text")
    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        if name in path:
            cycle = " -> ".join(path[path.index(name) :] + (name,))
            raise AssertionError(f"import cycle: {cycle}")
        if name not in done:
            for imported in graph[name]:
                visit(imported, (*path, name))
            done.add(name)

    for name in graph:
        visit(name, ())
    upward = {
        name: imported
        for name, imported in graph.items()
        if name.startswith("summarizer.text")
        for imported in imported
        if imported.startswith("summarizer.readers")
    }
    assert not upward  # readers read files into text; text knows nothing of formats
