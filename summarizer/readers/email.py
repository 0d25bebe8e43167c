"""E-mail messages (.eml, RFC 5322): the body the sender wrote, without what they quote.

The body is the message's plain text part, else its HTML part (read by the HTML reader; also
when the plain part is only a stub of it), decoded by its own charset and transfer encoding
(Python's `email` package; a charset Python does not know is read as UTF-8, bad bytes
replaced). Headers, attachments, the signature (a short last block after a "-- " line) and
quoted text are not the sender's running text: in plain text, lines that begin with ">" with the
"On ... wrote:" line above them, and a quoted reply below an Outlook-style "-----Original
Message-----", a line of underscores, or a "From:" line over "Sent:" or "Date:"; in HTML, the
quote and signature blocks Gmail, Outlook, Thunderbird and Apple Mail mark. An HTML body's
tables lay out its text, which is read. Nor are a newsletter's footer (at most
`MAX_FOOTER_LINES` lines after its last rule of dashes or equals signs; in HTML, the block of at
most `MAX_FOOTER_CHARS` characters that holds its copyright notice), its headlines
(`summarizer.text.layout.is_headline`), the links its plain part writes as a label and an
address (and the addresses it writes after links' labels, or at a paragraph's start), nor any
paragraph that ends no sentence (a button, a bare address). A file in mbox form (beginning
"From ") is read as its first message.
"""

from __future__ import annotations

import re
from email import policy
from email.message import MIMEPart
from email.parser import BytesParser

from summarizer.errors import UnreadableDocument
from summarizer.readers import html, text
from summarizer.readers.base import Entry, LeftOut, Reader
from summarizer.text.layout import is_headline

MAX_HEADER_BYTES = 1_000_000  # a message's headers, at most
MAX_SIGNATURE_LINES = 10  # a block after "-- " longer than this is no signature
MAX_FOOTER_LINES = 20  # the lines of text after a newsletter's last rule (its footer), at most
MIN_HEADLINE_RUN = 3  # lines of an advertisement's list of features, one of them a headline
LAST_NOTICES = 3  # the paragraphs at a message's end read for a notice of how to stop the mail
_OPT_OUT = re.compile(
    r"\bunsubscribe\b|\bopt[- ]out\b|\b(?:receive|get)\b[^.!?]{0,30}\b(?:e-?mails?|mail|messages|newsletters?)\b",
    re.IGNORECASE,
)
_SIGNATURE = re.compile(r"(?m)^-- ?$")
_ORIGINAL = re.compile(r"(?mi)^[ \t]*-{2,}[ \t]*(?:original message|forwarded message)[ \t]*-{2,}[ \t]*$")
_RULE = re.compile(r"(?m)^_{20,}[ \t]*$")  # Outlook's line over a quoted reply
_QUOTED_HEADER = re.compile(r"(?m)^[ \t]*\*?From:\*?[ \t].*\n(?:[ \t]*\*?(?:Sent|Date):)", re.IGNORECASE)
_FOOTER_RULE = re.compile(r"(?m)^[ \t]*([-=*~])\1{19,}[ \t]*$")  # a newsletter's line over its footer
# A newsletter's copyright notice: the block that holds it, when short, is its footer.
_COPYRIGHT = re.compile(r"^\s*(?:©|\(c\)|copyright\b)|\ball rights reserved\b", re.IGNORECASE)
MAX_FOOTER_CHARS = 600
MAX_NOTICE_CHARS = 200
_LINK = re.compile(r"(.*?)\s*(?:<https?://[^\s<>]+>|\(https?://[^\s()]+\))")
MAX_LINK_WORDS = 12
_LINK_ADDRESS = re.compile(r"[ \t]*(?:<https?://[^\s<>]+>|\(https?://[^\s()]+\))")
_LEADING_ADDRESS = re.compile(r"^https?://\S*?(?:(?<=\d)(?=[A-Z][a-z])|(?=\s)|$)")
_QUOTED = re.compile(r"(?m)^[ \t]*>.*$\n?")
_ATTRIBUTION = re.compile(
    r"(?m)^[^\n]*\b(?:wrote|writes|schrieb|a écrit|escribió)[ \t]*:[ \t]*\n(?=(?:[ \t]*\n){0,3}[ \t]*>)"
)
_HEADER_END = re.compile(rb"\r?\n\r?\n")
_MBOX_NEXT = re.compile(rb"\n\nFrom \S")
# HTML blocks that hold a quoted reply or a signature, by class or id, as mail programs mark them.
_HTML_QUOTES = (
    "//blockquote[@type='cite']",
    "//*[contains(concat(' ', normalize-space(@class), ' '), ' gmail_quote ')]",
    "//*[contains(concat(' ', normalize-space(@class), ' '), ' gmail_signature ')]",
    "//*[contains(concat(' ', normalize-space(@class), ' '), ' moz-cite-prefix ')]",
    "//*[contains(concat(' ', normalize-space(@class), ' '), ' moz-signature ')]",
    "//*[@id='appendonsend']",
    "//*[@id='Signature']",
)
_HTML_CUT = ("//*[@id='divRplyFwdMsg']", "//*[@id='appendonsend']")  # Outlook: the quoted reply follows
# A message's tables lay its text out (newsletters, receipts and notices set every block in a
# table's cells): read as the blocks they are, not left out as a web page's data tables are.
_LAYOUT = ("table", "thead", "tbody", "tfoot", "tr", "td", "th", "caption")
_STUB = 200  # a plain part this short, beside an HTML part three times as long, is a stub


def email_body(data: bytes) -> tuple[str, str]:
    """The format ("text" or "html") and text of a message's body, quoted text and signature out."""
    if data.startswith(b"From "):  # mbox: its first message
        data = data.split(b"\n", 1)[1] if b"\n" in data else b""
        following = _MBOX_NEXT.search(data)
        data = data[: following.start()] if following else data
    header_end = _HEADER_END.search(data)
    if (header_end.start() if header_end else len(data)) > MAX_HEADER_BYTES:
        raise UnreadableDocument(f"an e-mail message with more than {MAX_HEADER_BYTES / 1e6:g} MB of headers")
    message = BytesParser(policy=policy.default).parsebytes(data)
    if not message.keys():
        raise UnreadableDocument("not an e-mail message (no headers)")
    plain, html = message.get_body(preferencelist=("plain",)), message.get_body(preferencelist=("html",))
    plain_text, html_text = _content(plain), _content(html)
    if html_text and (not plain_text or _is_stub(plain_text, html_text)):
        return "html", html_body(html_text)
    return "text", without_quotes(plain_text)


def _content(part: MIMEPart | None) -> str:
    """A part's text by its charset; UTF-8 with bad bytes replaced where Python knows no such charset."""
    if part is None:
        return ""
    try:
        content = part.get_content()
    except (LookupError, ValueError, AssertionError):  # an unknown charset, a damaged encoding
        payload = part.get_payload(decode=True)
        content = payload.decode("utf-8", errors="replace") if isinstance(payload, bytes) else ""
    return content if isinstance(content, str) else ""


def _is_stub(plain: str, html: str) -> bool:
    """Whether a plain part only points to the HTML one ("This message is in HTML format")."""
    visible = re.sub(r"<[^>]*>", " ", html)
    return len(plain.strip()) < _STUB and len(" ".join(visible.split())) > 3 * len(plain.strip())


def without_quotes(text: str) -> str:
    """A plain text body less its signature, quoted lines and the lines that introduce them."""
    for cut in (_ORIGINAL, _RULE, _QUOTED_HEADER):
        found = cut.search(text)
        if found:
            text = text[: found.start()]
    footers = list(_FOOTER_RULE.finditer(text))
    if footers and _lines(text[footers[-1].end() :]) <= MAX_FOOTER_LINES and _lines(text[: footers[-1].start()]):
        text = text[: footers[-1].start()]
    signatures = list(_SIGNATURE.finditer(text))
    if signatures and text[signatures[-1].end() :].strip().count("\n") < MAX_SIGNATURE_LINES:
        text = text[: signatures[-1].start()]
    return _QUOTED.sub("", _ATTRIBUTION.sub("", text))


def _lines(text: str) -> int:
    """How many lines of `text` hold anything."""
    return sum(1 for line in text.splitlines() if line.strip())


def html_body(html: str) -> str:
    """An HTML body less its quoted reply and signature blocks (by the marks mail programs
    give), its layout tables read as the blocks they lay out (`_LAYOUT`)."""
    try:
        from lxml import etree
        from lxml import html as lxml_html
    except ImportError:
        return html  # the HTML reader says what to install
    try:
        tree = lxml_html.document_fromstring(html)
    except (etree.ParserError, ValueError):
        return html
    for path in _HTML_CUT:
        for element in tree.xpath(path):
            for following in list(element.itersiblings()):
                following.getparent().remove(following)
    for path in _HTML_QUOTES:
        for element in tree.xpath(path):
            if element.getparent() is not None:
                element.getparent().remove(element)
    for notice in tree.xpath("//p | //div | //td | //span"):
        footer, line = notice.getparent(), " ".join((notice.text_content() or "").split())
        if footer is None or footer.tag in ("body", "html") or len(line) > MAX_NOTICE_CHARS:
            continue
        if _COPYRIGHT.search(line) and len(" ".join(footer.text_content().split())) <= MAX_FOOTER_CHARS:
            if footer.getparent() is not None:
                footer.getparent().remove(footer)
    for element in tree.iter(*_LAYOUT):
        element.tag = "div"
    return str(lxml_html.tostring(tree, encoding="unicode"))


def email_paragraphs(data: bytes) -> list[str | LeftOut]:
    """The body of an e-mail message, read as plain text or as a web page is, less its
    headlines (`is_headline`: a newsletter's or an advertisement's, which may end as sentences do)
    and its last lines' notice of how to stop the mail."""
    format, body = email_body(data)
    if not body.strip():
        return []
    paragraphs, notes, listed = (html.READER if format == "html" else text.READER).paragraphs(body)
    paragraphs = [Entry(p) if i in listed else p for i, p in enumerate(paragraphs)]  # an HTML body's list items
    if format == "text":
        paragraphs = [_without_addresses(p) for p in paragraphs if not _is_link(p)]
    return [*_without_opt_out(_without_headlines(paragraphs)), *(LeftOut(note) for note in notes)]


def _without_opt_out(paragraphs: list[str]) -> list[str]:
    """`paragraphs` less the notices among their last `LAST_NOTICES` that say how to stop the
    mail ("If you do not want to receive any further mail click here.", "Unsubscribe"), a
    footer no rule or copyright notice marks."""
    last = [i for i, p in enumerate(paragraphs) if p.strip()][-LAST_NOTICES:]
    return [p for i, p in enumerate(paragraphs) if not (i in last and _OPT_OUT.search(p))]


def _without_headlines(paragraphs: list[str]) -> list[str]:
    """`paragraphs` less their headlines, and less the lines in title case but for one word
    inside a run of `MIN_HEADLINE_RUN` such lines or headlines: an advertisement's list of features
    ("With 120+ Aircraft to Master", "20,000+ Real Airports With changeable Weather", ...) reads as
    its headlines do, where a news sentence full of names beside one headline stays."""
    headline = [is_headline(p) for p in paragraphs]
    near = [alone or is_headline(p, 1) for p, alone in zip(paragraphs, headline)]
    listed = [False] * len(paragraphs)
    start = 0
    for end in range(len(paragraphs) + 1):
        if end == len(paragraphs) or not near[end]:
            if end - start >= MIN_HEADLINE_RUN and any(headline[start:end]):
                listed[start:end] = [True] * (end - start)
            start = end + 1
    return [p for p, alone, in_list in zip(paragraphs, headline, listed) if not (alone or in_list)]


def _without_addresses(paragraph: str) -> str:
    """A plain text paragraph as the message's HTML shows it: without the addresses written
    after links' labels, nor one that begins it (an image's link; a word run into its end after
    its digits is the paragraph's first)."""
    return _LEADING_ADDRESS.sub("", _LINK_ADDRESS.sub("", paragraph)).strip()


def _is_link(paragraph: str) -> bool:
    """Whether a plain text paragraph is a link as a newsletter's plain part writes one: a
    short label, its address after it ("View this email in your browser (https://...)")."""
    found = _LINK.fullmatch(paragraph)
    return found is not None and len(found.group(1).split()) <= MAX_LINK_WORDS


READER = Reader("email", "an e-mail message", (".eml",), email_paragraphs, binary=True, running_text=True)
