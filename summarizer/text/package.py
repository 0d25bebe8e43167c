"""ZIP packages of XML parts (OpenDocument, Office Open XML): opened, checked against size bounds
read from the ZIP directory before any part is unpacked, and their parts parsed safely.

A part is unpacked only when asked for, and the parts one document reads (a part read twice
counts twice) unpack to `MAX_TEXT_BYTES` at most, together; the whole archive may not claim to
unpack to more than `MAX_UNPACKED_BYTES`. A Word document is checked here too, then read by
python-docx (`summarizer.text.word`). Parts are parsed without entities, DTDs or the network.
Every failure is an `UnreadableDocument` of one line that names the kind of document.
"""

from __future__ import annotations

import io
import zipfile
import zlib
from typing import Any

from summarizer.errors import UnreadableDocument, first_line

MAX_UNPACKED_BYTES = 500_000_000  # what the archive's parts unpack to, at most (as its directory says)
MAX_TEXT_BYTES = 30_000_000  # what the parts read unpack to, together at most (parsed, about 15 times that at worst)
OLE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # the old binary container (.doc, .xls, .ppt; Office's encrypted files)
# An Office file saved with a password: an OLE container whose stream holds the encrypted package.
_ENCRYPTED_OOXML = "EncryptedPackage".encode("utf-16-le")
# What a damaged archive raises as a part is read: a bad CRC, broken compressed data, a
# ZIP-encrypted part, a part the directory names but the archive lacks.
_DAMAGED = (zipfile.BadZipFile, zlib.error, RuntimeError, KeyError, EOFError, OSError, NotImplementedError)


class Package:
    """An open ZIP package of XML parts; `kind` names the document in messages ("PowerPoint
    presentation")."""

    def __init__(self, archive: zipfile.ZipFile, kind: str) -> None:
        self.archive = archive
        self.kind = kind
        self.sizes = {info.filename: info.file_size for info in archive.infolist()}
        self._read = 0

    def __contains__(self, name: str) -> bool:
        return name in self.sizes

    def xml(self, name: str) -> Any:
        """The root element of part `name`, parsed; an `UnreadableDocument` when it is too large,
        damaged or not well-formed XML."""
        size = self.sizes[name]
        if self._read + size > MAX_TEXT_BYTES:
            raise UnreadableDocument(f"{name} unpacks to more than {MAX_TEXT_BYTES / 1e6:g} MB of text")
        self._read += size
        try:
            data = self.archive.read(name)
        except _DAMAGED as error:
            raise UnreadableDocument(f"a damaged {self.kind}: {type(error).__name__} in {name}") from None
        return parse_xml(data, f"{self.kind}: {name}")


def parse_xml(data: bytes, what: str) -> Any:
    """The root element of the XML `data`, parsed without entities, DTDs or the network; an
    `UnreadableDocument` ("not a readable `what`") when it is not well-formed."""
    from lxml import etree

    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)
    try:
        return etree.fromstring(data, parser)
    except etree.XMLSyntaxError as error:
        raise UnreadableDocument(f"not a readable {what}: {first_line(error)}") from None


def require_lxml(kind: str) -> None:
    """A one-line `UnreadableDocument` naming the extra to install when lxml is missing."""
    try:
        import lxml.etree  # noqa: F401
    except ImportError:
        from summarizer.text.documents import FORMATS_EXTRA

        raise UnreadableDocument(f"reading {kind}s needs lxml: {FORMATS_EXTRA}") from None


def open_package(data: bytes, kind: str, main_part: str, old_binary: str) -> Package:
    """`data` as a package holding `main_part`, its sizes checked; `old_binary` is the message
    for a file in the old binary (OLE) container."""
    require_lxml(kind)
    if data.startswith(OLE):
        if _ENCRYPTED_OOXML in data:
            raise UnreadableDocument(f"an encrypted (password-protected) {kind}: remove its password first")
        raise UnreadableDocument(old_binary)
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError, OSError, NotImplementedError):
        raise UnreadableDocument(f"not {article(kind)} (not a ZIP archive)") from None
    package = Package(archive, kind)
    if main_part not in package:
        raise UnreadableDocument(f"not {article(kind)} (no {main_part} in the archive)")
    if sum(package.sizes.values()) > MAX_UNPACKED_BYTES:
        raise UnreadableDocument(f"unpacks to more than {MAX_UNPACKED_BYTES / 1e6:g} MB")
    return package


def article(kind: str) -> str:
    """`kind` with its indefinite article: "an OpenDocument text document"."""
    return f"{'an' if kind[:1].lower() in 'aeiou' else 'a'} {kind}"
