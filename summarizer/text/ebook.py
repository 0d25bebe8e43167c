"""EPUB books: their chapters' XHTML in reading order (the package's spine), for the HTML reader.

An EPUB is a ZIP archive: `META-INF/container.xml` names the package document (OPF), whose
manifest lists the book's files and whose spine gives the reading order. Navigation documents
(the table of contents) and files that are not XHTML are not chapters.
"""

from __future__ import annotations

import io
import posixpath
import zipfile
from urllib.parse import unquote

from summarizer.errors import UnreadableDocument

MAX_UNPACKED_BYTES = 500_000_000  # what the chapters unpack to, at most
_XHTML = ("application/xhtml+xml", "text/html")
_CONTAINER = "{urn:oasis:names:tc:opendocument:xmlns:container}"
_OPF = "{http://www.idpf.org/2007/opf}"


def epub_chapters(data: bytes) -> list[bytes]:
    """The XHTML of each chapter of an EPUB book, in reading order."""
    try:
        from lxml import etree
    except ImportError:
        from summarizer.text.documents import FORMATS_EXTRA

        raise UnreadableDocument(f"reading EPUB books needs lxml: {FORMATS_EXTRA}") from None

    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError, OSError):
        raise UnreadableDocument("not an EPUB book (not a ZIP archive)") from None
    with archive:
        names = set(archive.namelist())
        if "META-INF/container.xml" not in names:
            raise UnreadableDocument("not an EPUB book (no META-INF/container.xml in the archive)")
        parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)
        try:
            container = etree.fromstring(archive.read("META-INF/container.xml"), parser)
            rootfile = container.find(f".//{_CONTAINER}rootfile")
            package_path = rootfile.get("full-path") if rootfile is not None else None
            if not package_path or package_path not in names:
                raise UnreadableDocument("not an EPUB book (its container names no package document)")
            package = etree.fromstring(archive.read(package_path), parser)
        except etree.XMLSyntaxError as error:
            raise UnreadableDocument(f"not a readable EPUB book: {error}") from None
        folder = posixpath.dirname(package_path)
        items = {
            item.get("id"): item
            for item in package.iter(f"{_OPF}item")
            if item.get("media-type") in _XHTML and "nav" not in (item.get("properties") or "").split()
        }
        order = [ref.get("idref") for ref in package.iter(f"{_OPF}itemref") if ref.get("linear") != "no"]
        paths = [posixpath.normpath(posixpath.join(folder, unquote(items[i].get("href")))) for i in order if i in items]
        chapters = [path for path in paths if path in names]
        if sum(archive.getinfo(path).file_size for path in chapters) > MAX_UNPACKED_BYTES:
            raise UnreadableDocument(f"its chapters unpack to more than {MAX_UNPACKED_BYTES / 1e6:g} MB")
        return [archive.read(path) for path in chapters]
