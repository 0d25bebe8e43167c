"""The formats `summarize` and the library read, gathered from the records their modules end in,
and the one way a file becomes a `Document`.

Each module of `summarizer.readers` that ends in a `READER` record (`summarizer.readers.base.Reader`)
is a format: `formats()` names them (the choices of `--input-format` and of `format=`),
`format_of` picks one by a file's extension, `read_document` reads text or bytes as one, and
`read_file` reads a file (a path, its bytes, or a stream such as standard input) as the command
and `Document.from_file` do. `register` adds a format from elsewhere.

A `Document` is the paragraphs of a document's running text, each one line, in reading order:
what is left once a file's format is read, less a news page's apparatus (bylines, time stamps)
that a copy of its text keeps and the journal articles it cites in paragraphs of their own.
"""

from __future__ import annotations

import codecs
import importlib
import os
import pkgutil
import re
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from summarizer.errors import InputError, UnreadableDocument, first_line, quoted
from summarizer.readers.base import Reader, reader_of
from summarizer.readers.package import packaged_file
from summarizer.text.apparatus import is_citation

# Byte order marks, UTF-32's before UTF-16's (UTF-32 LE's begins with UTF-16 LE's), and the
# codecs that read past them.
_BYTE_ORDER_MARKS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
_ENCODING_NAMES = {"utf-8-sig": "UTF-8", "utf-16": "UTF-16", "utf-32": "UTF-32"}
_SURROGATE = re.compile("[\ud800-\udfff]")
# Control characters (C0 but tab, DEL, C1): no text, and to a terminal the start of an escape sequence.
_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f]")
# A news page's apparatus that a copy of its text keeps, each a paragraph of its own: the byline
# ("By Daily Mail Reporter", "By Sam Webb for MailOnline"), the time stamps ("PUBLISHED: 12:32
# EST, 24 November 2013 | UPDATED: ...", "Last updated at 5:23 PM on 15th October 2011") and the
# pointer to a video below. None is a sentence of the article.
_NAME = r"[A-Z][\w'’.-]*(?:\s+(?:[A-Z][\w'’.-]*|de|van|von|der|al|bin))*"
_NEWS_APPARATUS = re.compile(
    rf"By\s+(?:\.\s+)?{_NAME}(?:\s*(?:,|and|&)\s*{_NAME})*(?:\s*,?\s+(?:for|in)\s+(?:the\s+)?{_NAME})?\s*\.?"
    r"|(?:PUBLISHED|UPDATED|Published|Updated|Last\s+updated)(?:\s*:|\s+at\b|\s+on\b)[^.!?]{0,30}?\d{1,2}[:.]\d\d\b[^.!?]{0,90}?\b\d{4}\b.{0,120}"
    r"|Scroll\s+down\s+for\s+(?:the\s+)?(?:video|videos|more)\s*\.?"
)
# The same apparatus at the start of a paragraph, as copies that lost the page's lines have it
# ("By . Daily Mail Reporter . PUBLISHED: . 12:32 EST, 24 November 2013 . | . UPDATED: . 12:47
# EST, 24 November 2013 . A teenager..."): left out of the paragraph.
_STAMP = (
    r"(?:PUBLISHED|UPDATED|Last\s+updated(?:\s+at)?)\s*:?\s*\.?\s*"
    r"[^.!?|]{0,20}?\d{1,2}:\d\d[^.!?|]{0,50}?\b\d{4}\s*\.?\s*"  # a time of day, then the year
)
_NEWS_HEADER = re.compile(
    rf"(?:By\s+\.\s+[^.!?]{{1,80}}?\s+\.\s+)?{_STAMP}(?:\|\s*\.?\s*{_STAMP})*(?:Scroll\s+down\s+for\s+video\s*\.\s*)?"
)


@dataclass(frozen=True)
class Document:
    """The running text of a document: one paragraph per entry, each on one line; and a note on
    each part it names that could not be read (a LaTeX document's missing `\\input` file)."""

    paragraphs: tuple[str, ...]
    left_out: tuple[str, ...] = ()
    entries: frozenset[int] = frozenset()  # the paragraphs (their indices) that are a list's entries

    def __post_init__(self) -> None:
        if any(_CONTROL.search(paragraph) for paragraph in self.paragraphs):  # never output: a space or nothing
            cleaned = (_CONTROL.sub(lambda c: " " if c[0].isspace() else "", p) for p in self.paragraphs)
            object.__setattr__(self, "paragraphs", tuple(cleaned))
        # Surrogates (from a notebook's JSON escapes, an RTF's \u, reStructuredText's `unicode`
        # directive) are no text that can be encoded: a pair is the character it stands for, a
        # lone one U+FFFD.
        if any(_SURROGATE.search(paragraph) for paragraph in self.paragraphs):
            mended = (p.encode("utf-16", "surrogatepass").decode("utf-16", "replace") for p in self.paragraphs)
            object.__setattr__(self, "paragraphs", tuple(mended))

    @classmethod
    def from_file(cls, path: str | Path, format: str | None = None) -> Document:
        """Read a file as `summarize` reads it (`read_file`); `format` defaults to the one its
        extension names (`format_of`)."""
        return read_file(path, format)

    @classmethod
    def from_text(cls, text: str | bytes, format: str = "text") -> Document:
        """A document from its text (or bytes: a PDF's, or UTF-8 text) in `format`."""
        return read_document(text, format, "document")


def _discover() -> dict[str, Reader]:
    """The records of this package's modules, by name (a module without one is a helper)."""
    found: dict[str, Reader] = {}
    for module in pkgutil.iter_modules([str(Path(__file__).parent)]):
        if module.name not in ("base", "registry"):
            record = reader_of(importlib.import_module(f"{__package__}.{module.name}"))
            if record is not None:
                _add(found, record)
    return found


def _add(readers: dict[str, Reader], reader: Reader, replace: bool = False) -> None:
    if reader.name in readers and not replace:
        raise ValueError(f"a format named {reader.name!r} is already registered")
    for other in readers.values():
        taken = set(other.extensions) & set(reader.extensions)
        if taken and other.name != reader.name:
            raise ValueError(f"{reader.name}: {', '.join(sorted(taken))} already names {other.name}")
    readers[reader.name] = reader


def register(reader: Reader, replace: bool = False) -> None:
    """Add a format (its name and extensions not yet taken, or `replace` one of the same name):
    from then on `formats`, `format_of`, `read_document`, `read_file`, `summarize --input-format`
    and `format=` know it."""
    _add(READERS, reader, replace)


def formats() -> tuple[str, ...]:
    """The names of the formats, in alphabetical order: `--input-format`'s choices, `format=`'s values."""
    return tuple(sorted(READERS))


def reader(format: str) -> Reader:
    """The record of the format named `format`; a `ValueError` naming the formats otherwise."""
    found = READERS.get(format) if isinstance(format, str) else None
    if found is None:
        raise ValueError(f"format must be one of {', '.join(formats())}, got {format!r}")
    return found


def check_format(format: str) -> None:
    """A `ValueError` naming the formats unless `format` is one."""
    reader(format)


def format_of(path: str | Path) -> str:
    """The format a file's extension names; plain text for any other."""
    suffix = Path(path).suffix.lower()
    return next((r.name for r in READERS.values() if suffix in r.extensions), "text")


class TooLarge(InputError):
    """A file, or its text, is larger than the limit `read_file` was given."""


def read_file(
    source: str | os.PathLike[str] | bytes | IO[bytes],
    format: str | None = None,
    *,
    name: str | None = None,
    limit: int | None = None,
    require_text: bool = False,
    notes: Callable[[str], object] | None = None,
) -> Document:
    """The running text of a file: a path, or the file's bytes or an open binary stream (standard
    input) named `name` in messages (a path's is itself, quoted as `ls` quotes it). `format`
    defaults to the one a path's extension names (`format_of`), else plain text. `limit`: a
    `TooLarge` error for a file of more bytes, or whose text (a package's parts unpacked) is
    larger. `require_text`: an `InputError` when the document has no running text (an empty
    file, or one of only markup). `notes` hears each note on a part left out (a LaTeX file's
    missing `\\input`), prefixed with the name, before that; `Document.left_out` keeps them too."""
    path = None
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        name = name or quoted(str(path))
    name = name or "document"
    format = format or (format_of(path) if path is not None else "text")
    megabytes = f"{(limit or 0) / 1_000_000:g} MB"
    data: bytes | None = None
    try:
        if path is not None:
            with path.open("rb") as file:
                package = None
                if limit is not None and reader(format).packaged and os.fstat(file.fileno()).st_size > limit:
                    try:
                        package = packaged_file(file, limit)
                    except UnreadableDocument as error:
                        raise InputError(f"{name}: {error}") from None
                if package is not None:  # read while open, a part at a time: its pictures never
                    document = read_document(package, format, name, path)
                else:
                    data = file.read(-1 if limit is None else limit + 1)
        elif isinstance(source, bytes):
            data = source
        else:
            assert not isinstance(source, (str, os.PathLike))
            data = source.read(-1 if limit is None else limit + 1)
    except OSError as error:
        raise InputError(f"{name}: cannot read: {error.strerror or error}") from None
    if data is not None:
        if limit is not None and len(data) > limit:
            raise TooLarge(f"{name}: larger than the input limit of {megabytes}")
        document = read_document(data, format, name, path)
    if limit is not None and sum(len(paragraph.encode()) for paragraph in document.paragraphs) > limit:
        raise TooLarge(f"{name}: its text is larger than the input limit of {megabytes}")
    for note in document.left_out:  # the rest is read, as LaTeX typesets the rest
        if notes is not None:
            notes(f"{name}: {note}")
    if require_text and not document.paragraphs:
        blank = data is not None and not data.removeprefix(b"\xef\xbb\xbf").strip()
        raise InputError(f"{name}: " + ("empty file" if blank else f"no running text found in this {format} file"))
    return document


def read_document(data: str | bytes | IO[bytes], format: str, name: str, path: Path | None = None) -> Document:
    """The running text of `data` read as `format` (perhaps none: `Document.paragraphs` is
    empty); an `InputError` naming `name` when it cannot be read as that format. `data` is text,
    bytes, or for a packaged format an open file (`read_file`'s of one over the limit). `path` is the
    file `data` comes from: a LaTeX document's `\\input` files are read from its directory (none
    without it)."""
    record = reader(format)
    try:
        if record.binary:
            if isinstance(data, str):
                raise UnreadableDocument(f"{record.description} is read from its bytes, not from text")
        else:
            assert isinstance(data, (str, bytes))  # a file is given open only for a packaged format
            if isinstance(data, bytes):
                data = _decode(data, keep_bytes=record.own_charset)
            if not data.strip():
                return Document(())
        paragraphs, left_out, entries = record.paragraphs(data, path)
        return _article(paragraphs, entries, tuple(left_out))
    except UnreadableDocument as error:
        raise InputError(f"{name}: {error}") from None
    except RecursionError:
        raise InputError(f"{name}: not readable as {format}: nested too deeply") from None
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, NotImplementedError) as error:
        # A reader's library met a file it was not written for: that file, not the run, fails
        # (the library's error stays the cause, for a caller that wants it).
        raise InputError(f"{name}: not readable as {format}: {first_line(error)}") from error


def _article(paragraphs: Iterable[str], entries: Collection[int], left_out: tuple[str, ...]) -> Document:
    """The document of `paragraphs` (of which `entries` are a list's) less a news page's
    apparatus (`_NEWS_APPARATUS`, `_NEWS_HEADER`) and the journal articles it cites in
    paragraphs of their own (`is_citation`), unless such citations are all it holds."""
    text: list[tuple[int, str]] = []  # each paragraph that is no news apparatus, by its index
    for i, paragraph in enumerate(paragraphs):
        header = _NEWS_HEADER.match(paragraph)
        if header and header.end() < len(paragraph):
            paragraph = paragraph[header.end() :]
        if not _NEWS_APPARATUS.fullmatch(paragraph):
            text.append((i, paragraph))
    cited = [is_citation(paragraph) for _, paragraph in text]
    kept = [piece for piece, citation in zip(text, cited) if not citation] if not all(cited) else text
    out = tuple(paragraph for _, paragraph in kept)
    return Document(out, left_out, frozenset(k for k, (i, _) in enumerate(kept) if i in entries))


def _decode(data: bytes, keep_bytes: bool) -> str | bytes:
    """UTF-8 text, or UTF-16 or UTF-32 text that begins with its byte order mark (as Windows
    saves "Unicode" text); HTML stays bytes, for its parser to decode by the page's own charset."""
    encoding = next((name for mark, name in _BYTE_ORDER_MARKS if data.startswith(mark)), None)
    if encoding is None:
        if b"\x00" in data:
            raise UnreadableDocument("binary file, not text")
        if keep_bytes:
            return data
        encoding = "utf-8-sig"
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as error:
        raise UnreadableDocument(f"not valid {_ENCODING_NAMES[encoding]} text (byte {error.start})") from None
    if "\x00" in text:
        raise UnreadableDocument("binary file, not text")
    return text


READERS = _discover()  # every format by name: the modules' records, then those `register` adds
