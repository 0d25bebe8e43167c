"""OpenDocument text (.odt, and the flat .fodt): the body's paragraphs that end a sentence, as
`summarizer.readers.opendocument` reads them."""

from summarizer.readers.base import Reader
from summarizer.readers.opendocument import odt_paragraphs

READER = Reader(
    "odt",
    "an OpenDocument text document",
    (".odt", ".fodt"),
    odt_paragraphs,
    binary=True,
    packaged=True,
    running_text=True,
    needs={"lxml": "lxml"},
    extra="formats",
)
