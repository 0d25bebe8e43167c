"""E-mail messages (.eml, RFC 5322): the body the sender wrote, without what they quote.

The body is the message's plain text part, else its HTML part (read by the HTML reader), decoded
by its own charset and transfer encoding (Python's `email` package). Headers, attachments, the
signature (after a "-- " line) and quoted text (lines that begin with ">", and the "On ... wrote:"
line above them, or an Outlook-style "-----Original Message-----" and all below it) are not
the sender's running text.
"""

from __future__ import annotations

import re
from email import policy
from email.parser import BytesParser

from summarizer.errors import UnreadableDocument

_SIGNATURE = re.compile(r"(?m)^-- ?$")
_ORIGINAL = re.compile(r"(?mi)^\s*-{2,}\s*(?:original message|forwarded message)\s*-{2,}\s*$")
_QUOTED = re.compile(r"(?m)^[ \t]*>.*$\n?")
_ATTRIBUTION = re.compile(r"(?m)^.*\b(?:wrote|writes|schrieb|a écrit|escribió)\s*:\s*$\n?(?=(?:[ \t]*\n)*[ \t]*>)")


def email_body(data: bytes) -> tuple[str, str]:
    """The format ("text" or "html") and text of a message's body, quoted text and signature out."""
    message = BytesParser(policy=policy.default).parsebytes(data)
    if not message.keys():
        raise UnreadableDocument("not an e-mail message (no headers)")
    body = message.get_body(preferencelist=("plain", "html"))
    if body is None:
        return "text", ""
    try:
        text = body.get_content()
    except (LookupError, ValueError) as error:  # an unknown charset, a damaged encoding
        raise UnreadableDocument(f"an e-mail body that cannot be decoded: {error}") from None
    if not isinstance(text, str):
        return "text", ""
    if body.get_content_subtype() == "html":
        return "html", text
    return "text", without_quotes(text)


def without_quotes(text: str) -> str:
    """A plain text body less its signature, quoted lines and the lines that introduce them."""
    for cut in (_SIGNATURE, _ORIGINAL):
        found = cut.search(text)
        if found:
            text = text[: found.start()]
    return _QUOTED.sub("", _ATTRIBUTION.sub("", text))
