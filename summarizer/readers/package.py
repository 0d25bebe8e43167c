"""ZIP packages of XML parts (OpenDocument, Office Open XML, EPUB): opened, their parts unpacked
within a bound counted as they inflate, and parsed safely.

A part is unpacked only when asked for, by its own reader here: stored, deflate, bzip2 or LZMA
data is inflated a chunk at a time and counted, so that what the ZIP directory says of a part's
size matters to nothing. The parts one document reads (a part read twice counts twice) unpack to
`MAX_TEXT_BYTES` at most, together; a part that would go past it stops as it does. Parts are
parsed without entities, DTDs or the network. Every failure is an `UnreadableDocument` of one
line that names the kind of document.
"""

from __future__ import annotations

import bz2
import io
import lzma
import struct
import zipfile
import zlib
from collections.abc import Callable
from typing import IO, Any

from summarizer.errors import UnreadableDocument, first_line

MAX_TEXT_BYTES = 30_000_000  # what the parts read unpack to, together at most (parsed, about 15 times that at worst)
ZIP_SIGNATURE = b"PK\x03\x04"  # a ZIP archive's first part's local header
OLE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # the old binary container (.doc, .xls, .ppt; Office's encrypted files)
# An Office file saved with a password: an OLE container whose stream holds the encrypted package.
_ENCRYPTED_OOXML = "EncryptedPackage".encode("utf-16-le")
_CHUNK = 1 << 20  # inflated at a time, at most
MAX_PARTS = 100_000  # parts a package larger than the input limit may list (a Word file lists tens)
_END_SIGNATURE = b"PK\x05\x06"  # the end of a ZIP archive's directory
_END_RECORD = struct.Struct("<4s4H2LH")  # signature, disks, parts here, parts, directory size, offset, comment
_LOCAL_HEADER = struct.Struct("<4s22xHH")  # a part's local header: signature, ..., name and extra lengths
_METHODS = {
    zipfile.ZIP_STORED: "stored",
    zipfile.ZIP_DEFLATED: "deflate",
    zipfile.ZIP_BZIP2: "bzip2",
    zipfile.ZIP_LZMA: "LZMA",
}


class Package:
    """An open ZIP package of XML parts, in memory or an open file (`data`); `kind` names the
    document in messages ("PowerPoint presentation")."""

    def __init__(self, data: bytes | IO[bytes], archive: zipfile.ZipFile, kind: str) -> None:
        self.data = data
        self.kind = kind
        self.parts = {info.filename: info for info in archive.infolist()}
        self.left = MAX_TEXT_BYTES  # what the parts still to be read may unpack to

    def _at(self, offset: int, size: int) -> bytes | memoryview:
        """`size` bytes of the package from `offset` (fewer where it ends first: a file cut short)."""
        if isinstance(self.data, bytes):
            return memoryview(self.data)[offset : offset + size]
        self.data.seek(offset)
        return self.data.read(size)

    def __contains__(self, name: str) -> bool:
        return name in self.parts

    def read(self, name: str) -> bytes:
        """Part `name`, unpacked; an `UnreadableDocument` when it is damaged, encrypted, compressed
        by a method ZIP readers do not share, or unpacks past what is left of `MAX_TEXT_BYTES`."""
        info = self.parts[name]
        if info.flag_bits & 0x1:
            raise UnreadableDocument(f"a damaged {self.kind}: {name} is encrypted")
        if info.compress_type not in _METHODS:
            raise UnreadableDocument(f"a damaged {self.kind}: {name} is compressed by method {info.compress_type}")
        start = info.header_offset
        header = self._at(start, _LOCAL_HEADER.size)
        if len(header) < _LOCAL_HEADER.size:
            raise UnreadableDocument(f"a damaged {self.kind}: no local header for {name}")
        signature, name_length, extra_length = _LOCAL_HEADER.unpack(header)
        if signature != ZIP_SIGNATURE:
            raise UnreadableDocument(f"a damaged {self.kind}: no local header for {name}")
        if info.compress_size > 2 * self.left + _CHUNK:  # no method packs text this loosely
            raise UnreadableDocument(f"{name} unpacks to more than {MAX_TEXT_BYTES / 1e6:g} MB of text")
        stored_size = min(info.compress_size, self.left + 1) if info.compress_type == zipfile.ZIP_STORED else None
        stored = self._at(start + 30 + name_length + extra_length, stored_size or info.compress_size)
        try:
            unpacked = _unpack(info.compress_type, stored, self.left)
        except (zlib.error, OSError, EOFError, lzma.LZMAError, ValueError):
            unpacked = None
        if unpacked is not None and len(unpacked) > self.left:
            raise UnreadableDocument(f"{name} unpacks to more than {MAX_TEXT_BYTES / 1e6:g} MB of text")
        if unpacked is None or zlib.crc32(unpacked) != info.CRC:
            raise UnreadableDocument(f"a damaged {self.kind}: {_METHODS[info.compress_type]} data of {name}")
        self.left -= len(unpacked)
        return bytes(unpacked)

    def xml(self, name: str, parser: Any = None) -> Any:
        """The root element of part `name`, parsed (by `parser`, else `parse_xml`'s); an
        `UnreadableDocument` when it is too large, damaged or not well-formed XML."""
        return parse_xml(self.read(name), f"{self.kind}: {name}", parser)


def _unpack(method: int, stored: bytes | memoryview, limit: int) -> bytearray | None:
    """What `stored` inflates to by `method`: all of it, or `limit` + 1 bytes when it would go
    past `limit`; None when it ends early."""
    if method == zipfile.ZIP_STORED:
        return bytearray(stored[: limit + 1])
    out = bytearray()
    if method == zipfile.ZIP_DEFLATED:
        inflater = zlib.decompressobj(-zlib.MAX_WBITS)
        pending: bytes | memoryview = stored
        while pending and not inflater.eof and len(out) <= limit:
            out += inflater.decompress(pending, _CHUNK)
            pending = inflater.unconsumed_tail
        if len(out) <= limit:
            out += inflater.flush()
        return out if inflater.eof or len(out) > limit else None
    decompressor: Any
    if method == zipfile.ZIP_BZIP2:
        decompressor = bz2.BZ2Decompressor()
    else:  # LZMA: a version and the length of the properties, the properties, then the raw stream
        (properties,) = struct.unpack_from("<2xH", stored)
        # As an .lzma ("alone") stream: the properties, a size that says "unknown", the data.
        stored = memoryview(bytes(stored[4 : 4 + properties]) + b"\xff" * 8 + bytes(stored[4 + properties :]))
        decompressor = lzma.LZMADecompressor(lzma.FORMAT_ALONE)
    decompress: Callable[[Any, int], bytes] = decompressor.decompress
    out += decompress(stored, _CHUNK)
    while not decompressor.eof and not decompressor.needs_input and len(out) <= limit:
        out += decompress(b"", _CHUNK)
    return out if decompressor.eof or len(out) > limit else None


def parse_xml(data: bytes, what: str, parser: Any = None) -> Any:
    """The root element of the XML `data`, parsed (by `parser`, else without entities, DTDs or the
    network); an `UnreadableDocument` ("not a readable `what`") when it is not well-formed."""
    from lxml import etree

    if parser is None:
        parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)
    try:
        return etree.fromstring(data, parser)
    except etree.XMLSyntaxError as error:
        raise UnreadableDocument(f"not a readable {what}: {first_line(error)}") from None


def open_package(data: bytes | IO[bytes], kind: str, main_part: str, old_binary: str | None = None) -> Package:
    """`data` (bytes, or an open file that begins as a ZIP archive: `packaged_file`) as a package
    holding `main_part`; `old_binary` is the message for a file in the old binary (OLE) container,
    of a kind that had one."""
    if isinstance(data, bytes) and data.startswith(OLE) and old_binary is not None:
        if _ENCRYPTED_OOXML in data:
            raise UnreadableDocument(f"an encrypted (password-protected) {kind}: remove its password first")
        raise UnreadableDocument(old_binary)
    try:
        # an open file is read where its parts are (a BytesIO of it would hold its pictures too)
        with zipfile.ZipFile(io.BytesIO(data) if isinstance(data, bytes) else data) as archive:
            package = Package(data, archive, kind)
    except (zipfile.BadZipFile, ValueError, OSError, NotImplementedError):
        raise UnreadableDocument(f"not {article(kind)} (not a ZIP archive)") from None
    if main_part not in package:
        raise UnreadableDocument(f"not {article(kind)} (no {main_part} in the archive)")
    return package


def packaged_file(file: IO[bytes], limit: int) -> IO[bytes] | None:
    """`file`, a package larger than the input limit, to be read a part at a time (its pictures
    never read; only its text counts against `limit`), when it begins as a ZIP archive and its
    directory is within bounds (at most `limit` bytes and `MAX_PARTS` parts, as a file within the
    limit is); None for a file of anything else, which is refused as any file over the limit is.
    A file whose directory lies past those bounds is an `UnreadableDocument`."""
    if file.read(len(ZIP_SIGNATURE)) != ZIP_SIGNATURE:
        file.seek(0)
        return None
    size = file.seek(0, io.SEEK_END)
    file.seek(max(0, size - _END_RECORD.size - 0xFFFF))  # the end record, after a comment of at most 64 KiB
    tail = file.read()
    file.seek(0)
    at = tail.rfind(_END_SIGNATURE)
    if at < 0 or at + _END_RECORD.size > len(tail):
        raise UnreadableDocument("not a ZIP archive (no end of its directory)")
    parts, directory = _END_RECORD.unpack_from(tail, at)[4:6]
    if parts == 0xFFFF or directory == 0xFFFFFFFF:
        raise UnreadableDocument("a ZIP64 archive larger than the input limit: raise the limit to read it")
    if parts > MAX_PARTS or directory > limit:
        raise UnreadableDocument(f"a ZIP archive of more than {MAX_PARTS:,} parts or a directory past the input limit")
    return file


def article(kind: str) -> str:
    """`kind` with its indefinite article: "an OpenDocument text document"."""
    return f"{'an' if kind[:1].lower() in 'aeiou' else 'a'} {kind}"
