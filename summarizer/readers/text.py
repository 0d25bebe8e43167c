"""Plain text: paragraphs as `summarizer.text.layout` finds them (soft wraps joined). A file whose
extension no format names is read as plain text, and so is standard input."""

from summarizer.readers.base import Reader
from summarizer.text.layout import paragraphs

READER = Reader("text", "a plain text file", (".txt",), paragraphs)
