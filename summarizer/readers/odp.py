"""OpenDocument presentations (.odp, and the flat .fodp): each shown slide's text, then its
speaker notes, the paragraphs that end a sentence, as `summarizer.readers.opendocument` reads them."""

from summarizer.readers.base import Reader
from summarizer.readers.opendocument import odp_paragraphs

READER = Reader(
    "odp",
    "an OpenDocument presentation",
    (".odp", ".fodp"),
    odp_paragraphs,
    binary=True,
    packaged=True,
    running_text=True,
    needs={"lxml": "lxml"},
    extra="formats",
)
