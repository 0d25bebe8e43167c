"""Documents as people have them, in running text out: one module per format, each ending in its
record (`READER`, a `summarizer.readers.base.Reader`: its name, extensions, whether it is read
from bytes, the extra it needs and its reader function), gathered by `registry`.

Adding a format is adding a module here that ends in its record (and its tests): `summarize
--input-format`, its help, `format_of` and the library's `format=` take it from there. A module
without a record is a helper of some formats (`package`: ZIP packages of XML parts;
`opendocument`: OpenDocument text and presentations). `register` adds a format from elsewhere.
"""

from summarizer.readers.base import Entry, LeftOut, ReadAs, Reader, is_running_text
from summarizer.readers.registry import (
    Document,
    TooLarge,
    check_format,
    format_of,
    formats,
    read_document,
    read_file,
    reader,
    register,
)

__all__ = [
    "Document",
    "Entry",
    "LeftOut",
    "ReadAs",
    "Reader",
    "TooLarge",
    "check_format",
    "format_of",
    "formats",
    "is_running_text",
    "read_document",
    "read_file",
    "reader",
    "register",
]
