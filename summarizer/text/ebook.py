"""EPUB books: their chapters' XHTML in reading order (the package's spine), for the HTML reader.

An EPUB is a ZIP archive: `META-INF/container.xml` names the package document (OPF), whose
manifest lists the book's files and whose spine gives the reading order. Navigation documents
(the table of contents, EPUB 3's `nav` or EPUB 2's guide entry of type "toc"), items the spine
marks non-linear and files that are not XHTML are not chapters. A book whose chapters are
encrypted (DRM; obfuscated fonts are no obstacle) cannot be read.
"""

from __future__ import annotations

import io
import posixpath
import zipfile
import zlib
from typing import Any
from urllib.parse import unquote

from summarizer.errors import UnreadableDocument

MAX_CHAPTER_BYTES = 100_000_000  # what the chapters unpack to, at most
MAX_PACKAGE_BYTES = 10_000_000  # the container and the package document, each at most
_XHTML = ("application/xhtml+xml", "text/html")
_CONTAINER = "{urn:oasis:names:tc:opendocument:xmlns:container}"
_OPF = "{http://www.idpf.org/2007/opf}"
_ENCRYPTION = "META-INF/encryption.xml"
_CIPHER_REFERENCE = "{http://www.w3.org/2001/04/xmlenc#}CipherReference"
_ENCRYPTION_METHOD = "{http://www.w3.org/2001/04/xmlenc#}EncryptionMethod"
# Font obfuscation (IDPF's, Adobe's): the fonts are scrambled, the text is not.
_FONT_OBFUSCATION = ("http://www.idpf.org/2008/embedding", "http://ns.adobe.com/pdf/enc#RC")
# What a damaged archive raises as a part is read: a bad CRC, broken compressed data, a
# ZIP-encrypted part, a part the directory names but the archive lacks.
_DAMAGED = (zipfile.BadZipFile, zlib.error, RuntimeError, KeyError, EOFError, OSError, NotImplementedError)


def epub_chapters(data: bytes) -> list[bytes]:
    """The XHTML of each chapter of an EPUB book, in reading order."""
    try:
        from lxml import etree
    except ImportError:
        from summarizer.text.documents import FORMATS_EXTRA

        raise UnreadableDocument(f"reading EPUB books needs lxml: {FORMATS_EXTRA}") from None
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError, OSError, NotImplementedError):
        raise UnreadableDocument("not an EPUB book (not a ZIP archive)") from None
    with archive:
        sizes = {info.filename: info.file_size for info in archive.infolist()}
        if "META-INF/container.xml" not in sizes:
            raise UnreadableDocument("not an EPUB book (no META-INF/container.xml in the archive)")
        parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)
        try:
            container = etree.fromstring(_read(archive, sizes, "META-INF/container.xml"), parser)
            rootfile = container.find(f".//{_CONTAINER}rootfile")
            package_path = rootfile.get("full-path") if rootfile is not None else None
            if not package_path or package_path not in sizes:
                raise UnreadableDocument("not an EPUB book (its container names no package document)")
            package = etree.fromstring(_read(archive, sizes, package_path), parser)
            chapters = _chapters(package, posixpath.dirname(package_path), sizes)
            encrypted = _encrypted(archive, sizes, parser) & set(chapters)
        except etree.XMLSyntaxError as error:
            raise UnreadableDocument(f"not a readable EPUB book: {error}") from None
        if encrypted:
            raise UnreadableDocument("its chapters are encrypted (DRM): it cannot be read without its key")
        if sum(sizes[path] for path in chapters) > MAX_CHAPTER_BYTES:
            raise UnreadableDocument(f"its chapters unpack to more than {MAX_CHAPTER_BYTES / 1e6:g} MB")
        try:
            return [archive.read(path) for path in chapters]
        except _DAMAGED as error:
            raise UnreadableDocument(f"a damaged EPUB book: {type(error).__name__}") from None


def _read(archive: zipfile.ZipFile, sizes: dict[str, int], name: str) -> bytes:
    """A part of the package (its container, its package document), of bounded size."""
    if sizes[name] > MAX_PACKAGE_BYTES:
        raise UnreadableDocument(f"{name} unpacks to more than {MAX_PACKAGE_BYTES / 1e6:g} MB")
    try:
        return archive.read(name)
    except _DAMAGED as error:
        raise UnreadableDocument(f"a damaged EPUB book: {type(error).__name__}") from None


def _chapters(package: Any, folder: str, sizes: dict[str, int]) -> list[str]:
    """The archive paths of the spine's linear XHTML items, less navigation documents."""
    guide_toc = {
        reference.get("href", "").split("#")[0]
        for reference in package.iter(f"{_OPF}reference")
        if reference.get("type") == "toc"
    }
    items = {
        item.get("id"): item.get("href", "").split("#")[0]
        for item in package.iter(f"{_OPF}item")
        if item.get("media-type") in _XHTML and "nav" not in (item.get("properties") or "").split()
    }
    hrefs = [items.get(ref.get("idref")) for ref in package.iter(f"{_OPF}itemref") if ref.get("linear") != "no"]
    paths = [posixpath.normpath(posixpath.join(folder, unquote(h))) for h in hrefs if h and h not in guide_toc]
    return [path for path in dict.fromkeys(paths) if path in sizes]


def _encrypted(archive: zipfile.ZipFile, sizes: dict[str, int], parser: Any) -> set[str]:
    """The parts `META-INF/encryption.xml` says are encrypted other than by font obfuscation."""
    from lxml import etree

    if _ENCRYPTION not in sizes:
        return set()
    encryption = etree.fromstring(_read(archive, sizes, _ENCRYPTION), parser)
    found = set()
    for data in encryption.iter("{http://www.w3.org/2001/04/xmlenc#}EncryptedData"):
        method = data.find(_ENCRYPTION_METHOD)
        reference = data.find(f".//{_CIPHER_REFERENCE}")
        if reference is not None and (method is None or method.get("Algorithm") not in _FONT_OBFUSCATION):
            found.add(posixpath.normpath(unquote(reference.get("URI", ""))))
    return found
