"""What a format's reader is: the record each format module of `summarizer.readers` ends in, and
what readers share: the running-text filter and the hint that names the extra to install.

A reader function takes a file's text (or its bytes, for a binary format) and yields its
paragraphs, each on one line, in reading order (a list's entry as an `Entry`). It may also
yield a `ReadAs` (a part that another
format's reader reads: an e-mail's HTML body, an EPUB's chapters) and a `LeftOut` (a note on a
part it could not read: a LaTeX file's missing `\\input`). `Reader.paragraphs` runs it: it
imports the optional modules the format needs first (`needs`, one hint naming `extra` when one is
missing), and keeps only the paragraphs that end a sentence where the record says so
(`running_text`).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import IO, Any

from summarizer.errors import UnreadableDocument
from summarizer.text import layout
from summarizer.text.layout import SENTENCE_END

_ALPHANUMERIC = re.compile(r"\w")


@dataclass(frozen=True)
class ReadAs:
    """A part of a document that `reader` reads (its paragraphs kept as that format keeps them)."""

    reader: Reader
    data: str | bytes


@dataclass(frozen=True)
class LeftOut:
    """A note on a part of a document that could not be read (`Document.left_out`)."""

    note: str


class Entry(str):
    """A paragraph that is an entry of a bulleted or numbered list, as a reader yields it: read as
    any paragraph is, and marked in `Document.entries` (a sentence of it that has no subject's or
    finite verb's word is chosen last: `summarizer.selection.bare_entry`)."""

    __slots__ = ()


def word_processor_paragraphs(lines: list[str], entries: Iterable[bool]) -> list[str]:
    """A word processor's paragraphs, "" for one left out (which ends a hard-wrapped line's
    paragraph): joined as plain text's lines are when they are the lines of hard-wrapped text
    (`summarizer.text.layout.rejoined`), else each one that is not empty, an `Entry` where
    `entries` says it is a list's."""
    if layout.hard_wrapped(lines):
        return layout.paragraphs("\n".join(lines))  # as `rejoined` joins them, the test made once
    return [Entry(line) if entry else line for line, entry in zip(lines, entries, strict=True) if line]


Piece = str | ReadAs | LeftOut  # a paragraph (perhaps an `Entry`), a part read as another format, a note


@dataclass(frozen=True)
class Reader:
    """One format: how `summarize --input-format`, `format=` and file extensions name it, and
    its reader function."""

    name: str  # "docx": the value of --input-format and format=
    description: str  # what a file of it is, with its article: "a Word document"
    extensions: tuple[str, ...]  # lower case, with their dot: (".docx",); a file of any other is plain text
    read: Callable[..., Iterable[Piece]]  # read(data), or read(data, path) `with_path`
    binary: bool = False  # read from the file's bytes, never decoded (a PDF; an e-mail names its own charsets)
    own_charset: bool = False  # text whose bytes name their charset (HTML): undecoded unless a byte order mark says
    running_text: bool = False  # keep only the paragraphs that end a sentence (its markup does not name all labels)
    with_path: bool = False  # read(data, path): the file's path too, or None (LaTeX reads the files it inputs)
    # A ZIP package read a part at a time (`summarizer.readers.package`): a file of it larger
    # than the input limit is read open, its pictures never, and only its text counts against it.
    packaged: bool = False
    needs: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))  # module -> what installs it
    extra: str | None = None  # bertsum's extra that installs `needs`

    def __post_init__(self) -> None:
        if not self.name.isidentifier() or self.name != self.name.lower():
            raise ValueError(f"a format's name is a lower-case identifier, got {self.name!r}")
        if any(not extension.startswith(".") or extension != extension.lower() for extension in self.extensions):
            raise ValueError(f"{self.name}: extensions are lower case and begin with a dot, got {self.extensions}")

    def require(self) -> None:
        """An `UnreadableDocument` naming what to install when a module the format needs is missing."""
        for module, package in self.needs.items():
            try:
                importlib.import_module(module)
            except ImportError:
                install = f"pip install 'bertsum[{self.extra}]'" if self.extra else f"pip install {package}"
                raise UnreadableDocument(f"reading {self.description} needs {package}: {install}") from None

    def paragraphs(
        self, data: str | bytes | IO[bytes], path: Path | None = None
    ) -> tuple[list[str], list[str], set[int]]:
        """The paragraphs of `data` read as this format, the notes on what was left out, and which
        of the paragraphs (their indices) are a list's entries (`Entry`)."""
        self.require()
        pieces = self.read(data, path) if self.with_path else self.read(data)
        paragraphs: list[str] = []
        left_out: list[str] = []
        entries: set[int] = set()
        for piece in pieces:
            if isinstance(piece, ReadAs):
                inner, notes, inner_entries = piece.reader.paragraphs(piece.data)
                entries |= {len(paragraphs) + i for i in inner_entries}
                paragraphs += inner
                left_out += notes
            elif isinstance(piece, LeftOut):
                left_out.append(piece.note)
            elif not self.running_text or is_running_text(piece):
                if isinstance(piece, Entry):
                    entries.add(len(paragraphs))
                paragraphs.append(str(piece))
        return paragraphs, left_out, entries


def is_running_text(paragraph: str) -> bool:
    """Whether a paragraph is running text: words that end a sentence (not a label, a caption, a
    heading its markup does not name)."""
    return bool(_ALPHANUMERIC.search(paragraph) and SENTENCE_END.search(paragraph))


def reader_of(module: Any) -> Reader | None:
    """The record a module ends in (`READER`), if it is a format's."""
    found = getattr(module, "READER", None)
    return found if isinstance(found, Reader) else None
