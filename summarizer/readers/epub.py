"""EPUB books: their chapters' XHTML in reading order (the package's spine), each read as HTML is.

An EPUB is a ZIP archive: `META-INF/container.xml` names the package document (OPF), whose
manifest lists the book's files and whose spine gives the reading order. Navigation documents
(the table of contents, EPUB 3's `nav` or EPUB 2's guide entry of type "toc"), items the spine
marks non-linear and files that are not XHTML are not chapters; nor is the front matter: the
cover, the title page, the copyright page, the contents and the dedication (by the guide's
types, EPUB 3's `epub:type`, the names books give their files, or a short page that states a
copyright or an ISBN); nor a chapter that is the book's bibliography (by its type or its
first heading). A book whose chapters are
encrypted (DRM; obfuscated fonts are no obstacle) cannot be read.
"""

from __future__ import annotations

import posixpath
import re
from html import unescape
from typing import Any
from urllib.parse import unquote

from summarizer.errors import UnreadableDocument
from summarizer.readers import html
from summarizer.readers.base import ReadAs, Reader
from summarizer.readers.package import Package, open_package
from summarizer.text.apparatus import is_references_heading

KIND = "EPUB book"
CONTAINER = "META-INF/container.xml"
_XHTML = ("application/xhtml+xml", "text/html")
_CONTAINER = "{urn:oasis:names:tc:opendocument:xmlns:container}"
_OPF = "{http://www.idpf.org/2007/opf}"
_ENCRYPTION = "META-INF/encryption.xml"
_CIPHER_REFERENCE = "{http://www.w3.org/2001/04/xmlenc#}CipherReference"
_ENCRYPTION_METHOD = "{http://www.w3.org/2001/04/xmlenc#}EncryptionMethod"
# Front matter, no chapter of the book's text: the types the package's guide and EPUB 3's
# structural semantics give it, and the names books give its files ("titlepage.xhtml",
# "copyright.html", "toc.xhtml").
FRONT_MATTER = frozenset(
    "cover title-page titlepage halftitlepage halftitle copyright-page copyright imprint imprimatur colophon "
    "toc contents dedication frontispiece".split()
)
_FRONT_NAME = re.compile(
    r"(?i)(?:^|[_\-. ])"
    r"(?:cover|title|titlepage|title_page|halftitle|copyright|imprint|colophon|toc|contents|dedication)"
    r"(?:$|[_\-. \d])"
)
_TYPED = re.compile(rb"<(?:body|section|div)\b[^>]*?\bepub:type\s*=\s*[\"']([^\"']*)[\"']")
_TAG = re.compile(rb"<[^>]*>")
_HEADING = re.compile(rb"<h[1-3]\b[^>]*>(.{0,300}?)</h[1-3]\s*>", re.S)  # a chapter's first heading
_RIGHTS = re.compile(rb"(?i)\bISBN\b|all rights reserved|copyright|\xc2\xa9|&copy;|&#169;")
_SHORT_PAGE_BYTES = 20_000  # a page longer than this is no copyright page
MAX_FRONT_MATTER_WORDS = 300  # a page that states a copyright in fewer words is the copyright page
# Font obfuscation (IDPF's, Adobe's): the fonts are scrambled, the text is not.
_FONT_OBFUSCATION = ("http://www.idpf.org/2008/embedding", "http://ns.adobe.com/pdf/enc#RC")


def epub_chapters(data: bytes) -> list[bytes]:
    """The XHTML of each chapter of an EPUB book, in reading order; the container, the package
    document, the encryption list and the chapters are unpacked within one bound
    (`summarizer.readers.package.MAX_TEXT_BYTES`), and nothing else is."""
    package = open_package(data, KIND, CONTAINER)
    rootfile = package.xml(CONTAINER).find(f".//{_CONTAINER}rootfile")
    package_path = rootfile.get("full-path") if rootfile is not None else None
    if not package_path or package_path not in package:
        raise UnreadableDocument("not an EPUB book (its container names no package document)")
    chapters = _chapters(package.xml(package_path), posixpath.dirname(package_path), package)
    if _encrypted(package) & set(chapters):
        raise UnreadableDocument("its chapters are encrypted (DRM): it cannot be read without its key")
    read = [package.read(path) for path in chapters]
    return [xhtml for xhtml in read if not _apart(xhtml)]


def _apart(xhtml: bytes) -> bool:
    """Whether a chapter is front matter or the book's bibliography by what it holds: its body
    or its first block typed as such (EPUB 3's `epub:type`), a first heading that names a list
    of references, or a short page that states a copyright or an ISBN."""
    typed = _TYPED.search(xhtml)
    if typed and set(typed[1].decode("ascii", "replace").lower().split()) & (FRONT_MATTER | {"bibliography"}):
        return True
    heading = _HEADING.search(xhtml)
    if heading and is_references_heading(unescape(_TAG.sub(b"", heading[1]).decode("utf-8", "replace"))):
        return True
    if len(xhtml) > _SHORT_PAGE_BYTES:
        return False
    words = _TAG.sub(b" ", xhtml)
    return len(words.split()) < MAX_FRONT_MATTER_WORDS and _RIGHTS.search(words) is not None


def _chapters(package: Any, folder: str, parts: Package) -> list[str]:
    """The archive paths of the spine's linear XHTML items, less navigation documents."""
    guide_front = {
        reference.get("href", "").split("#")[0]
        for reference in package.iter(f"{_OPF}reference")
        if (reference.get("type") or "").lower() in FRONT_MATTER
    }
    items = {
        item.get("id"): item.get("href", "").split("#")[0]
        for item in package.iter(f"{_OPF}item")
        if item.get("media-type") in _XHTML and "nav" not in (item.get("properties") or "").split()
    }
    hrefs = [
        items.get(ref.get("idref"))
        for ref in package.iter(f"{_OPF}itemref")
        if ref.get("linear") != "no" and not _FRONT_NAME.search(ref.get("idref") or "")
    ]
    paths = [
        posixpath.normpath(posixpath.join(folder, unquote(h)))
        for h in hrefs
        if h and h not in guide_front and not _FRONT_NAME.search(posixpath.splitext(posixpath.basename(h))[0])
    ]
    return [path for path in dict.fromkeys(paths) if path in parts]


def _encrypted(package: Package) -> set[str]:
    """The parts `META-INF/encryption.xml` says are encrypted other than by font obfuscation."""
    if _ENCRYPTION not in package:
        return set()
    encryption = package.xml(_ENCRYPTION)
    found = set()
    for data in encryption.iter("{http://www.w3.org/2001/04/xmlenc#}EncryptedData"):
        method = data.find(_ENCRYPTION_METHOD)
        reference = data.find(f".//{_CIPHER_REFERENCE}")
        if reference is not None and (method is None or method.get("Algorithm") not in _FONT_OBFUSCATION):
            found.add(posixpath.normpath(unquote(reference.get("URI", ""))))
    return found


def epub_paragraphs(data: bytes) -> list[ReadAs]:
    """The chapters of an EPUB book, each to be read as a web page is."""
    return [ReadAs(html.READER, chapter) for chapter in epub_chapters(data)]


READER = Reader(
    "epub",
    "an EPUB book",
    (".epub",),
    epub_paragraphs,
    binary=True,
    packaged=True,
    needs={"lxml": "lxml", "trafilatura": "trafilatura"},
    extra="formats",
)
